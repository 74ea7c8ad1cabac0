#!/bin/bash
# The adoption test: tests/adoption/kernel (tinyk) is a small kernel written the way a third
# party would adopt sfunwind (include sfu.mk, INCLUDE the linker fragment, register, print from
# the trap handler). Builds it in every configuration, boots each under QEMU and checks the
# panic trace it prints, frame by frame, and QEMU's exit status.
#
#   tests/adoption/check.sh BUILD_DIR     (objects under BUILD_DIR/adoption/)
#
# One "PASS <config>: ..." or "FAIL <config>: <why>" line per configuration, then
# "adoption: N passed, M failed"; exits 1 on any failure.
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "$1")/adoption
timeout_s=${ADOPTION_TIMEOUT:-60}
mkdir -p "$out"

# The functions of the trace, innermost first: the faulting function up to the boot code.
expected="read_superblock mount_root start_services kernel_main _start"

# config | make variables | QEMU command (-kernel ELF is appended) | expected exit status
arm64_qemu="qemu-system-aarch64 -M virt -cpu max -m 128M -display none -nodefaults -no-reboot -semihosting -serial stdio"
x86_qemu="qemu-system-x86_64 -M q35 -m 128M -display none -nodefaults -no-reboot -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=4"
s390x_qemu="qemu-system-s390x -M s390-ccw-virtio -m 128M -display none -nodefaults -no-reboot -serial stdio -action panic=exit-failure"
configs=(
  "arm64-el1t-gas|ARCH=arm64 ARM64_MODE=el1t SFU_SFRAME=gas|$arm64_qemu|0"
  "arm64-el1h-gen|ARCH=arm64 ARM64_MODE=el1h SFU_SFRAME=gen|$arm64_qemu|0"
  "x86_64-gas|ARCH=x86_64 SFU_SFRAME=gas|$x86_qemu|1"
  "x86_64-gen|ARCH=x86_64 SFU_SFRAME=gen|$x86_qemu|1"
  "s390x-gen|ARCH=s390x SFU_SFRAME=gen|$s390x_qemu|0"
)
if [ -n "${ADOPTION_CONFIGS:-}" ]; then  # e.g. ADOPTION_CONFIGS="arm64-el1t-gas x86_64-gen"
  selected=()
  for c in "${configs[@]}"; do
    case " $ADOPTION_CONFIGS " in *" ${c%%|*} "*) selected+=("$c") ;; esac
  done
  configs=("${selected[@]}")
fi

passed=0
failed=0
pass() { echo "PASS $1: $2"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# check_trace LOG: prints why the trace in LOG is wrong, or nothing.
check_trace() {
  local log=$1 names=() n=0 modules=0 line idx source name stop
  local frame_re='^ #([0-9]+) +(\?)? +0x[0-9a-f]{16}  sp 0x[0-9a-f]{16}  [a-z]+ +\[([a-z]+)\] +image  ([A-Za-z_][A-Za-z0-9_.]*)\+0x[0-9a-f]+/0x[0-9a-f]+$'
  local in_trace=0
  while IFS= read -r line; do
    line=${line%$'\r'}
    if [ "$line" = "Backtrace:" ]; then in_trace=1; continue; fi
    [ $in_trace = 1 ] || continue
    if [[ $line == stop:* ]]; then stop=$line; break; fi
    # The module line before the first frame: the image, its text and its build-id.
    if [[ $line =~ ^module\ 0\ image\ 0x[0-9a-f]{16}-0x[0-9a-f]{16}\ build-id\ [0-9a-f]+$ ]]; then
      modules=$((modules + 1))
      continue
    fi
    if ! [[ $line =~ $frame_re ]]; then
      echo "frame line not as expected (a '?', no module or no name+off/size?): '$line'"
      return
    fi
    idx=${BASH_REMATCH[1]} source=${BASH_REMATCH[3]} name=${BASH_REMATCH[4]}
    if [ "$idx" != "$n" ]; then echo "frame #$idx where #$n was due"; return; fi
    if [ -n "${BASH_REMATCH[2]}" ]; then echo "frame #$n marked unreliable ('?')"; return; fi
    if [ $n = 0 ] && [ "$source" != regs ]; then echo "frame #0 is [$source], not [regs]"; return; fi
    if [ $n != 0 ] && [ "$source" != table ]; then echo "frame #$n is [$source], not [table]"; return; fi
    names+=("$name")
    n=$((n + 1))
  done <"$log"
  if [ $in_trace = 0 ]; then echo "no 'Backtrace:' in the output"; return; fi
  if [ "${names[*]:-}" != "$expected" ]; then
    echo "frames '${names[*]:-}', expected '$expected'"
    return
  fi
  if [ "${stop:-}" != "stop: end-of-stack (reliable)" ]; then
    echo "stop line '${stop:-none}', expected 'stop: end-of-stack (reliable)'"
    return
  fi
  if [ $modules != 1 ]; then echo "$modules module lines for the image, expected 1"; fi
}

for c in "${configs[@]}"; do
  IFS='|' read -r name vars qemu status <<<"$c"
  dir=$out/$name
  # shellcheck disable=SC2086  # vars: several make variables
  if ! make --no-print-directory -C "$here/kernel" $vars O="$dir" SFU_BUILD="$out/sfunwind" \
      >"$dir.build.log" 2>&1; then
    fail "$name" "build failed (last line: $(tail -n 1 "$dir.build.log"); $dir.build.log)"
    continue
  fi
  # shellcheck disable=SC2086  # qemu: a command line
  timeout "$timeout_s" $qemu -kernel "$dir/tinyk.elf" </dev/null >"$dir.log" 2>&1
  rc=$?
  if [ $rc = 124 ]; then
    fail "$name" "QEMU timed out after ${timeout_s}s ($dir.log)"
    continue
  fi
  why=$(check_trace "$dir.log")
  if [ -n "$why" ]; then
    fail "$name" "$why ($dir.log)"
  elif [ "$rc" != "$status" ]; then
    fail "$name" "QEMU exit status $rc, expected $status ($dir.log)"
  else
    pass "$name" "$(echo "$expected" | sed 's/ / <- /g'), stop: end-of-stack (reliable), exit $rc"
  fi
done

echo "adoption: $passed passed, $failed failed"
[ $failed = 0 ]
