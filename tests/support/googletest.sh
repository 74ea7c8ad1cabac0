# The googletest images the addr2line and breakpad suites read: googletest's own sample test,
# built -g -O2 by the compiler given. Sourced; needs $gtest (googletest's source directory).
#   build_gtest DIR COMPILER LINKER    writes DIR/gtest.elf (the objects next to it)
build_gtest() {
  local dir=$1 cc=$2 ld=$3 src pids=() ok=1
  mkdir -p "$dir"
  for src in src/gtest-all.cc src/gtest_main.cc samples/sample1.cc samples/sample1_unittest.cc; do
    $cc -std=c++17 -g -O2 -I"$gtest/include" -I"$gtest" -c "$gtest/$src" -o "$dir/$(basename "$src" .cc).o" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || ok=0; done
  [[ $ok == 1 ]] && $ld -o "$dir/gtest.elf" "$dir"/{sample1_unittest,sample1,gtest-all,gtest_main}.o -pthread
}
