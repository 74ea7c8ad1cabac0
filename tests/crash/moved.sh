#!/usr/bin/env bash
# The host commands on an image that ran away from its link address (issue 22): the crash program
# (tests/crash/crash_program.c) built -pie runs wherever Linux's loader puts it, a random address
# each run, and prints its live backtrace and its crash record. `sfu crash`, `sfu symbolize
# --image`, `sfu minidump` (walked by Breakpad's minidump_stackwalk) and `sfu stackwalk` must name
# every frame from the unmoved ELF; synthetic biases (up, down, beyond the image, two images moved
# differently) rewrite the unmoved program's log; every way of not being able to place an image
# is said, with its exit status.
#   usage: tests/crash/moved.sh SFU PIE_PROGRAM PROGRAM BREAKPAD_BIN WORKDIR
# PROGRAM is the same program linked at a fixed address (-no-pie). The last line is
# "moved: N passed, M failed".
set -u
sfu=$1 pie=$2 fixed=$3 bp=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() {
  echo "FAIL $1"
  shift
  for line in "$@"; do echo "    $line"; done
  fail=$((fail + 1))
}
finish() {
  echo "moved: $pass passed, $fail failed"
  [[ $fail -eq 0 ]]
  exit
}

# expect NAME STATUS PATTERN -- COMMAND...: COMMAND exits with STATUS and its output (stdout and
# stderr) holds PATTERN (a fixed string).
expect() {
  local name=$1 status=$2 pattern=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne $status ]]; then
    bad "$name: exit status $rc, not $status" "$(head -n 20 <<<"$out")"
  elif ! grep -qF -- "$pattern" <<<"$out"; then
    bad "$name: no '$pattern' in the output" "$(head -n 20 <<<"$out")"
  else
    ok "$name"
  fi
}

record=$work/record.bin log=$work/serial.log
if ! "$pie" "$record" >"$log"; then
  bad "the -pie program captures and prints its record"
  finish
fi
# Where it ran: the live trace's module line; where it was linked: __executable_start, 0 in a PIE.
read -r run _ < <(sed -n 's/^module 0 image 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) build-id .*/\1 \2/p' "$log")
link=$(nm "$pie" | awk '$3 == "__executable_start" { print $1 }' | sed 's/^0*\(.\)/\1/')
if [[ -n ${run:-} && -n $link && $((16#$run)) -ne $((16#$link)) ]]; then
  ok "the program ran away from its link address (0x$link -> 0x$run)"
else
  bad "the program ran away from its link address" "module line at '${run:-none}', linked at '${link:-?}'"
  finish
fi
run=$(printf '%x' $((16#$run)))  # as the host tools print addresses: no leading zeros
bias=$(printf '0x%x' $((16#$run - 16#$link)))

# ---- sfu crash: names, lines and the re-walk, from the unmoved ELF -------------------------------
expect "crash: the record, moved" 0 "moved +$bias from its link address: [__executable_start, etext) (link address 0x$link) ran at 0x$run" \
  -- "$sfu" crash "$record" --image "$pie"
expect "crash: the re-walk at the bias" 0 "every frame the host could walk equals the device's" -- "$sfu" crash "$record" --image "$pie"
expect "crash: inlined frames and lines" 0 "drain_queue at " -- "$sfu" crash "$log" --image "$pie"
# Every frame the device named is named alike by the host, with a file:line under it.
decoded=$("$sfu" crash "$log" --image "$pie" 2>&1)
device=$(grep '^sfu-crash:  #' "$log" | sed -n 's/.*  image  \([A-Za-z_]*\)+\(0x[0-9a-f]*\)\/.*/\1+\2/p')
host=$(grep '^ #' <<<"$decoded" | sed -n 's/.*  image  \([A-Za-z_]*\)+\(0x[0-9a-f]*\)$/\1+\2/p')
lines=$(grep -c '^        [A-Za-z_]* at .*crash_program\.c:[0-9]*' <<<"$decoded")
if [[ -n $device && $device == "$host" && $lines -ge $(wc -l <<<"$device") ]]; then
  ok "crash: every frame named as the device named it, with its line ($(echo $device))"
else
  bad "crash: every frame named as the device named it" "device: $(echo $device)" "host: $(echo $host)" "lines: $lines"
fi

# ---- sfu symbolize --image: the live trace and the record's, placed by their module lines --------
# annotations LOG [IMAGE-ARGS...]: "device-name host-name" per annotated frame line.
annotations() {
  local l=$1
  shift
  "$sfu" symbolize "$@" "$l" 2>/dev/null | sed -n 's/.*#[0-9]* .*  image  \([A-Za-z_]*\)+\(0x[0-9a-f]*\)\/0x[0-9a-f]*  \([A-Za-z_]*\)+\(0x[0-9a-f]*\) .*crash_program\.c:[0-9]*.*/\1+\2 \3+\4/p'
}
got=$(annotations "$log" --image "$pie")
frames=$(grep -c '#[0-9].*  image  ' "$log")
if [[ $(wc -l <<<"$got") -eq $frames ]] && awk '$1 != $2 { exit 1 }' <<<"$got"; then
  ok "symbolize: all $frames frame lines in the image annotated as the device named them"
else
  bad "symbolize: all $frames frame lines annotated as the device named them" "$got"
fi
expect "symbolize: exit 0" 0 "" -- "$sfu" symbolize --image "$pie" "$log"
if [[ -z $("$sfu" symbolize --image "$pie" "$log" 2>&1 >/dev/null) ]]; then ok "symbolize: nothing on stderr"; else bad "symbolize: nothing on stderr"; fi
# A log from another printer, without module lines: the address given, ELF@ADDRESS (its first
# loaded byte, __executable_start here) places it; without it, nothing is annotated and the note says why.
grep -v 'module 0 image' "$log" >"$work/no-modules.log"
if [[ $(annotations "$work/no-modules.log" --image "$pie@0x$run") == "$got" ]]; then
  ok "symbolize: ELF@ADDRESS places a log without module lines"
else
  bad "symbolize: ELF@ADDRESS places a log without module lines"
fi
expect "symbolize: a moved log without module lines is refused, each address named" 1 \
  "note: 8 of 10 frames were not annotated, their addresses in no image:" -- "$sfu" symbolize --image "$pie" "$work/no-modules.log"
expect "symbolize: ... and the image tried" 1 \
  "$pie at its link address (no module line of the log has its build-id $(readelf -n "$pie" | sed -n 's/.*Build ID: //p'))" \
  -- "$sfu" symbolize --image "$pie" "$work/no-modules.log"
expect "symbolize: a wrong ELF@ADDRESS" 1 "$pie at bias +0x1000 (given: its first loaded byte (link address 0x0) ran at 0x1000)" \
  -- "$sfu" symbolize --image "$pie@0x1000" "$log"
expect "symbolize: ELF@ not an address" 2 "--image $pie@0x12zz: not ELF@ADDRESS" -- "$sfu" symbolize --image "$pie@0x12zz" "$log"
expect "symbolize: the wrong image for the module line" 1 "module line image 0x$run-" -- "$sfu" symbolize --image "$fixed" "$log"
printf 'U-Boot 2024.01\nStarting kernel ...\n' >"$work/no-trace.log"
expect "symbolize: a log without a trace" 1 "the log holds no backtrace frame line" -- "$sfu" symbolize --image "$pie" "$work/no-trace.log"
# Addresses on the command line, where the image ran.
first=$(sed -n 's/^ #0 *0x0*\([0-9a-f]*\) .*/\1/p' "$log")
expect "symbolize ELF@ADDRESS ADDR" 0 "0x$first record_crash+0x" -- "$sfu" symbolize "$pie@0x$run" "0x$first"

# ---- Synthetic biases: the fixed program's log moved by rewriting its addresses ------------------
"$fixed" "$work/fixed.bin" >"$work/fixed.log" || bad "the fixed program runs"
want=$(annotations "$work/fixed.log" --image "$fixed")
# shift_log IN OUT BIAS: every module line and frame PC inside a module moved by BIAS (mod 2^64).
shift_log() {
  python3 - "$@" <<'EOF'
import re, sys
src, dst, bias = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
mask = (1 << 64) - 1
mod = re.compile(r'(module \d+ \S+ )0x([0-9a-f]{16})-0x([0-9a-f]{16})')
frame = re.compile(r'(#\d+ +(?:\? +)?)0x([0-9a-f]{16})(  sp .*  image  )')
out = []
for line in open(src):
    line = mod.sub(lambda m: '%s0x%016x-0x%016x' % (m.group(1), (int(m.group(2), 16) + bias) & mask,
                                                   (int(m.group(3), 16) + bias) & mask), line)
    line = frame.sub(lambda m: '%s0x%016x%s' % (m.group(1), (int(m.group(2), 16) + bias) & mask, m.group(3)), line)
    out.append(line)
open(dst, 'w').write(''.join(out))
EOF
}
for b in 0x40000000 -0x400000 0x7f0000000000; do
  shift_log "$work/fixed.log" "$work/shifted.log" "$b"
  got=$(annotations "$work/shifted.log" --image "$fixed")
  if [[ -n $want && $got == "$want" ]]; then ok "symbolize: moved by $b, named as unmoved"; else bad "symbolize: moved by $b" "$got"; fi
done
# Two images in one log, moved by different biases: each frame from its own image.
shift_log "$work/fixed.log" "$work/shifted.log" 0x10000000
cat "$work/shifted.log" "$log" >"$work/two.log"
got=$(annotations "$work/two.log" --image "$fixed" --image "$pie")
if [[ $got == "$want"$'\n'"$(annotations "$log" --image "$pie")" ]]; then
  ok "symbolize: two images moved by different biases"
else
  bad "symbolize: two images moved by different biases" "$got"
fi

# Module lines without a build-id (a kernel that passes no build-id note, or a core built without
# CONFIG_SFU_BUILD_ID): the one image no line names goes with the one such line, and only then.
shift_log "$work/fixed.log" "$work/shifted.log" 0x10000000
sed 's/ build-id [0-9a-f]*\( *\)$/ no build-id\1/' "$work/shifted.log" >"$work/no-id.log"
if grep -q ' no build-id' "$work/no-id.log" && [[ $(annotations "$work/no-id.log" --image "$fixed") == "$want" ]]; then
  ok "symbolize: a moved log without build-ids, one image: placed by its module line"
else
  bad "symbolize: a moved log without build-ids, one image" "$(annotations "$work/no-id.log" --image "$fixed")"
fi
# (The log is read as it comes: the other image's line must come first.)
cat "$log" "$work/no-id.log" >"$work/two-one-id.log"
if [[ $(annotations "$work/two-one-id.log" --image "$fixed" --image "$pie") == "$(annotations "$log" --image "$pie")"$'\n'"$want" ]]; then
  ok "symbolize: one image by its build-id, the other by the one line without"
else
  bad "symbolize: one image by its build-id, the other by the one line without"
fi
# A line with a build-id is another image's, given or not: it leaves the pairing alone.
if [[ $(annotations "$work/two-one-id.log" --image "$fixed") == "$want" ]]; then
  ok "symbolize: a line of an image not given leaves the line without a build-id to the one image"
else
  bad "symbolize: a line of an image not given leaves the line without a build-id to the one image"
fi
sed 's/ build-id [0-9a-f]*\( *\)$/ no build-id\1/' "$log" >"$work/pie-no-id.log"
cat "$work/no-id.log" "$work/pie-no-id.log" >"$work/two-no-id.log"
expect "symbolize: two lines and two images without build-ids are not guessed" 1 \
  "no build-id, and not the one such line for the one image left (give its image as ELF@ADDRESS)" \
  -- "$sfu" symbolize --image "$fixed" --image "$pie" "$work/two-no-id.log"

# ---- Breakpad: a minidump of the moved record, walked by minidump_stackwalk; sfu stackwalk -------
expect "minidump: the module where it ran" 0 "module crash_program_pie 0x$run-" -- "$sfu" minidump "$record" --image "$pie" -o "$work/moved.dmp"
if [[ -x $bp/dump_syms && -x $bp/minidump_stackwalk ]]; then
  "$bp/dump_syms" "$pie" >"$work/pie.sym" 2>/dev/null
  id=$(head -n 1 "$work/pie.sym" | cut -d' ' -f4)
  mkdir -p "$work/symbols/crash_program_pie/$id"
  cp "$work/pie.sym" "$work/symbols/crash_program_pie/$id/crash_program_pie.sym"
  walked=$("$bp/minidump_stackwalk" -m "$work/moved.dmp" "$work/symbols" 2>/dev/null | grep '^0|' | cut -d'|' -f4 | head -n 4 | tr '\n' ' ')
  if [[ $walked == "record_crash handle_irq event_loop main " ]]; then
    ok "minidump_stackwalk names the moved frames ($walked)"
  else
    bad "minidump_stackwalk names the moved frames" "got: $walked"
  fi
else
  bad "Breakpad's tools in $bp (../shared/oracles/breakpad/build.sh builds them)"
fi
walked=$("$sfu" stackwalk "$record" --image "$pie" 2>&1 | sed -n 's/.*  crash_program_pie  \([A-Za-z_]*\)+.*/\1/p' | head -n 5 | tr '\n' ' ')
if [[ $walked == "record_crash drain_queue handle_irq event_loop main " ]]; then
  ok "sfu stackwalk names the moved frames"
else
  bad "sfu stackwalk names the moved frames" "got: $walked"
fi

# ---- Refusals of sfu crash ----------------------------------------------------------------------
expect "crash: a wrong ELF@ADDRESS" 1 "module 0 (image)'s text ran at 0x$run-" -- "$sfu" crash "$record" --image "$pie@0x1000"
expect "crash: ... named as such" 1 "has no code there" -- "$sfu" crash "$record" --image "$pie@0x1000"
expect "crash: the right ELF@ADDRESS" 0 "every frame the host could walk equals the device's" -- "$sfu" crash "$record" --image "$pie@0x$run"
expect "crash: ELF@ not an address" 2 "not ELF@ADDRESS" -- "$sfu" crash "$record" --image "$pie@1x"
finish
