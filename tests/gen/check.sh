#!/usr/bin/env bash
# sfu gen / verify / diff on the corpus of tests/gen (built by tests/gen/corpus.mk).
#   tests/gen/check.sh SFU_BINARY CORPUS_DIR WORKDIR
# For every image without SFrame: `sfu gen` V2 and V3 (and V1 where Debian's objdump reads it),
# then the table must pass `sfu verify` with 0 mismatches, leave out exactly the functions
# `verify` finds uncovered, dump with `sfu dump`, and (V1) dump the same rows with objdump.
# For every gas-built image: `sfu verify` of gas's table, and `sfu diff` of gas's table against
# the one `sfu gen` builds from the same image, must find exactly the known gas 2.40 faults.
# And gen's function names (.sfu_symbols) with `sfu symbols`: where they go, sizes, refusals.
# And raw binaries: what `sfu verify --raw` finds in objcopy -O binary's cuts (raw_image.sh).
# Ends "gen: N passed, M failed".
set -uo pipefail
sfu=$1
corpus=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/dump/common.sh
. "$here/../dump/common.sh"
mkdir -p "$work"

passed=0
failed=0
pass() {  # NAME
  passed=$((passed + 1))
  echo "PASS $1"
}
fail() {  # NAME REASON (a command that said nothing still fails)
  failed=$((failed + 1))
  echo "FAIL $1: ${2:-(no output)}"
}

# Function names out of -v lines ("mismatch at NAME+0x..", "only in F: NAME (..)"), sorted, unique.
names() { sed -n -e 's/^\(mismatch\|differs\) at \([^+ ]*\).*/\2/p' -e 's/^only in [^:]*: \([^+ ]*\).*/\1/p' | sort -u | tr '\n' ' '; }

# What V2 cannot say: a CFA on another register (DRAP, x9), the RA in a register outside s390x,
# signal frames, and on arm64 FP saved with the RA still in x30 (no RA padding word there).
declare -A v2_left_out=([x86_64]="asm_x86_drap asm_x86_sigtramp_cfi"
  [arm64]="asm_a64_cfa_x9 asm_a64_ra_in_x9 asm_a64_sigtramp_cfi asm_a64_fp_only_clang asm_a64_fp_only_gcc"
  [s390x]="asm_s390_sigtramp_cfi")
# V1 leaves out what V2 does, and _start too: V1 has no outermost-frame row.
declare -A v1_left_out=([x86_64]="${v2_left_out[x86_64]} _start" [arm64]="${v2_left_out[arm64]} _start")
declare -A v2_may_leave_out=([x86_64]="aligned_vla aligned_alloca")  # DRAP where gcc picks it
declare -A objdump_for=([x86_64]=objdump [arm64]=aarch64-linux-gnu-objdump)
declare -A objcopy_for=([x86_64]=objcopy [arm64]=aarch64-linux-gnu-objcopy)

# gen, verify, dump for one image and one version.
check_generated() {  # IMAGE ARCH VERSION
  local in=$1 arch=$2 v=$3
  local name=$arch/$(basename "$in" .elf)-v$v out=$work/$arch-$(basename "$in" .elf)-v$v.elf
  local gen ver left uncovered
  if ! gen=$("$sfu" gen "$in" -o "$out" --sframe-version "$v" -v 2>&1); then
    fail "$name gen" "$(echo "$gen" | head -n 1)"
    return
  fi
  left=$(echo "$gen" | sed -n 's/^gen: .* \([0-9]*\) left out,.*/\1/p')
  # V3 says every rule of the corpus; V2 leaves out the hand-written rare cases it cannot say
  # (and gcc's DRAP functions on x86_64), nothing else.
  local out_names must=${v2_left_out[$arch]} extra
  out_names=$(echo "$gen" | sed -n 's/^left out: \([^+ ]*\).*/\1/p' | sort -u | tr '\n' ' ')
  if [[ $v == 3 ]]; then
    [[ -z $out_names ]] && pass "$name left out" || fail "$name left out" "V3 left out $out_names"
  else
    [[ $v == 1 ]] && must=${v1_left_out[$arch]}
    extra=$(comm -13 <(tr ' ' '\n' <<<"$must ${v2_may_leave_out[$arch]:-}" | sort -u) <(tr ' ' '\n' <<<"$out_names" | sort -u) | tr '\n' ' ')
    missing=$(comm -23 <(tr ' ' '\n' <<<"$must" | sort -u) <(tr ' ' '\n' <<<"$out_names" | sort -u) | tr '\n' ' ')
    [[ -z ${extra// /}${missing// /} ]] && pass "$name left out" ||
      fail "$name left out" "unexpected: '$extra', kept: '$missing'"
  fi
  # The arm64 FP-without-RA shape: left out with its reason where the version has no form for it.
  if [[ $arch == arm64 && $v != 3 ]]; then
    local why_left
    why_left=$(echo "$gen" | grep -c '^left out: asm_a64_fp_only_\(clang\|gcc\) .*: FP saved without RA needs V3 on AArch64$')
    [[ $why_left == 2 ]] && pass "$name left out: FP without RA" ||
      fail "$name left out: FP without RA" "$(echo "$gen" | grep 'asm_a64_fp_only' | tr '\n' ' ')"
  fi
  ver=$("$sfu" verify "$out" -v 2>&1)
  uncovered=$(echo "$ver" | sed -n 's/^verify: .* \([0-9]*\) not covered$/\1/p')
  if ! echo "$ver" | grep -q '^verify: .* 0 mismatches,'; then
    fail "$name verify" "$(echo "$ver" | grep -m3 -e '^mismatch' -e 'sfu verify' | tr '\n' ' ')"
  elif [[ $uncovered != "$left" ]]; then
    fail "$name verify" "$uncovered functions not covered, gen left out $left"
  else
    pass "$name verify"
  fi
  if ! "$sfu" dump "$out" >"$out.dump" 2>&1; then
    fail "$name dump" "$(head -n 1 "$out.dump")"
  elif ! grep -qx "    Version: SFRAME_VERSION_$v" "$out.dump"; then
    fail "$name dump" "not a V$v table"
  else
    pass "$name dump"
  fi
  # An independent reader of the specification (tests/gen/spec_rows.py) must read the same rows.
  if ! python3 "$here/spec_rows.py" "$out" >"$out.spec.rows" 2>&1; then
    fail "$name spec reader" "$(head -n 1 "$out.spec.rows")"
  else
    rows_only "$out.dump" 0 >"$out.sfu.rows"
    if ! grep -q '^[0-9a-f]\{16\} ' "$out.spec.rows"; then
      fail "$name spec reader" "no rows"
    elif cmp -s "$out.spec.rows" "$out.sfu.rows"; then
      pass "$name spec reader"
    else
      fail "$name spec reader" "rows differ from sfu dump
$(short_diff "$out.spec.rows" "$out.sfu.rows")"
    fi
  fi
  [[ $v == 1 ]] || return
  # Debian's objdump (2.40) reads V1: it must accept the table and print the same rows.
  local amd64=0 why
  [[ $arch == x86_64 ]] && amd64=1
  why=$(compare_with_objdump "${objdump_for[$arch]}" "$out" "$out.dump" "$amd64" "$out")
  [[ -z $why ]] && pass "$name objdump" || fail "$name objdump" "$why"
}

# What gas 2.40 gets wrong in this corpus (tests/gen/README.md): _start has ordinary rows where
# the CFI says the RA is undefined (V1 cannot say so); the x86_64 signal trampoline drops its
# RA offset; the arm64 CFA on x9 comes out as SP; the arm64 FP-without-RA functions get two
# words [cfa, fp], which every reader (objdump 2.40 too) reads as the RA at the FP's slot.
declare -A gas_mismatches=([x86_64]="_start asm_x86_sigtramp_cfi "
  [arm64]="_start asm_a64_cfa_x9 asm_a64_fp_only_clang asm_a64_fp_only_gcc ")
# gas's table against `sfu gen` V2 of the same image: _start differs (outermost), and the
# functions V2 cannot say are only in gas's table, which says them wrongly.
declare -A gas_vs_gen=([x86_64]="_start asm_x86_sigtramp_cfi "
  [arm64]="_start asm_a64_cfa_x9 asm_a64_fp_only_clang asm_a64_fp_only_gcc asm_a64_sigtramp_cfi ")

check_gas() {  # IMAGE ARCH
  local in=$1 arch=$2
  local name=$arch/$(basename "$in" .elf) out=$work/$arch-$(basename "$in" .elf)-gen.elf got
  got=$("$sfu" verify "$in" -v 2>&1 | names)
  [[ $got == "${gas_mismatches[$arch]}" ]] && pass "$name verify gas" ||
    fail "$name verify gas" "mismatches in '$got', expected '${gas_mismatches[$arch]}'"
  # The V2 table is larger than gas's V1 (20-byte FDEs): build it from a copy without .sframe.
  "${objcopy_for[$arch]}" -R .sframe "$in" "$out.in" 2>"$out.err" || { fail "$name diff" "objcopy: $(head -n 1 "$out.err")"; return; }
  if ! "$sfu" gen "$out.in" -o "$out" >/dev/null 2>"$out.err"; then
    fail "$name diff" "sfu gen: $(head -n 1 "$out.err")"
    return
  fi
  got=$("$sfu" diff "$in" "$out" -v 2>&1 | grep -v "^only in $out" | names)
  [[ $got == "${gas_vs_gen[$arch]}" ]] && pass "$name diff" ||
    fail "$name diff" "differs in '$got', expected '${gas_vs_gen[$arch]}'"
}

# A PLT: gas 2.40 and ld 2.40 on a dynamically linked x86_64 program. ld describes the lazy
# .plt entries with one PCMASK function (CFA rsp+8, rsp+16 from offset 11, repeating); V1 has no
# repeat size and binutils 2.40 matches the low byte of the offset, so every entry but the first
# gets CFA rsp+16 (a wrong caller) in its first 11 bytes. `sfu verify` must evaluate the CFI's
# expression at every address of every entry and report exactly those.
check_plt() {
  local r=$work/plt name="x86_64/plt gas V1 verify"
  mkdir -p "$r"
  printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' '#include <string.h>' \
    'int main(int c, char **v) { puts(v[0]); printf("%zu\n", strlen(v[0])); return atoi(c > 1 ? v[1] : "0"); }' >"$r/p.c"
  if ! gcc -O2 -fno-pie -no-pie -Wa,--gsframe "$r/p.c" -o "$r/p.elf" 2>"$r/cc.err"; then
    fail "$name" "gcc: $(head -n 1 "$r/cc.err")"
    return
  fi
  local plt size n want got out
  read -r plt size < <(readelf -SW "$r/p.elf" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".plt" { print $3, $5 }')
  n=$(((16#$size - 16) / 16))  # entries after PLT0
  want=$(for ((k = 1; k < n; k++)); do for ((o = 0; o < 11; o++)); do printf '0x%x ' $((16#$plt + 16 + 16 * k + o)); done; done)
  out=$("$sfu" verify "$r/p.elf" -v 2>&1)
  got=$(echo "$out" | sed -n 's/^mismatch at [^(]*(\(0x[0-9a-f]*\)).*/\1/p' | tr '\n' ' ')
  if [[ $n -lt 3 ]]; then
    fail "$name" "only $n PLT entries"
  elif [[ $got != "$want" ]]; then
    fail "$name" "mismatches at '$got', expected '$want'"
  elif ! echo "$out" | grep -q "^PLT-like (PCMASK) functions: $((16 * n)) addresses compared one by one"; then
    fail "$name" "$(echo "$out" | grep -m1 PLT-like)"
  elif ! echo "$out" | grep -q "^verify: .* $((11 * (n - 1))) mismatches,"; then
    fail "$name" "$(echo "$out" | tail -n 1)"
  else
    pass "$name"
  fi
  # gen writes the same .plt from the CFI: V2 and V3 as a repeating block of 16 bytes that
  # verifies at every address (and reads the same in the spec reader); V1, which has no block
  # size, leaves it out by name.
  local v gen_out img at0 at1
  if ! gcc -O2 -fno-pie -no-pie "$r/p.c" -o "$r/p-cfi.elf" 2>"$r/cc.err"; then  # no gas table
    fail "x86_64/plt gen" "gcc: $(head -n 1 "$r/cc.err")"
    return
  fi
  read -r plt size < <(readelf -SW "$r/p-cfi.elf" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".plt" { print $3, $5 }')
  at0=$(printf '0x%x' $((16#$plt)))
  at1=$(printf '0x%x' $((16#$plt + 16)))
  for v in 1 2 3; do
    name="x86_64/plt gen V$v"
    img=$r/p-v$v.elf
    if ! gen_out=$("$sfu" gen "$r/p-cfi.elf" -o "$img" --sframe-version $v --no-symbols -v 2>&1); then
      fail "$name" "$(echo "$gen_out" | head -n 1)"
      continue
    fi
    out=$("$sfu" verify "$img" -v 2>&1)
    if [[ $v == 1 ]]; then
      echo "$gen_out" | grep -q "^left out: $at0 ($at0\.\..*) at $at1: repeating block (PLT) needs V2$" &&
        pass "$name" || fail "$name" "$(echo "$gen_out" | grep -m1 "$at0")"
    elif ! echo "$out" | grep -q "^verify: .* 0 mismatches, 0 not covered$"; then
      fail "$name" "$(echo "$out" | grep -m3 -e '^mismatch' -e '^verify')"
    elif ! echo "$out" | grep -q "^PLT-like (PCMASK) functions: $((16 * n)) addresses compared one by one"; then
      fail "$name" "$(echo "$out" | grep -m1 PLT-like)"
    elif ! "$sfu" dump "$img" >"$img.dump" 2>&1 || ! grep -q '^ *0*b *sp+16 ' "$img.dump"; then
      fail "$name" "no repeating row at offset 0xb in sfu dump"
    elif ! python3 "$here/spec_rows.py" "$img" >"$img.spec.rows" 2>&1 ||
      ! cmp -s "$img.spec.rows" <(rows_only "$img.dump" 0); then
      fail "$name" "the spec reader reads other rows than sfu dump"
    else
      pass "$name"
    fi
  done
}
check_plt

# Refusals: one line naming the file and the reason, exit status 1 (2 for usage errors).
expect_refusal() {  # NAME STATUS TEXT COMMAND...
  local name=$1 status=$2 text=$3 out rc
  shift 3
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc != "$status" ]]; then
    fail "$name" "exit status $rc, expected $status: $out"
  elif [[ $out != *"$text"* ]]; then
    fail "$name" "said '$(echo "$out" | head -n 1)', expected '$text'"
  else
    pass "$name"
  fi
}
check_refusals() {
  local img=$corpus/x86_64/gcc-O2.elf r=$work/refusals
  mkdir -p "$r"
  echo "not an image" >"$r/text.elf"
  expect_refusal "gen: not ELF" 1 "sfu gen: $r/text.elf: not an ELF file" "$sfu" gen "$r/text.elf" -o "$r/x.elf"
  objcopy -R .eh_frame "$img" "$r/no-cfi.elf"
  expect_refusal "gen: no CFI" 1 "no DWARF CFI (.eh_frame or .debug_frame) to build from" \
    "$sfu" gen "$r/no-cfi.elf" -o "$r/x.elf"
  # The CIE's first instruction (after length, id, version, "zR", factors, RA column and the
  # augmentation data) made an opcode DWARF does not define.
  cp "$img" "$r/bad-cfi.elf"
  local eh_off
  eh_off=$(readelf -SW "$img" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".eh_frame" { print $4 }')
  printf '\x3f' | dd of="$r/bad-cfi.elf" bs=1 seek=$((16#$eh_off + 17)) conv=notrunc status=none
  expect_refusal "gen: malformed CFI" 1 "$r/bad-cfi.elf: .eh_frame+0x11: unknown-cfa-opcode (" \
    "$sfu" gen "$r/bad-cfi.elf" -o "$r/x.elf"
  expect_refusal "verify: malformed CFI" 1 ".eh_frame+0x11: unknown-cfa-opcode" "$sfu" verify "$r/bad-cfi.elf"
  expect_refusal "verify: no table" 1 "sfu verify: $img: no .sframe section" "$sfu" verify "$img"
  expect_refusal "gen: unwritable output" 1 "sfu gen: $r/missing/x.elf: cannot create" \
    "$sfu" gen "$img" -o "$r/missing/x.elf"
  expect_refusal "gen: bad version" 2 "--sframe-version is 1, 2 or 3" "$sfu" gen "$img" -o "$r/x.elf" --sframe-version 4
  expect_refusal "gen: no output" 2 "give -o OUT.elf or --print-size" "$sfu" gen "$img"
  expect_refusal "diff: one image" 2 "give two images" "$sfu" diff "$img"
  expect_refusal "dump: two files" 2 "more than one file" "$sfu" dump "$img" "$img"
  expect_refusal "gen: option without its value" 2 "-o needs a value" "$sfu" gen "$img" -o
  expect_refusal "verify: unknown option" 2 "unknown option -q" "$sfu" verify -q "$img"
  # An arm64 table glued onto an x86_64 image: its rules name other registers.
  aarch64-linux-gnu-objcopy -O binary --only-section=.sframe "$corpus/arm64/gas-O2.elf" "$r/arm64.sframe"
  objcopy --add-section .sframe="$r/arm64.sframe" "$img" "$r/wrong-abi.elf"
  expect_refusal "verify: table for another ABI" 1 "the .sframe table is for another ABI than the image" \
    "$sfu" verify "$r/wrong-abi.elf"
  expect_refusal "symbolize: bad address" 2 "not an address: zz" "$sfu" symbolize "$img" zz
  local start
  start=$("$sfu" symbolize "$img" "0x$(nm "$img" | awk '$3 == "chain_a" { print $1 }')" | head -n 1)  # then source lines
  [[ $start == *" chain_a" ]] && pass "symbolize: a function start" || fail "symbolize: a function start" "$start"
}
check_refusals

# Function names (.sfu_symbols): written only where reserved or asked for, appended with a
# warning, in place otherwise (refused when too small), read back by `sfu symbols` as the device
# reads them; the sizes gen prints; each refusal.
check_symbols() {
  local img=$corpus/x86_64/gcc-O2.elf r=$work/symbols line a
  mkdir -p "$r"
  line=$("$sfu" gen "$img" -o "$r/plain.elf" 2>&1)
  [[ $line == "gen: "* && $line != *symbols* ]] && pass "symbols: none unless reserved or asked" ||
    fail "symbols: none unless reserved or asked" "$line"
  line=$("$sfu" gen "$img" -o "$r/appended.elf" --symbols 2>&1)
  [[ $line == *"appended as .sfu_symbols, not loaded"*"the device will not see these names"* ]] &&
    pass "symbols: appended with a warning" || fail "symbols: appended with a warning" "$line"
  a=$(nm "$img" | awk '$3 == "chain_a" { print $1 }')
  line=$("$sfu" symbols "$r/appended.elf" "0x$a")
  [[ $line =~ ^$(printf '0x%x' $((16#$a)))' 'chain_a\+0x0/0x[0-9a-f]+$ ]] &&
    pass "symbols: an address named as the device would" || fail "symbols: an address named as the device would" "$line"
  line=$("$sfu" symbols "$r/appended.elf" | head -n 1)
  [[ $line == "symbols: "*" functions, "*" bytes, "*" tokens, names "* ]] && pass "symbols: the listing's summary" ||
    fail "symbols: the listing's summary" "$line"
  # --print-size: one number without names, a line per table with them; --print-defsym.
  line=$("$sfu" gen "$img" --print-size)
  [[ $line =~ ^[0-9]+$ ]] && pass "symbols: --print-size without names" || fail "symbols: --print-size without names" "$line"
  local sizes defsym
  sizes=$("$sfu" gen "$img" --print-size --symbols | tr '\n' ' ')
  defsym=$("$sfu" gen "$img" --print-defsym --symbols)
  [[ $sizes =~ ^\.sframe\ ([0-9]+)\ \.sfu_symbols\ ([0-9]+)\ $ &&
     $defsym == "--defsym=SFU_SFRAME_RESERVE=${BASH_REMATCH[1]} --defsym=SFU_SYMBOLS_RESERVE=${BASH_REMATCH[2]}" ]] &&
    pass "symbols: --print-size and --print-defsym" || fail "symbols: --print-size and --print-defsym" "$sizes / $defsym"
  # A reservation: written in place by default; too small: refused with both sizes.
  head -c 65536 /dev/zero >"$r/64k.bin"
  head -c 16 /dev/zero >"$r/16.bin"
  objcopy --add-section .sfu_symbols="$r/64k.bin" --set-section-flags .sfu_symbols=alloc,readonly "$img" \
    "$r/reserved.elf" 2>/dev/null  # (no segment loads it: objcopy and gen warn, gen writes it all the same)
  objcopy --add-section .sfu_symbols="$r/16.bin" --set-section-flags .sfu_symbols=alloc,readonly "$img" \
    "$r/small.elf" 2>/dev/null
  expect_refusal "symbols: an unfilled reservation has no table" 1 "invalid symbol table: no-symbol-table" \
    "$sfu" symbols "$r/reserved.elf"
  line=$("$sfu" gen "$r/reserved.elf" -o "$r/in-place.elf" 2>&1)
  [[ $line == *"; symbols: "*"(written into .sfu_symbols)" ]] && "$sfu" symbols "$r/in-place.elf" >/dev/null &&
    pass "symbols: on by default where reserved" || fail "symbols: on by default where reserved" "$line"
  line=$("$sfu" gen "$r/reserved.elf" -o "$r/skipped.elf" --no-symbols 2>/dev/null)
  [[ $line != *symbols* ]] && pass "symbols: --no-symbols skips them" || fail "symbols: --no-symbols skips them" "$line"
  expect_refusal "symbols: reservation too small" 1 "section .sfu_symbols holds 16 bytes, the table needs" \
    "$sfu" gen "$r/small.elf" -o "$r/x.elf"
  strip -o "$r/stripped.elf" "$img"
  expect_refusal "symbols: a stripped image" 1 "no function symbols" "$sfu" gen "$r/stripped.elf" -o "$r/x.elf" --symbols-only
  expect_refusal "symbols: no table" 1 "no .sfu_symbols section" "$sfu" symbols "$img"
  expect_refusal "symbols: --no-symbols with --symbols-only" 2 "--no-symbols with --symbols or --symbols-only" \
    "$sfu" gen "$img" -o "$r/x.elf" --symbols-only --no-symbols
  expect_refusal "symbols: --symbols-only with a version" 2 "--symbols-only writes no SFrame table" \
    "$sfu" gen "$img" -o "$r/x.elf" --symbols-only --sframe-version 3
  expect_refusal "symbols: a range without names" 2 "--symbols-range without a symbol table to write" \
    "$sfu" gen "$img" -o "$r/x.elf" --symbols-range all
  expect_refusal "symbols: a range of unknown symbols" 1 "--symbols-range: nowhere is neither an address nor a symbol" \
    "$sfu" gen "$img" -o "$r/x.elf" --symbols --symbols-range main,nowhere
}
check_symbols

# The crash area (linker/sfunwind-crash.ld): gen warns, once per link (the run that writes, not
# --print-size or --print-defsym), where a loadable segment's file contents cover the area, since
# every load writes them over it; not where the area is past the file contents (after .bss in a
# script without PHDRS: an ELF loader zeroes it, a raw binary's does not know it) or in no
# segment (PHDRS and :NONE), nor where there is none.
check_crash_area() {
  local r=$work/crash-area top
  top=$(cd "$here/../.." && pwd)
  mkdir -p "$r"
  printf 'int data_word = 1;\nint bss_word;\nvoid _start(void) { for (;;) bss_word += data_word; }\n' >"$r/k.c"
  local sections='.text : { *(.text .text.*) } .rodata : { *(.rodata .rodata.*) }'
  local data='.data : { *(.data .data.*) }' bss='.bss : { *(.bss .bss.* COMMON) }'
  # memsz: after .bss, no PHDRS; contents: before .data; none: PHDRS, :NONE; absent: no area.
  printf 'SECTIONS { . = 0x400000; %s %s %s INCLUDE sfunwind-crash.ld }\n' "$sections" "$data" "$bss" >"$r/memsz.ld"
  printf 'SECTIONS { . = 0x400000; %s INCLUDE sfunwind-crash.ld %s %s }\n' "$sections" "$data" "$bss" >"$r/contents.ld"
  printf 'PHDRS { text PT_LOAD FLAGS(5); data PT_LOAD FLAGS(6); }\nSECTIONS { . = 0x400000; %s :text %s :data %s INCLUDE sfunwind-crash.ld }\n' \
    "${sections/\}/\} :text}" "$data" "$bss" >"$r/none.ld"
  printf 'SECTIONS { . = 0x400000; %s %s %s }\n' "$sections" "$data" "$bss" >"$r/absent.ld"
  local layout elf err seg want what
  for layout in memsz contents none absent; do
    elf=$r/$layout.elf
    if ! gcc -O2 -ffreestanding -nostdlib -static -fno-pie -no-pie -L"$top/linker" -Wl,-T,"$r/$layout.ld" \
      -Wl,--no-warn-rwx-segments -o "$elf" "$r/k.c" 2>"$r/$layout.cc.err"; then
      fail "crash area: $layout: gcc" "$(head -n 1 "$r/$layout.cc.err")"
      continue
    fi
    # The oracle: the index of the PT_LOAD whose [vaddr, vaddr + filesz) meets the area, if any.
    seg=$(python3 - "$elf" <<'PY'
import subprocess, sys
out = subprocess.run(['readelf', '-lSW', sys.argv[1]], capture_output=True, text=True, check=True).stdout
area = None
for l in out.splitlines():
    w = l.replace('[', ' ').replace(']', ' ').split()  # index, name, type, address, offset, size
    if w[1:2] == ['.sfu_crash']:
        area = (int(w[3], 16), int(w[5], 16))
phdrs = [l.split() for l in out.split('Program Headers:')[1].split('Section to Segment')[0].splitlines()[2:] if l.strip()]
phdrs = [p for p in phdrs if not p[0].startswith('[')]
for i, p in enumerate(phdrs):
    if area and p[0] == 'LOAD' and int(p[4], 16) and int(p[2], 16) < area[0] + area[1] and area[0] < int(p[2], 16) + int(p[4], 16):
        print(i); break
PY
)
    case $layout in
      contents) [[ -n $seg ]] && pass "crash area: contents: the oracle finds the segment" ||
        fail "crash area: contents: the oracle finds the segment" "the area is not under file contents" ;;
      *) [[ -z $seg ]] && pass "crash area: $layout: the oracle finds no segment" ||
        fail "crash area: $layout: the oracle finds no segment" "segment $seg" ;;
    esac
    want=""
    [[ $layout == contents ]] && want="sfu gen: $elf: warning: .sfu_crash lies in the file contents of loadable segment $seg: every load of the image writes them over the area, so a crash record there does not survive a reset; place linker/sfunwind-crash.ld after every section with contents (after .bss)"
    what="no warning"
    [[ -n $want ]] && what="one warning"
    err=$("$sfu" gen "$elf" -o "$r/$layout-out.elf" --symbols-only 2>&1 >/dev/null)
    [[ $? == 0 && $err == "$want" ]] && pass "crash area: $layout: $what when gen writes" ||
      fail "crash area: $layout: $what when gen writes" "$err"
    for ask in --print-size --print-defsym; do
      err=$("$sfu" gen "$elf" $ask --symbols-only 2>&1 >/dev/null)
      [[ $? == 0 && -z $err ]] && pass "crash area: $layout: nothing under $ask" ||
        fail "crash area: $layout: nothing under $ask" "$err"
    done
  done
}
check_crash_area
# Where the fragment puts the area: after .bss, or at --defsym=SFU_CRASH_AREA (crash_area.sh).
# shellcheck source=tests/gen/crash_area.sh
. "$here/crash_area.sh"
check_crash_area_placement

# Raw binaries (objcopy -O binary with and without -j lists): sfu verify --raw, tests/gen/raw_image.sh.
# shellcheck source=tests/gen/raw_image.sh
. "$here/raw_image.sh"
check_raw_images

# Hostile CFI (tests/gen/hostile_cfi.py): valid records crafted to cost memory and time out of
# proportion to their size, 4 MB of .eh_frame each. Each is read within the reader's budgets or
# refused by name (exit status 1, never an abort), in well under a minute, with the address
# space limited to what docs/host-tools.md says sfu gen stays under: 64 MiB + 64 times the
# input's size. Before the budgets, the first took 1.6 GB and 6.8 s, said "no DWARF CFI", and
# died of std::bad_alloc (exit 134) under a 1 GB limit.
check_hostile_cfi() {
  local h=$work/hostile
  mkdir -p "$h"
  hostile() {  # SHAPE NAME [VAR=VALUE...]
    local shape=$1 name=$2
    shift 2
    env "$@" python3 "$here/hostile_cfi.py" "$shape" 4000000 "$h/$name.elf"
  }
  within() {  # NAME STATUS TEXT KIB COMMAND ARGS...: COMMAND under ulimit -v KIB and a timeout
    local name=$1 status=$2 text=$3 kib=$4
    shift 4
    expect_refusal "$name" "$status" "$text" bash -c 'ulimit -v "$0" && exec timeout 60 "$@"' "$kib" "$@"
  }
  gen_hostile() {  # NAME STATUS TEXT IMAGE
    local kib=$(((64 << 10) + 64 * $(stat -c %s "$4") / 1024))
    within "hostile CFI: $1" "$2" "$3" "$kib" "$sfu" gen --print-size --sframe-version 3 --no-symbols "$4"
  }
  hostile fat-cie tiny-fdes-outside RULES=72 OUTSIDE=1
  gen_hostile "the review's: tiny FDEs of a fat CIE, outside the code" 1 \
    "sfu gen: $h/tiny-fdes-outside.elf: its DWARF CFI describes no code of the image: none of its 199991 FDEs lies in an executable section with contents" \
    "$h/tiny-fdes-outside.elf"
  hostile fat-cie tiny-fdes
  gen_hostile "tiny FDEs of a 96-rule CIE" 1 \
    ".eh_frame+0x340d28: too-many-rules (the rules copied and compared so far pass the budget of 48777216 (2^24 + 8 per section byte))" \
    "$h/tiny-fdes.elf"
  hostile rows rows
  gen_hostile "a row every 3 bytes under a 96-rule CIE" 1 ".eh_frame+0x175ae4: too-many-rules (the rules copied" "$h/rows.elf"
  hostile empty-fdes empty-fdes
  gen_hostile "empty FDEs of a 1000-rule CIE" 1 ".eh_frame+0xeea24: too-many-rules (the rules copied" "$h/empty-fdes.elf"
  hostile remember remember
  gen_hostile "remembered states" 1 ".eh_frame+0xfba6e: too-many-rules (the rules copied" "$h/remember.elf"
  hostile ra-toggle one-fde RULES=0 ROWS=2000000 OUTSIDE=1
  gen_hostile "one FDE of 2 million rows" 1 \
    ".eh_frame+0x200029: too-many-rules (the rows and rules read so far would hold 369099560 bytes, past the budget of 259110976 (64 MiB + 48 per section byte))" \
    "$h/one-fde.elf"
  hostile ra-toggle nobits RULES=0 NOBITS=1 TEXT=4000000000
  gen_hostile "4 GB of code without contents" 1 \
    "its DWARF CFI describes no code of the image: none of its 1981 FDEs lies in an executable section with contents" \
    "$h/nobits.elf"
  # A row every 2 bytes in 4 MB of code: read and written, 2 million rows.
  hostile ra-toggle dense RULES=0 TEXT=4100000
  gen_hostile "a row every 2 bytes, in the code" 0 "13922496" "$h/dense.elf"
  # Less memory than the reader's budget lets it use: a named refusal, for every command that
  # reads CFI (gen by what it was doing; the others by the command and its arguments).
  within "hostile CFI: gen out of memory" 1 \
    "sfu gen: $h/dense.elf: out of memory reading its DWARF CFI (an allocation failed): refused" \
    100000 "$sfu" gen --print-size --sframe-version 3 --no-symbols "$h/dense.elf"
  within "hostile CFI: verify out of memory" 1 \
    "sfu verify: out of memory (an allocation failed) working on $h/dense.elf: refused" 100000 "$sfu" verify "$h/dense.elf"
  within "hostile CFI: breakpad out of memory" 1 \
    "sfu breakpad: out of memory (an allocation failed) working on $h/dense.elf: refused" 100000 \
    "$sfu" breakpad "$h/dense.elf"
  within "hostile CFI: verify refuses by name" 1 ".eh_frame+0x340d28: too-many-rules" 400000 "$sfu" verify "$h/tiny-fdes.elf"
  rm -f "$h"/*.elf
}
check_hostile_cfi

for arch in x86_64 arm64 s390x; do
  images=("$corpus/$arch"/*.elf)
  [[ -e ${images[0]} ]] || { fail "$arch corpus" "no images in $corpus/$arch"; continue; }
  for in in "${images[@]}"; do
    case $(basename "$in") in
      gas-*) check_gas "$in" "$arch" ;;
      *)
        for v in 2 3; do check_generated "$in" "$arch" $v; done
        [[ -n ${objdump_for[$arch]:-} ]] && check_generated "$in" "$arch" 1
        ;;
    esac
  done
done
echo "gen: $passed passed, $failed failed"
