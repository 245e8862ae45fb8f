/* A small shared library for the dwfl_report_elf_mmap testfiles.

   It has code with a loop (.text), a cold function (.text.unlikely, so
   that gold -z text-unlikely-segment has something to move), read-only
   data (.rodata), a table of pointers that needs relocating (so the
   linker makes a PT_GNU_RELRO) and writable initialised data (.data).

   With -DTINY the read-only table and the cold function are left out,
   so that the whole object fits in one page and lld and mold put
   several PT_LOAD segments in file page 0.  Without it the table is
   larger than a page, so the segments start on different pages.  */

#include <stdio.h>

#ifndef TINY
# define L64 "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/"
# define L512 L64 L64 L64 L64 L64 L64 L64 L64
/* 5 KiB of read-only data.  */
static const char digits[] = L512 L512 L512 L512 L512
			     L512 L512 L512 L512 L512;
#endif

/* Pointers: R_X86_64_RELATIVE relocations in .data.rel.ro.  */
static const char *const names[] = { "alpha", "beta", "gamma", "delta" };

/* Writable initialised data.  */
unsigned long mmap_lib_state = 1;

const char *
mmap_lib_name (unsigned int i)
{
  return names[i % (sizeof names / sizeof names[0])];
}

#ifndef TINY
__attribute__ ((cold, noinline)) static void
mmap_lib_fail (unsigned long n)
{
  fprintf (stderr, "mmap_lib_work: %lu is too many\n", n);
}
#endif

/* Spin N times through the tables; the caller samples this.  */
unsigned long
mmap_lib_work (unsigned long n)
{
  unsigned long acc = mmap_lib_state;
#ifndef TINY
  if (__builtin_expect (n > 100000000, 0))
    mmap_lib_fail (n);
#endif
  for (unsigned long i = 0; i < n; i++)
    {
      acc = acc * 31 + (unsigned char) mmap_lib_name (i)[i % 4];
#ifndef TINY
      acc ^= (unsigned char) digits[acc % (sizeof digits - 1)];
#endif
    }
  mmap_lib_state = acc;
  return acc;
}
