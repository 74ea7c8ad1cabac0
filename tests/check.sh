#!/usr/bin/env bash
# make check: runs every suite, shows each one's result, and ends with one line
# "N passed, M failed" summing them all. A suite that crashes or prints no count is a failure.
set -u
BUILD=${BUILD:-build}
SFU_CORPUS=${SFU_CORPUS:?}
FUZZ_CHECK_SECONDS=${FUZZ_CHECK_SECONDS:-60}
logs=$BUILD/check
mkdir -p "$logs"

total_pass=0
total_fail=0

# Counts from a log: GoogleTest's summary, or a final "<suite>: N passed, M failed" line.
counts() {
  local log=$1 p f
  if grep -q '^\[==========\] .* ran\.' "$log"; then
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$log" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:.*/\1/p' "$log" | tail -n 1)
    echo "${p:-0} ${f:-0}"
    return
  fi
  sed -n 's/^[a-z0-9-]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$log" | tail -n 1
}

run_suite() {
  local name=$1
  shift
  local log=$logs/$name.log
  local start=$SECONDS
  "$@" >"$log" 2>&1
  local rc=$?
  local c
  c=$(counts "$log")
  local p=${c% *} f=${c#* }
  if [[ -z $c ]]; then
    p=0
    f=1
  elif [[ $rc -ne 0 && $f -eq 0 ]]; then
    f=1  # exited badly after its tests: a crash or a sanitizer report
  fi
  printf '%-14s %5d passed, %3d failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - start))
  if [[ $f -ne 0 ]]; then
    grep -E '^(FAIL|\[  FAILED  \])|ERROR|runtime error' "$log" | head -n 20 | sed 's/^/    /'
    echo "    full log: $log"
  fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
}

run_suite unit "$BUILD/tests/unit_tests"
run_suite variant "$BUILD/tests/variant_tests"
run_suite cache-stats "$BUILD/tests/cache_stats_tests"
run_suite profile "$BUILD/tests/profile_tests"
run_suite target "$BUILD/tests/target_tests"
run_suite direct "$BUILD/tests/direct_tests"
run_suite walk-only "$BUILD/tests/walk_only_tests"
run_suite linker "$BUILD/tests/linked_image"
run_suite embed bash tests/linker/embed.sh "$BUILD/tools/sfu" "$BUILD/check" \
  "$BUILD/tests/reserve_image_gcc" "$BUILD/tests/reserve_image_clang" --symbols-only "$BUILD/tests/symbols_image_gas"
run_suite pie bash tests/linker/pie.sh "$BUILD"
run_suite gc bash tests/linker/gc.sh "$BUILD"
run_suite crash bash tests/crash/check.sh "$BUILD/tools/sfu" "$BUILD/tests/crash_program" "$BUILD/check/crash"
run_suite moved bash tests/crash/moved.sh "$BUILD/tools/sfu" "$BUILD/tests/crash_program_pie" \
  "$BUILD/tests/crash_program" "$BUILD/oracles/breakpad/bin" "$BUILD/check/moved"
run_suite walk-x86 "$BUILD/tests/x86_walk_tests"
run_suite freestanding bash tests/freestanding.sh "$BUILD"
run_suite docs python3 tests/docs/check.py "$BUILD"
run_suite gen bash tests/gen/check.sh "$BUILD/tools/sfu" "$BUILD/gen-corpus" "$BUILD/check/gen"
run_suite gen-real bash bench/sframe_size.sh "$BUILD/tools/sfu" "$BUILD/check/gen-real" "$BUILD/check/gen-real/size.md"
run_suite dump bash tests/dump/conformance.sh "$BUILD/tools/sfu" "$SFU_CORPUS"
run_suite v1-built bash tests/dump/v1_built_here.sh "$BUILD/tools/sfu" "$BUILD/check/v1-built"
run_suite runner python3 tests/qemu/runner_test.py "$BUILD/tools/sfu" "$BUILD/gen-corpus"
run_suite qemu make --no-print-directory -s BUILD="$BUILD" qemu-test
run_suite profile-runner python3 tests/qemu/profile_check_test.py "$BUILD/tools/sfu" "$BUILD/qemu"
run_suite adoption bash tests/adoption/check.sh "$BUILD"
run_suite addr2line bash tests/addr2line/check.sh "$BUILD/tools/sfu" "$BUILD/check/addr2line" "$BUILD/qemu"
run_suite sfu-profile python3 tests/profile/check.py "$BUILD/tools/sfu" "$BUILD/check/profile" \
  "$BUILD/tests/profile_program" "$BUILD/tests/profile_program_pie"
run_suite breakpad bash tests/breakpad/check.sh "$BUILD/tools/sfu" "$BUILD/tests/sym_cfi_equal" "$BUILD/check/breakpad" \
  "$BUILD/qemu" "$BUILD/oracles/breakpad"
# The fuzz targets in FUZZ_CHECK_SECONDS: two thirds for the decoder's, the rest for the walker's,
# half of it over tables registered without validation (fuzz_walk_unvalidated).
fuzz_sframe_seconds=$((FUZZ_CHECK_SECONDS * 2 / 3 > 0 ? FUZZ_CHECK_SECONDS * 2 / 3 : 1))
fuzz_walk_seconds=$(((FUZZ_CHECK_SECONDS - fuzz_sframe_seconds) / 2 > 0 ? (FUZZ_CHECK_SECONDS - fuzz_sframe_seconds) / 2 : 1))
fuzz_unvalidated_seconds=$((FUZZ_CHECK_SECONDS - fuzz_sframe_seconds - fuzz_walk_seconds > 0 ?
  FUZZ_CHECK_SECONDS - fuzz_sframe_seconds - fuzz_walk_seconds : 1))
run_suite fuzz bash tests/fuzz/run.sh "$BUILD/fuzz/fuzz_sframe" "$fuzz_sframe_seconds" "$SFU_CORPUS" \
  "$BUILD/fuzz/fuzz_walk" "$fuzz_walk_seconds" "$BUILD/fuzz/fuzz_walk_unvalidated" "$fuzz_unvalidated_seconds"

echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
