/* What the contenders that keep one Dwfl per process share.  */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdwfl.h>

#include "bench.h"

/* find_elf is used only by dwfl_linux_proc_maps_report's modules, whose
   names are the paths of their files.  */
static const Dwfl_Callbacks callbacks =
{
  .find_elf = dwfl_linux_proc_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
};

void *
bench_proc (struct table *procs, long pid, size_t size)
{
  void **slot = table_slot (procs, "", pid, 0, true);
  if (*slot == NULL)
    {
      struct bench_proc *p = calloc (1, size);
      if (p == NULL)
	bench_fail ("out of memory");
      p->pid = pid;
      p->dwfl = dwfl_begin (&callbacks);
      if (p->dwfl == NULL)
	bench_fail ("dwfl_begin: %s", dwfl_errmsg (-1));
      *slot = p;
    }
  return *slot;
}

void
bench_failed (size_t *failed, size_t *emfile)
{
  ++*failed;
  if (strcmp (dwfl_errmsg (-1), strerror (EMFILE)) == 0)
    ++*emfile;
}

struct check_arg
{
  long pid;
  const struct truth *truth;
  struct check_counts *counts;
};

/* The bias comes from dwfl_module_getelf, which opens the file of a
   module that has none yet (those of dwfl_linux_proc_maps_report).  */
static int
check_module (Dwfl_Module *mod, void **userdata __attribute__ ((unused)),
	      const char *name, Dwarf_Addr start, void *arg)
{
  Dwarf_Addr end;
  dwfl_module_info (mod, NULL, NULL, &end, NULL, NULL, NULL, NULL);
  struct check_arg *c = arg;
  c->counts->modules++;
  GElf_Addr bias;
  if (dwfl_module_getelf (mod, &bias) == NULL)
    {
      /* The file went away before a lazy contender opened it.  */
      printf ("unknown pid=%ld no ELF: %s %s\n", c->pid, name,
	      dwfl_errmsg (-1));
      c->counts->unknown++;
      return DWARF_CB_OK;
    }
  switch (truth_judge (c->truth, c->pid, name, bias, start, end))
    {
    case VERDICT_WRONG:
      /* For the reader of the driver's output: which ones.  */
      printf ("wrong pid=%ld bias=%llx %s\n", c->pid,
	      (unsigned long long) bias, name);
      c->counts->wrong++;
      break;
    case VERDICT_UNKNOWN:
      c->counts->unknown++;
      break;
    case VERDICT_RIGHT:
      break;
    }
  return DWARF_CB_OK;
}

static void
check_proc (void *value, void *arg)
{
  struct bench_proc *p = value;
  struct check_arg *c = arg;
  c->pid = p->pid;
  dwfl_getmodules (p->dwfl, check_module, c, 0);
}

void
bench_procs_check (struct table *procs, const struct truth *truth,
		   struct check_counts *counts)
{
  struct check_arg arg = { 0, truth, counts };
  table_each (procs, check_proc, &arg);
}

static void (*free_extra_fn) (void *proc);

static void
free_proc (void *value)
{
  struct bench_proc *p = value;
  if (free_extra_fn != NULL)
    free_extra_fn (p);
  dwfl_end (p->dwfl);
  free (p);
}

void
bench_procs_free (struct table *procs, void (*free_extra) (void *proc))
{
  free_extra_fn = free_extra;
  table_free (procs, free_proc);
  free_extra_fn = NULL;
}
