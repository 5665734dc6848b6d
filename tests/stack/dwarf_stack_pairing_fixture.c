/* Threads that hit probe() from two callers in turn, n odd from
 * odd_caller and n even from even_caller, as fast as they can, while the
 * probe's own fetch-arg (*p) faults a dropped page back in under an
 * mmap_lock another thread keeps taking: handlers sleep, threads move
 * between CPUs, perf's per-CPU rings fill unevenly. An event whose stack
 * is another hit's shows the other caller. Runs until killed. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) long probe(long n, volatile long *p) { return *p + n; }

__attribute__((noinline)) long odd_caller(long n, volatile long *p) {
  long r = probe(n, p);
  sink += 1;
  return r;
}

__attribute__((noinline)) long even_caller(long n, volatile long *p) {
  long r = probe(n, p);
  sink += 2;
  return r;
}

static void *hitter(void *arg) {
  (void)arg;
  long *page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (long n = 1;; ++n) {
    page[0] = 7;
    madvise(page, 4096, MADV_DONTNEED);
    sink += (n & 1) ? odd_caller(n, page) : even_caller(n, page);
    usleep(200);
  }
  return 0;
}

static void *churn(void *arg) {
  (void)arg;
  for (;;) {
    char *m = mmap(0, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    m[0] = 1;
    munmap(m, 1 << 20);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  for (int i = 0; i < 4; ++i) pthread_create(&t, 0, hitter, 0);
  pthread_create(&t, 0, churn, 0);
  pause();
  return 0;
}
