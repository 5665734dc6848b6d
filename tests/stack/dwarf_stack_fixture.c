/* --stack's DWARF unwinding: main -> middle -> (helper, inlined) -> leaf,
 * built at -O2 twice, without frame pointers (-fomit-frame-pointer, gcc's
 * default there) and with them. A probe on leaf's first instruction must
 * keep middle: before any push, only the CFI says where the return address
 * is. noinline and noclone keep each function one symbol; each result is
 * used after its call, so no call becomes a tail jump. With "quick" the
 * program exits at once, before its /proc/PID/maps can be read. */
#include <string.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline, noclone)) int leaf(int x) {
  sink = x * 3; /* probe: leaf */
  return sink + 1;
}

static inline __attribute__((always_inline)) int helper(int x) {
  int r = leaf(x + 1); /* call: helper */
  return r * 2;
}

__attribute__((noinline, noclone)) int middle(int x) {
  int r = helper(x); /* call: middle */
  sink = r;
  return r - 1;
}

int main(int argc, char **argv) {
  int r = middle(argc); /* call: main */
  sink = r;
  if (!(argc > 1 && strcmp(argv[1], "quick") == 0)) usleep(300 * 1000);
  return 0;
}
