/* Check that filesyms.c names addresses as dwfl_module_addrinfo does:
   each FILE is reported at a load bias (PIEs and libraries away from
   zero), and every address where a symbol or an allocated section starts
   or ends, and the addresses beside it, is looked up both ways.  In a
   file of many symbols, a sample of them: dwfl_module_addrinfo reads
   every symbol for each address.
   Prints a line per file and one per difference; exits 1 on one.
   Usage: check-filesyms FILE...  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "../filesyms.h"

/* At most this many symbols and sections a file are looked at.  */
#define MAX_EDGES 4000

static const Dwfl_Callbacks callbacks =
{
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
};

/* Look ADDR up both ways; returns whether they agree, and says how
   they differ if not.  */
static bool
check_address (const char *file, Dwfl_Module *mod, struct file_symbols *fs,
	       Dwarf_Addr bias, uint64_t addr)
{
  GElf_Off offset;
  GElf_Sym sym;
  const char *want = dwfl_module_addrinfo (mod, addr, &offset, &sym, NULL,
					   NULL, NULL);
  struct file_symbol *got;
  if (file_symbols_lookup (fs, addr - bias, &got) != 0)
    {
      fprintf (stderr, "check-filesyms: out of memory\n");
      exit (2);
    }
  if (want == NULL && got == NULL)
    return true;
  if (want != NULL && got != NULL && strcmp (want, got->name) == 0
      && offset == addr - bias - got->value)
    return true;
  printf ("%s: %#" PRIx64 ": dwfl_module_addrinfo %s+%#" PRIx64
	  ", filesyms %s+%#" PRIx64 "\n", file, addr - bias,
	  want ?: "(none)", want != NULL ? (uint64_t) offset : 0,
	  got != NULL ? got->name : "(none)",
	  got != NULL ? addr - bias - got->value : 0);
  return false;
}

/* Check the addresses at EDGE and beside it; count them in *N.  */
static bool
check_edge (const char *file, Dwfl_Module *mod, struct file_symbols *fs,
	    Dwarf_Addr bias, uint64_t edge, size_t *n)
{
  bool ok = true;
  for (int d = -1; d <= 1; ++d)
    {
      ok &= check_address (file, mod, fs, bias, bias + edge + d);
      ++*n;
    }
  return ok;
}

static bool
check_file (const char *file)
{
  Dwfl *dwfl = dwfl_begin (&callbacks);
  Dwfl_Module *mod = (dwfl == NULL ? NULL
		      : dwfl_report_elf (dwfl, file, file, -1,
					 0x7f0000000000, false));
  Dwarf_Addr bias;
  if (mod == NULL || dwfl_report_end (dwfl, NULL, NULL) != 0
      || dwfl_module_getelf (mod, &bias) == NULL)
    {
      printf ("%s: %s\n", file, dwfl_errmsg (-1));
      dwfl_end (dwfl);
      return false;
    }
  struct file_symbols fs;
  if (file_symbols_init (&fs, mod, bias, NULL, 0) != 0)
    {
      fprintf (stderr, "check-filesyms: out of memory\n");
      exit (2);
    }

  bool ok = true;
  size_t n = 0;
  size_t n_edges = fs.n_syms + fs.n_sections;
  size_t step = n_edges / MAX_EDGES + 1;
  for (size_t i = 0; i < fs.n_syms; i += step)
    {
      ok &= check_edge (file, mod, &fs, bias, fs.syms[i].value, &n);
      ok &= check_edge (file, mod, &fs, bias,
			fs.syms[i].value + fs.syms[i].size, &n);
    }
  Dwarf_Addr elf_bias;
  Elf *elf = dwfl_module_getelf (mod, &elf_bias);
  for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn != NULL;
       scn = elf_nextscn (elf, scn))
    {
      GElf_Shdr shdr;
      if (gelf_getshdr (scn, &shdr) != NULL && (shdr.sh_flags & SHF_ALLOC))
	{
	  ok &= check_edge (file, mod, &fs, bias, shdr.sh_addr, &n);
	  ok &= check_edge (file, mod, &fs, bias, shdr.sh_addr + shdr.sh_size,
			    &n);
	}
    }
  printf ("%s: %zu symbols, %zu addresses: %s\n", file, fs.n_syms, n,
	  ok ? "same" : "DIFFERENT");
  file_symbols_free (&fs);
  dwfl_end (dwfl);
  return ok;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: check-filesyms FILE...\n");
      return 2;
    }
  bool ok = true;
  for (int i = 1; i < argc; ++i)
    ok &= check_file (argv[i]);
  return ok ? 0 : 1;
}
