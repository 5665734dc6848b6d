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

long double ld_unit = 0.1L;  /* a global x87 long double */

/* x86_64 passes a long double on the stack: in memory at the entry. */
__attribute__((noinline)) long double ld_scale(long double x, int n) {
  volatile long double t = x * n;
  return t * ld_unit;  /* @ld_total */
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

/* An 8-byte unsigned enum with bit 63 (gdb: W_TOP, 9223372036854775808). */
enum wide { W_LOW = 1, W_TOP = 1ULL << 63 };

__attribute__((noinline)) int wide_of(enum wide w) {
  printf("%llx\n", (unsigned long long)w);
  return w == W_TOP;
}

/* Arrays of floating-point numbers inside a struct: each element a number. */
struct series {
  double w[3];
  float f[2];
};

__attribute__((noinline)) double first_of(const struct series *s) {
  printf("%g %g\n", s->w[0], s->f[1]);
  return s->w[0] + s->f[1];
}

/* Arrays longer than the kernel's 64 elements (MAX_ARRAY_LEN): fetched as
 * their first --max-items elements and their length, as a sequence is. */
struct histogram {
  int buckets[100];
  double weights[70];
};

__attribute__((noinline)) long total_of(const struct histogram *h) {
  long total = 0;
  for (int i = 0; i < 100; i++) total += h->buckets[i];
  printf("%ld %g\n", total, h->weights[69]);
  return total;
}

/* char arrays, shown as text of their own bytes: `name` has no NUL (the
 * kernel's string fetch read on into `tail`), `raw` holds NULs and a byte
 * past 127 (gdb: "\000\001A\377"), `path` is longer than the kernel's 64. */
struct label {
  char name[4];
  char tail[8];
  unsigned char raw[6];
  char path[80];
};

__attribute__((noinline)) int label_len(const struct label *l) {
  printf("%.4s %s %s\n", l->name, l->tail, l->path);
  return l->raw[1];
}

/* Bitfields of a packed struct that run past their type's size from their
 * member's offset (b: bits 8-37 of an int at byte 0): read from the byte
 * each starts in. */
struct __attribute__((packed)) packed_bits {
  char a;
  int b : 30;
  unsigned long long c : 40;
  int d : 7;
  char e : 5;
  int f : 31; /* bits 2-32 of its byte: read as 8 bytes */
};

__attribute__((noinline)) long packed_sum(const struct packed_bits *p) {
  printf("%d %llx %d %d\n", p->b, (unsigned long long)p->c, p->d, p->f);
  return p->b + (long)p->c + p->d + p->f;
}

static struct histogram hist;

int main(void) {
  for (int i = 0; i < 100; i++) hist.buckets[i] = i * 3 - 50;
  for (int i = 0; i < 70; i++) hist.weights[i] = i / 4.0;
  struct series sr = {{0.5, -1.25, 1e300}, {0.1f, 3.5f}};
  struct reading rs[3] = {{21.5, 0.25f, 1}, {-3.75, 1.5f, 2}, {0.1, 3.0f, 3}};
  double m = mean(rs, 3);
  float h = halve(7.0f);
  double p = price(1.5, 3);
  printf("%g %g %g\n", m, h, p);
  flag(true, 'x', 10);
  flag(false, '\'', 200);
  printf("%Lg %Lg\n", ld_scale(1.0L / 3, 3), ld_scale(-2.25e300L, 2));
  paint(GREEN, P_READ | P_WRITE, L_LOW);
  paint((enum color)7, (enum perms)(P_EXEC | 16), (enum level)-5);
  paint(RED, (enum perms)0, L_HIGH);
  paint((enum color)-1, (enum perms)4, (enum level)3);
  first_of(&sr);
  wide_of(W_TOP);
  wide_of((enum wide)(W_TOP | 2));
  total_of(&hist);
  struct label lb = {{'a', 'b', 'c', 'd'}, "efg", {0, 1, 'A', 0xff, 0, 0}, ""};
  for (int i = 0; i < 70; i++) lb.path[i] = (char)('a' + i % 26);
  label_len(&lb);
  struct packed_bits pb = {1, -123456, 0xfedcba9876ULL, -5, 2, -1000000007};
  packed_sum(&pb);
  return p > 10 ? 0 : 1;
}
