#!/usr/bin/env bash
# Installs, from Debian packages, whatever the build and the tests need and the machine lacks.
# Called by `make` targets and by .ci/run; a no-op when everything is already there.
set -euo pipefail

# command-or-file : package
needs=(
  "aarch64-linux-gnu-g++:g++-aarch64-linux-gnu"
  "s390x-linux-gnu-g++:g++-s390x-linux-gnu"
  "clang++:clang"
  "/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev"
  "/usr/lib/python3/dist-packages/kconfiglib.py:python3-kconfiglib"
  "/usr/include/gtest/gtest.h:libgtest-dev"
  "/usr/include/benchmark/benchmark.h:libbenchmark-dev"
  "/usr/include/x86_64-linux-gnu/libunwind.h:libunwind-dev"
  "qemu-system-x86_64:qemu-system-x86"
  "qemu-system-aarch64:qemu-system-arm"
  "qemu-system-s390x:qemu-system-misc"
  "gdb-multiarch:gdb-multiarch"
  "go:golang-go"
  "chromium:chromium"
)

missing=()
for n in "${needs[@]}"; do
  what=${n%%:*}
  pkg=${n#*:}
  if [[ $what == /* ]]; then
    [[ -e $what ]] || missing+=("$pkg")
  else
    command -v "$what" >/dev/null 2>&1 || missing+=("$pkg")
  fi
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
