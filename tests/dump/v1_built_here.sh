#!/usr/bin/env bash
# SFrame V1 tables written here by Debian's assembler (binutils 2.40), dumped by its objdump
# and by sfu dump: function lines and rows must match.
#   tests/dump/v1_built_here.sh SFU_BINARY WORKDIR
# Every program in tests/dump/programs/ is built for x86_64, arm64, and arm64 with pac-ret
# (whose rows must carry the signed-RA mark "[s]", or the variant proves nothing).
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 SFU_BINARY WORKDIR" >&2
  exit 2
fi
sfu=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/dump/common.sh
. "$here/common.sh"
mkdir -p "$work" || exit 2

# name : compiler : objdump : extra compiler flags
variants=(
  "x86_64:gcc:objdump:"
  "arm64:aarch64-linux-gnu-gcc:aarch64-linux-gnu-objdump:"
  "arm64-pac:aarch64-linux-gnu-gcc:aarch64-linux-gnu-objdump:-mbranch-protection=pac-ret"
)
# No libc: each program names its own entry; it is only dumped, never run.
# shellcheck disable=SC2054  # the commas belong to -Wa, and -Wl,
common_flags=(-O2 -Wa,--gsframe -nostdlib -static -fno-stack-protector -Wl,-e,sfu_entry)

# Checks one built program; prints the reason it fails, nothing when it passes.
check() {  # DIR VARIANT OBJDUMP
  local dir=$1 variant=$2 objdump=$3 amd64=0
  [ "$variant" = x86_64 ] && amd64=1
  "$sfu" dump "$dir/prog" >"$dir/sfu.txt" 2>"$dir/sfu.err" || { echo "sfu dump: $(head -n 1 "$dir/sfu.err")"; return; }
  # Debian's gas must have written version 1, or this is not the test it claims to be.
  grep -qx '    Version: SFRAME_VERSION_1' "$dir/sfu.txt" || { echo "not an SFrame V1 table"; return; }
  local why
  why=$(compare_with_objdump "$objdump" "$dir/prog" "$dir/sfu.txt" "$amd64" "$dir/prog")
  [ -z "$why" ] || { echo "$why"; return; }
  case $variant in
    *-pac) grep -qF '[s]' "$dir/prog.sfu.rows" || echo "pac-ret build has no [s] rows" ;;
    arm64) grep -qF '[s]' "$dir/prog.sfu.rows" && echo "[s] rows without pac-ret" ;;
  esac
}

passed=0
failed=0
programs=("$here"/programs/*.c)
[ -e "${programs[0]}" ] || { echo "no programs in $here/programs" >&2; programs=(); failed=1; }
for src in "${programs[@]}"; do
  prog=$(basename "$src" .c)
  for v in "${variants[@]}"; do
    IFS=: read -r variant cc objdump extra <<<"$v"
    name=$prog-$variant
    dir=$work/$name
    mkdir -p "$dir"
    extra_flags=()
    [ -n "$extra" ] && extra_flags=("$extra")
    if ! "$cc" "${common_flags[@]}" "${extra_flags[@]}" -o "$dir/prog" "$src" >"$dir/build.log" 2>&1; then
      why="build failed: $(head -n 1 "$dir/build.log")"
    else
      why=$(check "$dir" "$variant" "$objdump")
    fi
    if [ -z "$why" ]; then
      echo "PASS $name"
      passed=$((passed + 1))
    else
      echo "FAIL $name: $why"
      failed=$((failed + 1))
    fi
  done
done

echo "v1-built: $passed passed, $failed failed"
[ $failed -eq 0 ]
