#!/usr/bin/env bash
# The dump half of the breakpad suite: minidumps and microdumps written by `sfu minidump` from the
# QEMU crash records, walked by Breakpad's own processors, and `sfu stackwalk` against them.
#   tests/breakpad/dumps.sh SFU QEMU_DIR BREAKPAD_BIN WORK_DIR
# QEMU_DIR is `make qemu-test`'s build/qemu: it holds <arch>/crash/record.bin and kernel.elf (the
# record run keeps them) and logs/<arch>_crash.log (the serial log holding the record). BREAKPAD_BIN
# holds dump_syms, minidump_stackwalk and microdump_stackwalk. Symbol files come from dump_syms
# and, separately, from `sfu breakpad`.
#
# Checks, one PASS/FAIL line each, ending "breakpad-dumps: N passed, M failed":
#   - x86_64, arm64: the minidump walked by minidump_stackwalk gives the frames the kernel printed
#     before the reset (the record's own frames: pc and sp of each, the names Breakpad gives), with
#     either set of symbols, and the crash reason and address (x86_64's #UD: SIGILL at the
#     PC); `sfu stackwalk -m` on the record gives minidump_stackwalk's frame lines;
#     `sfu stackwalk` on the record, on the serial log, and with --image alone gives the device's
#     frames;
#   - arm64: the microdump walked by microdump_stackwalk and by `sfu stackwalk -m`: lines equal,
#     frames the device's;
#   - s390x: `sfu minidump` refuses the record, saying Breakpad has no CPU type for it;
#   - refused inputs, each with its exact message and exit status: `sfu stackwalk` on a symbol
#     file with a malformed line and on microdumps cut short or malformed; `sfu minidump` asked
#     for an x86_64 microdump, given a microdump, without -o, with an image none of the modules;
#   - the comparisons can fail: a register corrupted in a minidump's context, a STACK CFI rule
#     corrupted in a symbol file (then Breakpad's and sfu's walks must still agree with each other).
set -u
if [[ $# -ne 4 ]]; then
  echo "usage: $0 SFU QEMU_DIR BREAKPAD_BIN WORK_DIR" >&2
  echo "breakpad-dumps: 0 passed, 1 failed"
  exit 1
fi
sfu=$1 qemu=$2 bp=$3 work=$4
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
  echo "breakpad-dumps: $pass passed, $fail failed"
  [[ $fail -eq 0 ]]
  exit
}

for tool in dump_syms minidump_stackwalk microdump_stackwalk; do
  [[ -x $bp/$tool ]] || { bad "oracle: no $bp/$tool (../shared/oracles/breakpad/build.sh builds it)"; finish; }
done

# A symbol directory for ELF: dump_syms or `sfu breakpad`, stored as NAME/ID/NAME.sym.
symbols() {
  local how=$1 elf=$2 dir=$3 sym id
  mkdir -p "$dir"
  if [[ $how == dump_syms ]]; then
    sym=$dir/tmp.sym
    "$bp/dump_syms" "$elf" >"$sym" 2>"$dir/dump_syms.err" || return 1
    id=$(head -n 1 "$sym" | cut -d' ' -f4)
    mkdir -p "$dir/kernel.elf/$id"
    mv "$sym" "$dir/kernel.elf/$id/kernel.elf.sym"
  else
    "$sfu" breakpad "$elf" --symbol-dir "$dir" >/dev/null 2>"$dir/sfu.err" || return 1
  fi
}

# The device's frames, "PC SP NAME" a line, from `sfu crash` (the record's own frames).
device_frames() {
  "$sfu" crash "$1" --image "$2" --no-lines |
    awk '/^ #[0-9]/ { name = $NF; sub(/\+0x.*/, "", name); if (name == "-") name = ""; print $2, $4, name }' |
    while read -r pc sp name; do printf '%x %x %s\n' "$pc" "$sp" "$name"; done
}

# Frames of minidump_stackwalk's (or microdump_stackwalk's) full output, "PC SP NAME", the name
# from its -m lines (inlined frames have no registers: there are none in these kernels' traces).
breakpad_frames() {
  local full=$1 machine=$2
  paste -d' ' \
    <(awk '/^ *[0-9]+  / { if (n++) print pc, sp; pc = sp = "" }
           { for (i = 1; i < NF; i++) { if ($i == "rip" || $i == "pc") pc = $(i + 2); if ($i == "rsp" || $i == "sp") sp = $(i + 2) } }
           /^$/ && n && !done { print pc, sp; done = 1 }' "$full") \
    <(grep '^0|' "$machine" | cut -d'|' -f4) |
    while read -r pc sp name; do printf '%x %x %s\n' "$pc" "$sp" "$name"; done
}

# Compares Breakpad's frames with the device's: pc and sp of every frame, and the name wherever
# Breakpad gives one (it names no PUBLIC at address 0: arm64's _start). Prints the differences.
same_frames() {
  local device=$1 breakpad=$2
  if [[ $(wc -l <"$device") -ne $(wc -l <"$breakpad") ]]; then
    echo "device $(wc -l <"$device") frames, Breakpad $(wc -l <"$breakpad")"
  fi
  paste -d' ' "$device" "$breakpad" | awk '{
    if ($1 != $4 || $2 != $5 || ($6 != "" && $3 != $6)) printf "frame %d: device pc 0x%s sp 0x%s %s, Breakpad pc 0x%s sp 0x%s %s\n", NR - 1, $1, $2, $3, $4, $5, $6 }'
}

# Runs check NAME: the device's frames in $1, Breakpad's in $2.
check_frames() {
  local name=$1 device=$2 got=$3 diffs
  diffs=$(same_frames "$device" "$got")
  if [[ -z $diffs && -s $got ]]; then ok "$name ($(wc -l <"$got") frames)"; else bad "$name" ${diffs:+"$diffs"} "$([[ -s $got ]] || echo 'no frames')"; fi
}

for arch in x86_64 arm64; do
  rec=$qemu/$arch/crash/record.bin elf=$qemu/$arch/crash/kernel.elf log=$qemu/logs/${arch}_crash.log
  d=$work/$arch
  mkdir -p "$d"
  if [[ ! -s $rec || ! -s $elf ]]; then
    bad "$arch: no crash record at $rec (make BUILD=... qemu-test keeps it)"
    continue
  fi
  device_frames "$rec" "$elf" >"$d/device.frames"
  [[ -s $d/device.frames ]] || { bad "$arch: sfu crash gives no frames for $rec"; continue; }

  if "$sfu" minidump "$rec" --image "$elf" -o "$d/crash.dmp" >"$d/minidump.out" 2>&1; then
    ok "$arch: sfu minidump writes $(stat -c %s "$d/crash.dmp") bytes"
  else
    bad "$arch: sfu minidump" "$(cat "$d/minidump.out")"
    continue
  fi

  for how in dump_syms sfu; do
    syms=$d/syms-$how
    if ! symbols "$how" "$elf" "$syms"; then
      bad "$arch: $how writes symbols" "$(cat "$syms"/*.err 2>/dev/null | head -n 3)"
      continue
    fi
    "$bp/minidump_stackwalk" -m "$d/crash.dmp" "$syms" >"$d/$how.m" 2>"$d/$how.m.err"
    "$bp/minidump_stackwalk" "$d/crash.dmp" "$syms" >"$d/$how.full" 2>/dev/null
    breakpad_frames "$d/$how.full" "$d/$how.m" >"$d/$how.frames"
    check_frames "$arch: minidump_stackwalk with $how symbols walks the minidump to the device's frames" \
      "$d/device.frames" "$d/$how.frames"
    if [[ $how == dump_syms ]]; then
      # The crash as minidump_stackwalk says it: x86_64's kernel dies of #UD, which has no fault
      # address: SIGILL at frame 0's PC, as Linux's si_addr says it; arm64's of a data abort at
      # the record's fault address.
      if [[ $arch == x86_64 ]]; then
        want="SIGILL / ILL_ILLOPN at 0x$(head -n 1 "$d/device.frames" | cut -d' ' -f1)"
      else
        want="SIGSEGV /SEGV_MAPERR at $("$sfu" crash "$rec" --image "$elf" | sed -n 's/^reason: .*, fault address //p')"
      fi
      got=$(sed -n 's/^Crash reason:  //p' "$d/$how.full")" at "$(sed -n 's/^Crash address: //p' "$d/$how.full")
      if [[ $got == "$want" ]]; then
        ok "$arch: minidump_stackwalk reads the crash as $got"
      else
        bad "$arch: minidump_stackwalk reads the crash as '$want'" "it says '$got'"
      fi
    fi
    if diff <(grep '^0|' "$d/$how.m") <("$sfu" stackwalk -m "$rec" "$syms" 2>&1) >"$d/$how.diff"; then
      ok "$arch: sfu stackwalk -m on the record equals minidump_stackwalk -m ($how symbols)"
    else
      bad "$arch: sfu stackwalk -m on the record equals minidump_stackwalk -m ($how symbols)" "$(head -n 6 "$d/$how.diff")"
    fi
    if [[ $arch == arm64 ]]; then
      "$sfu" minidump "$rec" --image "$elf" --microdump -o "$d/crash.micro" >/dev/null 2>&1
      "$bp/microdump_stackwalk" -m "$d/crash.micro" "$syms" >"$d/$how.micro.m" 2>/dev/null
      "$bp/microdump_stackwalk" "$d/crash.micro" "$syms" >"$d/$how.micro.full" 2>/dev/null
      breakpad_frames "$d/$how.micro.full" "$d/$how.micro.m" >"$d/$how.micro.frames"
      check_frames "$arch: microdump_stackwalk with $how symbols walks the microdump to the device's frames" \
        "$d/device.frames" "$d/$how.micro.frames"
      "$sfu" stackwalk -m "$d/crash.micro" "$syms" >"$d/$how.micro.sfu" 2>&1
      if [[ -s $d/$how.micro.sfu ]] && diff <(grep '^0|' "$d/$how.micro.m") "$d/$how.micro.sfu" >"$d/$how.micro.diff"; then
        ok "$arch: sfu stackwalk -m on the microdump equals microdump_stackwalk -m ($how symbols, $(wc -l <"$d/$how.micro.sfu") lines)"
      else
        bad "$arch: sfu stackwalk -m on the microdump equals microdump_stackwalk -m ($how symbols)" "$(head -n 6 "$d/$how.micro.diff")"
      fi
    fi
  done

  # sfu stackwalk's own walk, readable: on the record with the image alone, and on the serial log.
  for input in "$rec" "$log"; do
    "$sfu" stackwalk "$input" --image "$elf" >"$d/walk.txt" 2>&1
    awk '/^ #[0-9]/ && $2 != "" { name = $7; sub(/\+0x.*/, "", name); print $2, $4, name }' "$d/walk.txt" |
      while read -r pc sp name; do printf '%x %x %s\n' "$pc" "$sp" "$name"; done >"$d/walk.frames"
    check_frames "$arch: sfu stackwalk --image on $(basename "$input") gives the device's frames" \
      "$d/device.frames" "$d/walk.frames"
  done

  # A planted fault is caught only if Breakpad still walks (frame 0's PC, the context's own, is the
  # device's) and the frames then differ: an oracle that failed outright proves nothing.
  caught() {  # NAME DUMP SYMBOLS STEM
    "$bp/minidump_stackwalk" -m "$2" "$3" >"$4.m" 2>/dev/null
    "$bp/minidump_stackwalk" "$2" "$3" >"$4.full" 2>/dev/null
    breakpad_frames "$4.full" "$4.m" >"$4.frames"
    if [[ -s $4.frames && $(head -n 1 "$4.frames" | cut -d' ' -f1) == $(head -n 1 "$d/device.frames" | cut -d' ' -f1) &&
          -n $(same_frames "$d/device.frames" "$4.frames") ]]; then
      ok "$1"
    else
      bad "$1" "frame 0's PC lost, or every frame still the device's"
    fi
  }

  # The comparisons can fail. A register corrupted in the minidump's context (x86_64: rsp, moved
  # one word; arm64: x30, the link register the first step reads), then walked again.
  syms=$d/syms-dump_syms
  cp "$d/crash.dmp" "$d/corrupt.dmp"
  ctx=$(od -An -tu4 -j $((32 + 8)) -N4 "$d/crash.dmp" | tr -d ' ')  # the thread list's offset
  ctx=$(od -An -tu4 -j $((ctx + 4 + 44)) -N4 "$d/crash.dmp" | tr -d ' ')
  [[ $arch == x86_64 ]] && at=$((ctx + 0x98)) || at=$((ctx + 8 + 8 * 30))
  printf '\x10' | dd of="$d/corrupt.dmp" bs=1 seek=$at conv=notrunc 2>/dev/null
  caught "$arch: a corrupted register in the minidump's context is caught by the comparison" \
    "$d/corrupt.dmp" "$syms" "$d/corrupt"
  # STACK CFI rules corrupted: every rule that reads the return address at .cfa + N reads it 8
  # bytes lower (".cfa N 8 - + ^").
  bad_syms=$d/syms-corrupt
  cp -r "$syms" "$bad_syms"
  sed -i -E 's/\.ra: \.cfa (-?[0-9]+) \+ \^/.ra: .cfa \1 8 - + ^/' "$bad_syms"/kernel.elf/*/kernel.elf.sym
  caught "$arch: a corrupted STACK CFI rule is caught by the comparison" "$d/crash.dmp" "$bad_syms" "$d/badcfi"
  if diff <(grep '^0|' "$d/badcfi.m") <("$sfu" stackwalk -m "$rec" "$bad_syms" 2>&1) >"$d/badcfi.diff"; then
    ok "$arch: with the corrupted rule, sfu stackwalk -m still equals minidump_stackwalk -m"
  else
    bad "$arch: with the corrupted rule, sfu stackwalk -m still equals minidump_stackwalk -m" "$(head -n 6 "$d/badcfi.diff")"
  fi
  if [[ $arch == arm64 ]]; then
    "$bp/microdump_stackwalk" -m "$d/crash.micro" "$bad_syms" >"$d/badcfi.micro.m" 2>/dev/null
    if diff <(grep '^0|' "$d/badcfi.micro.m") <("$sfu" stackwalk -m "$d/crash.micro" "$bad_syms" 2>&1) >"$d/badcfi.micro.diff"; then
      ok "$arch: with the corrupted rule, sfu stackwalk -m still equals microdump_stackwalk -m"
    else
      bad "$arch: with the corrupted rule, sfu stackwalk -m still equals microdump_stackwalk -m" "$(head -n 6 "$d/badcfi.micro.diff")"
    fi
  fi
done

# Refused inputs: the exact message (its first line) and exit status, and no output file.
# refused NAME STATUS MESSAGE COMMAND...
refused() {
  local name=$1 status=$2 want=$3
  shift 3
  rm -f "$work/refused.out"
  "$@" >"$work/refused.stdout" 2>"$work/refused.err"
  local rc=$? got
  got=$(head -n 1 "$work/refused.err")
  if [[ $rc == "$status" && $got == "$want" && ! -e $work/refused.out ]]; then
    ok "refused: $name ($got)"
  else
    bad "refused: $name" "exit $rc, '$got'$([[ -e $work/refused.out ]] && echo ', wrote its output')" \
      "wanted exit $status, '$want'"
  fi
}
rec=$qemu/x86_64/crash/record.bin elf=$qemu/x86_64/crash/kernel.elf micro=$work/arm64/crash.micro
if [[ -s $rec && -s $micro && -d $work/arm64/syms-sfu ]]; then
  # A symbol directory with one line of its symbol file corrupted: the file and line are named.
  cp -r "$work/arm64/syms-sfu" "$work/syms-broken"
  sym=$(echo "$work"/syms-broken/kernel.elf/*/kernel.elf.sym)
  sed -i '20s/.*/FUNC zz 4 0 broken/' "$sym"
  refused "sfu stackwalk, a symbol file with a malformed line" 1 \
    "sfu stackwalk: $micro: $sym:20: FUNC address 'zz' is not a hex number" \
    "$sfu" stackwalk -m "$micro" "$work/syms-broken"
  head -n 10 "$micro" >"$work/cut.micro"
  refused "sfu stackwalk, a microdump cut short" 1 \
    "sfu stackwalk: $work/cut.micro: the microdump has no end marker (-----END BREAKPAD MICRODUMP-----): cut short?" \
    "$sfu" stackwalk "$work/cut.micro" "$work/arm64/syms-sfu"
  sed 's/^\(google-breakpad: C \).*/\1XYZ/' "$micro" >"$work/bad-context.micro"
  line=$(grep -n '^google-breakpad: C ' "$micro" | cut -d: -f1)
  refused "sfu stackwalk, a microdump with a malformed C line" 1 \
    "sfu stackwalk: $work/bad-context.micro: line $line: C needs the context as hex bytes" \
    "$sfu" stackwalk "$work/bad-context.micro" "$work/arm64/syms-sfu"
  refused "sfu minidump --microdump of an x86_64 record" 1 \
    "sfu minidump: $rec: the record is x86_64: Breakpad defines microdumps for arm, arm64, x86 (32-bit) and mips only; write a minidump instead" \
    "$sfu" minidump "$rec" --image "$elf" --microdump -o "$work/refused.out"
  refused "sfu minidump given a microdump" 1 "sfu minidump: $micro: a microdump: sfu minidump reads crash records" \
    "$sfu" minidump "$micro" --image "$qemu/arm64/crash/kernel.elf" -o "$work/refused.out"
  refused "sfu minidump without -o" 2 "sfu minidump: give the minidump's file with -o" \
    "$sfu" minidump "$rec" --image "$elf"
  other=$qemu/x86_64/demo.elf
  id=$(readelf -n "$other" | sed -n 's/^ *Build ID: //p')
  refused "sfu minidump with an image that is none of the record's modules" 1 \
    "sfu minidump: $rec: $other: its build-id $id is none of the dump's modules: the wrong image?" \
    "$sfu" minidump "$rec" --image "$elf" --image "$other" -o "$work/refused.out"
  # A stripped image beside its full copy (one build-id): both are the module's, the full one
  # names the frames, as sfu crash chooses.
  strip -o "$work/stripped.elf" "$elf"
  "$sfu" stackwalk -m "$rec" --image "$elf" >"$work/full.m" 2>&1
  if "$sfu" stackwalk -m "$rec" --image "$work/stripped.elf" --image "$elf" >"$work/both.m" 2>&1 &&
     grep -q '|chain_1|' "$work/both.m" && cmp -s "$work/full.m" "$work/both.m"; then
    ok "sfu stackwalk: a stripped image and its full copy, the full one names the frames"
  else
    bad "sfu stackwalk: a stripped image and its full copy" "$(head -n 2 "$work/both.m")"
  fi
else
  bad "refused inputs: need the x86_64 record, the arm64 microdump and its symbols (checked above)"
fi

# s390x: no minidump CPU type, refused by name.
rec=$qemu/s390x/crash/record.bin elf=$qemu/s390x/crash/kernel.elf
if [[ ! -s $rec ]]; then
  bad "s390x: no crash record at $rec (make BUILD=... qemu-test keeps it)"
else
  "$sfu" minidump "$rec" --image "$elf" -o "$work/s390x.dmp" >/dev/null 2>"$work/s390x.err"
  status=$?
  if [[ $status -eq 1 && ! -e $work/s390x.dmp ]] && grep -q 'Breakpad defines no minidump CPU type' "$work/s390x.err"; then
    ok "s390x: sfu minidump refuses: $(sed 's/.*: an s390x/an s390x/' "$work/s390x.err")"
  else
    bad "s390x: sfu minidump refuses the record (status $status)" "$(cat "$work/s390x.err")"
  fi
fi
finish
