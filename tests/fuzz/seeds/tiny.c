/* The program fuzz_dwarf's ELF seeds are built from: small, but with what
   the DWARF walk has to get through (a self-referencing struct, a union,
   bitfields, an array, a string, a static, an inlined helper, a loop). No
   libc, so that the binaries stay a few KB and the fuzzer runs fast. */
struct node {
  struct node *next;
  int value;
  unsigned flags : 3;
  union {
    long l;
    char c[8];
  } u;
  int counts[4];
};

typedef struct node node_t;

static const char *label = "tiny";
static int calls;

static inline int twice(int x) { return 2 * x; }

int add(node_t *n, int k) {
  int sum = 0;
  for (; n; n = n->next) {
    sum += twice(n->value) + n->counts[k & 3] + (int)n->flags;
    calls++;
  }
  return sum + label[0];
}

int main(void) {
  node_t b = {0, 2, 1, {0}, {1, 2, 3, 4}};
  node_t a = {&b, 1, 5, {0}, {0}};
  return add(&a, calls);
}

/* clang -O0 initializes the structs with a call to memset; there is no libc. */
void *memset(void *dst, int c, unsigned long n) {
  volatile char *p = dst;
  while (n--) *p++ = (char)c;
  return dst;
}

void _start(void) { main(); }
