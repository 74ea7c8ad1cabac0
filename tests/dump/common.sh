# shellcheck shell=bash
# Shared by the dump test scripts (sourced, not run).

# The objdump --sframe text from its "Contents of the SFrame section .sframe:" line on; nothing
# when there is no such line (objdump prints no SFrame contents for an empty section).
sframe_text() {
  local n
  n=$(grep -n -m1 -Fx 'Contents of the SFrame section .sframe:' "$1" | cut -d: -f1)
  [ -n "$n" ] && tail -n "+$n" "$1"
  return 0
}

# The parts every objdump release prints alike: function lines and rows, with whitespace
# collapsed. With amd64=1, an RA column "u" becomes "f": binutils 2.40 printed the fixed AMD64
# return address as "u", later releases as "f". Only the older text needs this, so callers
# pass amd64=1 for it alone and a wrong "u" from sfu dump still fails.
rows_only() {  # FILE AMD64(0|1)
  # (mawk has no {16} intervals, so the address width is checked with length().)
  awk -v amd64="$2" '
    $1 == "func" && $2 == "idx" { $1 = $1; print; next }  # $1 = $1 collapses whitespace
    $1 ~ /^[0-9a-f]+$/ && length($1) == 16 {
      if (amd64 && $4 == "u") $4 = "f"
      $1 = $1
      print
    }' "$1"
}

# Debian's objdump (2.40) on a V1 table against sfu dump's text of the same ELF: objdump must
# read it without a warning and print the same, non-empty rows. Prints why not (with a short
# diff), nothing when they agree. Work files are OUT.objdump*, OUT.sfu.rows.
compare_with_objdump() {  # OBJDUMP ELF SFU_DUMP_TEXT AMD64(0|1) OUT
  local od=$1 elf=$2 sfu_text=$3 amd64=$4 out=$5
  if ! "$od" --sframe "$elf" >"$out.objdump" 2>&1 || grep -qi 'warning\|error' "$out.objdump"; then
    echo "objdump: $(grep -m1 -i 'warning\|error' "$out.objdump")"
    return
  fi
  sframe_text "$out.objdump" | rows_only /dev/stdin "$amd64" >"$out.objdump.rows"
  rows_only "$sfu_text" 0 >"$out.sfu.rows"
  grep -q '^[0-9a-f]\{16\} ' "$out.objdump.rows" || { echo "objdump printed no rows"; return; }
  cmp -s "$out.objdump.rows" "$out.sfu.rows" && return
  echo "rows differ from sfu dump"
  short_diff "$out.objdump.rows" "$out.sfu.rows"
}

# Prints a short unified diff of two files, indented under the FAIL line.
short_diff() {
  diff -u --label expected --label actual "$1" "$2" | head -n 20 | sed 's/^/    /'
}
