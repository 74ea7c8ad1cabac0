#!/usr/bin/env bash
# Runs every test kernel: tests/qemu/run-all.sh SFU LOGDIR TIMEOUT "LABEL|ELF|QEMU ARGS...[|OPTIONS]" ...
# Each argument names one kernel: its label, its ELF and the QEMU command (-kernel ELF is added
# when the command has no -kernel of its own), and options for run.py if any (--crash ...).
# Prints each run's scenario lines and ends "qemu: N passed, M failed" over all of them.
set -u
sfu=$1
logs=$2
timeout=$3
shift 3
mkdir -p "$logs"
here=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0
for spec in "$@"; do
  IFS='|' read -r label elf cmd opts <<<"$spec"
  log=$logs/$(echo "$label" | tr ' /' '__').log
  # -kernel ELF unless the command boots something else itself (an elf32 copy, say); the ELF
  # is always what frames are named from.
  [[ " $cmd " == *" -kernel "* ]] || cmd="$cmd -kernel $elf"
  # shellcheck disable=SC2086  # the options and the QEMU command are word lists
  out=$(python3 "$here/run.py" --sfu "$sfu" --elf "$elf" --label "$label" --timeout "$timeout" \
    --log "$log" $opts -- $cmd)
  echo "$out" | grep -v '^qemu-run: '
  p=$(echo "$out" | sed -n 's/^qemu-run: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
  f=$(echo "$out" | sed -n 's/^qemu-run: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
  if [[ -z $p ]]; then
    echo "qemu: $label: FAIL (the runner printed no summary)"
    fail=$((fail + 1))
  else
    pass=$((pass + p))
    fail=$((fail + f))
  fi
done
echo "qemu: $pass passed, $fail failed"
