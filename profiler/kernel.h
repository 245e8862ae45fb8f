/* The kernel's part of the recorded address space: the kernel and its
   modules where the recording's kernel mmap records put them, named
   from a kallsyms file as perf report names them when it has no vmlinux.
   Which kallsyms file is decided when a kernel address is first named:
   /proc/kallsyms if the recording's kernel (its build id in the header,
   as [kernel.kallsyms]) is the running one, else the copy perf record
   left in its build-id cache.  */

#ifndef KERNEL_H
#define KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kallsyms.h"
#include "perfdata.h"
#include "strtab.h"

struct kernel_map
{
  /* The map covers [START, END).  */
  uint64_t start;
  uint64_t end;
  /* The name perf gives its DSO, [kernel.kallsyms] or [MODULE], and the
     module's name as kallsyms writes it, NULL for the kernel; both in
     the kernel's names.  */
  const char *dso;
  const char *module;
};

struct kernel
{
  /* The recording, for its build ids; not owned.  */
  const struct perf_data *data;
  /* The kallsyms file to read whatever the build ids say (perfsym
     --kallsyms), or NULL.  */
  const char *kallsyms_file;
  /* The maps, sorted by address, not overlapping.  */
  struct kernel_map *maps;
  size_t n_maps;
  size_t cap_maps;
  /* Map names, the file read and the reference symbol.  */
  struct strtab names;
  /* The symbol the kernel map's record names ([kernel.kallsyms]_text)
     and its address in the recording, to place a kallsyms file of
     another boot; REF_NAME is NULL if the record names none.  */
  const char *ref_name;
  uint64_t ref_addr;
  /* 0 until the symbols are first needed, then 1 if they were read, -1
     if not, with the reason in PROBLEM.  */
  int state;
  struct kallsyms syms;
  /* The kallsyms file read, in NAMES.  */
  const char *source;
  char problem[512];
  /* Kernel addresses met, and of those named by a symbol.  */
  uint64_t lookups;
  uint64_t named;
};

/* Start with no maps, for the recording DATA; KALLSYMS_FILE as the
   member of that name.  */
extern void kernel_init (struct kernel *k, const struct perf_data *data,
			 const char *kallsyms_file);
extern void kernel_free (struct kernel *k);

/* Take in M if it is a mmap record of the (host) kernel or of a kernel
   module; other records are left alone.  Returns 0, -1 if out of
   memory.  */
extern int kernel_mmap (struct kernel *k, const struct perf_mmap *m);

/* Whether the recording placed the kernel at all: without a kernel map,
   kernel addresses cannot be named.  */
extern bool kernel_has_maps (const struct kernel *k);

/* Name the kernel address IP: the symbol covering it, NULL if none, its
   offset in it in *OFFSET, and the DSO it is in in *DSO ([unknown] if
   no map holds IP).  The strings live as long as K.  */
extern const char *kernel_symbol (struct kernel *k, uint64_t ip,
				  const char **dso, uint64_t *offset);

#endif /* kernel.h */
