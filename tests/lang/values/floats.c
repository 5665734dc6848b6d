/* Floating-point, bool, char and enum values for the values oracle
 * (values_oracle.py): each one is read by kprobe-probe and by gdb at the
 * same address. */
#include <stdbool.h>
#include <stdio.h>

struct reading {
  double celsius;
  float weight;
  int count;
};

double scale = 2.5;  /* a global double */

__attribute__((noinline)) double mean(const struct reading *r, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += r[i].celsius * r[i].weight;  /* @mean_loop */
  return sum / n;
}

__attribute__((noinline)) float halve(float x) { return x / 2; }

__attribute__((noinline)) double price(double unit, int qty) {
  volatile double total = unit * qty;
  return total * scale;  /* @price_total */
}

__attribute__((noinline)) int flag(bool on, char tag, unsigned char byte) {
  printf("%d %c %u\n", on, tag, byte);
  return on ? tag : byte;
}

enum color { RED, GREEN = 5, BLUE };          /* not a flag enum: 5 has two bits */
enum perms { P_READ = 1, P_WRITE = 2, P_EXEC = 8 };  /* a flag enum (gdb: "(P_READ | P_WRITE)") */
enum level { L_LOW = -1, L_HIGH = 2 };        /* signed: an enumerator is negative */

__attribute__((noinline)) int paint(enum color c, enum perms p, enum level l) {
  printf("%d %d %d\n", (int)c, (int)p, (int)l);
  return (int)c + (int)p + (int)l;
}

int main(void) {
  struct reading rs[3] = {{21.5, 0.25f, 1}, {-3.75, 1.5f, 2}, {0.1, 3.0f, 3}};
  double m = mean(rs, 3);
  float h = halve(7.0f);
  double p = price(1.5, 3);
  printf("%g %g %g\n", m, h, p);
  flag(true, 'x', 10);
  flag(false, '\'', 200);
  paint(GREEN, P_READ | P_WRITE, L_LOW);
  paint((enum color)7, (enum perms)(P_EXEC | 16), (enum level)-5);
  paint(RED, (enum perms)0, L_HIGH);
  paint((enum color)-1, (enum perms)4, (enum level)3);
  return p > 10 ? 0 : 1;
}
