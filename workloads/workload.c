/* A CPU workload for comparing profilers.  It spends its time in
   functions of its own, in those of its shared library libworkload.so
   (lib_chain_a -> lib_chain_b -> lib_chain_c among them), in libc (qsort
   with a comparison function of ours, memcpy, strlen) and in libm (sin,
   exp, pow), in rounds of a few milliseconds, until it has used MSEC
   milliseconds of CPU time (default 1000).
   Usage: workload [MSEC]  */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "workload-lib.h"

#define NOINLINE __attribute__ ((noinline))

#define BUF_SIZE (256 * 1024)
#define NUMBERS 4096

static unsigned char src[BUF_SIZE], dst[BUF_SIZE];
static int numbers[NUMBERS];
static char text[4096];

/* Where the results go, so that the compiler keeps the work.  */
static volatile unsigned long sink;

NOINLINE static unsigned long
hash_bytes (const unsigned char *p, size_t n)
{
  unsigned long h = 0xcbf29ce484222325UL;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 0x100000001b3UL;
  return h;
}

NOINLINE static unsigned long
count_primes (unsigned long limit)
{
  unsigned long count = 0;
  for (unsigned long n = 2; n < limit; ++n)
    {
      unsigned long d = 2;
      while (d * d <= n && n % d != 0)
	++d;
      count += d * d > n;
    }
  return count;
}

NOINLINE static double
multiply_matrices (int n)
{
  static double a[48][48], b[48][48], c[48][48];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      {
	a[i][j] = i + j;
	b[i][j] = i - j;
      }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      {
	double s = 0;
	for (int k = 0; k < n; ++k)
	  s += a[i][k] * b[k][j];
	c[i][j] = s;
      }
  return c[n / 2][n / 3];
}

NOINLINE static int
compare_ints (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

NOINLINE static int
sort_numbers (unsigned int seed)
{
  for (int i = 0; i < NUMBERS; ++i)
    {
      seed = seed * 1103515245 + 12345;
      numbers[i] = seed >> 8;
    }
  qsort (numbers, NUMBERS, sizeof numbers[0], compare_ints);
  /* Using the result keeps qsort from being a tail call.  */
  return numbers[NUMBERS / 2];
}

NOINLINE static void
copy_buffers (int times)
{
  for (int i = 0; i < times; ++i)
    {
      memcpy (dst, src, BUF_SIZE);
      memcpy (src, dst, BUF_SIZE);
    }
}

NOINLINE static unsigned long
measure_strings (int times)
{
  /* Through a volatile pointer, so that strlen is called every time.  */
  char *volatile p = text;
  unsigned long total = 0;
  for (int i = 0; i < times; ++i)
    total += strlen (p + (i & 63));
  return total;
}

NOINLINE static double
transcendentals (int n)
{
  double acc = 0;
  for (int i = 1; i <= n; ++i)
    {
      double x = i * 1e-3;
      acc += sin (x) + exp (x * 0.7) + pow (x, 1.5);
    }
  return acc;
}

/* One round of everything, a few milliseconds long.  */
NOINLINE static void
run_round (unsigned int round)
{
  sink += hash_bytes (src, BUF_SIZE / 2);
  sink += count_primes (9000);
  sink += multiply_matrices (48);
  sink += multiply_matrices (48);
  sink += sort_numbers (round);
  copy_buffers (8);
  sink += measure_strings (4000);
  sink += transcendentals (12000);
  sink += lib_chain_a (100000);
  sink += lib_checksum (src, 16 * 1024);
  sink += lib_collatz (2000);
}

int
main (int argc, char **argv)
{
  if (argc > 2 || (argc == 2 && atol (argv[1]) <= 0))
    {
      fprintf (stderr, "usage: %s [MSEC]\n", argv[0]);
      return 2;
    }
  double msec = argc == 2 ? atol (argv[1]) : 1000;

  for (size_t i = 0; i < BUF_SIZE; ++i)
    src[i] = i * 7;
  memset (text, 'x', sizeof text - 1);

  unsigned int rounds = 0;
  do
    run_round (rounds++);
  while (clock () < msec * (CLOCKS_PER_SEC / 1000));

  printf ("workload: %u rounds in %.0f ms of CPU time\n", rounds,
	  clock () * 1000.0 / CLOCKS_PER_SEC);
  return 0;
}
