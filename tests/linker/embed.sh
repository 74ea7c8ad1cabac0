#!/usr/bin/env bash
# The embedding flow of linker/README.md on host programs: tests/linker/linked_image.c built by
# gcc and by clang without SFrame support, linked with sfunwind-reserve.ld, given a table by
# `sfu gen` (V2 and V3) in place, then run: each walks itself. Ends "embed: N passed, M failed".
set -u
sfu=$1
dir=$2
shift 2
mkdir -p "$dir"
pass=0
fail=0
for base in "$@"; do
  for v in 2 3; do
    out=$dir/$(basename "$base")-v$v
    if ! "$sfu" gen "$base" -o "$out" --sframe-version $v; then
      echo "FAIL sfu gen $base (V$v)"
      fail=$((fail + 1))
      continue
    fi
    chmod +x "$out"
    # The same bytes as before but the table: nothing moved.
    if cmp -s <(objdump -d "$base" | tail -n +3) <(objdump -d "$out" | tail -n +3); then
      pass=$((pass + 1))
    else
      echo "FAIL $out: code changed"
      fail=$((fail + 1))
    fi
    "$sfu" verify "$out" || fail=$((fail + 1))
    log=$("$out")
    echo "$log" | sed "s|^|  $(basename "$out"): |"
    p=$(echo "$log" | sed -n 's/^linker: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$log" | sed -n 's/^linker: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [[ -z $p ]]; then
      fail=$((fail + 1))
    else
      pass=$((pass + p))
      fail=$((fail + f))
    fi
  done
done
echo "embed: $pass passed, $fail failed"
