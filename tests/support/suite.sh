# Sourced by the shell suites: their PASS/FAIL lines, their closing count line, and the cross
# prefix of an architecture (Debian's cross toolchains).
#   source tests/support/suite.sh; ok "what"; bad "what"; ...; suite_end NAME
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

cross_of() {
  case $1 in
    arm64) echo aarch64-linux-gnu- ;;
    s390x) echo s390x-linux-gnu- ;;
  esac
}

# The line tests/check.sh counts, and the exit status: 0 only when nothing failed.
suite_end() {
  echo "$1: $pass passed, $fail failed"
  [[ $fail == 0 ]]
}
