#!/usr/bin/env bash
# sfu gen and sfu verify on real code: googletest (Debian's /usr/src/googletest) and its first
# sample, built with g++ -O2 -Wa,--gsframe, so the same image holds gas's SFrame V1 table and
# the DWARF CFI that `sfu gen` reads.
#   bench/sframe_size.sh SFU_BINARY WORKDIR OUT.md [LABEL=KERNEL.elf...]
# Writes the size comparison to OUT.md, with googletest's and each KERNEL's tables per function
# against .eh_frame + .eh_frame_hdr and against ORC (10 bytes a row), (make bench puts it in bench/results.md) and checks, as the
# `gen-real` suite of make check does: gas's table and the V1/V2/V3 tables `sfu gen` builds pass
# `sfu verify` with 0 mismatches, and gen's rows equal gas's wherever gas wrote some.
# Ends "gen-real: N passed, M failed".
set -uo pipefail
sfu=$1
work=$2
out_md=$3
shift 3
kernels=("$@")
gtest=${GTEST_SRC:-/usr/src/googletest/googletest}
mkdir -p "$work"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }  # NAME
fail() { failed=$((failed + 1)); echo "FAIL $1: ${2:-(no output)}"; }  # NAME REASON
finish() { echo "gen-real: $passed passed, $failed failed"; exit 0; }

cxx=(g++ -std=c++17 -O2 -Wa,--gsframe -I"$gtest/include" -I"$gtest")
image=$work/gtest_sample1.elf
if [[ ! -e $image || $0 -nt $image ]]; then
  pids=()
  for src in src/gtest-all.cc src/gtest_main.cc samples/sample1.cc samples/sample1_unittest.cc; do
    "${cxx[@]}" -c "$gtest/$src" -o "$work/$(basename "$src" .cc).o" & pids+=($!)
  done
  ok=1
  for p in "${pids[@]}"; do wait "$p" || ok=0; done
  if [[ $ok == 0 ]] || ! g++ -o "$image" "$work"/{sample1_unittest,sample1,gtest-all,gtest_main}.o -pthread; then
    fail "build googletest" "compile or link failed"
    finish
  fi
fi

# A section's size in bytes: after "[NN]", readelf -SW prints name, type, address, offset, size.
section_size() {
  local hex
  hex=$(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk -v n="$2" '$1 == n { print $5 }' | head -n 1)
  echo $((16#${hex:-0}))
}
eh=$(section_size "$image" .eh_frame)
hdr=$(section_size "$image" .eh_frame_hdr)
gas=$(section_size "$image" .sframe)
text=$(section_size "$image" .text)

verify_line=$("$sfu" verify "$image" 2>&1)
# gas/ld 2.40's V1 table is right everywhere but the .plt: its entries' rows repeat, and V1 (no
# repeat size) matches the low byte of the offset, so every 16-byte entry not at a multiple of
# 256 bytes from the first gets CFA rsp+16 in its first 11 bytes. Exactly those must mismatch.
read -r plt_addr plt_size < <(readelf -SW "$image" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".plt" { print $3, $5 }')
plt_entries=$(((16#${plt_size:-0} - 16) / 16))
plt_wrong=$((11 * (plt_entries - (plt_entries + 15) / 16)))
bad_outside=$("$sfu" verify "$image" -v 2>&1 | sed -n 's/^mismatch at [^(]*(0x\([0-9a-f]*\)).*/\1/p' |
  while read -r a; do (( 16#$a < 16#$plt_addr + 16 || 16#$a >= 16#$plt_addr + 16#$plt_size )) && echo "0x$a"; done | head -n 3)
[[ $verify_line == *" $plt_wrong mismatches,"* && -z $bad_outside && $plt_entries -gt 16 ]] &&
  pass "gas table verifies but for V1's .plt rows" ||
  fail "gas table verifies but for V1's .plt rows" "$verify_line (expected $plt_wrong in $plt_entries entries; outside: $bad_outside)"

objcopy -R .sframe "$image" "$work/no-sframe.elf"
plt_lo=$(readelf -SW "$image" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".plt" { print $3 }')
plt_lo=$((16#${plt_lo:-0}))
plt_hi=$((plt_lo + $(section_size "$image" .plt)))
rows=()
for v in 1 2 3; do
  gen_line=$("$sfu" gen "$work/no-sframe.elf" -o "$work/gen-v$v.elf" --sframe-version $v 2>&1) || {
    fail "gen V$v" "$gen_line"
    continue
  }
  line=$("$sfu" verify "$work/gen-v$v.elf" 2>&1)
  [[ $line == *" 0 mismatches,"* ]] && pass "gen V$v verifies" || fail "gen V$v verifies" "$line"
  diff_line=$("$sfu" diff "$image" "$work/gen-v$v.elf" -v)
  # Functions only gas describes: the PLT (ld writes its rows; its CFI is a PC expression).
  # Each of them must start inside .plt.
  outside_plt=$(echo "$diff_line" | sed -n "s|^only in $image: .* (0x\([0-9a-f]*\))$|\1|p" |
    while read -r a; do (( 16#$a >= plt_lo && 16#$a < plt_hi )) || echo "0x$a"; done)
  [[ $diff_line == *" 0 differences,"* ]] && pass "gen V$v rows equal gas's" ||
    fail "gen V$v rows equal gas's" "$(echo "$diff_line" | tail -n 1)"
  bytes=$(echo "$gen_line" | sed -n 's/^gen: \([0-9]*\) functions, \([0-9]*\) rows, \([0-9]*\) left out, \([0-9]*\) bytes.*/\1 \2 \3 \4/p')
  rows+=("$v $bytes")
  [[ -z $outside_plt ]] && pass "gen V$v covers all but the PLT" ||
    fail "gen V$v covers all but the PLT" "only in gas's table, outside .plt: $(echo $outside_plt)"
done

# Per function, for googletest and each kernel: every version gen writes, from the image without
# its .sframe (appended, so a reservation's size does not matter). ORC (Linux x86_64) spends 10
# bytes a row: a 6-byte entry and a 4-byte address; rows here are the table's FREs.
per_fn=()
measure() {  # LABEL IMAGE
  local label=$1 img=$2 e h stripped v line fns nrows left bytes
  e=$(section_size "$img" .eh_frame)
  h=$(section_size "$img" .eh_frame_hdr)
  stripped=$work/$label-no-sframe.elf
  local oc=objcopy versions="1 2 3"  # the binutils of the image's machine; s390x has no V1
  case $(readelf -h "$img" | sed -n 's/^ *Machine: *//p') in
    AArch64) oc=aarch64-linux-gnu-objcopy ;;
    *S/390*) oc=s390x-linux-gnu-objcopy versions="2 3" ;;
  esac
  "$oc" -R .sframe -R .sfu_symbols "$img" "$stripped" || { fail "strip $label" "$oc failed"; return; }
  for v in $versions; do
    line=$("$sfu" gen "$stripped" -o "$work/$label-v$v.elf" --sframe-version $v 2>&1) || { fail "gen V$v of $label" "$line"; continue; }
    read -r fns nrows left bytes < <(echo "$line" | sed -n 's/^gen: \([0-9]*\) functions, \([0-9]*\) rows, \([0-9]*\) left out, \([0-9]*\) bytes.*/\1 \2 \3 \4/p')
    per_fn+=("$(awk -v l="$label" -v v="$v" -v f="$fns" -v r="$nrows" -v o="$left" -v b="$bytes" -v eh="$((e + h))" -v hdr="$h" 'BEGIN {
      printf "| %s | V%d | %d | %d | %d | %d | %.1f | %.1f%s | %.2f | %.1f | %.2f |", l, v, f, o, r, b, b / f, eh / (f + o), (hdr == 0 ? " (no hdr)" : ""), b / eh, 10 * r / f, b / (10 * r) }')")
    echo "bench: sframe $label V$v: $fns functions, $nrows rows, $bytes bytes, $(awk -v b="$bytes" -v f="$fns" 'BEGIN { printf "%.1f", b / f }') bytes/function, $(awk -v b="$bytes" -v eh="$((e + h))" 'BEGIN { printf "%.2f", b / eh }') of .eh_frame+hdr, $(awk -v b="$bytes" -v r="$nrows" 'BEGIN { printf "%.2f", b / (10 * r) }') of ORC"
  done
}
measure googletest "$image"
for spec in "${kernels[@]}"; do measure "${spec%%=*}" "${spec#*=}"; done

{
  echo "## SFrame table size on real code (sfu gen)"
  echo
  echo "Written by \`make bench\` (bench/sframe_size.sh). Image: googletest $(dpkg-query -W -f='${Version}' googletest 2>/dev/null) (gtest-all, gtest_main) and its sample1 test, g++ $(g++ -dumpfullversion) -O2 -Wa,--gsframe, linked by ld $(ld --version | head -n 1 | awk '{print $NF}'); .text is $text bytes."
  echo "Gas's table is SFrame V1 (Debian binutils 2.40); \`sfu gen\` builds each version from the image's .eh_frame."
  echo
  echo "| table | bytes | vs .eh_frame + .eh_frame_hdr | functions | left out |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  echo "| .eh_frame + .eh_frame_hdr | $((eh + hdr)) | 100% | | |"
  echo "| gas V1 .sframe | $gas | $((100 * gas / (eh + hdr)))% | $(echo "$verify_line" | awk '{print $2}') with CFI, $(echo "$verify_line" | awk '{print $(NF-2)}') not covered | |"
  for r in "${rows[@]}"; do
    read -r v fns nrows left bytes <<<"$r"
    echo "| sfu gen V$v | $bytes | $((100 * bytes / (eh + hdr)))% | $fns ($nrows rows) | $left |"
  done
  echo
  echo "Gas's table also has the PLT (PCMASK functions, which have no CFI); \`sfu gen\` covers the functions gas skips (the outermost frame, code gas cannot describe)."
  echo
  echo "### Bytes per function, against .eh_frame and ORC"
  echo
  echo "Each version \`sfu gen\` writes from the image's .eh_frame (its .sframe removed first), for googletest and the gen-v2 QEMU kernels (\`[_stext, _etext)\`, C and the core's C++). ORC, Linux's x86_64 unwind table, spends 10 bytes a row (a 6-byte entry and a 4-byte address); its rows are counted here as the table's rows (FREs), so it is a floor for ORC, which also needs a row at every function end. The kernels link no .eh_frame_hdr (a lookup table of 8 bytes a function)."
  echo
  echo "| image | table | functions | left out | rows | bytes | bytes/function | .eh_frame + hdr per function with CFI | vs .eh_frame + hdr | ORC bytes/function | vs ORC |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${per_fn[@]}"
} >"$out_md"
finish
