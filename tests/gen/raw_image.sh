# shellcheck shell=bash disable=SC2154  # sfu, work, here: set by check.sh
# Raw binaries (sourced by tests/gen/check.sh, which gives pass, fail, expect_refusal, $sfu, $work
# and $here): a firmware that ships `objcopy -O binary -j ...` must keep the table, the names and
# the build-id note. Small images linked with the fragments are cut by objcopy itself, with and
# without each piece in the -j list; `sfu verify ELF --raw BIN` must pass every raw image that
# holds them and name exactly what each cut one lost, at the offsets objdump -h's LMAs give
# (objcopy's own layout: byte LMA - base, base the lowest LMA it wrote). And `sfu gen` / `sfu
# verify` warn from the ELF alone where no load puts a piece in memory.
check_raw_images() {
  local r=$work/raw top
  top=$(cd "$here/../.." && pwd)
  rm -rf "$r"
  mkdir -p "$r"
  cat >"$r/k.c" <<'EOF'
const char banner[] = "raw image test";
int data_word = 1;
int bss_word;
__attribute__((noinline)) static int helper(int x) { return x * 3 + data_word + banner[x & 7]; }
__attribute__((noinline)) int twice(int x) { return helper(x) + helper(x + 1); }
void _start(void) { for (;;) bss_word += twice(bss_word); }
EOF
  local text='.text : { _stext = .; *(.text .text.*) _etext = .; }' rodata='.rodata : { *(.rodata .rodata.*) }'
  local eh='.eh_frame : { KEEP(*(.eh_frame)) }' data='.data : { *(.data .data.*) }' bss='.bss : { *(.bss .bss.* COMMON) }'
  local phdrs='PHDRS { text PT_LOAD FLAGS(5); data PT_LOAD FLAGS(6); }'
  # plain: what linker/README.md shows. lma: .data and everything after it run in RAM and are
  # loaded after .rodata (AT), as firmware that copies itself out of flash. none: the crash
  # fragment before the table's, so the table inherits its :NONE. gap: the crash area between
  # .bss and a later section with contents, in no segment's file contents but inside the raw
  # image's span. bare: no fragment at all (sfu gen --symbols appends both tables, unloaded).
  # nobits: a table of the script's own, pointed at by __sfu_sframe_start, made NOLOAD.
  printf '%s\nSECTIONS { . = 0x400000; %s :text %s INCLUDE sfunwind-reserve.ld %s %s :data %s INCLUDE sfunwind-crash.ld }\n' \
    "$phdrs" "$text" "$rodata" "$eh" "$data" "$bss" >"$r/plain.ld"
  # zeropaddr: the tables in a segment of their own, every p_paddr then zeroed (as some linkers
  # leave them): BFD takes no LMA from the program headers, the addresses are the LMAs.
  printf 'PHDRS { text PT_LOAD FLAGS(5); tables PT_LOAD FLAGS(4); }\nSECTIONS { . = 0x400000; %s :text %s :tables INCLUDE sfunwind-reserve.ld %s %s %s }\n' \
    "$text" "$rodata" "$eh" "$data" "$bss" >"$r/zeropaddr.ld"
  printf 'SECTIONS { . = 0x400000; %s %s .data 0x80000000 : AT(LOADADDR(.rodata) + SIZEOF(.rodata)) { *(.data .data.*) } INCLUDE sfunwind-reserve.ld %s %s }\n' \
    "$text" "$rodata" "$eh" "$bss" >"$r/lma.ld"
  printf '%s\nSECTIONS { . = 0x400000; %s :text %s %s :data %s INCLUDE sfunwind-crash.ld INCLUDE sfunwind-reserve.ld %s }\n' \
    "$phdrs" "$text" "$rodata" "$data" "$bss" "$eh" >"$r/none.ld"
  printf 'PHDRS { text PT_LOAD FLAGS(5); data PT_LOAD FLAGS(6); late PT_LOAD FLAGS(6); }\nSECTIONS { . = 0x400000; %s :text %s INCLUDE sfunwind-reserve.ld %s %s :data %s INCLUDE sfunwind-crash.ld .late : { LONG(0x12345678) } :late }\n' \
    "$text" "$rodata" "$eh" "$data" "$bss" >"$r/gap.ld"
  printf 'SECTIONS { . = 0x400000; %s %s %s %s %s }\n' "$text" "$rodata" "$eh" "$data" "$bss" >"$r/bare.ld"
  printf 'SECTIONS { . = 0x400000; %s %s INCLUDE sfunwind-build-id.ld %s %s %s .table (NOLOAD) : ALIGN(8) { __sfu_sframe_start = .; . += 0x100; __sfu_sframe_end = .; } }\n' \
    "$text" "$rodata" "$eh" "$data" "$bss" >"$r/nobits.ld"

  local layout elf
  for layout in plain lma zeropaddr none gap bare nobits; do
    # Sized exactly, as the recipe does: link, ask, link again.
    # shellcheck disable=SC2054  # -Wl,... are single arguments
    local link=(gcc -O2 -ffreestanding -nostdlib -static -fno-pie -no-pie -fasynchronous-unwind-tables
      -Wl,--build-id=sha1 -L"$top/linker" -Wl,-T,"$r/$layout.ld" -Wl,--no-warn-rwx-segments -o "$r/$layout.elf" "$r/k.c")
    if ! "${link[@]}" 2>"$r/$layout.ld.err"; then
      fail "raw: $layout: link" "$(head -n 1 "$r/$layout.ld.err")"
      continue
    fi
    if [[ $layout != bare && $layout != nobits ]]; then
      local defsym
      defsym=$("$sfu" gen "$r/$layout.elf" --print-defsym | sed 's/^/-Wl,/; s/ / -Wl,/g')
      # shellcheck disable=SC2086  # one word per option
      "${link[@]}" $defsym 2>>"$r/$layout.ld.err" || { fail "raw: $layout: link again"; continue; }
    fi
  done

  # lma_of ELF SECTION, size_of ELF SECTION: objdump's (BFD's, objcopy's) view, in decimal.
  lma_of() { echo $((16#$(objdump -hw "$1" | awk -v s="$2" '$2 == s { print $5 }'))); }
  size_of() { echo $((16#$(objdump -hw "$1" | awk -v s="$2" '$2 == s { print $3 }'))); }
  hexn() { printf '0x%x' "$1"; }
  # sfu verify's warning for ELF's crash area inside its raw image BIN (which starts at .text).
  area_inside_warning() {
    local lo hi t end
    lo=$(lma_of "$1" .sfu_crash)
    hi=$((lo + $(size_of "$1" .sfu_crash)))
    t=$(lma_of "$1" .text)
    end=$((t + $(stat -c %s "$2")))
    echo "sfu verify: $2: warning: the crash area ($(hexn "$lo")-$(hexn "$hi")) lies inside the raw image's span ($(hexn "$t")-$(hexn "$end")): every load of the image writes over it, so a record captured there does not survive a reset (unless the image captures only in a copy it moved elsewhere)"
  }
  # first_of ELF: "LMA NAME" of the lowest section objcopy -O binary writes (flag LOAD).
  first_of() {
    objdump -hw "$1" | awk '$1 ~ /^[0-9]+$/ && / LOAD/ { print $5, $2 }' |
      while read -r lma name; do echo "$((16#$lma)) $name"; done | sort -n | head -n 1
  }
  # raw_case NAME ELF BIN STATUS STDOUT STDERR: sfu verify ELF --raw BIN, exactly.
  raw_case() {
    local name=$1 elf=$2 bin=$3 status=$4 want_out=$5 want_err=$6 out err rc
    out=$("$sfu" verify "$elf" --raw "$bin" 2>"$r/err")
    rc=$?
    err=$(cat "$r/err")
    if [[ $rc != "$status" ]]; then
      fail "raw: $name" "exit status $rc, expected $status: $out $err"
    elif [[ $out != "$want_out" ]]; then
      fail "raw: $name" "said '$out', expected '$want_out'"
    elif [[ $err != "$want_err" ]]; then
      fail "raw: $name" "stderr '$err', expected '$want_err'"
    else
      pass "raw: $name"
    fi
  }
  # kept ELF BASE SECTION...: the "as in the ELF" list for pieces at their LMA - BASE.
  kept() {
    local elf=$1 base=$2 s list=""
    shift 2
    for s in "$@"; do
      list+="${list:+, }$s $(hexn "$(size_of "$elf" "$s")") bytes at $(hexn $(($(lma_of "$elf" "$s") - base)))"
    done
    echo "$list"
  }
  # Messages for a piece, as objdump places it: zeros where it belongs, past the end, before the start.
  what_of() {
    case $1 in
      .sframe) echo "the SFrame table" ;;
      .sfu_symbols) echo "the function names" ;;
      *) echo "the build-id note" ;;
    esac
  }
  span() { echo "$(hexn $(($(lma_of "$1" "$2") - $3)))-$(hexn $(($(lma_of "$1" "$2") - $3 + $(size_of "$1" "$2"))))"; }
  zeros() { echo "sfu verify: $4: $2 ($(what_of "$2")) is not in the raw image: bytes $(span "$1" "$2" "$3"), where it belongs, are zeros (a -j list without $2?)"; }
  past() { echo "sfu verify: $4: $2 ($(what_of "$2")) is not in the raw image: it would lie at bytes $(span "$1" "$2" "$3"), past the image's end ($(hexn "$(stat -c %s "$4")") bytes; a -j list without $2?)"; }
  before() { echo "sfu verify: $4: $2 ($(what_of "$2")) is not in the raw image: it would lie $(hexn $(($3 - $(lma_of "$1" "$2")))) bytes before the image's first byte ($5 at $(hexn "$3"); a -j list without $2?)"; }

  expect_exact() {  # NAME STATUS WANT COMMAND...: stderr exactly WANT
    local name=$1 status=$2 want=$3 err rc
    shift 3
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    [[ $rc == "$status" && $err == "$want" ]] && pass "$name" || fail "$name" "exit status $rc: $err"
  }
  local pieces=(.sframe .sfu_symbols .note.gnu.build-id)
  local keep=(-j .text -j .rodata -j .sframe -j .sfu_symbols -j .note.gnu.build-id -j .data)
  # ---- plain: the cuts -----------------------------------------------------------------------
  elf=$r/plain.elf
  if "$sfu" gen "$elf" -o "$r/plain-gen.elf" >/dev/null 2>"$r/gen.err" && [[ ! -s $r/gen.err ]]; then
    pass "raw: plain: sfu gen writes it without a warning"
  else
    fail "raw: plain: sfu gen writes it without a warning" "$(cat "$r/gen.err")"
  fi
  elf=$r/plain-gen.elf
  local t d first
  read -r t first <<<"$(first_of "$elf")"
  d=$(lma_of "$elf" .sframe)
  local -A cut=(
    [full]=""
    [guide]="${keep[*]}"
    [usual]="-j .text -j .rodata -j .data"
    [no-names]="-j .text -j .rodata -j .sframe -j .note.gnu.build-id -j .data"
    [no-build-id]="-j .text -j .rodata -j .sframe -j .sfu_symbols -j .data"
    [tail]="-j .text -j .rodata -j .sframe"
    [no-text]="-j .sframe -j .sfu_symbols -j .note.gnu.build-id -j .data"
    [before]="-j .eh_frame -j .data"
  )
  local c bin
  for c in "${!cut[@]}"; do
    # shellcheck disable=SC2086
    objcopy -O binary ${cut[$c]} "$elf" "$r/$c.bin" || fail "raw: objcopy $c"
  done
  raw_case "the whole image" "$elf" "$r/full.bin" 0 \
    "raw: $r/full.bin starts at $(hexn "$t") ($first); as in the ELF: $(kept "$elf" "$t" "${pieces[@]}")" ""
  raw_case "the porting guide's -j list" "$elf" "$r/guide.bin" 0 \
    "raw: $r/guide.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" "${pieces[@]}")" ""
  raw_case "a -j list without the three" "$elf" "$r/usual.bin" 1 \
    "raw: $r/usual.bin starts at $(hexn "$t") (.text); as in the ELF: nothing" \
    "$(for p in "${pieces[@]}"; do zeros "$elf" "$p" "$t" "$r/usual.bin"; done)"
  raw_case "a -j list without the names" "$elf" "$r/no-names.bin" 1 \
    "raw: $r/no-names.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" .sframe .note.gnu.build-id)" \
    "$(zeros "$elf" .sfu_symbols "$t" "$r/no-names.bin")"
  raw_case "a -j list without the build-id note" "$elf" "$r/no-build-id.bin" 1 \
    "raw: $r/no-build-id.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" .sframe .sfu_symbols)" \
    "$(zeros "$elf" .note.gnu.build-id "$t" "$r/no-build-id.bin")"
  raw_case "a -j list that ends with the table" "$elf" "$r/tail.bin" 1 \
    "raw: $r/tail.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" .sframe)" \
    "$(past "$elf" .sfu_symbols "$t" "$r/tail.bin")
$(past "$elf" .note.gnu.build-id "$t" "$r/tail.bin")"
  raw_case "a -j list without the code (the image starts at the table)" "$elf" "$r/no-text.bin" 0 \
    "raw: $r/no-text.bin starts at $(hexn "$d") (.sframe); as in the ELF: $(kept "$elf" "$d" "${pieces[@]}")" ""
  local e
  e=$(lma_of "$elf" .eh_frame)
  raw_case "a -j list that starts after the three" "$elf" "$r/before.bin" 1 \
    "raw: $r/before.bin starts at $(hexn "$e") (.eh_frame); as in the ELF: nothing" \
    "$(for p in "${pieces[@]}"; do before "$elf" "$p" "$e" "$r/before.bin" .eh_frame; done)"
  # One byte of the names changed; the build-id note cut in half.
  local at=$(($(lma_of "$elf" .sfu_symbols) - t + 5)) byte
  cp "$r/full.bin" "$r/changed.bin"
  byte=$(od -An -tu1 -j "$at" -N1 "$r/full.bin" | tr -d ' ')
  printf '%b' "\\x$(printf %02x $((byte ^ 0xff)))" | dd of="$r/changed.bin" bs=1 seek="$at" conv=notrunc status=none
  raw_case "a byte of the names changed" "$elf" "$r/changed.bin" 1 \
    "raw: $r/changed.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" .sframe .note.gnu.build-id)" \
    "sfu verify: $r/changed.bin: .sfu_symbols (the function names) differs in the raw image: byte $(hexn "$at") (.sfu_symbols+0x5) is $(hexn $((byte ^ 0xff))), the ELF has $(hexn "$byte")"
  local n=$(($(lma_of "$elf" .note.gnu.build-id) - t))
  head -c $((n + 16)) "$r/full.bin" >"$r/short.bin"
  raw_case "the image cut short in the build-id note" "$elf" "$r/short.bin" 1 \
    "raw: $r/short.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" .sframe .sfu_symbols)" \
    "sfu verify: $r/short.bin: .note.gnu.build-id (the build-id note) is cut short in the raw image: it lies at bytes $(span "$elf" .note.gnu.build-id "$t"), the image ends at $(hexn $((n + 16)))"
  head -c 256 /dev/zero | tr '\0' '\377' >"$r/other.bin"
  expect_refusal "raw: not a raw image of the ELF" 1 \
    "sfu verify: $r/other.bin: no allocated section of the ELF begins the raw image: not made from this ELF by objcopy -O binary?" \
    "$sfu" verify "$elf" --raw "$r/other.bin"
  expect_refusal "raw: no raw image" 1 "sfu verify: $r/missing.bin: cannot open: No such file or directory" \
    "$sfu" verify "$elf" --raw "$r/missing.bin"
  expect_refusal "raw: with -v" 2 "sfu verify: --raw checks the raw image, not the rows: -v does not go with it" \
    "$sfu" verify "$elf" --raw "$r/full.bin" -v
  expect_refusal "raw: --raw without its value" 2 "sfu verify: --raw needs a value" "$sfu" verify "$elf" --raw
  local out
  out=$("$sfu" verify "$elf" 2>&1)
  [[ $? == 0 && $out == "verify: "*" 0 mismatches, 0 not covered" ]] && pass "raw: plain: verify, no warning" ||
    fail "raw: plain: verify, no warning" "$out"

  # Without program headers (e_phnum 0) nothing says where a loader puts anything: no warning.
  cp "$elf" "$r/no-phdrs.elf"
  printf '\0\0' | dd of="$r/no-phdrs.elf" bs=1 seek=56 conv=notrunc status=none
  expect_exact "raw: plain without program headers: verify, no warning" 0 "" "$sfu" verify "$r/no-phdrs.elf"

  # ---- lma: pieces run in RAM, loaded from flash; objcopy lays them out by LMA ----------------
  elf=$r/lma-gen.elf
  if "$sfu" gen "$r/lma.elf" -o "$elf" >/dev/null; then
    t=$(lma_of "$elf" .text)
    objcopy -O binary "$elf" "$r/lma-full.bin"
    objcopy -O binary "${keep[@]/.sfu_symbols/.eh_frame}" "$elf" "$r/lma-no-names.bin"
    raw_case "loaded apart from where it runs: the whole image" "$elf" "$r/lma-full.bin" 0 \
      "raw: $r/lma-full.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" "${pieces[@]}")" ""
    raw_case "loaded apart from where it runs: without the names" "$elf" "$r/lma-no-names.bin" 1 \
      "raw: $r/lma-no-names.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$elf" "$t" .sframe .note.gnu.build-id)" \
      "$(zeros "$elf" .sfu_symbols "$t" "$r/lma-no-names.bin")"
    [[ $(lma_of "$elf" .sframe) != "$((16#$(objdump -hw "$elf" | awk '$2 == ".sframe" { print $4 }')))" ]] &&
      pass "raw: lma: the table's LMA is not its address" || fail "raw: lma: the table's LMA is not its address"
  else
    fail "raw: lma: sfu gen"
  fi

  # ---- zeropaddr: every p_paddr 0 -----------------------------------------------------------
  elf=$r/zeropaddr-gen.elf
  if "$sfu" gen "$r/zeropaddr.elf" -o "$elf" >/dev/null; then
    python3 - "$elf" <<'PY'
import struct, sys
f = open(sys.argv[1], 'r+b')
ident = f.read(64)
phoff, = struct.unpack_from('<Q', ident, 32)
phentsize, phnum = struct.unpack_from('<HH', ident, 54)
for i in range(phnum):
    f.seek(phoff + i * phentsize + 24)
    f.write(bytes(8))
PY
    objcopy -O binary "$elf" "$r/zeropaddr.bin"
    read -r t first <<<"$(first_of "$elf")"
    raw_case "every p_paddr 0: addresses are the LMAs" "$elf" "$r/zeropaddr.bin" 0 \
      "raw: $r/zeropaddr.bin starts at $(hexn "$t") ($first); as in the ELF: $(kept "$elf" "$t" "${pieces[@]}")" ""
  else
    fail "raw: zeropaddr: sfu gen"
  fi

  # ---- warnings from the ELF alone ------------------------------------------------------------
  local why
  why=": an ELF loader does not load it; give it a PT_LOAD segment (in a PHDRS script, the one of the sections around it)"
  local want_none=""
  for p in "${pieces[@]}"; do
    want_none+="${want_none:+$'\n'}sfu gen: $r/none.elf: warning: $p ($(what_of "$p")) lies in no loadable segment's file contents$why"
  done
  expect_exact "raw: none: sfu gen warns for each piece in no segment" 0 "$want_none" \
    "$sfu" gen "$r/none.elf" -o "$r/none-gen.elf"
  expect_exact "raw: none: nothing under --print-defsym" 0 "" "$sfu" gen "$r/none.elf" --print-defsym
  expect_exact "raw: none: sfu verify warns too" 0 "${want_none//sfu gen: $r\/none.elf/sfu verify: $r/none-gen.elf}" \
    "$sfu" verify "$r/none-gen.elf"
  # objcopy keeps them (they are allocated), but fills the gap over the crash area with zeros.
  objcopy -O binary "$r/none-gen.elf" "$r/none.bin"
  t=$(lma_of "$r/none-gen.elf" .text)
  raw_case "none: the crash area inside the raw image" "$r/none-gen.elf" "$r/none.bin" 0 \
    "raw: $r/none.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$r/none-gen.elf" "$t" "${pieces[@]}")" \
    "${want_none//sfu gen: $r\/none.elf/sfu verify: $r/none-gen.elf}
$(area_inside_warning "$r/none-gen.elf" "$r/none.bin")"
  # gap: no segment's file contents cover the area (sfu gen says nothing), the raw image does.
  expect_exact "raw: gap: sfu gen says nothing" 0 "" "$sfu" gen "$r/gap.elf" -o "$r/gap-gen.elf"
  objcopy -O binary "$r/gap-gen.elf" "$r/gap.bin"
  t=$(lma_of "$r/gap-gen.elf" .text)
  raw_case "gap: the crash area inside the raw image" "$r/gap-gen.elf" "$r/gap.bin" 0 \
    "raw: $r/gap.bin starts at $(hexn "$t") (.text); as in the ELF: $(kept "$r/gap-gen.elf" "$t" "${pieces[@]}")" \
    "$(area_inside_warning "$r/gap-gen.elf" "$r/gap.bin")"
  # bare: the tables sfu gen appends are not allocated; a raw image never holds them.
  local unalloc=" is not allocated (no SHF_ALLOC): objcopy -O binary leaves it out and no loader loads it; INCLUDE the fragment inside SECTIONS, among the loaded sections"
  "$sfu" gen "$r/bare.elf" -o "$r/bare-gen.elf" --symbols >/dev/null 2>&1 || fail "raw: bare: sfu gen --symbols"
  expect_exact "raw: bare: verify warns, the tables are not allocated" 0 \
    "sfu verify: $r/bare-gen.elf: warning: .sframe (the SFrame table)$unalloc
sfu verify: $r/bare-gen.elf: warning: .sfu_symbols (the function names)$unalloc" "$sfu" verify "$r/bare-gen.elf"
  expect_exact "raw: bare: gen on it warns alike" 0 \
    "sfu gen: $r/bare-gen.elf: warning: .sframe (the SFrame table)$unalloc
sfu gen: $r/bare-gen.elf: warning: .sfu_symbols (the function names)$unalloc" \
    "$sfu" gen "$r/bare-gen.elf" -o "$r/bare-gen2.elf" --symbols
  objcopy -O binary "$r/bare-gen.elf" "$r/bare.bin"
  local only=": objcopy -O binary writes only allocated sections with contents"
  read -r t first <<<"$(first_of "$r/bare-gen.elf")"
  raw_case "bare: the appended tables are not in the raw image" "$r/bare-gen.elf" "$r/bare.bin" 1 \
    "raw: $r/bare.bin starts at $(hexn "$t") ($first); as in the ELF: $(kept "$r/bare-gen.elf" "$t" .note.gnu.build-id)" \
    "sfu verify: $r/bare-gen.elf: warning: .sframe (the SFrame table)$unalloc
sfu verify: $r/bare-gen.elf: warning: .sfu_symbols (the function names)$unalloc
sfu verify: $r/bare.bin: .sframe (the SFrame table) is not in the raw image$only
sfu verify: $r/bare.bin: .sfu_symbols (the function names) is not in the raw image$only"
  expect_refusal "raw: an image without a table" 1 \
    "sfu verify: $r/bare.elf: no SFrame table (.sframe, or __sfu_sframe_start and __sfu_sframe_end) to look for in a raw image" \
    "$sfu" verify "$r/bare.elf" --raw "$r/bare.bin"
  # nobits: the table the symbols point at has no bytes in the file.
  expect_exact "raw: nobits: sfu gen warns" 0 \
    "sfu gen: $r/nobits.elf: warning: .table (the SFrame table) has no contents in the file (NOBITS): a loader leaves zeros there, a raw image holds none; do not make it NOLOAD" \
    "$sfu" gen "$r/nobits.elf" -o "$r/nobits-gen.elf" --no-symbols
}
