/* The other half: its 'show' follows first.c's in .text once linked with
 * 'ld -r', and an init function in .init.text, at 0 of its own section as
 * first.c's code is at 0 of .text (ET_REL addresses overlap). */
extern volatile int module_fixture_sink;

static __attribute__((noinline)) int show(int x) {
  module_fixture_sink = x * 5;
  return module_fixture_sink + 7;
}

int second_entry(int x) { return show(x) - 1; }

__attribute__((section(".init.text"))) int module_fixture_init(int x) {
  module_fixture_sink = second_entry(x);
  return module_fixture_sink + 4;
}
