/* A kernel symbol table as /proc/kallsyms lists it, read as perf report
   reads it when it has no vmlinux: the same symbols kept, the same
   extents given to them and the same one of several at an address
   chosen, so that an address gets the name perf gives it.  */

#ifndef KALLSYMS_H
#define KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym
{
  /* The symbol covers [START, END).  */
  uint64_t start;
  uint64_t end;
  const char *name;
  /* NULL for the kernel's own symbols, else the module's name as
     kallsyms writes it between brackets ("xfs", "bpf").  */
  const char *module;
  /* The kallsyms type letter ('T', 't', 'W'...).  */
  char type;
};

struct kallsyms
{
  /* The symbols sorted by module (the kernel's first), then address.
     Their strings point into TEXT.  Owned.  */
  struct ksym *syms;
  size_t n;
  char *text;
};

/* Read the kallsyms file PATH into KS.  If REF_NAME is not NULL, the
   table is for a recording in which the kernel's function REF_NAME was
   at REF_ADDR: the kernel's symbols are moved by the difference (the
   file is of a boot that placed the kernel elsewhere, KASLR), modules'
   are not, as perf does.  Returns 0, or -1 with the reason in ERROR (of
   ERROR_SIZE bytes): the file cannot be read, names no symbol, has every
   address zero (kernel.kptr_restrict hides them from this user), or has
   no function REF_NAME.  */
extern int kallsyms_read (struct kallsyms *ks, const char *path,
			  const char *ref_name, uint64_t ref_addr,
			  char *error, size_t error_size);

extern void kallsyms_free (struct kallsyms *ks);

/* The symbol of MODULE (NULL for the kernel) that covers ADDR, or
   NULL.  */
extern const struct ksym *kallsyms_lookup (const struct kallsyms *ks,
					   const char *module, uint64_t addr);

#endif /* kallsyms.h */
