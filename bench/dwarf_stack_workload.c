/* bench/dwarf_stack_bench.sh's workload: CALLS calls of leaf through
 * middle (and helper, inlined), at -O2 without frame pointers; with
 * PER_MS > 0, PER_MS calls then a 1 ms sleep (a rate of at most PER_MS
 * thousand per second), else a tight loop. */
#include <stdlib.h>
#include <time.h>

volatile int sink;

__attribute__((noinline, noclone)) int leaf(int x) {
  sink = x * 3;
  return sink + 1;
}

static inline __attribute__((always_inline)) int helper(int x) { return leaf(x + 1) * 2; }

__attribute__((noinline, noclone)) int middle(int x) {
  int r = helper(x);
  sink = r;
  return r - 1;
}

int main(int argc, char **argv) {
  long calls = argc > 1 ? atol(argv[1]) : 100000, per_ms = argc > 2 ? atol(argv[2]) : 0;
  struct timespec ms = {0, 1000000};
  for (long i = 0; i < calls; ++i) {
    sink = middle((int)i);
    if (per_ms > 0 && (i + 1) % per_ms == 0) nanosleep(&ms, 0);
  }
  return 0;
}
