#!/usr/bin/env bash
# The gc suite: a kernel linked with --gc-sections keeps exactly the functions it keeps without
# sfunwind, and the table covers every one of them. gc_kernel.c, gc_dead.c and an archive of
# gc_lib.c and gc_lib_data.c, compiled -ffunction-sections -fdata-sections with sfunwind's library
# (BUILD/<arch>/libsfu.a), are linked with --gc-sections by gc_kernel.ld without sfunwind's
# fragments, and with them:
#   gas (x86_64, arm64): -Wa,--gsframe, sfunwind-gas.ld, through sfu.mk's $(SFU_GC_LINK)
#     (scripts/gc-link.sh); objdump --sframe lists the table;
#   gen (x86_64, arm64, s390x): sfunwind-reserve.ld, ld alone ($(SFU_GC_LINK) is empty there),
#     then `sfu gen`, `sfu verify`, and `sfu dump` lists the table; once more from .debug_frame
#     (-g, no .eh_frame) at link address 0, where ld leaves the dead functions' FDEs at 0.
# Each compares the function symbols (nm) both ways, checks that the dead functions are in an
# image linked without --gc-sections and in neither --gc-sections image, and that the table's
# functions (start, size) are exactly the image's FUNC symbols. Controls, each a check that must
# fail: the single link with KEEP(*(.sframe)) (what sfunwind.ld did alone) keeps the dead functions
# (on ld 2.40; ld from 2.46 collects .sframe itself), and gc-link.sh refuses a script without
# sfunwind-discard.ld or with it after .text.
#   tests/linker/gc.sh BUILD_DIR
# Everything is written to BUILD/check/gc/. One "PASS ..." or "FAIL ..." line per check, then
# "gc: N passed, M failed".
set -u
if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$build/check/gc
rm -rf "$out"
mkdir -p "$out"
sfu=$build/tools/sfu
source "$top/tests/support/suite.sh"
arch_cflags() {
  case $1 in
    x86_64) echo -mno-red-zone -mgeneral-regs-only ;;
    arm64) echo -mgeneral-regs-only ;;
  esac
}
dead_functions="gc_dead gc_dead_reads_data gc_dead_static gc_dead_odd gc_dead_object_a gc_dead_object_b gc_lib_dead gc_lib_member_dead"

# functions ELF CROSS: the function symbols nm lists, "TYPE NAME", sorted.
functions() {
  "${2}nm" --defined-only "$1" | awk '$2 ~ /^[tTwW]$/ { print $2, $3 }' | LC_ALL=C sort
}
# func_symbols ELF CROSS: "ADDRESS SIZE" of each FUNC symbol with a size, hex and decimal.
func_symbols() {
  "${2}readelf" -sW "$1" | awk '$4 == "FUNC" && $7 != "UND" && $3 != "0" { print $2, $3 }' |
    while read -r addr size; do printf '%x %d\n' $((16#$addr)) $((size)); done | LC_ALL=C sort -u
}
# table_functions: "START SIZE" of each function of an objdump --sframe or sfu dump listing.
table_functions() {
  sed -n 's/^ *func idx \[[0-9]*\]: pc = 0x\([0-9a-f]*\), size = \([0-9]*\) bytes.*/\1 \2/p' |
    while read -r addr size; do printf '%x %d\n' $((16#$addr)) "$size"; done | LC_ALL=C sort
}
# script NAME SFU_LDS LOAD [HOW]: gc_kernel.ld made concrete; HOW drop (no sfunwind lines),
# nodiscard (no sfunwind-discard.ld), after (it after .rodata) or keep (as it is).
script() {
  local lines
  case ${4:-keep} in
    drop) lines='/\/\* sfunwind/d' ;;
    nodiscard) lines='/INCLUDE sfunwind-discard.ld/d' ;;
    after) lines='/INCLUDE sfunwind-discard.ld/d; s|^\(\t\.rodata .*\)$|\1\n\tINCLUDE sfunwind-discard.ld|' ;;
    keep) lines='' ;;
  esac
  sed -e "$lines" -e "s/SFU_LDS/$2/; s/LOAD_ADDRESS/$3/" "$here/gc_kernel.ld" >"$1"
}
# compare WHAT REF-ELF ELF CROSS: the function lists of two links.
compare() {
  local what=$1 ref=$2 elf=$3 cross=$4
  functions "$ref" "$cross" >"$elf.ref-functions"
  functions "$elf" "$cross" >"$elf.functions"
  if cmp -s "$elf.ref-functions" "$elf.functions"; then
    ok "$what: the same $(grep -c . "$elf.functions") function symbols as without sfunwind"
  else
    bad "$what: function symbols differ from the link without sfunwind: $(diff "$elf.ref-functions" "$elf.functions" |
      grep '^[<>]' | head -n 6 | tr '\n' ' ')"
  fi
}
# dead_gone WHAT NOGC-ELF ELF CROSS: the dead functions exist, and the link removed them.
dead_gone() {
  local what=$1 nogc=$2 elf=$3 cross=$4 f missing="" kept=""
  for f in $dead_functions; do
    "${cross}nm" "$nogc" | grep -q " $f\$" || missing+=" $f"
    "${cross}nm" "$elf" | grep -q " $f\$" && kept+=" $f"
  done
  [[ -z $missing ]] && ok "$what: the $(wc -w <<<"$dead_functions") dead functions are in the image linked without --gc-sections" ||
    bad "$what: dead functions missing without --gc-sections:$missing"
  [[ -z $kept ]] && ok "$what: every dead function is gone" || bad "$what: dead functions kept:$kept"
}
# covers WHAT ELF CROSS LISTING: the table lists exactly the image's functions.
covers() {
  local what=$1 elf=$2 cross=$3 listing=$4
  func_symbols "$elf" "$cross" >"$elf.func-symbols"
  table_functions <"$listing" >"$elf.table-functions"
  if [[ ! -s $elf.table-functions ]]; then
    bad "$what: no function in the table ($listing)"
  elif cmp -s "$elf.func-symbols" "$elf.table-functions"; then
    ok "$what: the table's $(grep -c . "$elf.table-functions") functions are the image's FUNC symbols, start and size"
  else
    bad "$what: table and FUNC symbols differ (< symbols, > table): $(diff "$elf.func-symbols" "$elf.table-functions" |
      grep '^[<>]' | head -n 6 | tr '\n' ' ')"
  fi
}
# $(SFU_GC_LINK) as sfu.mk defines it for ARCH and SFU_SFRAME.
gc_link_of() {
  make --no-print-directory -s -f "$top/sfu.mk" ARCH="$1" SFU_SFRAME="$2" SFU_BUILD="$build" \
    --eval 'sfu-gc-print: ; @echo "$(SFU_GC_LINK)"' sfu-gc-print
}

ld_version=$(ld --version | sed -n '1s/.* \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')

for path in gas gen gen-debug-frame; do
  case $path in
    gas) arches="x86_64 arm64" ;;
    gen) arches="x86_64 arm64 s390x" ;;
    gen-debug-frame) arches="x86_64" ;;
  esac
  for arch in $arches; do
    cross=$(cross_of $arch)
    name=$path-$arch
    dir=$out/$name
    mkdir -p "$dir"
    lib=$build/$arch/libsfu.a
    if [[ ! -f $lib ]]; then
      bad "$name: $lib was not built (make ARCH=$arch lib)"
      continue
    fi
    case $path in
      gas) table=(-fasynchronous-unwind-tables -Wa,--gsframe) lds=sfunwind-gas.ld load=0x100000 ;;
      gen) table=(-fasynchronous-unwind-tables) lds=sfunwind-reserve.ld load=0x100000 ;;
      gen-debug-frame) table=(-fno-asynchronous-unwind-tables -g) lds=sfunwind-reserve.ld load=0 ;;
    esac
    built=yes
    for src in gc_kernel gc_dead gc_lib gc_lib_data; do
      if ! "${cross}gcc" -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-pie -fno-stack-protector \
        -ffunction-sections -fdata-sections $(arch_cflags $arch) "${table[@]}" -I"$top/include" \
        -c "$here/$src.c" -o "$dir/$src.o" 2>"$dir/$src.cc.log"; then
        bad "$name: $src.c does not compile: $(head -n 3 "$dir/$src.cc.log" | tr '\n' ' ')"
        built=no
      fi
    done
    [[ $built == yes ]] || continue
    rm -f "$dir/libgc.a"
    "${cross}ar" rcs "$dir/libgc.a" "$dir/gc_lib.o" "$dir/gc_lib_data.o"
    inputs=("$dir/gc_kernel.o" "$dir/gc_dead.o" "$dir/libgc.a" "$lib")
    link=("${cross}ld" -static --no-warn-rwx-segments --build-id -L"$top/linker")

    script "$dir/bare.ld" "" $load drop
    script "$dir/sfu.ld" $lds $load
    # Without sfunwind: with --gc-sections (the reference), and without (the dead functions exist).
    if ! "${link[@]}" --gc-sections -T "$dir/bare.ld" -o "$dir/ref.elf" "${inputs[@]}" >"$dir/ref.log" 2>&1 ||
      ! "${link[@]}" -T "$dir/bare.ld" -o "$dir/nogc.elf" "${inputs[@]}" >"$dir/nogc.log" 2>&1; then
      bad "$name: the links without sfunwind fail: $(cat "$dir/ref.log" "$dir/nogc.log" | head -n 3 | tr '\n' ' ')"
      continue
    fi

    gc_link=$(gc_link_of $arch ${path%%-*})
    if [[ $path == gas ]]; then
      want="bash $top/scripts/gc-link.sh --nm ${cross}nm --"
      [[ $gc_link == "$want" ]] && ok "$name: sfu.mk's SFU_GC_LINK is '$want'" ||
        bad "$name: sfu.mk's SFU_GC_LINK is '$gc_link', not '$want'"
    else
      [[ -z $gc_link ]] && ok "$name: sfu.mk's SFU_GC_LINK is empty on the gen path" ||
        bad "$name: sfu.mk's SFU_GC_LINK is '$gc_link' on the gen path"
    fi
    elf=$dir/kernel.elf
    # shellcheck disable=SC2086  # the prefix is words, as make gives them to the shell
    if ! $gc_link "${link[@]}" --gc-sections -T "$dir/sfu.ld" -o "$elf" "${inputs[@]}" >"$dir/link.log" 2>&1; then
      bad "$name: \$(SFU_GC_LINK) ld --gc-sections fails: $(head -n 3 "$dir/link.log" | tr '\n' ' ')"
      continue
    fi
    ok "$name: links with --gc-sections${gc_link:+ through gc-link.sh}"
    compare "$name" "$dir/ref.elf" "$elf" "$cross"
    dead_gone "$name" "$dir/nogc.elf" "$elf" "$cross"

    if [[ $path == gas ]]; then
      "${cross}objdump" --sframe "$elf" >"$dir/table.txt" 2>&1
      covers "$name" "$elf" "$cross" "$dir/table.txt"

      # Control: the table kept in one link, as sfunwind.ld alone did before gc-link.sh.
      "${link[@]}" --gc-sections -T "$dir/sfu.ld" -o "$dir/keep-only.elf" "${inputs[@]}" >"$dir/keep-only.log" 2>&1
      functions "$dir/keep-only.elf" "$cross" >"$dir/keep-only.functions"
      kept=$(LC_ALL=C comm -13 "$elf.ref-functions" "$dir/keep-only.functions" | grep -c .)
      if [[ $kept -gt 0 ]]; then
        ok "$name: control: the single link with KEEP(*(.sframe)) keeps $kept functions that --gc-sections removes without sfunwind (the comparison fails there)"
      elif [[ $(printf '%s\n' "$ld_version" 2.46 | sort -V | head -n 1) == 2.46 ]]; then
        ok "$name: control: ld $ld_version collects .sframe itself; the single link keeps no dead function"
      else
        bad "$name: control: the single link with KEEP(*(.sframe)) keeps no dead function on ld $ld_version"
      fi
      # Controls: gc-link.sh refuses scripts whose discards cannot work.
      for how in nodiscard after; do
        script "$dir/$how.ld" $lds $load $how
        if $gc_link "${link[@]}" --gc-sections -T "$dir/$how.ld" -o "$dir/$how.elf" "${inputs[@]}" >"$dir/$how.log" 2>&1; then
          bad "$name: control: gc-link.sh links a script with sfunwind-discard.ld $how"
        elif [[ -e $dir/$how.elf ]]; then
          bad "$name: control: gc-link.sh refuses ($how) but leaves $how.elf behind"
        else
          ok "$name: control: gc-link.sh refuses a script $([[ $how == after ]] && echo 'with sfunwind-discard.ld after .text' ||
            echo 'without sfunwind-discard.ld'): $(grep -o 'gc-link.sh: .*' "$dir/$how.log" | cut -c 1-120)"
        fi
      done
    else
      if ! "$sfu" gen "$elf" -o "$elf" >"$dir/gen.log" 2>&1; then
        bad "$name: sfu gen fails: $(head -n 3 "$dir/gen.log" | tr '\n' ' ')"
        continue
      fi
      "$sfu" verify "$elf" >"$dir/verify.log" 2>&1
      grep -q ', 0 mismatches, 0 not covered$' "$dir/verify.log" &&
        ok "$name: sfu verify: $(grep '^verify:' "$dir/verify.log")" ||
        bad "$name: sfu verify: $(head -n 3 "$dir/verify.log" | tr '\n' ' ')"
      "$sfu" dump "$elf" >"$dir/table.txt" 2>&1
      covers "$name" "$elf" "$cross" "$dir/table.txt"
    fi
  done
done

suite_end gc
