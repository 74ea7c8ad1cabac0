#!/usr/bin/env bash
# Freestanding proof: each architecture's libsfu.a references no symbol it does not define,
# except the documented kernel hooks (sfu_hook_*), has no static constructors, and carries its own
# table (CFI in every object; gas's SFrame too on x86_64 and arm64); and every
# public header compiles alone in a -nostdinc kernel with only include/ on its path, as C (C99,
# pedantic) and as C++, and beside a kernel's own <stdint.h>.
# usage: tests/freestanding.sh BUILD_DIR
set -u
build=${1:-build}
pass=0 fail=0
# The binutils prefix of an architecture: Debian's cross toolchains.
cross_of() {
  case $1 in
    arm64) echo aarch64-linux-gnu- ;;
    s390x) echo s390x-linux-gnu- ;;
  esac
}
for arch in x86_64 arm64 s390x; do
  cross=$(cross_of "$arch")
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
  # Its own table: CFI in every object (for `sfu gen`), and gas's SFrame where gas writes it.
  notable=""
  for obj in $(${cross}ar t "$lib"); do
    sections=$(${cross}objdump -h --section=.eh_frame --section=.sframe "$lib" 2>/dev/null |
      awk -v o="$obj" '/file format/ { cur = $1 } cur == o":" && / \.(eh_frame|sframe) / { print $2 }')
    grep -qx .eh_frame <<<"$sections" || notable+=" $obj(.eh_frame)"
    [[ $arch == s390x ]] || grep -qx .sframe <<<"$sections" || notable+=" $obj(.sframe)"
  done
  if [[ -n $notable ]]; then
    echo "FAIL $arch: objects of $lib without their own table:$notable"
    fail=$((fail + 1))
  elif ! grep -qx sfu_table_init <<<"$defined"; then
    echo "FAIL $arch: sfu_table_init is not in $lib"
    fail=$((fail + 1))
  elif [[ -n $foreign || -n $ctors ]]; then
    echo "FAIL $arch: needs what a kernel may not have:"
    [[ -n $foreign ]] && sed 's/^/  undefined: /' <<<"$foreign"
    [[ -n $ctors ]] && echo "  static constructors: $ctors"
    fail=$((fail + 1))
  else
    echo "PASS $arch: no undefined symbols but sfu_hook_*, no static constructors, a table in every object"
    pass=$((pass + 1))
  fi
done

# CONFIG_SFU_SMP=n (firmware with the MMU off): the arm64 core without load/store-exclusive or
# LSE atomics, which the default build has (its registry and crash claims).
exclusives() { aarch64-linux-gnu-objdump -d "$1" | grep -cE '[[:space:]](ldaxr|ldxr|stlxr|stxr|cas[al]*|ldadd[a-z]*|swp[a-z]*)[[:space:]]'; }
up=$build/uniprocessor/arm64/libsfu.a
if [[ ! -f $up ]]; then
  echo "FAIL arm64 CONFIG_SFU_SMP=n: $up was not built"
  fail=$((fail + 1))
elif [[ $(exclusives "$build/arm64/libsfu.a") -eq 0 || $(exclusives "$up") -ne 0 ]]; then
  echo "FAIL arm64 exclusives: $(exclusives "$build/arm64/libsfu.a") with SMP, $(exclusives "$up") without (want some, then none)"
  fail=$((fail + 1))
else
  echo "PASS arm64 CONFIG_SFU_SMP=n: no exclusive or LSE atomic instruction ($(exclusives "$build/arm64/libsfu.a") with SMP)"
  pass=$((pass + 1))
fi

# A kernel's own <stdint.h>/<stddef.h>, as a -nostdinc kernel may have: the headers take them.
own=$(mktemp -d)
trap 'rm -rf "$own"' EXIT
printf 'typedef __SIZE_TYPE__ size_t;\n' >"$own/stddef.h"
for t in INT8 INT32 INT64 UINT8 UINT16 UINT32 UINT64 UINTPTR; do
  printf 'typedef __%s_TYPE__ %s_t;\n' "$t" "$(tr 'A-Z' 'a-z' <<<"$t")"
done >"$own/stdint.h"
printf '#define SFU_KERNEL_STDINT 1\n' >>"$own/stdint.h"
for arch in x86_64 arm64 s390x; do
  cross=$(cross_of "$arch")
  bad=""
  for h in include/sfu/*.h; do
    name=sfu/${h##*/}
    printf '#include <%s>\n' "$name" | ${cross}gcc -nostdinc -ffreestanding -std=c99 -pedantic \
      -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c - 2>&1 || bad+=" $name(C)"
    printf '#include <%s>\n' "$name" | ${cross}g++ -nostdinc -ffreestanding -std=c++20 \
      -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c++ - 2>&1 || bad+=" $name(C++)"
    printf '#include <%s>\n#ifndef SFU_KERNEL_STDINT\n#error not the kernel stdint.h\n#endif\n' \
      "$name" | ${cross}gcc -nostdinc -ffreestanding -std=c99 -Wall -Werror -I"$own" -Iinclude \
      -fsyntax-only -x c - 2>&1 || bad+=" $name(kernel stdint.h)"
  done
  if [[ -n $bad ]]; then
    echo "FAIL $arch headers under -nostdinc:$bad"
    fail=$((fail + 1))
  else
    echo "PASS $arch headers: each compiles alone under -nostdinc (C99, C++20, a kernel's stdint.h)"
    pass=$((pass + 1))
  fi
done
echo "freestanding: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
