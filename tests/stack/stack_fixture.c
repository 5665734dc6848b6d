/* The --stack fixture: a call chain known in advance, main -> a -> b, and
 * in b a helper inlined (always), whose line is the probe point. Built
 * at -O0 with frame pointers (-fno-omit-frame-pointer), as the kernel's user-stack
 * walk needs. It stays alive a moment after its calls so that its maps can
 * be read; run with "quick" it exits at once (the probed binary must then
 * be placed by its probe). */
#include <string.h>
#include <unistd.h>

volatile int sink;

static inline __attribute__((always_inline)) int leaf(int x) {
  sink = x * 3; /* probe: leaf */
  return sink + 1;
}

__attribute__((noinline)) int b(int x) {
  int r = leaf(x + 1);
  sink = r;
  return r * 2;
}

__attribute__((noinline)) int a(int x) {
  int r = b(x + 2);
  sink = r;
  return r - 1;
}

int main(int argc, char **argv) {
  int r = a(argc);
  sink = r;
  if (!(argc > 1 && strcmp(argv[1], "quick") == 0)) usleep(400 * 1000);
  return 0;
}
