/* Contender (b): today's best workaround outside libdwfl.  The caller
   reads each file's program headers once, works the load bias out of the
   first piece it sees of a module (start - pgoff + p_offset - p_vaddr of
   the PT_LOAD that mapped it), remembers the module per file and reports
   it once with dwfl_report_elf over the file's whole address range.  A
   later piece inside a known module of its file costs two hash lookups
   and no libdwfl call.  A module whose range overlaps modules already
   there replaces them: dwfl_report_begin, then every survivor is reported
   again with dwfl_report_module (which keeps it as it is), then the new
   one.  */

#define _GNU_SOURCE
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <libdwfl.h>

#include "bench.h"

/* What the caller knows of a file, shared by all processes.  */
struct elf_file
{
  struct elf_layout layout;
  uint64_t vaddr_low, vaddr_high;	/* The span of the PT_LOADs.  */
};

/* One module, in its process's list of modules of its file and in its
   tree by address range.  */
struct elf_module
{
  const char *path;
  uint64_t bias, low, high;
  struct elf_module *next;	/* Same file, same process.  */
};

struct elf_proc
{
  struct bench_proc proc;
  struct table *by_file;	/* (path, 0, 0) to the first elf_module.  */
  void *by_range;		/* tsearch tree of elf_module.  */
  bool reporting;
};

struct elf_state
{
  struct table *files;		/* (path, 0, 0) to elf_file; NULL value if
				   the file is no use.  */
  struct table *procs;
  size_t failures;
  size_t emfile;		/* Failures for want of a descriptor.  */
};

static void *
elf_start (void)
{
  struct elf_state *s = calloc (1, sizeof *s);
  if (s == NULL)
    bench_fail ("out of memory");
  s->files = table_new ();
  s->procs = table_new ();
  return s;
}

/* The file at PATH, its program headers read the first time.  */
static struct elf_file *
elf_file (struct elf_state *s, const char *path)
{
  void **slot = table_slot (s->files, path, 0, 0, false);
  if (slot != NULL)
    return *slot;
  struct elf_file *f = malloc (sizeof *f);
  if (f == NULL)
    bench_fail ("out of memory");
  if (! elf_layout_read (path, &f->layout))
    {
      free (f);
      f = NULL;
    }
  else
    {
      const struct elf_layout *l = &f->layout;
      f->vaddr_low = l->loads[0].vaddr;
      f->vaddr_high = l->loads[l->nloads - 1].vaddr
		      + l->loads[l->nloads - 1].memsz;
    }
  *table_slot (s->files, path, 0, 0, true) = f;
  return f;
}

static int
compare_ranges (const void *a, const void *b)
{
  const struct elf_module *x = a, *y = b;
  if (x->high <= y->low)
    return -1;
  if (x->low >= y->high)
    return 1;
  return 0;
}

/* Forget M, found in P's trees.  */
static void
forget_module (struct elf_proc *p, struct elf_module *m)
{
  tdelete (m, &p->by_range, compare_ranges);
  void **slot = table_slot (p->by_file, m->path, 0, 0, false);
  struct elf_module **link = (struct elf_module **) slot;
  while (*link != m)
    link = &(*link)->next;
  *link = m->next;
  free (m);
}

static Dwfl *report_again_dwfl;

static void
report_again (const void *nodep, VISIT which,
	      int depth __attribute__ ((unused)))
{
  if (which == postorder || which == leaf)
    {
      const struct elf_module *m = *(const struct elf_module **) nodep;
      dwfl_report_module (report_again_dwfl, m->path, m->low, m->high);
    }
}

/* Remove the modules that overlap [LOW, HIGH) from P and from its Dwfl:
   a new report session in which the others are reported again.  */
static void
replace_overlapped (struct elf_proc *p, uint64_t low, uint64_t high)
{
  struct elf_module key = { .low = low, .high = high };
  bool removed = false;
  void *node;
  while ((node = tfind (&key, &p->by_range, compare_ranges)) != NULL)
    {
      forget_module (p, *(struct elf_module **) node);
      removed = true;
    }
  if (! removed)
    return;
  dwfl_report_begin (p->proc.dwfl);
  p->reporting = true;
  report_again_dwfl = p->proc.dwfl;
  twalk (p->by_range, report_again);
}

static void
new_module (struct elf_state *s, struct elf_proc *p,
	    const struct elf_file *f, const char *path, uint64_t bias)
{
  uint64_t low = bias + (f->vaddr_low & -4096ULL);
  uint64_t high = bias + f->vaddr_high;
  replace_overlapped (p, low, high);
  if (! p->reporting)
    {
      dwfl_report_begin_add (p->proc.dwfl);
      p->reporting = true;
    }
  Dwfl_Module *mod = dwfl_report_elf (p->proc.dwfl, path, path, -1, bias,
				      true);
  if (mod == NULL)
    {
      bench_failed (&s->failures, &s->emfile);
      return;
    }
  struct elf_module *m = malloc (sizeof *m);
  if (m == NULL)
    bench_fail ("out of memory");
  m->bias = bias;
  /* The range libdwfl gave it, as dwfl_report_module must find it.  */
  dwfl_module_info (mod, NULL, &m->low, &m->high, NULL, NULL, NULL, NULL);
  void **slot = table_slot (p->by_file, path, 0, 0, true);
  m->path = table_key (p->by_file, path, 0, 0);
  m->next = *slot;
  *slot = m;
  tsearch (m, &p->by_range, compare_ranges);
}

static void
elf_piece (void *state, const struct piece *piece)
{
  struct elf_state *s = state;
  struct elf_proc *p = bench_proc (s->procs, piece->pid, sizeof *p);
  if (p->by_file == NULL)
    p->by_file = table_new ();

  /* A piece that starts inside a module of its file is that module's.
     (Its end can lie past the module's, which is not page-aligned.)  */
  struct elf_module key = { .low = piece->start, .high = piece->start + 1 };
  void *node = tfind (&key, &p->by_range, compare_ranges);
  if (node != NULL
      && strcmp ((*(struct elf_module **) node)->path, piece->path) == 0)
    return;

  /* A gap the loader left carries no segment.  */
  if (piece->prot == 0)
    return;
  struct elf_file *f = elf_file (s, piece->path);
  uint64_t bias;
  if (f == NULL || ! layout_piece_bias (&f->layout, piece, &bias))
    {
      s->failures++;
      return;
    }
  void **slot = table_slot (p->by_file, piece->path, 0, 0, false);
  for (struct elf_module *m = slot ? *slot : NULL; m != NULL; m = m->next)
    if (m->bias == bias)
      return;
  new_module (s, p, f, piece->path, bias);
}

static void
elf_flush (void *state, long pid)
{
  struct elf_state *s = state;
  struct elf_proc *p = bench_proc (s->procs, pid, sizeof *p);
  if (p->reporting)
    {
      dwfl_report_end (p->proc.dwfl, NULL, NULL);
      p->reporting = false;
    }
}

static bool
elf_lookup (void *state, long pid, uint64_t addr)
{
  struct elf_state *s = state;
  struct elf_proc *p = bench_proc (s->procs, pid, sizeof *p);
  return dwfl_addrmodule (p->proc.dwfl, addr) != NULL;
}

static void
elf_check (void *state, const struct truth *truth,
	   struct check_counts *counts)
{
  struct elf_state *s = state;
  bench_procs_check (s->procs, truth, counts);
}

static void
free_extra (void *proc)
{
  struct elf_proc *p = proc;
  tdestroy (p->by_range, free);
  if (p->by_file != NULL)
    table_free (p->by_file, NULL);
}

static void
elf_failures (void *state, size_t *failed, size_t *emfile)
{
  struct elf_state *s = state;
  *failed = s->failures;
  *emfile = s->emfile;
}

static void
elf_finish (void *state)
{
  struct elf_state *s = state;
  bench_procs_free (s->procs, free_extra);
  table_free (s->files, free);
  free (s);
}

const struct contender contender_report_elf =
{
  .name = "report-elf",
  .start = elf_start,
  .piece = elf_piece,
  .flush = elf_flush,
  .lookup = elf_lookup,
  .check = elf_check,
  .finish = elf_finish,
  .failures = elf_failures,
};
