#!/bin/bash
# Links bench/footprint_probe.c against builds of libsfu.a, one feature more each time, so that
# bench/footprint.cpp can read from the linker maps what each feature adds to a kernel.
#
#   footprint_links.sh OUT_DIR ARCH...      (MAKE, KCFLAGS from the environment)
#
# Writes OUT_DIR/manifest (one line per link: kind, name, variant, probe flags or none, what it
# adds; tab separated) and OUT_DIR/<arch>/<name>.map. The chain starts from
# configs/walk-only.config with its SFrame versions and validation turned off, adds one feature
# per step up to
# walk-only.config itself, then turns walk-only's other choices back to the Kconfig defaults one
# at a time (a line of walk-only.config removed is an option at its default). Each step's delta
# is against the step before it, so the lines add up. "total" lines are links checked against
# the chain: walk-only (configs/walk-only.config as a kernel uses it) and the Kconfig defaults.
# Library builds are cached in OUT_DIR/lib/<variant>; make rebuilds only what changed.
set -euo pipefail

out=$1
shift
archs=("$@")
make=${MAKE:-make}
kcflags=${KCFLAGS:-}
mkdir -p "$out/cfg" "$out/lib"

walk_only=configs/walk-only.config

# variant NAME "OPTIONS TO DEFAULT" "OPTIONS OFF": walk-only.config with the first options'
# lines removed (their Kconfig defaults) and the second ones set to n. Rewritten only when it
# changes, so that a cached build stays up to date without rebuilding.
variant() {
  local name=$1 defaults=$2 off=$3 cfg=$out/cfg/$1.config tmp
  tmp=$(mktemp)
  local pattern='^$'
  for o in $defaults $off; do pattern="$pattern|CONFIG_SFU_$o[= ]|CONFIG_SFU_$o\$"; done
  grep -Ev "$pattern" "$walk_only" >"$tmp" || true
  for o in $off; do echo "# CONFIG_SFU_$o is not set" >>"$tmp"; done
  if cmp -s "$tmp" "$cfg"; then rm -f "$tmp"; else mv "$tmp" "$cfg"; fi
}

# The chain: kind, name, variant, probe flags, what the step adds. Lower variants turn options of
# walk-only.config off; upper ones give more of its options back their defaults, cumulatively;
# the last step is the defaults themselves, whatever walk-only.config chose besides.
variant core "" "SFRAME_V2 SFRAME_V3 VALIDATE_ON_REGISTER"
variant v2 "" "SFRAME_V3 VALIDATE_ON_REGISTER"
variant v3 "" "VALIDATE_ON_REGISTER"
cmp -s "$walk_only" "$out/cfg/walk-only.config" || cp "$walk_only" "$out/cfg/walk-only.config"
up=""
for v in v1:SFRAME_V1 names:NAMES build-id:BUILD_ID index:"BLOCK_INDEX INDEX_PREFETCH" row-cache:"ROW_CACHE ROW_CACHE_STATS" \
    symbols:SYMBOLS crash:"CRASH_RECORDS CRASH_STACK_BYTES"; do
  up="$up ${v#*:}"
  variant "${v%%:*}" "$up" ""
done

cross() {
  case $1 in
    x86_64) echo "" ;;
    arm64) echo aarch64-linux-gnu- ;;
    s390x) echo s390x-linux-gnu- ;;
  esac
}

for a in "${archs[@]}"; do
  for v in core v2 v3 walk-only v1 names build-id index row-cache symbols crash default; do
    cfg=$out/cfg/$v.config
    [ "$v" = default ] && cfg=-
    flags=$kcflags
    # The walk-only build also gives the stack its backtrace needs (bench/footprint.cpp).
    [ "$v" = walk-only ] && flags="$flags -fstack-usage -fcallgraph-info=su"
    "$make" --no-print-directory ARCH="$a" BUILD="$out/lib/$v" KCONFIG_CONFIG="$cfg" \
      KCFLAGS="$flags" SFU_INSTALL_DEPS=no lib >/dev/null
  done
done

# What walk-only.config sets besides the features, named in the last step's line: the settings
# the upper steps leave that the default build's header disagrees with.
rest=""
while read -r line; do
  case $line in
    CONFIG_*=y) def="#define ${line%=y} 1" ;;
    CONFIG_*=*) def="#define ${line%%=*} ${line#*=}" ;;
    "# CONFIG_"*" is not set") o=${line#\# }; o=${o%% *}; grep -q "#define $o " "$out/lib/default/config/sfu_autoconf.h" && rest="$rest $o=n"; continue ;;
    *) continue ;;
  esac
  grep -qxF "$def" "$out/lib/default/config/sfu_autoconf.h" || rest="$rest $line"
done <"$out/cfg/crash.config"
rest=${rest# }

walk=PRINT,ERROR_NAMES
{
  printf 'step\twalk-core\tcore\tnone\t%s\n' "register (sfu_register_image), capture (sfu_capture_here), the SFrame decoder and lookup, the step with trap frames and the frame-pointer / back-chain fallbacks, sfu_backtrace; no SFrame version accepted yet"
  printf 'step\tprinting\tcore\t%s\t%s\n' $walk "sfu_print_backtrace (frame, module and stop lines, the formatters) and a refused registration's error printed (sfu_print_error, or sfu_error_name where there is none)"
  printf 'step\tsframe-v2\tv2\t%s\t%s\n' $walk "CONFIG_SFU_SFRAME_V2"
  printf 'step\tsframe-v3\tv3\t%s\t%s\n' $walk "CONFIG_SFU_SFRAME_V3"
  printf 'step\tvalidation\twalk-only\t%s\t%s\n' $walk "CONFIG_SFU_VALIDATE_ON_REGISTER: now configs/walk-only.config"
  printf 'total\twalk-only\twalk-only\t%s\t%s\n' $walk "configs/walk-only.config"
  printf 'step\tsframe-v1\tv1\t%s\t%s\n' $walk "CONFIG_SFU_SFRAME_V1"
  printf 'step\tnames\tnames\t%s\t%s\n' $walk "CONFIG_SFU_NAMES: error and stop names as text"
  printf 'step\tbuild-id\tbuild-id\t%s\t%s\n' $walk "CONFIG_SFU_BUILD_ID: the build-id note read at registration, printed in module lines"
  printf 'step\tblock-index\tindex\t%s,INDEX\t%s\n' $walk "CONFIG_SFU_BLOCK_INDEX, index memory at registration (sfu_table_index), CONFIG_SFU_INDEX_PREFETCH"
  printf 'step\trow-cache\trow-cache\t%s,INDEX\t%s\n' $walk "CONFIG_SFU_ROW_CACHE: the row cache and the plain-run loop"
  printf 'step\tsymbols\tsymbols\t%s,INDEX\t%s\n' $walk "CONFIG_SFU_SYMBOLS: the .sfu_symbols reader, names in backtraces"
  printf 'step\tcrash-capture\tcrash\t%s,INDEX,CRASH_CAPTURE\t%s\n' $walk "CONFIG_SFU_CRASH_RECORDS and sfu_crash_capture_image"
  printf 'step\tcrash-take-print\tcrash\t%s,INDEX,CRASH_CAPTURE,CRASH_TAKE\t%s\n' $walk "sfu_crash_take_image and sfu_crash_print at boot"
  printf 'step\tother\tdefault\t%s,INDEX,CRASH_CAPTURE,CRASH_TAKE\t%s\n' $walk "the Kconfig defaults for what walk-only.config sets besides: ${rest:-nothing}"
  printf 'total\tdefault\tdefault\t%s,INDEX,CRASH_CAPTURE,CRASH_TAKE\t%s\n' $walk "the Kconfig defaults, every feature used"
} >"$out/manifest"

# The cheapest report of a refused registration the API offers (bench/footprint_probe.c).
have=""
grep -q 'sfu_print_error(' include/sfu/print.h && have=-DPROBE_HAVE_PRINT_ERROR

for a in "${archs[@]}"; do
  cc=$(cross "$a")gcc
  mkdir -p "$out/$a"
  while IFS=$'\t' read -r kind name var flags what; do
    defs=""
    for f in ${flags//,/ }; do [ "$f" = none ] || defs="$defs -DPROBE_$f"; done
    obj=$out/$a/probe-${flags//,/-}.o
    # The probe is the kernel's code, not counted; built as kernel code is.
    $cc -std=c11 -O2 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
      -fno-tree-loop-distribute-patterns -Iinclude $have $defs \
      -c bench/footprint_probe.c -o "$obj"
    $cc -nostdlib -static -no-pie -Wl,--gc-sections -Wl,-e,probe_start -Wl,-Map,"$out/$a/$name.map" \
      -o "$out/$a/$name.elf" "$obj" "$out/lib/$var/$a/libsfu.a"
  done <"$out/manifest"
done
