/* Contender (m): every kind of report in one Dwfl, as a profiler that
   reports the main program with dwfl_report_elf, the kernel's modules
   with dwfl_report_module and the libraries' pieces as they come.  The
   modules take their kind in turn from the order in which their first
   pieces come: of each ten, one dwfl_report_elf, with the bias worked
   out in the caller as (b) does (only one in ten: each of its modules
   keeps its file open), four dwfl_report_module over the first piece's
   range, five dwfl_report_elf_mmap of every piece.  A later piece of a
   module of the first two kinds is known to the caller and costs no
   libdwfl call, as in (b).  Made for the synthetic streams, whose
   first piece of a module spans all of it.  */

#define _GNU_SOURCE
#include <search.h>
#include <stdlib.h>
#include <libdwfl.h>

#include "bench.h"

enum kind
{
  KIND_ELF,
  KIND_MODULE,
  KIND_MMAP,
};

/* One module as the caller knows it, in its process's tree by range.  */
struct mixed_module
{
  uint64_t low, high;
  enum kind kind;
};

struct mixed_proc
{
  struct bench_proc proc;
  void *by_range;		/* tsearch tree of mixed_module.  */
  bool reporting;
};

struct mixed_state
{
  struct table *procs;
  struct table *layouts;	/* (path, 0, 0) to elf_layout, or NULL
				   if it is no use.  */
  size_t modules;
  size_t failures;
  size_t emfile;		/* Failures for want of a descriptor.  */
};

static void *
mixed_start (void)
{
  struct mixed_state *s = calloc (1, sizeof *s);
  if (s == NULL)
    bench_fail ("out of memory");
  s->procs = table_new ();
  s->layouts = table_new ();
  return s;
}

static int
compare_ranges (const void *a, const void *b)
{
  const struct mixed_module *x = a, *y = b;
  if (x->high <= y->low)
    return -1;
  if (x->low >= y->high)
    return 1;
  return 0;
}

/* The layout of PATH, read the first time.  */
static const struct elf_layout *
layout (struct mixed_state *s, const char *path)
{
  void **slot = table_slot (s->layouts, path, 0, 0, true);
  if (*slot == NULL)
    {
      struct elf_layout *l = malloc (sizeof *l);
      if (l == NULL)
	bench_fail ("out of memory");
      if (! elf_layout_read (path, l))
	l->nloads = 0;
      *slot = l;
    }
  const struct elf_layout *l = *slot;
  return l->nloads > 0 ? l : NULL;
}

static void
begin (struct mixed_proc *p)
{
  if (! p->reporting)
    {
      dwfl_report_begin_add (p->proc.dwfl);
      p->reporting = true;
    }
}

static void
mixed_piece (void *state, const struct piece *piece)
{
  struct mixed_state *s = state;
  struct mixed_proc *p = bench_proc (s->procs, piece->pid, sizeof *p);
  struct mixed_module key = { piece->start, piece->start + 1, KIND_MMAP };
  void *node = tfind (&key, &p->by_range, compare_ranges);
  enum kind kind;
  if (node != NULL)
    kind = (*(struct mixed_module **) node)->kind;
  else if (piece->prot == 0)
    /* A gap the loader left outside any module carries no segment.  */
    return;
  else
    {
      static const enum kind kinds[10] =
	{ KIND_ELF, KIND_MODULE, KIND_MODULE, KIND_MODULE, KIND_MODULE,
	  KIND_MMAP, KIND_MMAP, KIND_MMAP, KIND_MMAP, KIND_MMAP };
      kind = kinds[s->modules++ % 10];
      struct mixed_module *m = malloc (sizeof *m);
      if (m == NULL)
	bench_fail ("out of memory");
      *m = (struct mixed_module) { piece->start, piece->start + piece->len,
				   kind };
      if (tsearch (m, &p->by_range, compare_ranges) == NULL)
	bench_fail ("out of memory");
      const struct elf_layout *l;
      uint64_t bias;
      switch (kind)
	{
	case KIND_ELF:
	  l = layout (s, piece->path);
	  if (l == NULL || ! layout_piece_bias (l, piece, &bias))
	    {
	      s->failures++;
	      return;
	    }
	  begin (p);
	  if (dwfl_report_elf (p->proc.dwfl, piece->path, piece->path, -1,
			       bias, true) == NULL)
	    bench_failed (&s->failures, &s->emfile);
	  return;
	case KIND_MODULE:
	  begin (p);
	  if (dwfl_report_module (p->proc.dwfl, piece->path, piece->start,
				  piece->start + piece->len) == NULL)
	    bench_failed (&s->failures, &s->emfile);
	  return;
	case KIND_MMAP:
	  break;
	}
    }
  if (kind != KIND_MMAP)
    return;
  begin (p);
  if (dwfl_report_elf_mmap (p->proc.dwfl, NULL, piece->path, -1,
			    piece->start, piece->len, piece->pgoff,
			    piece->prot) == NULL)
    bench_failed (&s->failures, &s->emfile);
}

static void
mixed_flush (void *state, long pid)
{
  struct mixed_state *s = state;
  struct mixed_proc *p = bench_proc (s->procs, pid, sizeof *p);
  if (p->reporting)
    {
      dwfl_report_end (p->proc.dwfl, NULL, NULL);
      p->reporting = false;
    }
}

static bool
mixed_lookup (void *state, long pid, uint64_t addr)
{
  struct mixed_state *s = state;
  struct mixed_proc *p = bench_proc (s->procs, pid, sizeof *p);
  return dwfl_addrmodule (p->proc.dwfl, addr) != NULL;
}

static void
mixed_check (void *state, const struct truth *truth,
	     struct check_counts *counts)
{
  struct mixed_state *s = state;
  bench_procs_check (s->procs, truth, counts);
}

static void
free_extra (void *proc)
{
  struct mixed_proc *p = proc;
  tdestroy (p->by_range, free);
}

static void
mixed_failures (void *state, size_t *failed, size_t *emfile)
{
  struct mixed_state *s = state;
  *failed = s->failures;
  *emfile = s->emfile;
}

static void
mixed_finish (void *state)
{
  struct mixed_state *s = state;
  bench_procs_free (s->procs, free_extra);
  table_free (s->layouts, free);
  free (s);
}

const struct contender contender_mixed =
{
  .name = "mixed",
  .start = mixed_start,
  .piece = mixed_piece,
  .flush = mixed_flush,
  .lookup = mixed_lookup,
  .check = mixed_check,
  .finish = mixed_finish,
  .failures = mixed_failures,
};
