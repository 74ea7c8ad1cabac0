#!/usr/bin/env bash
# Images that run away from their link address, and images without sfunwind's fragments, seen
# from the link (issue 22's device side):
#  1. A kernel-style image (pie_kernel.c: registers, walks, prints, captures) linked position
#     independent against BUILD/pie/<arch>/libsfu.a (x86_64, arm64) with ld -pie, ld -pie
#     --no-dynamic-linker and -static-pie (ld -static -pie --no-dynamic-linker), with all the
#     fragments (pie_kernel.ld) and with none (bare.ld), defining sfu_hook_read_nofault or not:
#     every dynamic relocation is R_*_RELATIVE, no symbol is left for a dynamic linker, and an
#     image that defines the hook has sfunwind's code branch to it and a RELATIVE relocation for
#     the slot through which sfunwind finds it.
#  2. A guest image built through sfu.mk (guest.mk) and linked with bare.ld, on x86_64, arm64 and
#     s390x: it links, the one that holds a call to sfu_register_image too; the x86_64 build runs
#     and prints what the calls answer.
#  3. tests/linker/linked_image.c linked -static-pie against BUILD/pie/x86_64/libsfu.a
#     (BUILD/tests/static_pie_image and static_pie_image-hook), given its table and names by `sfu
#     gen`, run where Linux loads it (a random address): its checks pass, its relocations are
#     RELATIVE (and glibc's IRELATIVE), and every frame of the backtrace it prints is named as
#     nm names that address once moved back by the bias its module line gives.
# Everything is written to BUILD/check/pie/; the static-pie programs and their output stay there
# (static-pie.elf, static-pie.log, static-pie-hook.elf, static-pie-hook.log).
#   tests/linker/pie.sh BUILD_DIR
# One "PASS ..." or "FAIL ..." line per check, then "pie: N passed, M failed".
set -u
if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$build/check/pie
rm -rf "$out"
mkdir -p "$out"
sfu=$build/tools/sfu
source "$top/tests/support/suite.sh"
relative_of() {
  case $1 in
    x86_64) echo R_X86_64_RELATIVE ;;
    arm64) echo R_AARCH64_RELATIVE ;;
  esac
}
arch_cflags() {
  case $1 in
    x86_64) echo -mno-red-zone -mgeneral-regs-only ;;
    arm64) echo -mgeneral-regs-only ;;
  esac
}

# relocations ELF CROSS: "TYPE ADDEND-OR-SYMBOL" per dynamic relocation.
relocations() {
  "${2}readelf" -rW "$1" | awk '$1 ~ /^[0-9a-f]+$/ && $3 ~ /^R_/ { print $3, $NF }'
}

# ---- 1. Position-independent kernels: relocations only RELATIVE ----------------------------
for arch in x86_64 arm64; do
  cross=$(cross_of $arch)
  lib=$build/pie/$arch/libsfu.a
  if [[ ! -f $lib ]]; then
    bad "$arch: $lib was not built (make $lib)"
    continue
  fi
  relative=$(relative_of $arch)
  for hook in none hook; do
    obj=$out/pie_kernel-$arch-$hook.o
    if ! "${cross}gcc" -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fpie -fno-stack-protector \
      $(arch_cflags $arch) -fasynchronous-unwind-tables -Wa,--gsframe $([[ $hook == hook ]] && echo -DPIE_HOOK) \
      -I"$top/include" -c "$here/pie_kernel.c" -o "$obj"; then
      bad "$arch-$hook: pie_kernel.c does not compile"
      continue
    fi
    for script in pie_kernel bare; do
      for mode in pie pie-no-dynamic-linker static-pie; do
        case $mode in
          pie) flags=(-pie) ;;
          pie-no-dynamic-linker) flags=(-pie --no-dynamic-linker) ;;
          static-pie) flags=(-static -pie --no-dynamic-linker -z text) ;;
        esac
        name=$arch-$hook-$script-$mode
        elf=$out/$name.elf
        if ! "${cross}ld" "${flags[@]}" --no-warn-rwx-segments --build-id -L"$top/linker" -T "$here/$script.ld" \
          -o "$elf" "$obj" "$lib" >"$out/$name.ld.log" 2>&1; then
          bad "$name: does not link: $(head -n 3 "$out/$name.ld.log" | tr '\n' ' ')"
          continue
        fi
        relocs=$(relocations "$elf" "$cross")
        others=$(grep -v "^$relative " <<<"$relocs" | grep -v '^$')
        if [[ -n $others ]]; then
          bad "$name: dynamic relocations other than $relative: $(tr '\n' ',' <<<"$others")"
        else
          ok "$name: $(grep -c . <<<"$relocs") dynamic relocations, all $relative"
        fi
        undefined=$("${cross}readelf" -W --dyn-syms "$elf" | awk '$7 == "UND" && $8 != "" { print $8 }')
        [[ -z $undefined ]] && ok "$name: no undefined dynamic symbol" ||
          bad "$name: undefined dynamic symbols: $(tr '\n' ' ' <<<"$undefined")"
        hook_addr=$("${cross}nm" "$elf" | awk '$3 == "sfu_hook_read_nofault" && $2 ~ /^[tTwW]$/ && $1 != "" { print $1 }')
        if [[ $hook == none ]]; then
          [[ -z $hook_addr ]] && ok "$name: no sfu_hook_read_nofault defined" ||
            bad "$name: sfu_hook_read_nofault defined at $hook_addr without the image defining it"
          continue
        fi
        if [[ -z $hook_addr ]]; then
          bad "$name: the image's sfu_hook_read_nofault is not in its symbol table"
          continue
        fi
        # The slot sfunwind loads the hook's address from (a GOT entry): RELATIVE, to the hook.
        addend=$(printf '%x' $((16#$hook_addr)))
        awk -v r=$relative -v a=$addend '$1 == r && $2 == a { found = 1 } END { exit !found }' <<<"$relocs" &&
          ok "$name: a $relative relocation gives sfunwind the hook's address (0x$addend)" ||
          bad "$name: no $relative relocation to the hook (0x$addend)"
        "${cross}objdump" -d "$elf" | grep -Eq $'\t(call|jmp|bl|b)[ \t]+[0-9a-f]+ <sfu_hook_read_nofault>' &&
          ok "$name: sfunwind's code branches to the image's sfu_hook_read_nofault" ||
          bad "$name: no branch to sfu_hook_read_nofault in the image"
      done
    done
  done
done

# ---- 2. Guest images without the fragments, built through sfu.mk ---------------------------
for arch in x86_64 arm64 s390x; do
  cross=$(cross_of $arch)
  dir=$out/guest-$arch
  if ! make --no-print-directory -C "$top" -f tests/linker/guest.mk ARCH=$arch O="$(realpath -m "$dir")" \
    SFU_BUILD="$(realpath -m "$build")" >"$out/guest-$arch.log" 2>&1; then
    bad "guest-$arch: does not build and link (sfu.mk, bare.ld): $(grep -E 'undefined reference|: error|\*\*\*' "$out/guest-$arch.log" | head -n 3 | tr '\n' ' ')"
    continue
  fi
  ok "guest-$arch: guest-print.elf and guest-shared.elf link through sfu.mk without any fragment"
  # The shared code refers to the table's symbols (weak), and the image defines none of them.
  weak=$("${cross}nm" "$dir/guest-shared.o" | awk '$1 == "w" && $2 ~ /^__sfu_sframe_(start|end)$/ { print $2 }' | sort | tr '\n' ' ')
  defined=$("${cross}nm" --defined-only "$dir/guest-shared.elf" | awk '$3 ~ /^__sfu_/ { print $3 }' | tr '\n' ' ')
  [[ $weak == "__sfu_sframe_end __sfu_sframe_start " && -z $defined ]] &&
    ok "guest-$arch: guest-shared.o refers to __sfu_sframe_start/end, which the image leaves undefined" ||
    bad "guest-$arch: guest-shared.o refers weakly to '$weak', guest-shared.elf defines '$defined'"
  if [[ $arch == x86_64 ]]; then
    for v in print shared; do
      got=$(timeout 10 "$dir/guest-$v.elf" 2>&1)
      rc=$?
      case $v in
        print) want=$'0x1234' ;;
        shared) want=$'0x1234\nregister: empty-section\ncrash: crash-no-area' ;;
      esac
      [[ $rc == 0 && $got == "$want" ]] && ok "guest-$arch: guest-$v.elf runs and prints $(tr '\n' '|' <<<"$want")" ||
        bad "guest-$arch: guest-$v.elf exits $rc and prints '$(tr '\n' '|' <<<"$got")', not '$(tr '\n' '|' <<<"$want")'"
    done
  fi
done

# ---- 3. linked_image.c, static-pie, run at a random address --------------------------------
for v in static-pie static-pie-hook; do
  src=$build/tests/static_pie_image${v#static-pie}
  elf=$out/$v.elf
  log=$out/$v.log
  if [[ ! -f $src ]]; then
    bad "$v: $src was not built"
    continue
  fi
  if ! "$sfu" gen "$src" -o "$elf" >"$out/$v.gen.log" 2>&1; then
    bad "$v: sfu gen: $(head -n 3 "$out/$v.gen.log" | tr '\n' ' ')"
    continue
  fi
  [[ $(readelf -h "$elf" | awk '/Type:/ { print $2 }') == DYN && -z $(readelf -lW "$elf" | grep INTERP) ]] &&
    ok "$v: a static PIE (ELF type DYN, no interpreter)" || bad "$v: not a static PIE"
  relocs=$(relocations "$elf" "")
  others=$(grep -Ev '^R_X86_64_(RELATIVE|IRELATIVE) [0-9a-f]+$' <<<"$relocs" | grep -v '^$')
  [[ -z $others ]] && ok "$v: $(grep -c . <<<"$relocs") dynamic relocations, RELATIVE (and glibc's IRELATIVE), none against a symbol" ||
    bad "$v: other relocations: $(tr '\n' ',' <<<"$others")"
  chmod +x "$elf"
  "$elf" >"$log" 2>&1
  rc=$?
  result=$(sed -n 's/^linker: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$log")
  [[ $rc == 0 && -n $result && ${result#* } == 0 ]] && ok "$v: its own checks pass ($result)" ||
    bad "$v: exits $rc, its checks say '${result:-nothing}' (log: $log)"
  # The module line: where the text ran. The link put __executable_start (the registered start)
  # at LINK; the bias moves each printed PC back to a link-time address nm can name.
  read -r start end <<<"$(sed -n 's/^module 0 image 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) build-id [0-9a-f]*$/\1 \2/p' "$log")"
  link=$(nm "$elf" | awk '$3 == "__executable_start" { print $1 }')
  if [[ -z ${start:-} || -z $link ]]; then
    bad "$v: no module line in its backtrace, or no __executable_start"
    continue
  fi
  bias=$((16#$start - 16#$link))
  [[ $bias != 0 ]] && ok "$v: ran $(printf '0x%x' $bias) bytes away from its link address" ||
    bad "$v: ran at its link address (is ASLR off?)"
  frames=0
  wrong=""
  while read -r pc name off; do
    frames=$((frames + 1))
    sym=$(nm "$elf" | awk -v n="$name" '$3 == n && $2 ~ /^[tTwW]$/ { print $1; exit }')
    if [[ -z $sym || $((16#$pc - bias)) != $((16#$sym + 16#$off)) ]]; then wrong+=" $name@$pc"; fi
  done < <(sed -n 's/^ #[0-9]\+ .*0x\([0-9a-f]\{16\}\)  sp .*  image  \([A-Za-z_][A-Za-z0-9_.]*\)+0x\([0-9a-f]*\)\/0x[0-9a-f]*$/\1 \2 \3/p' "$log")
  [[ $frames -ge 3 && -z $wrong ]] && ok "$v: all $frames frames of its backtrace named right at the moved address" ||
    bad "$v: frames named wrong at the moved address ($frames frames;$wrong)"
  grep -qx 'stop: end-of-stack (reliable)' "$log" && ok "$v: the backtrace ends end-of-stack (reliable)" ||
    bad "$v: the backtrace does not end 'stop: end-of-stack (reliable)'"
done

suite_end pie
