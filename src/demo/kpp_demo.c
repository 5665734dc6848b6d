/* The bundled demo: a list of items walked a few times, so that probes on
 * a source line and on a function show values that change from hit to hit.
 * `kprobe-probe demo` probes walk:5 (the loop body), add and add%return. */
#include <stdio.h>
#include <unistd.h>

struct item {
  const char *name;
  int weight;
  struct item *next;
};

__attribute__((noinline)) int add(int a, int b) { return a + b; }

__attribute__((noinline)) int walk(struct item *p)
{
  int s = 0;
  int i = 0;
  for (; p; p = p->next, i++) {
    s = add(s, p->weight);
  }
  return s;
}

int main(void)
{
  struct item three = {"three", 3, NULL};
  struct item two = {"two", 2, &three};
  struct item one = {"one", 1, &two};
  int total = 0;
  for (int round = 0; round < 2; round++) total += walk(&one);
  printf("kpp_demo: walked the list twice, total %d\n", total);
  return 0;
}
