/* A multi-line function at -O0 whose name is all hex letters: its entry
 * probe on a body line (fade:2, after the prologue) and its return probe
 * make a latency pair in the live view. */
#include <unistd.h>

__attribute__((noinline)) int fade(int level, int step)
{
  int next = level - step;
  if (next < 0)
    next = 0;
  return next;
}

int main(void)
{
  int level = 100;
  for (int i = 0; i < 5; i++) level = fade(level, 7);
  return level == 65 ? 0 : 1;
}
