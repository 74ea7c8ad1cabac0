#!/usr/bin/env bash
# The symbol-file half of the breakpad suite: `sfu breakpad` against Breakpad's own `dump_syms`
# on the same ELF, record by record (sym_compare.py: FILE and INLINE_ORIGIN numbers compared by
# the names behind them), in both of its modes: `sfu breakpad` = `dump_syms -d`, and
# `sfu breakpad -m` = `dump_syms -d -m`. On
#   - every QEMU test kernel of x86_64 and arm64: every record, STACK CFI as text;
#   - every s390x kernel: dump_syms reads ELF headers in the host's byte order and crashes on a
#     big-endian image, so it reads a copy whose headers alone are made little-endian
#     (host_order_headers.py; the DWARF, symbols and CFI stay big-endian and are read as such);
#     it writes no STACK CFI for s390, so ours is checked against the image's DWARF CFI rows at
#     every address instead (sym_cfi_equal --cfi);
#   - googletest built -g -O2 by g++ and clang++ for x86_64 and arm64, and by g++ with DWARF 4
#     (the addr2line suite's builds, in GTEST_DIR; built there with its recipe when missing);
#   - SFrame-only images (the kernels with .eh_frame removed): every record but STACK CFI equal
#     to dump_syms's, an INFO GENERATOR line saying where STACK CFI came from, and STACK CFI that
#     unwinds as the SFrame rows do at every row (sym_cfi_equal --sframe).
# Then --symbol-dir's layout, refused inputs (one message naming the file, exit status 1), and
# planted faults the comparisons must catch (a wrong line record, a wrong CFI rule, STACK CFI
# missing for all or one function of what the DWARF CFI or SFrame rows describe).
#   tests/breakpad/symbols.sh SFU DUMP_SYMS SYM_CFI_EQUAL WORKDIR QEMU_DIR GTEST_DIR
# GTEST_DIR is the addr2line suite's work directory (its googletest builds are reused).
# Prints PASS/FAIL lines and ends "breakpad-symbols: N passed, M failed".
set -uo pipefail
sfu=$1
dump_syms=$2
cfi_equal=$3
work=$4
qemu=$5
gtest_cache=$6
here=$(cd "$(dirname "$0")" && pwd)
gtest=${GTEST_SRC:-/usr/src/googletest/googletest}
source "$(dirname "$0")/../support/googletest.sh"
mkdir -p "$work"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }

compare() {  # NAME WANT GOT [--no-stack]
  local out
  if out=$(python3 "$here/sym_compare.py" "$2" "$3" "${4:-}" 2>&1); then pass "$1 ($out)"; else fail "$1" "$out"; fi
}

# Both modes on one image: NAME ELF [ORACLE_ELF] [--no-stack]. ORACLE_ELF is what dump_syms
# reads (the header-swapped copy), with the image's own base name.
both_modes() {
  local name=$1 elf=$2 oracle=${3:-$2} flag=${4:-}
  if ! "$dump_syms" -d -m "$oracle" >"$work/want.sym" 2>"$work/want.err"; then
    fail "$name" "dump_syms failed: $(tail -n 1 "$work/want.err")"
    return
  fi
  "$dump_syms" -d "$oracle" >"$work/want-plain.sym" 2>/dev/null
  if ! "$sfu" breakpad -m "$elf" >"$work/got.sym" 2>"$work/got.err" ||
     ! "$sfu" breakpad "$elf" >"$work/got-plain.sym" 2>>"$work/got.err"; then
    fail "$name" "sfu breakpad failed: $(head -n 1 "$work/got.err")"
    return
  fi
  compare "$name (= dump_syms -d)" "$work/want-plain.sym" "$work/got-plain.sym" $flag
  compare "$name -m (= dump_syms -d -m)" "$work/want.sym" "$work/got.sym" $flag
}

# --- QEMU kernels --------------------------------------------------------------------------------
kernels=("$qemu"/x86_64/*.elf "$qemu"/arm64/*.elf)
[[ -e ${kernels[0]} ]] || fail "qemu kernels" "none under $qemu (make qemu-kernels)"
for elf in "${kernels[@]}"; do
  [[ -e $elf ]] || continue
  both_modes "$(basename "$(dirname "$elf")")/$(basename "$elf")" "$elf"
done

s390=("$qemu"/s390x/*.elf)
[[ -e ${s390[0]} ]] || fail "s390x kernels" "none under $qemu/s390x"
direct=0
if [[ -e ${s390[0]} ]]; then
  # Why the copy: dump_syms on the big-endian image itself dies of SIGSEGV today, and then the
  # copy is required. Should it ever read one (exit 0), every s390x comparison is made directly
  # on the image instead; any other outcome is a failure to look at. A shell of its own, its
  # stderr discarded, takes the "Segmentation fault" report off the log.
  rc=$(bash -c '"$1" -i "$2" >/dev/null 2>&1; echo $?' _ "$dump_syms" "${s390[0]}" 2>/dev/null)
  if [[ $rc == 139 ]]; then
    pass "s390x: dump_syms dies of SIGSEGV on a big-endian image: it reads a copy with host-order headers"
  elif [[ $rc == 0 ]]; then
    direct=1
    echo "NOTE s390x: dump_syms reads big-endian images itself now: every s390x comparison is direct"
  else
    fail "s390x: dump_syms -i on a big-endian image" "exit $rc (neither SIGSEGV, as today, nor success)"
  fi
fi
for elf in "${s390[@]}"; do
  [[ -e $elf ]] || continue
  n=$(basename "$elf")
  oracle=$elf
  if [[ $direct == 0 ]]; then
    mkdir -p "$work/s390x"
    oracle=$work/s390x/$n
    python3 "$here/host_order_headers.py" "$elf" "$oracle" || { fail "s390x/$n" "header copy failed"; continue; }
  fi
  both_modes "s390x/$n" "$elf" "$oracle" --no-stack
  "$sfu" breakpad "$elf" >"$work/got.sym" 2>/dev/null
  if out=$("$cfi_equal" --cfi "$elf" "$work/got.sym" 2>&1); then
    pass "s390x/$n STACK CFI against the DWARF CFI rows ($out)"
  else
    fail "s390x/$n STACK CFI against the DWARF CFI rows" "$out"
  fi
  mkdir -p "$work/s390x"
  cp "$work/got.sym" "$work/s390x/$n.sym"
done

# --- googletest ----------------------------------------------------------------------------------
# The addr2line suite's variants (tests/addr2line/check.sh), built by tests/support/googletest.sh into its cache.
arm64_clang="clang++ --target=aarch64-linux-gnu"
variants=(
  "gcc-x86_64-dwarf5|g++|g++"
  "clang-x86_64-dwarf5|clang++|clang++"
  "gcc-arm64-dwarf5|aarch64-linux-gnu-g++|aarch64-linux-gnu-g++"
  "clang-arm64-dwarf5|$arm64_clang|aarch64-linux-gnu-g++"
  "gcc-x86_64-dwarf4|g++ -gdwarf-4|g++"
)
for v in "${variants[@]}"; do
  IFS='|' read -r name cc ld <<<"$v"
  image=$gtest_cache/$name/gtest.elf
  if [[ ! -e $image ]]; then
    build_gtest "$gtest_cache/$name" "$cc" "$ld" >"$gtest_cache/$name.build.log" 2>&1 || true
  fi
  if [[ ! -e $image ]]; then
    fail "googletest $name" "build failed: $(tail -n 1 "$gtest_cache/$name.build.log")"
    continue
  fi
  both_modes "googletest $name" "$image"
done

# --- SFrame only ---------------------------------------------------------------------------------
declare -A objcopy=([x86_64]=objcopy [arm64]=aarch64-linux-gnu-objcopy [s390x]=s390x-linux-gnu-objcopy)
for k in x86_64/gas-v1 arm64/gas-v1 s390x/gen-v2; do
  elf=$qemu/$k.elf arch=${k%/*}
  [[ -e $elf ]] || { fail "SFrame only: $k" "no $elf"; continue; }
  mkdir -p "$work/sframe-only/$arch"
  only=$work/sframe-only/$k.elf
  ${objcopy[$arch]} --remove-section .eh_frame "$elf" "$only" 2>/dev/null
  oracle=$only
  if [[ $arch == s390x && $direct == 0 ]]; then
    mkdir -p "$work/sframe-only/s390x-copy"
    oracle=$work/sframe-only/s390x-copy/$(basename "$only")
    python3 "$here/host_order_headers.py" "$only" "$oracle"
  fi
  "$dump_syms" -d "$oracle" >"$work/want.sym" 2>/dev/null
  if ! "$sfu" breakpad "$only" >"$work/sframe.sym" 2>"$work/got.err"; then
    fail "SFrame only: $k" "sfu breakpad failed: $(head -n 1 "$work/got.err")"
    continue
  fi
  if ! grep -q '^INFO GENERATOR sfu breakpad: STACK CFI from .sframe' "$work/sframe.sym" ||
     grep -q '^STACK CFI' "$work/want.sym"; then
    fail "SFrame only: $k" "no INFO GENERATOR line, or the image still has DWARF CFI"
    continue
  fi
  grep -v '^INFO GENERATOR' "$work/sframe.sym" >"$work/got.sym"
  compare "SFrame only: $k, every record but STACK CFI" "$work/want.sym" "$work/got.sym" --no-stack
  if out=$("$cfi_equal" --sframe "$only" "$work/sframe.sym" 2>&1); then
    pass "SFrame only: $k STACK CFI against the SFrame rows ($out)"
  else
    fail "SFrame only: $k STACK CFI against the SFrame rows" "$out"
  fi
  cp "$work/sframe.sym" "$work/sframe-only/$arch.sym"
done

# --- --symbol-dir ----------------------------------------------------------------------------------
elf=$qemu/x86_64/demo.elf
if [[ -e $elf ]]; then
  rm -rf "$work/store"
  id=$("$dump_syms" -i "$elf" | sed -n 's/^MODULE [^ ]* [^ ]* \([0-9A-F]*\) .*/\1/p')
  "$sfu" breakpad "$elf" >"$work/stdout.sym"
  if "$sfu" breakpad "$elf" --symbol-dir "$work/store" >"$work/store.out" &&
     cmp -s "$work/store/demo.elf/$id/demo.elf.sym" "$work/stdout.sym" &&
     grep -q "written to $work/store/demo.elf/$id/demo.elf.sym" "$work/store.out"; then
    pass "--symbol-dir writes DIR/demo.elf/$id/demo.elf.sym"
  else
    fail "--symbol-dir" "$(cat "$work/store.out"; find "$work/store" -type f)"
  fi
fi

# --- refused inputs ------------------------------------------------------------------------------
refused() {  # NAME FILE EXPECTED-STATUS EXPECTED-MESSAGE [ARGS...]
  local name=$1 file=$2 status=$3 want=$4
  shift 4
  "$sfu" breakpad "$@" >"$work/out.sym" 2>"$work/err.txt"
  local rc=$? got
  got=$(head -n 1 "$work/err.txt")
  if [[ $rc == "$status" && $got == "$want" && $(wc -l <"$work/err.txt") -ge 1 ]]; then
    pass "refused: $name ($got)"
  else
    fail "refused: $name" "exit $rc, '$got' (wanted $status, '$want')"
  fi
}
echo "not an image" >"$work/text.elf"
refused "not ELF" "$work/text.elf" 1 "sfu breakpad: $work/text.elf: not an ELF file" "$work/text.elf"
if [[ -e $elf ]]; then
  head -c 100 "$elf" >"$work/cut.elf"
  refused "truncated" "$work/cut.elf" 1 "sfu breakpad: $work/cut.elf: truncated ELF file (section headers)" "$work/cut.elf"
  # The first unit's version (after its 4-byte length) made 9.
  cp "$elf" "$work/bad-info.elf"
  off=$((0x$(objdump -h "$elf" | awk '$2 == ".debug_info" {print $6}')))
  printf '\x09\x00' | dd of="$work/bad-info.elf" bs=1 seek=$((off + 4)) conv=notrunc 2>/dev/null
  refused "malformed .debug_info" "$work/bad-info.elf" 1 \
    "sfu breakpad: $work/bad-info.elf: .debug_info+0x04: bad-version (version 9)" "$work/bad-info.elf"
  # The first CIE's version made 7.
  cp "$elf" "$work/bad-cfi.elf"
  off=$((0x$(objdump -h "$elf" | awk '$2 == ".eh_frame" {print $6}')))
  printf '\x07' | dd of="$work/bad-cfi.elf" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
  refused "malformed .eh_frame" "$work/bad-cfi.elf" 1 \
    "sfu breakpad: $work/bad-cfi.elf: .eh_frame+0x08: bad-cie-version (version 7)" "$work/bad-cfi.elf"
  refused "-o with --symbol-dir" "$elf" 2 "sfu breakpad: -o or --symbol-dir, not both" "$elf" -o x --symbol-dir y
fi
refused "no image" "" 2 "sfu breakpad: give one image"

# --- planted faults: the comparisons must catch them ----------------------------------------------
# planted NAME AWK-PROGRAM COMMAND...: the good file changed by the awk program must make COMMAND
# (given the changed file as its last argument) fail.
# With PLANTED_SAYS set, COMMAND must also exit 1 and print exactly that line.
planted() {
  local name=$1 prog=$2 says=${PLANTED_SAYS:-}
  shift 2
  awk "$prog" "$work/good.sym" >"$work/planted.sym"
  "$@" "$work/planted.sym" >"$work/planted.out" 2>&1
  local rc=$?
  if cmp -s "$work/good.sym" "$work/planted.sym"; then
    fail "planted: $name" "the change changed nothing"
  elif [[ $rc == 0 ]]; then
    fail "planted: $name" "not caught: $(head -c 300 "$work/planted.out")"
  elif [[ -n $says && ($rc != 1 || $(cat "$work/planted.out") != "$says") ]]; then
    fail "planted: $name" "exit $rc, '$(head -c 300 "$work/planted.out")' (wanted 1, '$says')"
  else
    pass "planted: $name is caught ($(head -c 200 "$work/planted.out"))"
  fi
}
# The number of addresses FILE's reference has rows for, as sym_cfi_equal counted them passing.
compared_in() { sed -n 's/^\([0-9]*\) addresses unwind alike .*/\1/p' "$1"; }
# The lowest STACK CFI INIT address of symbol file FILE, in hex.
first_init() { awk '/^STACK CFI INIT /{print $4}' "$1" | while read -r a; do echo $((16#$a)); done | sort -n | head -n 1 | xargs printf '%x'; }
if [[ -e $elf ]]; then
  "$dump_syms" -d -m "$elf" >"$work/want.sym"
  "$sfu" breakpad "$elf" >"$work/good.sym"
  planted "a line record one line off" \
    '!done && /^[0-9a-f]+ [0-9a-f]+ [0-9]+ [0-9]+$/ && ++n == 100 {$3 = $3 + 1; done = 1} {print}' \
    python3 "$here/sym_compare.py" "$work/want.sym"
  planted "a CFA rule 8 bytes off" \
    '!done && /^STACK CFI [0-9a-f]+ .cfa: [$]rsp 16 [+]$/ {sub(/16 [+]$/, "24 +"); done = 1} {print}' \
    "$cfi_equal" "$work/want.sym"
fi
if [[ -e $work/sframe-only/x86_64.sym ]]; then
  cp "$work/sframe-only/x86_64.sym" "$work/good.sym"
  planted "an SFrame-derived RA rule 8 bytes off" \
    '!done && /[.]ra: [.]cfa -8 [+] \^/ {sub(/[.]ra: [.]cfa -8/, ".ra: .cfa -16"); done = 1} {print}' \
    "$cfi_equal" --sframe "$work/sframe-only/x86_64/gas-v1.elf"
  # Every address the SFrame rows describe must have STACK CFI: none at all is no pass.
  "$cfi_equal" --sframe "$work/sframe-only/x86_64/gas-v1.elf" "$work/good.sym" >"$work/all.out" 2>&1
  PLANTED_SAYS="$(compared_in "$work/all.out") addresses the reference has rows for have no STACK CFI (first $(first_init "$work/good.sym")); 0 compared" \
    planted "every STACK CFI record removed (x86_64 SFrame only)" '!/^STACK /' \
    "$cfi_equal" --sframe "$work/sframe-only/x86_64/gas-v1.elf"
fi
s390_demo=$qemu/s390x/demo.elf
if [[ -e $work/s390x/demo.elf.sym ]]; then
  cp "$work/s390x/demo.elf.sym" "$work/good.sym"
  "$cfi_equal" --cfi "$s390_demo" "$work/good.sym" >"$work/all.out" 2>&1
  all=$(compared_in "$work/all.out")
  PLANTED_SAYS="$all addresses the reference has rows for have no STACK CFI (first $(first_init "$work/good.sym")); 0 compared" \
    planted "every STACK CFI record removed (s390x, against the DWARF CFI rows)" '!/^STACK /' \
    "$cfi_equal" --cfi "$s390_demo"
  # One function's entry (its INIT and the STACK CFI lines after it) gone: the rest still compare.
  planted "one function's STACK CFI removed (s390x, against the DWARF CFI rows)" \
    '/^STACK CFI INIT / {skip = ++n == 10} /^STACK CFI / && skip {next} {print}' "$cfi_equal" --cfi "$s390_demo"
  # Nothing to compare on either side is no pass either.
  grep -v '^STACK ' "$work/good.sym" >"$work/no-stack.sym"
  out=$("$cfi_equal" "$work/no-stack.sym" "$work/no-stack.sym" 2>&1)
  rc=$?
  want="no address compared: the symbol file and the reference describe none in common"
  if [[ $rc == 1 && $out == "$want" ]]; then
    pass "sym_cfi_equal with nothing to compare fails ($out)"
  else
    fail "sym_cfi_equal with nothing to compare" "exit $rc, '$out' (wanted 1, '$want')"
  fi
fi

echo "breakpad-symbols: $passed passed, $failed failed"
