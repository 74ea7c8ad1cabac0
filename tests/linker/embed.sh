#!/usr/bin/env bash
# The embedding flow of linker/README.md on host programs: tests/linker/linked_image.c built by
# gcc and by clang without SFrame support, linked with sfunwind-reserve.ld, given a table and its
# function names by `sfu gen` (V2 and V3) in place; and built by gcc with gas's SFrame, linked
# with sfunwind.ld and sfunwind-symbols.ld, given only the names by `sfu gen --symbols-only`.
# Then run: each walks itself, finds its build-id (the one readelf shows) and prints names.
#   embed.sh SFU DIR RESERVE_IMAGE... [--symbols-only GAS_IMAGE...]
# Ends "embed: N passed, M failed".
set -u
sfu=$1
dir=$2
shift 2
mkdir -p "$dir"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# Runs a generated image and checks what it prints.
run_image() {
  local out=$1 log p f id
  chmod +x "$out"
  log=$("$out")
  echo "$log" | sed "s|^|  $(basename "$out"): |"
  p=$(echo "$log" | sed -n 's/^linker: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
  f=$(echo "$log" | sed -n 's/^linker: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
  if [[ -z $p ]]; then
    bad "$out: no result line"
  else
    pass=$((pass + p))
    fail=$((fail + f))
  fi
  id=$(readelf -n "$out" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
  [[ -n $id && $log == *"build-id: $id"* ]] && ok || bad "$out: build-id printed is not readelf's ($id)"
  # Frame 0 is main, named by the program itself from its own table.
  echo "$log" | grep -Eq '^ #0 .*\[regs\] +image  main\+0x[0-9a-f]+/0x[0-9a-f]+$' && ok ||
    bad "$out: frame 0 is not printed as main+0xOFF/0xSIZE"
}

# The same bytes as before but the tables: nothing moved.
same_code() {
  cmp -s <(objdump -d "$1" | tail -n +3) <(objdump -d "$2" | tail -n +3) && ok || bad "$2: code changed"
}

symbols_only=0
for base in "$@"; do
  if [[ $base == --symbols-only ]]; then
    symbols_only=1
    continue
  fi
  if [[ $symbols_only == 1 ]]; then
    out=$dir/$(basename "$base")-symbols
    line=$("$sfu" gen "$base" -o "$out" --symbols-only) || { bad "sfu gen --symbols-only $base"; continue; }
    echo "  $line"
    [[ $line == "gen: symbols: "*"(written into .sfu_symbols)" ]] && ok || bad "$out: symbols not written in place"
    same_code "$base" "$out"
    cmp -s <(objcopy -O binary -j .sframe "$base" /dev/stdout) <(objcopy -O binary -j .sframe "$out" /dev/stdout) &&
      ok || bad "$out: gas's .sframe changed"
    run_image "$out"
    continue
  fi
  for v in 2 3; do
    out=$dir/$(basename "$base")-v$v
    if ! line=$("$sfu" gen "$base" -o "$out" --sframe-version $v); then
      bad "sfu gen $base (V$v)"
      continue
    fi
    echo "  $line"
    # sfunwind-reserve.ld reserves the names too: gen writes them by default.
    [[ $line == *"; symbols: "*"(written into .sfu_symbols)" ]] && ok || bad "$out: symbols not written in place"
    same_code "$base" "$out"
    "$sfu" verify "$out" || bad "$out: verify"
    run_image "$out"
  done
done
echo "embed: $pass passed, $fail failed"
