#!/usr/bin/env bash
# sfu dump against every case of the SFrame conformance corpus.
#   tests/dump/conformance.sh SFU_BINARY CORPUS_DIR
# Cases printed by binutils 2.45 or 2.46 must match objdump's text exactly; older ones (whose
# objdump printed a slightly different format) must match in function lines and rows.
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 SFU_BINARY CORPUS_DIR" >&2
  exit 2
fi
sfu=$1
corpus=$2
# shellcheck source=tests/dump/common.sh
. "$(dirname "$0")/common.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
cases=0
for dir in "$corpus"/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  [ -f "$dir/section.bin" ] || continue
  cases=$((cases + 1))
  sframe_text "$dir/objdump.txt" >"$tmp/expected"
  # The address as a value, and as the file that holds it: both forms must print the same.
  "$sfu" dump --raw "$dir/section.bin" --base "$(cat "$dir/section_base")" >"$tmp/actual" 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 0 ] && ! "$sfu" dump --raw "$dir/section.bin" --base "$dir/section_base" 2>/dev/null |
    cmp -s - "$tmp/actual"; then
    rc=99
    echo "--base with the section_base file gave other output" >"$tmp/err"
  fi

  why=""
  if [ $rc -ne 0 ]; then
    why="exit status $rc: $(head -n 1 "$tmp/err")"
  else
    case $name in
      *-2.45 | *-2.46) ;;
      *)
        # Byte 4 of the header is the ABI; 3 is AMD64.
        amd64=0
        [ -s "$dir/section.bin" ] && [ "$(od -An -tu1 -j4 -N1 "$dir/section.bin" | tr -d ' ')" = 3 ] && amd64=1
        rows_only "$tmp/expected" "$amd64" >"$tmp/expected.rows"
        rows_only "$tmp/actual" 0 >"$tmp/actual.rows"
        # A filter that keeps nothing would let every case pass.
        [ -s "$tmp/expected" ] && [ ! -s "$tmp/expected.rows" ] && why="no rows found in objdump.txt"
        mv "$tmp/expected.rows" "$tmp/expected"
        mv "$tmp/actual.rows" "$tmp/actual"
        ;;
    esac
    [ -z "$why" ] && ! cmp -s "$tmp/expected" "$tmp/actual" && why="output differs"
  fi

  if [ -z "$why" ]; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name ($why)"
    [ $rc -eq 0 ] && short_diff "$tmp/expected" "$tmp/actual"
    failed=$((failed + 1))
  fi
done

# An empty or misnamed corpus must not look like success.
if [ $cases -eq 0 ]; then
  echo "no cases in $corpus" >&2
  failed=1
fi
echo "dump: $passed passed, $failed failed"
[ $failed -eq 0 ]
