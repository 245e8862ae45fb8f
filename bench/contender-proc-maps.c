/* Contender (c): dwfl_linux_proc_maps_report.  It reads a whole maps
   file, so the contender keeps each process's mappings as the kernel
   would show them (a new piece cuts away what it overlaps) and, at the
   end of each batch, writes them as maps text and reports all of it in a
   new report session.  Unchanged modules are kept by dwfl_report_module;
   files are opened only when a module's ELF is first needed.  */

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <libdwfl.h>

#include "bench.h"

struct maps_line
{
  uint64_t start, end, pgoff;
  int prot;
  const char *path;		/* The state's copy.  */
  uint64_t ino;			/* Distinct per file, as the kernel's.  */
};

struct maps_proc
{
  struct bench_proc proc;
  struct maps_line *lines;	/* Sorted by address, disjoint.  */
  size_t nlines, alloc;
  bool changed;
};

struct maps_state
{
  struct table *paths;		/* (path, 0, 0) to its inode number.  */
  struct table *procs;
  char *text;			/* The maps text of one report.  */
  size_t text_alloc;
  size_t failures;
};

static void *
maps_start (void)
{
  struct maps_state *s = calloc (1, sizeof *s);
  if (s == NULL)
    bench_fail ("out of memory");
  s->paths = table_new ();
  s->procs = table_new ();
  return s;
}

/* The index of the first line of P that ends above ADDR.  */
static size_t
first_above (const struct maps_proc *p, uint64_t addr)
{
  size_t lo = 0, hi = p->nlines;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (p->lines[mid].end <= addr)
	lo = mid + 1;
      else
	hi = mid;
    }
  return lo;
}

/* Put LINE into P, cutting away what it overlaps, as mmap does.  */
static void
insert_line (struct maps_proc *p, const struct maps_line *line)
{
  if (p->nlines + 2 > p->alloc)
    {
      p->alloc = p->alloc ? 2 * p->alloc : 64;
      p->lines = realloc (p->lines, p->alloc * sizeof p->lines[0]);
      if (p->lines == NULL)
	bench_fail ("out of memory");
    }
  size_t i = first_above (p, line->start);
  /* A line reaching over both ends of the new one is split in two.  */
  if (i < p->nlines && p->lines[i].start < line->start
      && p->lines[i].end > line->end)
    {
      memmove (&p->lines[i + 1], &p->lines[i],
	       (p->nlines - i) * sizeof p->lines[0]);
      p->nlines++;
      struct maps_line *upper = &p->lines[i + 1];
      upper->pgoff += line->end - upper->start;
      upper->start = line->end;
      p->lines[i].end = line->start;
      i++;
    }
  else if (i < p->nlines && p->lines[i].start < line->start)
    p->lines[i++].end = line->start;
  size_t j = i;
  while (j < p->nlines && p->lines[j].end <= line->end)
    j++;
  if (j < p->nlines && p->lines[j].start < line->end)
    {
      p->lines[j].pgoff += line->end - p->lines[j].start;
      p->lines[j].start = line->end;
    }
  /* Lines I .. J-1 are covered: the new one takes their place.  */
  memmove (&p->lines[i + 1], &p->lines[j],
	   (p->nlines - j) * sizeof p->lines[0]);
  p->nlines = p->nlines - (j - i) + 1;
  p->lines[i] = *line;
}

static void
maps_piece (void *state, const struct piece *piece)
{
  struct maps_state *s = state;
  struct maps_proc *p = bench_proc (s->procs, piece->pid, sizeof *p);
  void **slot = table_slot (s->paths, piece->path, 0, 0, true);
  if (*slot == NULL)
    *slot = (void *) (uintptr_t) table_count (s->paths);
  struct maps_line line =
    {
      .start = piece->start,
      .end = piece->start + piece->len,
      .pgoff = piece->pgoff,
      .prot = piece->prot,
      .path = table_key (s->paths, piece->path, 0, 0),
      .ino = (uintptr_t) *slot,
    };
  insert_line (p, &line);
  p->changed = true;
}

/* Append one line of maps text to the state's buffer.  */
static void
append_line (struct maps_state *s, size_t *len, const struct maps_line *l)
{
  char prot[4];
  prot_letters (l->prot < 0 ? PROT_READ : l->prot, prot);
  for (;;)
    {
      size_t room = s->text_alloc - *len;
      int n = snprintf (s->text + *len, room,
			"%lx-%lx %sp %08lx 08:01 %lu %s\n",
			(unsigned long) l->start, (unsigned long) l->end,
			prot, (unsigned long) l->pgoff,
			(unsigned long) l->ino, l->path);
      if ((size_t) n < room)
	{
	  *len += n;
	  return;
	}
      s->text_alloc = s->text_alloc ? 2 * s->text_alloc : 1 << 16;
      s->text = realloc (s->text, s->text_alloc);
      if (s->text == NULL)
	bench_fail ("out of memory");
    }
}

static void
maps_flush (void *state, long pid)
{
  struct maps_state *s = state;
  struct maps_proc *p = bench_proc (s->procs, pid, sizeof *p);
  if (! p->changed)
    return;
  p->changed = false;
  size_t len = 0;
  for (size_t i = 0; i < p->nlines; ++i)
    append_line (s, &len, &p->lines[i]);
  FILE *f = fmemopen (s->text, len, "r");
  if (f == NULL)
    bench_fail ("fmemopen failed");
  dwfl_report_begin (p->proc.dwfl);
  if (dwfl_linux_proc_maps_report (p->proc.dwfl, f) != 0)
    s->failures++;
  dwfl_report_end (p->proc.dwfl, NULL, NULL);
  fclose (f);
}

static bool
maps_lookup (void *state, long pid, uint64_t addr)
{
  struct maps_state *s = state;
  struct maps_proc *p = bench_proc (s->procs, pid, sizeof *p);
  return dwfl_addrmodule (p->proc.dwfl, addr) != NULL;
}

static void
maps_check (void *state, const struct truth *truth,
	    struct check_counts *counts)
{
  struct maps_state *s = state;
  bench_procs_check (s->procs, truth, counts);
}

static void
free_extra (void *proc)
{
  free (((struct maps_proc *) proc)->lines);
}

static void
maps_finish (void *state)
{
  struct maps_state *s = state;
  bench_procs_free (s->procs, free_extra);
  table_free (s->paths, NULL);
  free (s->text);
  free (s);
}

const struct contender contender_proc_maps =
{
  .name = "proc-maps",
  .start = maps_start,
  .piece = maps_piece,
  .flush = maps_flush,
  .lookup = maps_lookup,
  .check = maps_check,
  .finish = maps_finish,
};
