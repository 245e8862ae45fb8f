/* The symbol table of one ELF file, sorted by address once, that names
   an address as dwfl_module_addrinfo names it.  dwfl_module_addrinfo
   reads every symbol of the module for each address, and each module of
   each process loads the table again; a system-wide recording has
   thousands of processes running the same compiler, whose table has tens
   of thousands of symbols.  This table is made once for all the modules
   of a file, and answers with a binary search.  */

#ifndef FILESYMS_H
#define FILESYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

struct file_symbol
{
  /* Addresses are relative to the module's load bias, the same for
     every module of the file.  The symbol covers [VALUE, VALUE + SIZE),
     or only VALUE when SIZE is 0 (assembly labels).  */
  uint64_t value;
  uint64_t size;
  /* The largest end (VALUE + SIZE) of this symbol and of those before it
     in the table: no symbol at or before it reaches an address at or
     above REACH.  */
  uint64_t reach;
  /* The name, in the table's copy of the names.  */
  const char *name;
  /* What the caller names the symbol, NULL at first; the caller's.  */
  const char *label;
  /* Its index for dwfl_module_getsym_info: libdwfl prefers the first of
     equals.  */
  uint32_t index;
  /* GELF_ST_BIND.  */
  unsigned char binding;
  /* Whether dwfl_module_addrinfo looks at it in its first pass (globals,
     or every symbol when the table has no locals apart).  */
  bool first_pass;
  /* Whether it is a function (STT_FUNC, STT_GNU_IFUNC), or data
     (STT_OBJECT).  */
  bool function;
  bool object;
  /* Whether its section index is not a section (SHN_ABS, SHN_COMMON, a
     section that is not allocated): it then only names its own
     address.  */
  bool not_in_section;
};

struct file_section;

struct file_symbols
{
  /* The symbols dwfl_module_addrinfo can answer with, sorted by value
     then index.  Owned, with copies of their names (NAMES) but those
     init was told to keep.  */
  struct file_symbol *syms;
  size_t n_syms;
  char *names;
  /* Whether dwfl_module_addrinfo would look at the symbols outside the
     first pass, if it found nothing in it.  */
  bool has_locals;
  /* The allocated sections of the main file, sorted as libdwfl sorts
     them, to tell whether two addresses are in the same section.  */
  struct file_section *sections;
  size_t n_sections;
  /* Room for the symbols that cover one address.  */
  struct file_symbol **covering;
  size_t cap_covering;
};

/* Read the symbol table of MOD, whose load bias is BIAS, into FS: the
   table dwfl_module_addrinfo reads (from the main file, its separate
   debug file, its .gnu_debugdata).  A module without symbols gives an
   empty table.  The names are copied, as MOD can end before FS, but
   those in the KEEP_SIZE bytes at KEEP, which must outlive FS (KEEP may
   be NULL).  Returns 0, -1 if out of memory.  */
extern int file_symbols_init (struct file_symbols *fs, Dwfl_Module *mod,
			      Dwarf_Addr bias, const char *keep,
			      size_t keep_size);

extern void file_symbols_free (struct file_symbols *fs);

/* The symbol dwfl_module_addrinfo gives for the address at REL from the
   load bias, in *SYM (NULL if none).  Returns 0, -1 if out of
   memory.  */
extern int file_symbols_lookup (struct file_symbols *fs, uint64_t rel,
				struct file_symbol **sym);

/* The symbols at VALUE, in *N; they are in index order.  */
extern struct file_symbol *file_symbols_at (const struct file_symbols *fs,
					    uint64_t value, size_t *n);

#endif /* filesyms.h */
