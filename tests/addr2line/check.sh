#!/usr/bin/env bash
# The addr2line suite: `sfu symbolize --addr2line [-C]` against binutils' addr2line (the
# machine's, 2.40; the cross ones for arm64 and s390x images), compared as whole outputs, on
#   - every instruction start of every QEMU test kernel of the three architectures;
#   - googletest (gtest-all, gtest_main, sample1) built -g -O2 by g++ and clang++, for x86_64
#     and arm64, DWARF 5 and DWARF 4: a deterministic sample of instruction starts (every
#     STRIDE-th), inline frames included.
# Then the default mode and the log mode on a kernel's backtrace, line for line against
# addr2line's own answers. Then tests/addr2line/cli.sh. Each comparison is one case; a failure
# shows the first differing lines.
#   tests/addr2line/check.sh SFU WORKDIR QEMU_DIR
# googletest builds are kept in WORKDIR and rebuilt only when missing or older than this script.
# Ends "addr2line: N passed, M failed".
set -uo pipefail
sfu=$1
work=$2
qemu=$3
gtest=${GTEST_SRC:-/usr/src/googletest/googletest}
source "$(dirname "$0")/../support/googletest.sh"
stride=${ADDR2LINE_STRIDE:-7}
mkdir -p "$work"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
finish() { echo "addr2line: $passed passed, $failed failed"; exit 0; }

# The binutils prefix for an image's machine (e_machine at offset 18, in the file's byte order).
prefix_of() {
  local m
  m=$(od -An -tx1 -j18 -N2 "$1" | tr -d ' \n')
  case $m in
    3e00) echo "" ;;
    b700) echo "aarch64-linux-gnu-" ;;
    0016) echo "s390x-linux-gnu-" ;;
    *) echo "unknown" ;;
  esac
}

# Instruction starts of an image's code, one "0x..." a line; every $2-th with $2 > 1.
insn_starts() {
  local p
  p=$(prefix_of "$1")
  "${p}objdump" -d --no-show-raw-insn "$1" | sed -n 's/^ *\([0-9a-f]\+\):\t.*/0x\1/p' | awk -v s="$2" 'NR % s == 1 || s == 1'
}

# compare NAME ELF ADDRS_FILE [-C]: sfu's output and addr2line's, whole.
compare() {
  local name=$1 elf=$2 addrs=$3 flag=${4:-} p want got
  p=$(prefix_of "$elf")
  want=$work/want.txt got=$work/got.txt
  # One process each, so that both see every address of the run (addr2line's answers depend on
  # the addresses before): addr2line reads them from stdin, sfu from its arguments.
  "${p}addr2line" -f -i $flag -e "$elf" <"$addrs" >"$want" 2>/dev/null
  # shellcheck disable=SC2046
  if ! "$sfu" symbolize --addr2line $flag "$elf" $(cat "$addrs") >"$got" 2>"$work/got.err"; then
    fail "$name" "sfu exited badly: $(head -n 1 "$work/got.err")"
    return
  fi
  local lines n
  lines=$(wc -l <"$want")
  n=$(wc -l <"$addrs")
  if [[ $lines -lt $((2 * n)) ]]; then
    fail "$name" "addr2line printed $lines lines for $n addresses"
  elif cmp -s "$want" "$got"; then
    pass "$name ($n addresses, $lines lines)"
  else
    fail "$name" "first differences (addr2line <, sfu >): $(diff "$want" "$got" | grep '^[<>]' | head -n 6 | tr '\n' '|')"
  fi
}

# --- QEMU kernels: every instruction start -------------------------------------------------
kernels=("$qemu"/*/*.elf)
if [[ ! -e ${kernels[0]} ]]; then
  fail "qemu kernels" "none under $qemu (make qemu-kernels)"
fi
for elf in "${kernels[@]}"; do
  [[ -e $elf ]] || continue
  name=$(basename "$(dirname "$elf")")/$(basename "$elf")
  insn_starts "$elf" 1 >"$work/addrs.txt"
  compare "$name" "$elf" "$work/addrs.txt"
  compare "$name -C" "$elf" "$work/addrs.txt" -C
done

# --- googletest ------------------------------------------------------------------------------
# name|compiler and flags|linker
arm64_clang=(clang++ --target=aarch64-linux-gnu)
variants=(
  "gcc-x86_64-dwarf5|g++|g++"
  "gcc-x86_64-dwarf4|g++ -gdwarf-4|g++"
  "clang-x86_64-dwarf5|clang++|clang++"
  "clang-x86_64-dwarf4|clang++ -gdwarf-4|clang++"
  "gcc-arm64-dwarf5|aarch64-linux-gnu-g++|aarch64-linux-gnu-g++"
  "clang-arm64-dwarf5|${arm64_clang[*]}|aarch64-linux-gnu-g++"
)
for v in "${variants[@]}"; do
  IFS='|' read -r name cc ld <<<"$v"
  image=$work/$name/gtest.elf
  if [[ ! -e $image || $0 -nt $image ]]; then
    rm -f "$image"
    build_gtest "$work/$name" "$cc" "$ld" >"$work/$name.build.log" 2>&1 || true
  fi
  if [[ ! -e $image ]]; then
    fail "googletest $name" "build failed: $(tail -n 1 "$work/$name.build.log")"
    continue
  fi
  insn_starts "$image" "$stride" >"$work/addrs.txt"
  compare "googletest $name" "$image" "$work/addrs.txt"
  compare "googletest $name -C" "$image" "$work/addrs.txt" -C
done

# --- default mode and log mode: each architecture's demo kernel, with its serial log when
# `make qemu-test` left one ------------------------------------------------------------------
for arch in x86_64 arm64 s390x; do
  elf=$qemu/$arch/demo.elf
  [[ -e $elf ]] || { fail "$arch modes" "no $elf"; continue; }
  log=$qemu/logs/${arch}_demo.log
  [[ -e $log ]] || log=
  while read -r verdict rest; do
    case $verdict in
      PASS) pass "$rest" ;;
      FAIL) fail "${rest%%: *}" "${rest#*: }" ;;
    esac
  done < <(python3 "$(dirname "$0")/modes.py" "$sfu" "$elf" "$log" "$work/$arch.log" 2>&1 ||
           echo "FAIL $arch modes: modes.py exited badly")
done

# Two images at once: each frame of the joined logs is annotated from the image that holds it,
# as with that image alone (the x86_64 and arm64 kernels' code does not overlap).
a=$qemu/x86_64/demo.elf b=$qemu/arm64/demo.elf
if [[ -e $work/x86_64.log && -e $work/arm64.log ]]; then
  cat "$work/x86_64.log" "$work/arm64.log" >"$work/joined.log"
  { "$sfu" symbolize --image "$a" "$work/x86_64.log"; "$sfu" symbolize --image "$b" "$work/arm64.log"; } >"$work/want.txt"
  "$sfu" symbolize --image "$a" --image "$b" <"$work/joined.log" >"$work/got.txt" 2>&1
  if cmp -s "$work/want.txt" "$work/got.txt" && grep -q '(inlined by)' "$work/got.txt"; then
    pass "log mode with two images ($(grep -c '#' "$work/joined.log") frames)"
  else
    fail "log mode with two images" "$(diff "$work/want.txt" "$work/got.txt" | grep '^[<>]' | head -n 4 | tr '\n' '|')"
  fi
else
  fail "log mode with two images" "no made-up logs from modes.py"
fi

# The command-line behaviours on a program built here (tests/addr2line/cli.sh).
while read -r verdict rest; do
  case $verdict in
    PASS) pass "$rest" ;;
    FAIL) fail "${rest%%: *}" "${rest#*: }" ;;
  esac
done < <(bash "$(dirname "$0")/cli.sh" "$sfu" "$work/cli" 2>&1 || echo "FAIL cli.sh: exited badly")

finish
