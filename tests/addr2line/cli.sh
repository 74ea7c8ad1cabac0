#!/usr/bin/env bash
# `sfu symbolize`, `sfu gen --symbols` and `sfu symbols` on a small C++ program built here (g++
# -g -O1, with an assembly label that has no .type), against binutils (nm, addr2line, objdump):
#   - the host's function lookup names every instruction as addr2line names it from the symbol
#     table alone, assembly labels included, and the device's table (`sfu gen --symbols-only`,
#     read back by `sfu symbols`) names each one the same;
#   - -C demangles the first line as nm -C does; an image without DWARF gets one note;
#   - log mode annotates frame lines after a console prefix as it does bare ones;
#   - --symbols-range reads addresses as every address argument (decimal with a leading 0, hex
#     with 0x) and names a malformed one as a usage error; `sfu symbols --help` is its usage.
#   tests/addr2line/cli.sh SFU WORKDIR      ends "addr2line-cli: N passed, M failed"
set -uo pipefail
sfu=$1 work=$2
mkdir -p "$work"
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
check() { if [[ $2 == "$3" ]]; then pass "$1"; else fail "$1" "want [$3], got [$2]"; fi; }

cat >"$work/prog.cpp" <<'CPP'
namespace ns {
__attribute__((noinline)) int twice(int x) { return 2 * x + 1; }
}
extern "C" void asm_label(void);
asm(".text\n.globl asm_label\nasm_label:\n nop\n nop\n nop\n ret\n");
int main(int argc, char **) { asm_label(); return ns::twice(argc); }
CPP
elf=$work/prog.elf
if ! g++ -g -O1 -no-pie -o "$elf" "$work/prog.cpp" 2>"$work/build.log"; then
  fail "build" "$(head -n 3 "$work/build.log")"
  echo "addr2line-cli: $passed passed, $failed failed"
  exit 0
fi
objcopy --strip-debug "$elf" "$work/nodwarf.elf"

addr_of() { printf '0x%x' "$((16#$(nm "$elf" | awk -v n="$1" '$3 == n { print $1 }')))"; }
twice=$(addr_of _ZN2ns5twiceEi) label=$(addr_of asm_label)

# -C: the first line too, as nm -C spells the name.
check "-C demangles the symbol line" "$("$sfu" symbolize -C "$elf" "$twice" | head -n 1)" "$twice $(nm -C "$elf" | awk -v a="$(printf %016x "$twice")" '$1 == a { $1 = ""; $2 = ""; sub(/^  /, ""); print }')"
check "without -C the symbol line is mangled" "$("$sfu" symbolize "$elf" "$twice" | head -n 1)" "$twice _ZN2ns5twiceEi"

# No DWARF: names, and one note.
out=$("$sfu" symbolize "$work/nodwarf.elf" "$label" "$twice" 2>"$work/err.txt")
check "no DWARF: names from the symbols" "$out" "$label asm_label"$'\n'"$twice _ZN2ns5twiceEi"
check "no DWARF: one note" "$(cat "$work/err.txt")" "sfu symbolize: $work/nodwarf.elf: note: no DWARF debug information (.debug_info): names only, no source lines"

# Every instruction of the program's own code: sfu's name = addr2line's from the symbols alone.
objdump -d --no-show-raw-insn "$elf" | awk '/^[0-9a-f]+ <(main|_ZN2ns5twiceEi|asm_label)>:/ { on = 1; next } /^$/ { on = 0 } on && /^ *[0-9a-f]+:/ { sub(/:.*/, ""); gsub(/ /, ""); print "0x" $0 }' >"$work/addrs.txt"
addr2line -f -e "$work/nodwarf.elf" <"$work/addrs.txt" | sed -n 'p;n' >"$work/want.txt"
# shellcheck disable=SC2046
"$sfu" symbolize "$work/nodwarf.elf" $(cat "$work/addrs.txt") 2>/dev/null | sed 's/^[^ ]* //; s/+0x[0-9a-f]*$//' >"$work/got.txt"
n=$(wc -l <"$work/addrs.txt")
if [[ $n -gt 8 ]] && cmp -s "$work/want.txt" "$work/got.txt" && grep -qx asm_label "$work/got.txt"; then
  pass "host lookup = addr2line's symbol names ($n instructions, labels included)"
else
  fail "host lookup = addr2line's symbol names" "$(diff "$work/want.txt" "$work/got.txt" | head -n 4 | tr '\n' '|')"
fi
# The device's table: the same name and offset for each of them.
if "$sfu" gen "$elf" -o "$work/syms.elf" --symbols-only --symbols-range all >/dev/null; then
  # shellcheck disable=SC2046
  "$sfu" symbols "$work/syms.elf" $(cat "$work/addrs.txt") | sed 's/\/0x[0-9a-f]*$//; s/+0x0$//' >"$work/device.txt"
  # shellcheck disable=SC2046
  "$sfu" symbolize "$elf" $(cat "$work/addrs.txt") | grep -v '^ ' >"$work/host.txt"
  if [[ $(wc -l <"$work/device.txt") -eq $n ]] && cmp -s "$work/device.txt" "$work/host.txt"; then
    pass "the device's table names each instruction as the host does"
  else
    fail "the device's table names each instruction as the host does" "$(diff "$work/host.txt" "$work/device.txt" | head -n 4 | tr '\n' '|')"
  fi
else
  fail "the device's table names each instruction as the host does" "sfu gen failed"
fi

# Log mode: a prefix before the frame changes nothing but itself.
frame=$(printf ' #1     0x%016x  sp 0x00007ffe00001000  task   [table]      image' $((twice + 4)))
bare=$(printf '%s\n' "$frame" | "$sfu" symbolize --image "$elf")
for prefix in '[    1.234567] ' 'sfu-crash: ' '<6>[ 12.5] cpu0: '; do
  got=$(printf '%s\n' "$prefix$frame" | "$sfu" symbolize --image "$elf")
  check "log mode after the prefix '$prefix'" "$got" "$prefix$bare"
done
case $bare in *"_ZN2ns5twiceEi+0x4"* | *"ns::twice(int)+0x4"*) pass "log mode annotates" ;; *) fail "log mode annotates" "$bare" ;; esac

# --symbols-range: one number syntax.
lo=$(printf '%d' "$twice") hi=$(printf '0x%x' $((twice + 4)))
"$sfu" gen "$elf" -o "$work/hex.elf" --symbols-only --symbols-range "$twice,$hi" >/dev/null
"$sfu" gen "$elf" -o "$work/dec.elf" --symbols-only --symbols-range "0$lo,$hi" >/dev/null
if cmp -s "$work/hex.elf" "$work/dec.elf" && [[ $("$sfu" symbols "$work/dec.elf" | tail -n 1) == *" _ZN2ns5twiceEi" ]]; then
  pass "--symbols-range: a leading 0 is decimal"
else
  fail "--symbols-range: a leading 0 is decimal" "the images differ"
fi
out=$("$sfu" gen "$elf" -o "$work/bad.elf" --symbols-only --symbols-range "08x,$hi" 2>&1)
check "--symbols-range: a malformed address is a usage error" "$? $(head -n 1 <<<"$out")" "2 sfu gen: --symbols-range: not an address: 08x"

# --help as every command's.
check "sfu symbols --help" "$("$sfu" symbols --help; echo "rc $?")" "$("$sfu" help symbols; echo "rc 0")"

echo "addr2line-cli: $passed passed, $failed failed"
