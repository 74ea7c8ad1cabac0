#!/usr/bin/env bash
# The breakpad suite (make check): Breakpad's own tools as the oracle for what sfunwind writes and
# reads in Breakpad's formats.
#   - builds dump_syms, minidump_stackwalk and microdump_stackwalk once, from
#     ../shared/oracles/breakpad, into ORACLE_DIR (kept: later runs reuse them);
#   - symbols.sh: `sfu breakpad` against `dump_syms` (QEMU kernels of all three architectures,
#     googletest by gcc and clang for x86_64 and arm64, SFrame-only images, refusals, planted faults);
#   - dumps.sh: minidumps and microdumps from the QEMU crash records, walked by
#     Breakpad's processors and by `sfu stackwalk` (it needs `make qemu-test`'s records).
# Ends "breakpad: N passed, M failed", the sum of both.
#   tests/breakpad/check.sh SFU SYM_CFI_EQUAL WORKDIR QEMU_DIR ORACLE_DIR
# WORKDIR is BUILD/check/breakpad: the googletest images are the addr2line suite's, in
# BUILD/check/addr2line.
set -uo pipefail
sfu=$1
cfi_equal=$2
work=$3
qemu=$4
oracle=$5
here=$(cd "$(dirname "$0")" && pwd)
build_sh=${BREAKPAD_ORACLE_BUILD:-$here/../../../shared/oracles/breakpad/build.sh}
mkdir -p "$work"

passed=0
failed=0

# The oracle, built once.
bin=$oracle/bin
if [[ ! -x $bin/dump_syms || ! -x $bin/minidump_stackwalk || ! -x $bin/microdump_stackwalk ]]; then
  start=$SECONDS
  if bash "$build_sh" "$oracle" >"$work/oracle-build.log" 2>&1; then
    bin=$(tail -n 1 "$work/oracle-build.log")
    echo "PASS Breakpad's tools built into $bin ($((SECONDS - start))s)"
    passed=$((passed + 1))
  else
    echo "FAIL Breakpad's tools: the build failed: $(tail -n 3 "$work/oracle-build.log" | tr '\n' '|')"
    echo "breakpad: $passed passed, 1 failed"
    exit 1
  fi
fi

# Runs one half, shows its lines, adds its final "NAME: N passed, M failed" to the totals.
half() {
  local name=$1 log=$work/$1.log
  shift
  "$@" >"$log" 2>&1
  cat "$log"
  local counts
  counts=$(sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$log" | tail -n 1)
  if [[ -z $counts ]]; then
    echo "FAIL $name: ended without its count line"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + ${counts% *}))
  failed=$((failed + ${counts#* }))
}

half breakpad-symbols bash "$here/symbols.sh" "$sfu" "$bin/dump_syms" "$cfi_equal" "$work/symbols" "$qemu" \
  "$(dirname "$work")/addr2line"
half breakpad-dumps bash "$here/dumps.sh" "$sfu" "$qemu" "$bin" "$work/dumps"

echo "breakpad: $passed passed, $failed failed"
