/* A small -O0 program whose .debug_line prologue the build damages
 * (damage_line_prologue.py): LLVM reads past the damage with a warning,
 * which -v must show. */
#include <stdio.h>
__attribute__((noinline)) int twice(int x)
{
  int y = x * 2;
  return y + 1;
}
int main(int argc, char **argv)
{
  printf("%d\n", twice(argc));
  return 0;
}
