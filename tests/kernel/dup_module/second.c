/* The other half: its 'show' follows first_entry in .text once linked with
 * 'ld -r', so a probe on it is anchored on first_entry, a unique name. */
static int show(int x) { return x * 5 + 7; }
int second_entry(int x) { return show(x) - 1; }
