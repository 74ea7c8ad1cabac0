#!/usr/bin/env bash
# gc-link.sh: link an image that keeps gas's SFrame table (linker/sfunwind.ld) with --gc-sections,
# so that it keeps exactly the functions it would keep without sfunwind, and the table covers them.
#   bash gc-link.sh [--nm NM] -- LINK-COMMAND...       (sfu.mk: $(SFU_GC_LINK) LINK-COMMAND...)
# LINK-COMMAND is the image's own link (ld, or a gcc driver), with --gc-sections, its -L to
# sfunwind's linker/ before -T, and -o IMAGE; its script INCLUDEs sfunwind-discard.ld first in
# SECTIONS. Why two links: the table's KEEP(*(.sframe)) makes every function with an FDE a root of
# GNU ld's garbage collection (2.40), and without KEEP the collection drops the table. So:
#   1. link with the table not kept (a sfunwind-sframe-input.ld without KEEP, first on the -L path)
#      and --print-gc-sections: what ld removes is what the image does without sfunwind;
#   2. link again with the table kept and a sfunwind-discard.ld, first on the -L path, that
#      discards exactly those sections: ld drops their FDEs from the merged table.
# Then it checks that both links define the same symbols, and removes IMAGE if not. The files of
# each pass are kept in IMAGE.sfu-gc/ (pass1.log, pass2/sfunwind-discard.ld).
set -u
me=${0##*/}
usage() {
  echo "usage: $me [--nm NM] -- LINK-COMMAND..." >&2
  exit 2
}
nm="nm"
while [[ $# -gt 0 ]]; do
  case $1 in
    --nm) [[ $# -ge 2 ]] || usage; nm=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
[[ $# -ge 1 ]] || usage
cmd=("$@")

# The output: -o FILE, -oFILE, --output FILE, --output=FILE; the last one wins, as in ld.
out=""
for ((i = 1; i < ${#cmd[@]}; i++)); do
  case ${cmd[i]} in
    -o | --output) out=${cmd[i + 1]:-} ;;
    --output=*) out=${cmd[i]#--output=} ;;
    -oformat* | --oformat*) ;;
    -o*) out=${cmd[i]#-o} ;;
  esac
done
if [[ -z $out ]]; then
  echo "$me: no -o IMAGE in the link command: ${cmd[*]}" >&2
  exit 2
fi
# ld takes its options as they are; a compiler driver passes them on with -Wl.
case ${cmd[0]##*/} in
  *ld | *ld.bfd | ld.*) print=--print-gc-sections ;;
  *) print=-Wl,--print-gc-sections ;;
esac

dir=$out.sfu-gc
rm -rf "$dir"
mkdir -p "$dir/pass1" "$dir/pass2" || exit 1
# Each defines a symbol, by which the first link's image shows that the script read it.
cat >"$dir/pass1/sfunwind-sframe-input.ld" <<'EOF'
/* gc-link.sh, first link: the table not kept, so that --gc-sections removes what it would remove
 * without sfunwind. */
*(.sframe)
__sfu_gc_link_sframe_input = .;
EOF
cat >"$dir/pass1/sfunwind-discard.ld" <<'EOF'
/* gc-link.sh, first link: nothing discarded. */
__sfu_gc_link_discard = .;
EOF

# Every defined symbol, type and name, but the two above: what the two links must agree on.
symbols() {
  "$nm" --defined-only "$1" | awk 'NF >= 3 && $3 !~ /^__sfu_gc_link_/ { print $2, $3 }' | LC_ALL=C sort
}

"${cmd[0]}" -L"$dir/pass1" "${cmd[@]:1}" "$print" >"$dir/pass1.log" 2>&1
rc=$?
if [[ $rc -ne 0 ]]; then
  grep -v "removing unused section" "$dir/pass1.log" >&2
  echo "$me: the first link (the table not kept, to learn what --gc-sections removes) failed:" \
    "${cmd[0]} exited $rc; its output is in $dir/pass1.log" >&2
  rm -f "$out"
  exit 1
fi
if ! "$nm" "$out" >"$dir/pass1.nm" 2>"$dir/nm.log"; then
  echo "$me: $nm cannot read $out: $(head -n 1 "$dir/nm.log")" >&2
  rm -f "$out"
  exit 1
fi
not_read() {
  echo "$me: $out: $1" >&2
  rm -f "$out"
  exit 1
}
grep -q ' __sfu_gc_link_discard$' "$dir/pass1.nm" ||
  not_read "the linker script does not INCLUDE sfunwind-discard.ld (first in SECTIONS, before any output section that takes code)"
grep -q ' __sfu_gc_link_sframe_input$' "$dir/pass1.nm" ||
  not_read "the linker script keeps .sframe without sfunwind-sframe-input.ld (INCLUDE sfunwind.ld or sfunwind-gas.ld from this sfunwind's linker/, not a copy from an older one)"
symbols "$out" >"$dir/pass1.symbols"

# ld says: "ld: removing unused section 'SECTION' in file 'FILE'", FILE being ARCHIVE(MEMBER) for
# an archive's member. The script names them as patterns: "FILE"("SECTION"), "ARCHIVE:MEMBER"(...),
# with * ? [ made literal ([*] [?] [[]); a quoted name is still a pattern to ld.
literal() {
  local s=$1
  s=${s//\[/[[]}
  s=${s//\*/[*]}
  s=${s//\?/[?]}
  printf '%s' "$s"
}
{
  echo "/* Written by sfunwind's gc-link.sh for $out: the sections the first link's --gc-sections"
  echo " * removed (its .sframe tables aside), discarded before any output section takes them. */"
  echo "/DISCARD/ : {"
  n=0
  while IFS= read -r line; do
    [[ $line =~ removing\ unused\ section\ \'(.*)\'\ in\ file\ \'(.*)\'$ ]] || continue
    sec=${BASH_REMATCH[1]}
    file=${BASH_REMATCH[2]}
    [[ $sec == .sframe ]] && continue
    if [[ $sec$file == *[\"\\]* ]]; then
      echo "$me: cannot name section '$sec' of '$file' in a linker script (a \" or \\ in it)" >&2
      exit 1
    fi
    if [[ $file =~ ^(.*)\(([^\(\)]*)\)$ ]]; then
      spec="$(literal "${BASH_REMATCH[1]}"):$(literal "${BASH_REMATCH[2]}")"
    elif [[ $file == *:* ]]; then
      echo "$me: cannot name '$file' in a linker script (ld reads a ':' as ARCHIVE:MEMBER)" >&2
      exit 1
    else
      spec=$(literal "$file")
    fi
    printf '    "%s"("%s")\n' "$spec" "$(literal "$sec")"
    n=$((n + 1))
  done <"$dir/pass1.log"
  echo "}"
  echo "/* $n sections */"
} >"$dir/pass2/sfunwind-discard.ld" || {
  rm -f "$out"
  exit 1
}

"${cmd[0]}" -L"$dir/pass2" "${cmd[@]:1}"
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "$me: the second link (the table kept, discarding what the first link's --gc-sections" \
    "removed: $dir/pass2/sfunwind-discard.ld) failed: ${cmd[0]} exited $rc" >&2
  rm -f "$out"
  exit 1
fi
symbols "$out" >"$dir/pass2.symbols"
if ! cmp -s "$dir/pass1.symbols" "$dir/pass2.symbols"; then
  extra=$(LC_ALL=C comm -13 "$dir/pass1.symbols" "$dir/pass2.symbols" | awk '{ print $2 }' | head -n 8 | tr '\n' ' ')
  missing=$(LC_ALL=C comm -23 "$dir/pass1.symbols" "$dir/pass2.symbols" | awk '{ print $2 }' | head -n 8 | tr '\n' ' ')
  echo "$me: $out: the link that keeps the table defines other symbols than --gc-sections leaves" \
    "without it (kept as well: ${extra:-none}; lost: ${missing:-none}). Does the linker script" \
    "INCLUDE sfunwind-discard.ld before every output section that takes code?" >&2
  rm -f "$out"
  exit 1
fi
