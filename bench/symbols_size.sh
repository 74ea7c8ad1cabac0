#!/usr/bin/env bash
# Size of the .sfu_symbols table `sfu gen` writes (docs/symbols.md), per image: functions, bytes,
# bytes per function, and the encoded names (with their token table) against the raw name bytes.
#   bench/symbols_size.sh SFU_BINARY WORKDIR OUT.md LABEL=IMAGE...
# An image that has no table yet gets one appended (sfu gen --symbols-only) in WORKDIR. Prints one
# line per image, the form `make bench` keeps:
#   bench: symbols LABEL: N functions, B bytes, b bytes/function, names R of raw
# and writes the same as a table to OUT.md (bench/results.md gets it).
set -euo pipefail
sfu=$1
work=$2
out_md=$3
shift 3
mkdir -p "$work"
rows=()
for spec in "$@"; do
  label=${spec%%=*}
  image=${spec#*=}
  if ! readelf -SW "$image" | grep -q ' \.sfu_symbols '; then
    "$sfu" gen "$image" -o "$work/$label.elf" --symbols-only --symbols-range all >/dev/null
    image=$work/$label.elf
  fi
  # symbols: N functions, B bytes, T tokens, names X bytes for R raw (ratio), section at ADDR
  read -r n b t x r < <("$sfu" symbols "$image" | head -n 1 |
    sed -n 's/^symbols: \([0-9]*\) functions, \([0-9]*\) bytes, \([0-9]*\) tokens, names \([0-9]*\) bytes for \([0-9]*\) raw.*/\1 \2 \3 \4 \5/p')
  per=$(awk -v b="$b" -v n="$n" 'BEGIN { printf "%.1f", b / n }')
  ratio=$(awk -v x="$x" -v r="$r" 'BEGIN { printf "%.3f", x / r }')
  echo "bench: symbols $label: $n functions, $b bytes, $per bytes/function, names $ratio of raw"
  rows+=("| $label | $n | $b | $per | $r | $x | $t | $ratio |")
done
{
  echo "## Function names on the device (.sfu_symbols)"
  echo
  echo "Written by \`make bench\` (bench/symbols_size.sh): the table \`sfu gen\` writes (docs/symbols.md). Names: the encoded names plus their token table (32-byte map, 2 bytes a token), against the raw name bytes; a name borrows its prefix from one of the 15 before it at no cost (format 2), so names/raw was 0.47 on the kernels and 0.328 on googletest before. googletest is the image of the SFrame section above (C++ mangled names, every executable section); the QEMU kernels are the gen-v2 test kernels (\`[_stext, _etext)\`, short C names and the core's C++ ones)."
  echo
  echo "| image | functions | table bytes | bytes/function | raw name bytes | encoded names + tokens | tokens | names / raw |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
} >"$out_md"
