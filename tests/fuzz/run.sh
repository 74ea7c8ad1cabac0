#!/bin/bash
# Runs the libFuzzer targets, one after the other, each for a fixed time.
#   tests/fuzz/run.sh BINARY SECONDS CORPUS_DIR [BINARY SECONDS]...
# fuzz_sframe (the decoder and the readers it dispatches to) is seeded from the conformance corpus
# CORPUS_DIR (SFrame sections) and tests/fuzz/*-seeds (crash records and logs, symbol tables,
# DWARF, Breakpad .sym files and microdumps); its seeds go to seeds/ next to the binary (rebuilt
# every run), the inputs libFuzzer finds to corpus/ (kept between runs), a crashing input to
# crash-* next to the binary. fuzz_walk (the walker) is seeded from tests/fuzz/walk-seeds, with
# walk-seeds/, walk-corpus/ and walk-crash-* instead; fuzz_walk_unvalidated (the same target built
# without validation at registration) too, with walk-unvalidated-seeds/, -corpus/ and -crash-*.
# The last line is "fuzz: P passed, F failed", one count per target; the exit status is 0 only
# when every target passed.
set -u

passed=0 failed=0
result() {
  echo "fuzz: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit
}

if [ $# -lt 3 ] || [ $(($# % 2)) -ne 1 ]; then
  echo "usage: $0 BINARY SECONDS CORPUS_DIR [BINARY SECONDS]..." >&2
  failed=1
  result
fi
corpus=$3
targets=("$1" "$2")
shift 3
targets+=("$@")
fuzz_dir=$(cd "$(dirname "$0")" && pwd)

# Little-endian bytes of a number, as printf escapes.
le() {
  local value=$1 width=$2 out="" i
  for ((i = 0; i < width; i++)); do
    out+=$(printf '\\x%02x' $(((value >> (8 * i)) & 0xff)))
  done
  printf '%s' "$out"
}

# The parameter prefix tests/fuzz/fuzz_sframe.cpp reads: mode, section address, text range
# (as a distance below the address and a length), a PC and two PC distances.
params() {
  local mode=$1 base=$2 text_below=$3 text_len=$4
  printf "$(printf '\\x%02x' "$mode")$(le "$base" 8)$(le "$text_below" 4)$(le "$text_len" 4)$(le "$base" 8)$(le 0 4)$(le 4294967280 4)"
}

# fuzz_sframe's seeds into $1; fails when the corpus has no section.
sframe_seeds() {
  local seeds=$1 count=0 case_dir section name base
  for case_dir in "$corpus"/*/; do
    section=$case_dir/section.bin
    [ -s "$section" ] || continue
    name=$(basename "$case_dir")
    base=$(($(tr -d '[:space:]' <"$case_dir/section_base")))
    # As found; with a wide text range checked; asking for AArch64 (a mismatch for AMD64 tables).
    { params 0 "$base" 0 0; cat "$section"; } >"$seeds/$name"
    { params 1 "$base" $((1 << 20)) $((1 << 21)); cat "$section"; } >"$seeds/$name-text"
    { params 4 "$base" 0 0; cat "$section"; } >"$seeds/$name-aarch64"
    count=$((count + 1))
  done
  # Crash records (fuzz_crash.cpp): a record as is and resealed, and its printed log.
  { printf '\x80'; cat "$fuzz_dir/crash-seeds/record.bin"; } >"$seeds/crash-record"
  { printf '\x81'; cat "$fuzz_dir/crash-seeds/record.bin"; } >"$seeds/crash-record-resealed"
  { printf '\x82'; cat "$fuzz_dir/crash-seeds/serial.log"; } >"$seeds/crash-log"
  # Symbol tables and build-id notes (fuzz_symbols.cpp): the x86_64 and s390x test kernels', with
  # their section address and text range in front, as `sfu gen` wrote them.
  cp "$fuzz_dir"/symbols-seeds/*.seed "$seeds/"
  # DWARF debug sections (fuzz_dwarf.cpp): tests/unit/data's small images (DWARF 5 and 4, s390x).
  cp "$fuzz_dir"/dwarf-seeds/*.seed "$seeds/"
  # Breakpad .sym files and microdumps (fuzz_breakpad.cpp), their mode byte first.
  cp "$fuzz_dir"/breakpad-seeds/*.seed "$seeds/"
  if [ "$count" -eq 0 ]; then
    echo "run.sh: no non-empty section.bin under $corpus" >&2
    return 1
  fi
  echo "run.sh: $count corpus sections as seeds"
}

# Runs one target for its time: run_target BINARY SECONDS. Fails on a bad argument or when
# libFuzzer reports anything.
run_target() {
  local bin=$1 seconds=$2 dir name prefix seeds found status
  # libFuzzer takes -max_total_time=0 as "no limit": insist on a real duration.
  if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
    echo "run.sh: SECONDS must be a whole number of at least 1, not '$seconds'" >&2
    return 1
  fi
  if [ ! -x "$bin" ]; then
    echo "run.sh: no fuzzer binary at $bin (make fuzz-build)" >&2
    return 1
  fi
  dir=$(cd "$(dirname "$bin")" && pwd)
  name=$(basename "$bin")
  case $name in
    fuzz_walk) prefix=walk- ;;
    fuzz_walk_unvalidated) prefix=walk-unvalidated- ;;
    *) prefix= ;;
  esac
  seeds=$dir/${prefix}seeds
  found=$dir/${prefix}corpus
  rm -rf "$seeds"
  mkdir -p "$seeds" "$found"
  if [ -n "$prefix" ]; then
    cp "$fuzz_dir"/walk-seeds/*.seed "$seeds/" || return 1
  else
    sframe_seeds "$seeds" || return 1
  fi
  echo "run.sh: $name, $(ls "$seeds" | wc -l) seeds, fuzzing for $seconds s"
  "$bin" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=4096 -use_value_profile=1 \
    -print_final_stats=1 -artifact_prefix="$dir/$prefix" "$found" "$seeds"
  status=$?
  [ "$status" -eq 0 ] && return 0
  echo "run.sh: $name: libFuzzer exited with status $status" >&2
  return 1
}

set -- "${targets[@]}"
while [ $# -gt 0 ]; do
  if run_target "$1" "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  shift 2
done
result
