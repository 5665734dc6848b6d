/* Half of a module-like relocatable object (tests/stack/module_placement_test.cpp):
 * a static 'show' the other half also has, with a helper inlined into it. */
volatile int module_fixture_sink;

static inline __attribute__((always_inline)) int twice(int x) {
  module_fixture_sink = x;
  return module_fixture_sink * 2 + 1;
}

static __attribute__((noinline)) int show(int x) {
  int y = twice(x);
  module_fixture_sink = y;
  return module_fixture_sink + 3;
}

int first_entry(int x) { return show(x) + 2; }
