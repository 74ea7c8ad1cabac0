#!/usr/bin/env bash
# Runs every test kernel:
#   tests/qemu/run-all.sh SFU LOGDIR TIMEOUT "LABEL|ELF|QEMU ARGS...[|OPTIONS]" ... \
#       [--every "ARCH|TABLE|ELF|QEMU ARGS...[|K]" ...]
# Each argument names one kernel: its label, its ELF and the QEMU command (-kernel ELF is added
# when the command has no -kernel of its own), and options for run.py if any (--crash ...).
# After --every, the every-instruction kernels (QEMU_EVERY_RUNS, tests/qemu/qemu.mk): each run
# with gdb attached (run.py --every ARCH TABLE, gdb comparing every K-th stepped walk: the fifth
# field, else run.py's default for ARCH), QEMU_EVERY_JOBS of them at a time (default 2: each is
# QEMU and gdb taking turns, about one core); with QEMU_EVERY_ONLY=ARCH, that architecture's only.
# Prints each run's scenario lines and ends "qemu: N passed, M failed" over all of them.
set -u
sfu=$1
logs=$2
timeout=$3
shift 3
mkdir -p "$logs"
here=$(cd "$(dirname "$0")" && pwd)
runs=()
every=()
while (($#)); do
  if [[ $1 == --every ]]; then
    shift
    every=("$@")
    break
  fi
  runs+=("$1")
  shift
done
pass=0
fail=0

# run LABEL ELF CMD OPTS: run.py's output for one kernel, to stdout.
run() {
  local label=$1 elf=$2 cmd=$3 opts=$4
  local log
  log=$logs/$(echo "$label" | tr ' /' '__').log
  # -kernel ELF unless the command boots something else itself (an elf32 copy, say); the ELF
  # is always what frames are named from.
  [[ " $cmd " == *" -kernel "* ]] || cmd="$cmd -kernel $elf"
  # shellcheck disable=SC2086  # the options and the QEMU command are word lists
  python3 "$here/run.py" --sfu "$sfu" --elf "$elf" --label "$label" --timeout "$timeout" \
    --log "$log" $opts -- $cmd
}

# tally LABEL OUTPUT: prints a run's lines and adds its summary to the totals.
tally() {
  local label=$1 out=$2 p f
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
}

for spec in "${runs[@]}"; do
  IFS='|' read -r label elf cmd opts <<<"$spec"
  tally "$label" "$(run "$label" "$elf" "$cmd" "$opts")"
done

# The every-instruction runs, side by side; their lines printed in order once each has ended.
jobs_max=${QEMU_EVERY_JOBS:-2}
outs=()
labels=()
for i in "${!every[@]}"; do
  IFS='|' read -r arch table elf cmd k <<<"${every[$i]}"
  [[ -z ${QEMU_EVERY_ONLY:-} || $arch == "${QEMU_EVERY_ONLY}" ]] || continue
  labels[i]="$arch every-$table"
  outs[i]=$logs/$(echo "${labels[i]}" | tr ' /' '__').out
  while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n; done
  run "${labels[i]}" "$elf" "$cmd" "--every $arch $table${k:+ --oracle-every $k}" >"${outs[i]}" 2>&1 &
done
wait
for i in "${!outs[@]}"; do
  tally "${labels[i]}" "$(cat "${outs[i]}")"
done
echo "qemu: $pass passed, $fail failed"
