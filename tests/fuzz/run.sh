#!/bin/bash
# Runs the fuzzer for a fixed time, seeded from the conformance corpus (SFrame sections) and
# tests/fuzz/*-seeds (crash records and logs, symbol tables, DWARF, Breakpad .sym files and
# microdumps).
#   tests/fuzz/run.sh BINARY SECONDS CORPUS_DIR
# Seeds go to seeds/ next to the binary (rebuilt every run); inputs libFuzzer finds go to
# corpus/ (kept between runs); a crashing input is saved next to the binary as crash-*.
# The last line is "fuzz: 1 passed, 0 failed" or "fuzz: 0 passed, 1 failed", as the exit status.
set -u

result() {
  if [ "$1" = pass ]; then
    echo "fuzz: 1 passed, 0 failed"
    exit 0
  fi
  echo "fuzz: 0 passed, 1 failed"
  exit 1
}

if [ $# -ne 3 ]; then
  echo "usage: $0 BINARY SECONDS CORPUS_DIR" >&2
  result fail
fi
bin=$1 seconds=$2 corpus=$3
# libFuzzer takes -max_total_time=0 as "no limit": insist on a real duration.
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "run.sh: SECONDS must be a whole number of at least 1, not '$seconds'" >&2
  result fail
fi
if [ ! -x "$bin" ]; then
  echo "run.sh: no fuzzer binary at $bin (make fuzz-build)" >&2
  result fail
fi

dir=$(cd "$(dirname "$bin")" && pwd)
seeds=$dir/seeds
found=$dir/corpus
rm -rf "$seeds"
mkdir -p "$seeds" "$found"

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

count=0
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
seed_dir=$(dirname "$0")/crash-seeds
{ printf '\x80'; cat "$seed_dir/record.bin"; } >"$seeds/crash-record"
{ printf '\x81'; cat "$seed_dir/record.bin"; } >"$seeds/crash-record-resealed"
{ printf '\x82'; cat "$seed_dir/serial.log"; } >"$seeds/crash-log"
# Symbol tables and build-id notes (fuzz_symbols.cpp): the x86_64 and s390x test kernels', with
# their section address and text range in front, as `sfu gen` wrote them.
cp "$(dirname "$0")"/symbols-seeds/*.seed "$seeds/"
# DWARF debug sections (fuzz_dwarf.cpp): tests/unit/data's small images (DWARF 5 and 4, s390x).
cp "$(dirname "$0")"/dwarf-seeds/*.seed "$seeds/"
# Breakpad .sym files and microdumps (fuzz_breakpad.cpp), their mode byte first.
cp "$(dirname "$0")"/breakpad-seeds/*.seed "$seeds/"
if [ "$count" -eq 0 ]; then
  echo "run.sh: no non-empty section.bin under $corpus" >&2
  result fail
fi
echo "run.sh: $count corpus sections as seeds, fuzzing for $seconds s"

"$bin" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=4096 -use_value_profile=1 \
  -print_final_stats=1 -artifact_prefix="$dir/" "$found" "$seeds"
status=$?
if [ "$status" -eq 0 ]; then result pass; fi
echo "run.sh: libFuzzer exited with status $status" >&2
result fail
