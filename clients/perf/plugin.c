/* A plugin for plugin-host: the same source is linked by several
   linkers, and plugin-host loads the plugins one after the other, each
   where the last one was, so that a profiler sees another file mapped
   at the same addresses every few milliseconds.  plugin_run (MSEC)
   spends about MSEC milliseconds of CPU time in plugin_outer ->
   plugin_middle -> plugin_inner, and in qsort calling back
   plugin_compare: frames of the plugin above and below libc's.  */

#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__ ((noinline))

#define NUMBERS 2048

static int numbers[NUMBERS];
static volatile unsigned long sink;

NOINLINE static unsigned long
plugin_inner (unsigned long n)
{
  unsigned long x = n;
  for (unsigned long i = 0; i < n; ++i)
    x = (x ^ (x >> 11)) * 0x9e3779b97f4a7c15UL + i;
  return x;
}

NOINLINE static unsigned long
plugin_middle (unsigned long n)
{
  unsigned long x = plugin_inner (n);
  /* Using the result after the call keeps it from being a tail call.  */
  return plugin_inner (n / 2) ^ x;
}

NOINLINE static unsigned long
plugin_outer (unsigned long n)
{
  unsigned long x = plugin_middle (n);
  return plugin_middle (n / 3) ^ x;
}

NOINLINE static int
plugin_compare (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

NOINLINE static int
plugin_sort (unsigned int seed)
{
  for (int i = 0; i < NUMBERS; ++i)
    {
      seed = seed * 1103515245 + 12345;
      numbers[i] = seed >> 8;
    }
  qsort (numbers, NUMBERS, sizeof numbers[0], plugin_compare);
  return numbers[NUMBERS / 2];
}

unsigned long
plugin_run (unsigned int msec)
{
  clock_t end = clock () + msec * (CLOCKS_PER_SEC / 1000);
  unsigned int rounds = 0;
  do
    {
      sink += plugin_outer (20000);
      sink += plugin_sort (rounds);
      rounds++;
    }
  while (clock () < end);
  return rounds;
}
