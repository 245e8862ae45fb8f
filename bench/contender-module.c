/* Contender (e): what eu-stackprof (elfutils 0.196, src/stackprof.cxx,
   PerfConsumerUnwinder::process_mmap2) does with each PERF_RECORD_MMAP2
   event: dwfl_report_begin_add, dwfl_report_module (FILE, START,
   START + LEN), dwfl_report_end.  No bias is worked out and no file is
   read: each piece is a module of its own, found again only when the
   same piece comes again, and the file is opened when the module's ELF
   is first wanted (by the find_elf callback).  It needs nothing of the
   series, so it runs against today's libdwfl too.  */

#include <stdlib.h>
#include <libdwfl.h>

#include "bench.h"

struct module_state
{
  struct table *procs;		/* ("", pid, 0) to struct bench_proc.  */
  size_t failures;
};

static void *
module_start (void)
{
  struct module_state *s = calloc (1, sizeof *s);
  if (s == NULL)
    bench_fail ("out of memory");
  s->procs = table_new ();
  return s;
}

static Dwfl *
module_dwfl (struct module_state *s, long pid)
{
  struct bench_proc *p = bench_proc (s->procs, pid, sizeof *p);
  return p->dwfl;
}

static void
module_piece (void *state, const struct piece *piece)
{
  struct module_state *s = state;
  Dwfl *dwfl = module_dwfl (s, piece->pid);
  dwfl_report_begin_add (dwfl);
  if (dwfl_report_module (dwfl, piece->path, piece->start,
			  piece->start + piece->len) == NULL)
    s->failures++;
}

static void
module_flush (void *state, long pid)
{
  dwfl_report_end (module_dwfl (state, pid), NULL, NULL);
}

static bool
module_lookup (void *state, long pid, uint64_t addr)
{
  return dwfl_addrmodule (module_dwfl (state, pid), addr) != NULL;
}

static void
module_finish (void *state)
{
  struct module_state *s = state;
  bench_procs_free (s->procs, NULL);
  free (s);
}

/* No check: the bias of a module of dwfl_report_module is worked out
   only when its file is opened, from where the piece is, and a piece
   that is not the file's first segment gets a wrong one; judging them
   would open every file.  */
const struct contender contender_module =
{
  .name = "module",
  .start = module_start,
  .piece = module_piece,
  .flush = module_flush,
  .lookup = module_lookup,
  .check = NULL,
  .finish = module_finish,
};
