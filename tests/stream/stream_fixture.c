/* Fixture for the stream and trace.dat tests: calls kpp_fixture_hit() with
 * known arguments and prints each call's values itself -- the independent
 * truth the tests compare the decoded events against.
 *
 *   stream_fixture N          N calls, one "hit ..." line each
 *   stream_fixture forever [FILE]  calls every millisecond until killed (no
 *                             output); creates FILE after the 50th call
 *   stream_fixture bench N    N calls as fast as possible, prints only the count
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const names[] = {"zero", "one", "two", "three", "quote\"d"};

/* noipa: keep the symbol, its address and its register arguments intact. */
__attribute__((noipa)) void kpp_fixture_hit(long i, unsigned long sq, const char *name, unsigned long tag) {
  __asm__ volatile("" : : "r"(i), "r"(sq), "r"(name), "r"(tag) : "memory");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "forever") == 0) {
    for (long k = 0;; ++k) {
      kpp_fixture_hit(k, (unsigned long)k * k, names[k % 5], 0xdead0000ul + (unsigned long)k);
      if (k == 49 && argc > 2) fclose(fopen(argv[2], "w"));
      usleep(1000);
    }
  }
  if (argc > 2 && strcmp(argv[1], "bench") == 0) {
    long n = atol(argv[2]);
    for (long k = 0; k < n; ++k) kpp_fixture_hit(k, 0, names[0], 0);
    printf("%ld\n", n);
    return 0;
  }
  long n = argc > 1 ? atol(argv[1]) : 10;
  for (long k = 0; k < n; ++k) {
    long i = k - 2; /* negative values too */
    unsigned long sq = (unsigned long)k * (unsigned long)k;
    const char *name = names[k % 5];
    unsigned long tag = 0xdead0000ul + (unsigned long)k;
    kpp_fixture_hit(i, sq, name, tag);
    printf("hit i=%ld sq=%lu name=%s tag=0x%lx\n", i, sq, name, tag);
  }
  return 0;
}
