/* libworkload.so: the shared library of the profiler workload.  Each
   function spends its time in its own loop, so that a profile shows each
   of them.  The chain a -> b -> c is made of functions that the compiler
   may neither inline nor turn into tail calls, so that an unwinder sees
   all three frames.  lib_chain_b and lib_chain_c are static: the calls
   between them are direct, not through the PLT.  */

#include "workload-lib.h"

#define NOINLINE __attribute__ ((noinline))

/* Mixes N rounds into X; the loop that each chain function runs.  */
static inline unsigned long
mix (unsigned long x, unsigned long n)
{
  for (unsigned long i = 0; i < n; ++i)
    x = (x ^ (x >> 13)) * 0x9e3779b97f4a7c15UL + i;
  return x;
}

NOINLINE static unsigned long
lib_chain_c (unsigned long n)
{
  return mix (n, n);
}

NOINLINE static unsigned long
lib_chain_b (unsigned long n)
{
  unsigned long x = mix (n + 1, n);
  /* Using X after the call keeps the call from being a tail call.  */
  return lib_chain_c (n) ^ x;
}

NOINLINE unsigned long
lib_chain_a (unsigned long n)
{
  unsigned long x = mix (n + 2, n);
  return lib_chain_b (n) ^ x;
}

NOINLINE unsigned long
lib_checksum (const unsigned char *p, size_t n)
{
  unsigned long crc = 0xffffffff;
  for (size_t i = 0; i < n; ++i)
    {
      crc ^= p[i];
      for (int k = 0; k < 8; ++k)
	crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
    }
  return crc ^ 0xffffffff;
}

NOINLINE unsigned long
lib_collatz (unsigned long limit)
{
  unsigned long steps = 0;
  for (unsigned long i = 1; i < limit; ++i)
    for (unsigned long x = i; x != 1; ++steps)
      x = x & 1 ? 3 * x + 1 : x / 2;
  return steps;
}
