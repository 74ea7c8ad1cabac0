#!/usr/bin/env bash
# Freestanding proof: each architecture's libsfu.a references no symbol it does not define,
# except the documented kernel hooks (sfu_hook_*), and has no static constructors.
# usage: tests/freestanding.sh BUILD_DIR
set -u
build=${1:-build}
pass=0 fail=0
for arch in x86_64 arm64 s390x; do
  case $arch in
    x86_64) cross="" ;;
    arm64) cross=aarch64-linux-gnu- ;;
    s390x) cross=s390x-linux-gnu- ;;
  esac
  lib=$build/$arch/libsfu.a
  if [[ ! -f $lib ]]; then
    echo "FAIL $arch: $lib was not built"
    fail=$((fail + 1))
    continue
  fi
  undefined=$(${cross}nm -u "$lib" | awk '$1 == "U" { print $2 }' | sort -u)
  defined=$(${cross}nm --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
  foreign=$(comm -23 <(echo "$undefined") <(echo "$defined") | grep -v -e '^$' -e '^sfu_hook_')
  ctors=$(${cross}objdump -h "$lib" | grep -E '\.(init_array|ctors)' || true)
  if ! grep -qx sfu_table_init <<<"$defined"; then
    echo "FAIL $arch: sfu_table_init is not in $lib"
    fail=$((fail + 1))
  elif [[ -n $foreign || -n $ctors ]]; then
    echo "FAIL $arch: needs what a kernel may not have:"
    [[ -n $foreign ]] && sed 's/^/  undefined: /' <<<"$foreign"
    [[ -n $ctors ]] && echo "  static constructors: $ctors"
    fail=$((fail + 1))
  else
    echo "PASS $arch: no undefined symbols but sfu_hook_*, no static constructors"
    pass=$((pass + 1))
  fi
done
echo "freestanding: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
