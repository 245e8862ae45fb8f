/* The libdwfl calls eu-stackprof makes for PERF_RECORD_MMAP2 events,
   before and after it used dwfl_report_elf_mmap.

   Usage: stackprof-calls before|after FILE PIECES ADDRESS

   PIECES has the MMAP2 events of FILE, one a line:
   "START-END PERMS PGOFF", as in /proc/PID/maps.  Each event is
   reported as eu-stackprof reports it, in a report cycle of its own:
   before, dwfl_report_module (FILE, START, END); after,
   dwfl_report_elf_mmap with the event's offset and protection.  Then
   prints the symbol that dwfl_addrmodule's module gives ADDRESS, and the
   number of modules.  */

#include <errno.h>
#include <error.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <elfutils/libdwfl.h>

static const Dwfl_Callbacks callbacks =
  {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
  };

static int
count (Dwfl_Module *mod __attribute__ ((unused)),
       void **userdata __attribute__ ((unused)),
       const char *name __attribute__ ((unused)),
       Dwarf_Addr base __attribute__ ((unused)), void *arg)
{
  ++*(int *) arg;
  return DWARF_CB_OK;
}

int
main (int argc, char **argv)
{
  if (argc != 5
      || (strcmp (argv[1], "before") != 0 && strcmp (argv[1], "after") != 0))
    error (EXIT_FAILURE, 0, "usage: %s before|after FILE PIECES ADDRESS",
	   argv[0]);
  bool after = strcmp (argv[1], "after") == 0;
  const char *file = argv[2];
  Dwarf_Addr address = strtoull (argv[4], NULL, 16);

  FILE *pieces = fopen (argv[3], "r");
  if (pieces == NULL)
    error (EXIT_FAILURE, errno, "%s", argv[3]);
  Dwfl *dwfl = dwfl_begin (&callbacks);
  if (dwfl == NULL)
    error (EXIT_FAILURE, 0, "dwfl_begin: %s", dwfl_errmsg (-1));

  uint64_t start, end, pgoff;
  char perms[8];
  while (fscanf (pieces, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64,
		 &start, &end, perms, &pgoff) == 4)
    {
      int prot = ((perms[0] == 'r' ? PROT_READ : 0)
		  | (perms[1] == 'w' ? PROT_WRITE : 0)
		  | (perms[2] == 'x' ? PROT_EXEC : 0));
      dwfl_report_begin_add (dwfl);
      if (after)
	dwfl_report_elf_mmap (dwfl, NULL, file, -1, start, end - start, pgoff,
			      prot);
      else
	dwfl_report_module (dwfl, file, start, end);
      dwfl_report_end (dwfl, NULL, NULL);
    }
  fclose (pieces);

  Dwfl_Module *mod = dwfl_addrmodule (dwfl, address);
  const char *sym = mod == NULL ? NULL : dwfl_module_addrname (mod, address);
  int modules = 0;
  dwfl_getmodules (dwfl, count, &modules, 0);
  printf ("%s %d\n", sym ?: "??", modules);
  dwfl_end (dwfl);
  return 0;
}
