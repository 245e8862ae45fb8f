/* Naming code addresses: the module and symbol of an address in a
   process's address space, as perf script names them.  */

#ifndef SYMBOLIZE_H
#define SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "process.h"
#include "strtab.h"

struct symbol_info
{
  /* The file of the module holding the address, as the mmap record
     names it, or the name of the non-ELF mapping holding it, or for a
     kernel address [kernel.kallsyms] or [MODULE] as perf names them, or
     one of [kernel] (a recording without kernel maps), [hypervisor],
     [guest.kernel], [guest.user] for those modes, or [unknown].  */
  const char *dso;
  /* The symbol holding the address, NULL if there is none; OFFSET is
     the address's offset in it.  */
  const char *name;
  uint64_t offset;
  /* With NAME, the symbol's address: in its module's file (less the
     load bias, the same in every process), or in the kernel.  It tells
     apart symbols of one name, as perf report does (overloads of a C++
     function, demangled without their parameters, static functions of
     one name).  */
  uint64_t start;
  /* Whether the address is kernel (or hypervisor, guest kernel) code:
     looked up in the kernel's maps and kallsyms (kernel.c), not in the
     process's Dwfl.  */
  bool kernel;
};

struct symbol_cache_entry;
struct known_file;
struct kernel;

/* Looks up addresses, caching the answers: an address is looked up once
   while the address space of its process stays the same, in the symbol
   table of its module's file, read once for all the modules of the file
   (filesyms.h).  */
struct symbolizer
{
  bool demangle;
  /* Every name handed out: files, symbols (demangled), NAME@plt; a
     file's name keeps its symbol table (strtab_value).  */
  struct strtab names;
  struct symbol_cache_entry *cache;
  /* The symbol tables of NAMES, to free them.  */
  struct known_file *files;
  /* Names kernel addresses if not NULL (kernel.c); not owned.  */
  struct kernel *kernel;
  uint64_t lookups;
  uint64_t cache_hits;
  /* The files whose symbol tables were read, and their symbols.  */
  uint64_t files_read;
  uint64_t symbols_read;
};

/* Returns 0, -1 if out of memory.  DEMANGLE: name C++ symbols as perf
   does, demangled without their parameters.  */
extern int symbolizer_init (struct symbolizer *sz, bool demangle);
extern void symbolizer_free (struct symbolizer *sz);

/* Name IP, an address of PROC (which may be NULL) met in CPUMODE (a
   PERF_RECORD_MISC_CPUMODE value), in *INFO.  Its strings live as long
   as SZ and its kernel, or for names of non-ELF mappings as the process
   table of PROC.  */
extern void symbolize (struct symbolizer *sz, struct process *proc,
		       uint64_t ip, unsigned int cpumode,
		       struct symbol_info *info);

#endif /* symbolize.h */
