// The image the profile suite names frames in (tests/profile/check.py): a C++ function (names come
// out demangled), a template (a name with '<' and blanks: the SVG escapes it), an extern "C" one,
// and a loop inlined into its caller (pprof's inlined frames).
// Never run: the suite writes the profiles a device would print for it.
static volatile int sink;

static inline __attribute__((always_inline)) void spin(int n) {
  for (int i = 0; i < n; i++) sink += i;
}

namespace ns {
__attribute__((noinline)) void hot(int n) {
  spin(n);
  sink++;
}
}  // namespace ns

extern "C" __attribute__((noinline)) void cold(int n) { sink += n; }

__attribute__((noinline)) void work(int n) {
  ns::hot(n);
  cold(n);
}

template <class T>
__attribute__((noinline)) T pick(T a) {
  return a < T(0) ? a : T(1);
}

int main(int argc, char **) {
  work(pick(argc));
  return 0;
}
