# shellcheck shell=bash disable=SC2154  # sfu, work, here: set by check.sh
# Where linker/sfunwind-crash.ld puts the crash area (sourced by tests/gen/check.sh, which gives
# pass, fail, $sfu, $work and $here): where the INCLUDE stands (after .bss, 64-byte aligned), or
# at the address given with --defsym=SFU_CRASH_AREA (before or after -T), the image otherwise
# laid out byte for byte as if the area were not in it. Read back with readelf.
check_crash_area_placement() {
  local r=$work/crash-place top
  top=$(cd "$here/../.." && pwd)
  rm -rf "$r"
  mkdir -p "$r"
  printf 'int data_word = 1;\nint bss_word[100];\nvoid _start(void) { for (;;) bss_word[0] += data_word; }\n' >"$r/k.c"
  cat >"$r/k.ld" <<'EOF'
PHDRS { text PT_LOAD FLAGS(5); data PT_LOAD FLAGS(6); }
SECTIONS
{
    . = 0x400000;
    .text : { _stext = .; *(.text .text.*) _etext = .; } :text
    .rodata : { *(.rodata .rodata.*) }
    .data : { *(.data .data.*) } :data
    .bss : { __bss_start = .; *(.bss .bss.* COMMON) __bss_end = .; }
    INCLUDE sfunwind-crash.ld
    _end = .;
    /DISCARD/ : { *(.note.gnu.build-id) *(.comment) }
}
EOF
  link() {  # OUT [LD OPTIONS...]: stderr into OUT.err
    local out=$1
    shift
    gcc -O2 -ffreestanding -nostdlib -static -fno-pie -no-pie -fno-asynchronous-unwind-tables -L"$top/linker" \
      "$@" -Wl,--no-warn-rwx-segments -o "$r/$out.elf" "$r/k.c" 2>"$r/$out.err"
  }
  # sec ELF NAME: "ADDRESS SIZE" in hex as readelf prints them; sym ELF NAME: the value.
  sec() { readelf -SW "$1" | sed 's/\[ */[/' | awk -v s="$2" '$2 == s { print $4, $6 }'; }
  sym() { nm "$1" | awk -v s="$2" '$3 == s { print $1 }'; }
  # Everything but the area and the symbol table: program headers, the other sections.
  layout() { readelf -lSW "$1" | grep -v -e sfu_crash -e 'section headers, starting' -e symtab -e strtab -e 'Section to' -e '^   0[0-9] '; }
  in_segment() { readelf -lW "$1" | sed -n '/Section to Segment/,$p' | grep -c sfu_crash; }

  link default -Wl,-T,"$r/k.ld" || fail "crash area: default link" "$(head -n 1 "$r/default.err")"
  link fixed -Wl,-T,"$r/k.ld" -Wl,--defsym=SFU_CRASH_AREA=0x800000 ||
    fail "crash area: link with SFU_CRASH_AREA" "$(head -n 1 "$r/fixed.err")"
  link fixed-first -Wl,--defsym=SFU_CRASH_AREA=0x800000 -Wl,--defsym=SFU_CRASH_AREA_SIZE=0x1000 -Wl,-T,"$r/k.ld" ||
    fail "crash area: --defsym before -T" "$(head -n 1 "$r/fixed-first.err")"
  local bss_end want got
  # Default: right after .bss, 64-byte aligned, 8 KiB, in no segment; _end after it.
  read -r a s <<<"$(sec "$r/default.elf" .bss)"
  bss_end=$((16#$a + 16#$s))
  want=$(printf '%016x 002000' $(((bss_end + 63) & ~63)))
  got=$(sec "$r/default.elf" .sfu_crash)
  [[ $got == "$want" ]] && pass "crash area: after .bss by default ($got)" ||
    fail "crash area: after .bss by default" "readelf says $got, expected $want"
  [[ $(sym "$r/default.elf" __sfu_crash_start) == "${want% *}" &&
     $(sym "$r/default.elf" __sfu_crash_end) == $(printf '%016x' $((16#${want% *} + 0x2000))) &&
     $(sym "$r/default.elf" _end) == "$(sym "$r/default.elf" __sfu_crash_end)" ]] &&
    pass "crash area: default symbols" || fail "crash area: default symbols" "$(nm "$r/default.elf" | grep -e crash -e _end)"
  # At SFU_CRASH_AREA: there, in no segment, and nothing else moved (_end where .bss ends).
  got=$(sec "$r/fixed.elf" .sfu_crash)
  [[ $got == "0000000000800000 002000" ]] && pass "crash area: at SFU_CRASH_AREA" ||
    fail "crash area: at SFU_CRASH_AREA" "readelf says $got"
  [[ $(sym "$r/fixed.elf" __sfu_crash_start) == 0000000000800000 &&
     $(sym "$r/fixed.elf" __sfu_crash_end) == 0000000000802000 ]] && pass "crash area: symbols at SFU_CRASH_AREA" ||
    fail "crash area: symbols at SFU_CRASH_AREA" "$(nm "$r/fixed.elf" | grep crash)"
  [[ $(sym "$r/fixed.elf" _end) == $(printf '%016x' "$bss_end") ]] &&
    pass "crash area: at SFU_CRASH_AREA it takes no room in the image" ||
    fail "crash area: at SFU_CRASH_AREA it takes no room in the image" "_end $(sym "$r/fixed.elf" _end)"
  cmp -s <(layout "$r/default.elf") <(layout "$r/fixed.elf") && pass "crash area: the rest of the image as without it" ||
    fail "crash area: the rest of the image as without it" "$(diff <(layout "$r/default.elf") <(layout "$r/fixed.elf") | head -n 4)"
  [[ $(in_segment "$r/default.elf") == 0 && $(in_segment "$r/fixed.elf") == 0 ]] &&
    pass "crash area: in no segment either way" || fail "crash area: in no segment either way"
  got=$(sec "$r/fixed-first.elf" .sfu_crash)
  [[ $got == "0000000000800000 001000" ]] && pass "crash area: --defsym before -T, with a size" ||
    fail "crash area: --defsym before -T, with a size" "readelf says $got"
  # What sfu gen says of it: nothing (it is outside the image).
  local out
  out=$("$sfu" gen "$r/fixed.elf" -o "$r/fixed-gen.elf" --symbols-only 2>&1 >/dev/null)
  [[ -z $out ]] && pass "crash area: sfu gen says nothing of an area outside the image" ||
    fail "crash area: sfu gen says nothing of an area outside the image" "$out"
  # Refused by ld: an address not 64-byte aligned.
  if link misaligned -Wl,-T,"$r/k.ld" -Wl,--defsym=SFU_CRASH_AREA=0x800010; then
    fail "crash area: a misaligned SFU_CRASH_AREA" "linked"
  else
    grep -q "sfunwind: SFU_CRASH_AREA must be 64-byte aligned" "$r/misaligned.err" &&
      pass "crash area: a misaligned SFU_CRASH_AREA" || fail "crash area: a misaligned SFU_CRASH_AREA" "$(cat "$r/misaligned.err")"
  fi
  # ld catches some overlaps with the image, not all (not this one): sfu gen's warning does.
  link over -Wl,-T,"$r/k.ld" -Wl,--defsym=SFU_CRASH_AREA=0x400000 || fail "crash area: link over the image"
  out=$("$sfu" gen "$r/over.elf" -o "$r/over-gen.elf" --symbols-only 2>&1 >/dev/null)
  [[ $out == "sfu gen: $r/over.elf: warning: .sfu_crash lies in the file contents of loadable segment 0: "* ]] &&
    pass "crash area: SFU_CRASH_AREA over the image: sfu gen warns" ||
    fail "crash area: SFU_CRASH_AREA over the image: sfu gen warns" "$out"
}
