/* Half of a module-like relocatable object (tests/kernel/module_duplicates.sh):
 * a static 'show' whose name the other half also uses, as same-named statics
 * in two files of one kernel module. */
static int show(int x) { return x * 3 + 1; }
int first_entry(int x) { return show(x) + 2; }
