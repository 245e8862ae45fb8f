/* The shared library of the profiler workload: libworkload.so.  */

#ifndef WORKLOAD_LIB_H
#define WORKLOAD_LIB_H 1

#include <stddef.h>

/* Runs N steps of work in lib_chain_a, which calls lib_chain_b, which calls
   lib_chain_c, each doing work of its own: a call chain three frames deep
   inside the library.  */
extern unsigned long lib_chain_a (unsigned long n);

/* The bitwise CRC-32 of the N bytes at P.  */
extern unsigned long lib_checksum (const unsigned char *p, size_t n);

/* The total number of Collatz steps of every number below LIMIT.  */
extern unsigned long lib_collatz (unsigned long limit);

#endif
