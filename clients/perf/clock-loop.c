/* Spends MSEC milliseconds of CPU time (default 500) calling
   clock_gettime, which the vDSO answers without a system call: samples
   in the vDSO, whose file perf finds only in its build-ID cache, and
   their callers, clock_gettime in libc, then clock_spin, clock_outer and
   main.  Usage: clock-loop [MSEC]  */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__ ((noinline))

NOINLINE static long
clock_spin (int n)
{
  struct timespec ts;
  long sum = 0;
  for (int i = 0; i < n; i++)
    {
      clock_gettime (CLOCK_MONOTONIC, &ts);
      sum += ts.tv_nsec;
    }
  return sum;
}

NOINLINE static long
clock_outer (int n)
{
  long sum = clock_spin (n);
  /* Using the result after the call keeps it from being a tail call.  */
  return sum ^ clock_spin (n / 2);
}

int
main (int argc, char **argv)
{
  if (argc > 2 || (argc == 2 && atol (argv[1]) <= 0))
    {
      fprintf (stderr, "usage: %s [MSEC]\n", argv[0]);
      return 2;
    }
  double msec = argc == 2 ? atol (argv[1]) : 500;
  long sum = 0;
  while (clock () < msec * (CLOCKS_PER_SEC / 1000))
    sum += clock_outer (10000);
  printf ("clock-loop: %ld\n", sum & 1);
  return 0;
}
