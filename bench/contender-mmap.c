/* Contender (a): each piece goes to dwfl_report_elf_mmap as it is, in a
   report session of its own (or of its batch), as a profiler does while
   it looks up samples between mmap events.  */

#include <stdlib.h>
#include <libdwfl.h>

#include "bench.h"

struct mmap_proc
{
  struct bench_proc proc;
  bool reporting;		/* Between dwfl_report_begin_add and _end.  */
};

struct mmap_state
{
  struct table *procs;		/* ("", pid, 0) to struct mmap_proc.  */
  size_t failures;		/* Pieces libdwfl refused, gaps included.  */
};

static void *
mmap_start (void)
{
  struct mmap_state *s = calloc (1, sizeof *s);
  if (s == NULL)
    bench_fail ("out of memory");
  s->procs = table_new ();
  return s;
}

static struct mmap_proc *
mmap_proc (struct mmap_state *s, long pid)
{
  return bench_proc (s->procs, pid, sizeof (struct mmap_proc));
}

static void
mmap_piece (void *state, const struct piece *piece)
{
  struct mmap_state *s = state;
  struct mmap_proc *p = mmap_proc (s, piece->pid);
  if (! p->reporting)
    {
      dwfl_report_begin_add (p->proc.dwfl);
      p->reporting = true;
    }
  if (dwfl_report_elf_mmap (p->proc.dwfl, NULL, piece->path, -1,
			    piece->start, piece->len, piece->pgoff,
			    piece->prot) == NULL)
    s->failures++;
}

static void
mmap_flush (void *state, long pid)
{
  struct mmap_proc *p = mmap_proc (state, pid);
  if (p->reporting)
    {
      dwfl_report_end (p->proc.dwfl, NULL, NULL);
      p->reporting = false;
    }
}

static bool
mmap_lookup (void *state, long pid, uint64_t addr)
{
  return dwfl_addrmodule (mmap_proc (state, pid)->proc.dwfl, addr) != NULL;
}

static void
mmap_check (void *state, const struct truth *truth,
	    struct check_counts *counts)
{
  struct mmap_state *s = state;
  bench_procs_check (s->procs, truth, counts);
}

static void
mmap_finish (void *state)
{
  struct mmap_state *s = state;
  bench_procs_free (s->procs, NULL);
  free (s);
}

const struct contender contender_mmap =
{
  .name = "mmap",
  .start = mmap_start,
  .piece = mmap_piece,
  .flush = mmap_flush,
  .lookup = mmap_lookup,
  .check = mmap_check,
  .finish = mmap_finish,
};
