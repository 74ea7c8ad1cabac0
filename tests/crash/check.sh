#!/usr/bin/env bash
# `sfu crash` end to end on a record a real program captured (tests/crash/crash_program.c): the
# binary record and the printed log decode to the same trace with names, source lines and
# inlined frames, the host's walk agrees, and every kind of bad input is refused by name with the
# documented exit status.
#   usage: tests/crash/check.sh SFU PROGRAM WORKDIR
# The last line is "crash: N passed, M failed".
set -u
sfu=$1 program=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
pass=0 fail=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() {
  echo "FAIL $1"
  fail=$((fail + 1))
}

# expect NAME STATUS PATTERN -- ARGS...: `sfu crash ARGS` exits with STATUS and its output (stdout
# and stderr) holds PATTERN (a fixed string).
expect() {
  local name=$1 status=$2 pattern=$3
  shift 4
  local out rc
  out=$("$sfu" crash "$@" 2>&1)
  rc=$?
  if [[ $rc -ne $status ]]; then
    bad "$name: exit status $rc, not $status"
    sed 's/^/    /' <<<"$out" | head -n 20
  elif ! grep -qF -- "$pattern" <<<"$out"; then
    bad "$name: no '$pattern' in the output"
    sed 's/^/    /' <<<"$out" | head -n 20
  else
    ok "$name"
  fi
}

# patch FILE OFFSET HEXBYTES [reseal]: overwrite bytes; "reseal" recomputes the record's CRC.
patch() {
  python3 - "$@" <<'EOF'
import sys, zlib
path, at, data = sys.argv[1], int(sys.argv[2], 0), bytes.fromhex(sys.argv[3])
reseal = len(sys.argv) > 4
b = bytearray(open(path, 'rb').read())
b[at:at + len(data)] = data
if reseal:
    length = int.from_bytes(b[16:20], 'little')
    b[12:16] = zlib.crc32(bytes(b[16:length])).to_bytes(4, 'little')
open(path, 'wb').write(bytes(b))
EOF
}

record=$work/record.bin log=$work/serial.log
if ! "$program" "$record" >"$log"; then
  bad "the program captures and prints its record"
  echo "crash: $pass passed, $((fail + 1)) failed"
  exit 1
fi
ok "the program captures and prints its record"

# The record as captured, and as printed: the same frames, names, source lines and inlined frames.
expect "binary record" 0 "every frame the host could walk equals the device's" -- "$record" --image "$program"
expect "names and offsets" 0 "image  handle_irq+0x" -- "$record" --image "$program"
expect "inlined frames" 0 "drain_queue at " -- "$record" --image "$program"
expect "source lines" 0 "crash_program.c:" -- "$log" --image "$program"
frames() { "$sfu" crash "$1" --image "$program" 2>&1 | sed -n '/^frames:/,/^stop:/p'; }
if [[ -n $(frames "$record") && "$(frames "$record")" == "$(frames "$log")" ]]; then
  ok "the log gives the binary record's frames"
else
  bad "the log gives the binary record's frames"
fi
# What the program printed for people names the same functions.
if grep -q 'sfu-crash:  #1 .* image  handle_irq+0x' "$log"; then ok "the printed trace has names"; else bad "the printed trace has names"; fi

# Logs as consoles write them.
sed 's/^/[   12.345678] cpu0: /; s/$/\r/' "$log" >"$work/prefixed.log"
expect "console prefixes and CRLF" 0 "every frame the host could walk equals the device's" -- "$work/prefixed.log" --image "$program"
{ echo "boot 1"; cat "$log"; echo "boot 2"; cat "$log"; } >"$work/two.log"
begin=$(grep -n '^sfu-crash-begin' "$log" | cut -d: -f1)  # after the live backtrace
expect "two records in one log" 0 "/two.log:$((begin + 1))-" -- "$work/two.log" --image "$program"
if [[ $("$sfu" crash "$work/two.log" --image "$program" | grep -c '^crash record') -eq 2 ]]; then
  ok "both records decoded"
else
  bad "both records decoded"
fi
expect "--save-record" 0 "every frame the host could walk equals the device's" -- "$log" --image "$program" \
  --save-record "$work/saved.bin"
# The log's record was printed after the take: all but its state word ("taken") is the dump's.
saved=$(stat -c %s "$work/saved.bin" 2>/dev/null || echo 0)
if [[ $saved -gt 12 && $saved -lt $(stat -c %s "$record") ]] && cmp -s -i 12 -n $((saved - 12)) "$work/saved.bin" "$record"; then
  ok "the saved record is the captured one, without the rest of the area"
else
  bad "the saved record is the captured one, without the rest of the area"
fi
expect "--save-record takes one record" 1 "holds 2 records: --save-record takes one" -- "$work/two.log" \
  --image "$program" --save-record "$work/two.bin"
expect "--no-lines" 0 "image  handle_irq+0x" -- "$record" --image "$program" --no-lines

# Lines inside the record that only look like its marker lines (what an older sfunwind printed
# for a module name holding a newline): skipped with a note, the record decoded as without them.
first=$(grep -n '^sfu-crash:  #1 ' "$log" | cut -d: -f1)
sed "${first}a sfu-crash-end lines=9 crc=0x0\\nsfu-crash-begin v1 x86_64 len=400 crc=0x00000000\\nsfu-crash-data 2 QUJD 0x00000000" \
  "$log" >"$work/forged.log"
expect "a forged end line inside a record is skipped" 0 \
  "note: line $((first + 1)): a damaged end line inside the record, skipped" -- "$work/forged.log" --image "$program"
expect "a forged begin line inside a record is skipped" 0 \
  "note: line $((first + 2)): a begin line inside the record, skipped" -- "$work/forged.log" --image "$program"
expect "a forged data line inside a record is skipped" 0 \
  "note: line $((first + 3)): data line fails its checksum, skipped" -- "$work/forged.log" --image "$program"
if [[ -n $(frames "$record") && "$(frames "$record")" == "$(frames "$work/forged.log")" ]]; then
  ok "the forged log gives the binary record's frames"
else
  bad "the forged log gives the binary record's frames"
fi

# Bad input: one message naming the problem, exit status 1.
line=$(grep -n 'sfu-crash-data 3 ' "$log" | cut -d: -f1)
sed "${line}s/sfu-crash-data 3 ./sfu-crash-data 3 !/" "$log" >"$work/corrupt.log"
expect "a corrupted log line is named" 1 "line $line: data line fails its checksum" -- "$work/corrupt.log" --image "$program"
head -n $((begin + 4)) "$log" >"$work/cut.log"
expect "a log cut short" 1 "has no end line" -- "$work/cut.log" --image "$program"
printf 'U-Boot 2024.01\nStarting kernel ...\n' >"$work/garbage.log"
expect "a log without records" 1 "no crash record" -- "$work/garbage.log" --image "$program"
head -c 300 "$record" >"$work/truncated.bin"
expect "a truncated record" 1 "crash-bad-length" -- "$work/truncated.bin" --image "$program"
cp "$record" "$work/crc.bin" && patch "$work/crc.bin" 0x210 ff
expect "a wrong CRC" 1 "crash-bad-crc" -- "$work/crc.bin" --image "$program"
cp "$record" "$work/version.bin" && patch "$work/version.bin" 0x14 0200 reseal
expect "an unknown version" 1 "crash-bad-version" -- "$work/version.bin" --image "$program"
cp "$record" "$work/torn.bin" && patch "$work/torn.bin" 8 57525257
expect "a torn record" 1 "crash-record-torn" -- "$work/torn.bin" --image "$program"
head -c 4096 /dev/zero >"$work/zeros.bin"
expect "memory without a record" 1 "no crash record" -- "$work/zeros.bin" --image "$program"

# Images: matched by build-id, never used when wrong.
expect "the wrong image" 1 "holds frames and no --image has its build-id" -- "$record" --image "$sfu"
expect "an extra image" 1 "is none of the record's modules: the wrong image?" -- "$record" --image "$program" --image "$sfu"
objcopy --remove-section .note.gnu.build-id "$program" "$work/no-build-id"
expect "an image without a build-id" 1 "no GNU build-id note" -- "$record" --image "$work/no-build-id"
objcopy --strip-debug "$program" "$work/no-dwarf"
expect "an image without DWARF" 1 "no DWARF debug information for file:line" -- "$record" --image "$work/no-dwarf"
expect "an image without DWARF, --no-lines" 0 "image  handle_irq+0x" -- "$record" --image "$work/no-dwarf" --no-lines
# One build-id, several images: the one with DWARF gives names and lines, whatever the order; the
# stripped one's .sframe serves the walk when the debug copy has none.
objcopy --only-keep-debug "$program" "$work/debug-only"
expect "stripped image first, then the full one" 0 "drain_queue at " -- "$record" --image "$work/no-dwarf" --image "$program"
expect "the full image first, then the stripped one" 0 "<- $program" -- "$record" --image "$program" --image "$work/no-dwarf"
expect "the same image twice" 0 "every frame the host could walk equals the device's" -- "$record" --image "$program" --image "$program"
expect "a stripped image and its debug copy: lines" 0 "drain_queue at " -- "$record" --image "$work/no-dwarf" --image "$work/debug-only"
expect "a stripped image and its debug copy: the walk" 0 "with the tables of .sframe, gives" -- "$record" --image "$work/debug-only" --image "$work/no-dwarf"
expect "no image given" 2 "give the image of each module with --image" -- "$record"

# A stack word the host reads differently from the device: the frame is named, exit status 3.
# x86_64: the return address into frame 2 sits just below frame 2's SP, in the stack window.
decoded=$("$sfu" crash "$record" --image "$program")
read -r ra sp < <(sed -n 's/^ #2 *0x0*\([0-9a-f]*\)  sp 0x0*\([0-9a-f]*\) .*/\1 \2/p' <<<"$decoded")
window=$(sed -n 's/^stack window 0: \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) .*/\1 \2/p' <<<"$decoded")
cp "$record" "$work/differs.bin"
python3 - "$work/differs.bin" "$ra" "$sp" $window <<'EOF'
import sys, zlib
path, ra, sp, lo, hi = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16), int(sys.argv[4], 16), int(sys.argv[5], 16)
b = bytearray(open(path, 'rb').read())
length = int.from_bytes(b[16:20], 'little')
at = length - (hi - lo) + (sp - 8 - lo)  # the window is the record's last part
assert b[at:at + 8] == ra.to_bytes(8, 'little'), "the slot does not hold the return address"
b[at:at + 8] = (ra + 1).to_bytes(8, 'little')
b[12:16] = zlib.crc32(bytes(b[16:length])).to_bytes(4, 'little')
open(path, 'wb').write(bytes(b))
EOF
expect "a re-unwind that differs" 3 "differs: frame 2: device pc 0x$ra sp 0x$sp [table], host pc 0x$(printf %x $((0x$ra + 1)))" -- "$work/differs.bin" --image "$program"

# A module whose table the host's walker refuses: refused (1), the trace still printed.
cp "$program" "$work/bad-table"
python3 - "$work/bad-table" <<'EOF2'
import subprocess, sys
path = sys.argv[1]
out = subprocess.run(['readelf', '-SW', path], capture_output=True, text=True, check=True).stdout
off = next(int(l.split()[l.split().index('.sframe') + 3], 16) for l in out.splitlines() if ' .sframe ' in l)
b = bytearray(open(path, 'rb').read())
b[off:off + 2] = b'\x11\x11'  # not the SFrame magic
open(path, 'wb').write(bytes(b))
EOF2
expect "a table the walker refuses" 1 "re-unwind: module 0 (image): its image's table is refused: bad-magic" -- "$record" --image "$work/bad-table"
expect "a table the walker refuses: the trace is printed" 1 "image  handle_irq+0x" -- "$record" --image "$work/bad-table"
# An image with no table to give (no .sframe, no CFI): the walk differs (3), and the report says why.
objcopy --remove-section .sframe --remove-section .eh_frame --remove-section .debug_frame "$program" "$work/no-table"
expect "an image without a table says why" 3 "note: module 0: $work/no-table gives no table: it has neither .sframe nor DWARF CFI" \
  -- "$record" --image "$work/no-table"

# sfu gen says nothing about this program's area, which follows .bss past the data segment's
# file contents (only an ELF loader clears it there), nor about it moved past every segment, or
# absent; where it does warn is tests/gen/check.sh's (check_crash_area).
gen_warning() {
  local err rc
  err=$("$sfu" gen "$1" -o "$work/gen-out.elf" --symbols-only 2>&1 >/dev/null)
  rc=$?
  echo "$rc $err"
}
objcopy --change-section-address .sfu_crash+0x10000000 "$program" "$work/area-moved" 2>/dev/null
objcopy --remove-section .sfu_crash "$program" "$work/no-area"
for f in "$program" "$work/area-moved" "$work/no-area"; do
  if [[ $(gen_warning "$f") == "0 " ]]; then ok "gen: no warning ($(basename "$f"))"; else bad "gen: no warning ($(basename "$f")): $(gen_warning "$f")"; fi
done

echo "crash: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
