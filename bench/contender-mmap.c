/* Contender (a): each piece goes to dwfl_report_elf_mmap as it is, in a
   report session of its own (or of its batch), as a profiler does while
   it looks up samples between mmap events.  Three ways of naming the
   file: (a) by FILE_NAME alone; (a-fd) with a descriptor the caller
   opened once for each file, shared by all processes, passed with every
   piece of the file; (a-elf) with dwfl_report_elf_mmap_elf and an Elf
   the caller made once for each file (elf_begin ELF_C_READ on such a
   descriptor), shared by all processes' Dwfls.  The caller's open and
   elf_begin are timed with the piece that needs them.  */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <libdwfl.h>

#include "bench.h"

enum how
{
  BY_NAME,
  BY_FD,
  BY_ELF,
};

/* A file as the caller has it: FD -1 (and ERROR the errno of open) and
   ELF NULL if it could not be opened, or is no ELF file.  */
struct caller_file
{
  int fd;
  int error;
  Elf *elf;
};

struct mmap_proc
{
  struct bench_proc proc;
  bool reporting;		/* Between dwfl_report_begin_add and _end.  */
};

struct mmap_state
{
  enum how how;
  struct table *procs;		/* ("", pid, 0) to struct mmap_proc.  */
  struct table *files;		/* (path, 0, 0) to struct caller_file;
				   NULL for BY_NAME.  */
  long own_fds;
  size_t failures;		/* Pieces libdwfl refused, gaps included.  */
  size_t emfile;		/* Of those, for want of a descriptor.  */
};

static void *
start (enum how how)
{
  struct mmap_state *s = calloc (1, sizeof *s);
  if (s == NULL)
    bench_fail ("out of memory");
  s->how = how;
  s->procs = table_new ();
  if (how != BY_NAME)
    s->files = table_new ();
  /* For the caller's own elf_begin.  */
  elf_version (EV_CURRENT);
  return s;
}

static void *
mmap_start (void)
{
  return start (BY_NAME);
}

static void *
mmap_fd_start (void)
{
  return start (BY_FD);
}

static void *
mmap_elf_start (void)
{
  return start (BY_ELF);
}

static struct mmap_proc *
mmap_proc (struct mmap_state *s, long pid)
{
  return bench_proc (s->procs, pid, sizeof (struct mmap_proc));
}

/* The caller's file at PATH, opened the first time.  */
static struct caller_file *
caller_file (struct mmap_state *s, const char *path)
{
  void **slot = table_slot (s->files, path, 0, 0, true);
  if (*slot != NULL)
    return *slot;
  struct caller_file *f = malloc (sizeof *f);
  if (f == NULL)
    bench_fail ("out of memory");
  f->fd = open (path, O_RDONLY | O_CLOEXEC);
  f->error = errno;
  f->elf = NULL;
  if (f->fd >= 0)
    s->own_fds++;
  if (f->fd >= 0 && s->how == BY_ELF)
    {
      f->elf = elf_begin (f->fd, ELF_C_READ, NULL);
      if (f->elf != NULL && elf_kind (f->elf) != ELF_K_ELF)
	{
	  elf_end (f->elf);
	  f->elf = NULL;
	}
    }
  *slot = f;
  return f;
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
  Dwfl_Module *mod = NULL;
  struct caller_file *f = NULL;
  switch (s->how)
    {
    case BY_NAME:
      mod = dwfl_report_elf_mmap (p->proc.dwfl, NULL, piece->path, -1,
				  piece->start, piece->len, piece->pgoff,
				  piece->prot);
      break;
    case BY_FD:
      f = caller_file (s, piece->path);
      if (f->fd >= 0)
	mod = dwfl_report_elf_mmap (p->proc.dwfl, NULL, piece->path, f->fd,
				    piece->start, piece->len, piece->pgoff,
				    piece->prot);
      break;
    case BY_ELF:
      f = caller_file (s, piece->path);
      if (f->elf != NULL)
	mod = dwfl_report_elf_mmap_elf (p->proc.dwfl, NULL, piece->path,
					f->elf, piece->start, piece->len,
					piece->pgoff, piece->prot);
      break;
    }
  if (f != NULL && f->fd < 0)
    {
      /* The caller could not open it.  */
      s->failures++;
      s->emfile += f->error == EMFILE;
    }
  else if (mod == NULL)
    bench_failed (&s->failures, &s->emfile);
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
free_caller_file (void *value)
{
  struct caller_file *f = value;
  elf_end (f->elf);
  if (f->fd >= 0)
    close (f->fd);
  free (f);
}

static void
mmap_finish (void *state)
{
  struct mmap_state *s = state;
  /* The Dwfls first: their modules may read the caller's files.  */
  bench_procs_free (s->procs, NULL);
  if (s->files != NULL)
    table_free (s->files, free_caller_file);
  free (s);
}

static void
mmap_failures (void *state, size_t *failed, size_t *emfile)
{
  struct mmap_state *s = state;
  *failed = s->failures;
  *emfile = s->emfile;
}

static long
mmap_own_fds (void *state)
{
  struct mmap_state *s = state;
  return s->own_fds;
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
  .failures = mmap_failures,
};

const struct contender contender_mmap_fd =
{
  .name = "mmap-fd",
  .start = mmap_fd_start,
  .piece = mmap_piece,
  .flush = mmap_flush,
  .lookup = mmap_lookup,
  .check = mmap_check,
  .finish = mmap_finish,
  .failures = mmap_failures,
  .own_fds = mmap_own_fds,
};

const struct contender contender_mmap_elf =
{
  .name = "mmap-elf",
  .start = mmap_elf_start,
  .piece = mmap_piece,
  .flush = mmap_flush,
  .lookup = mmap_lookup,
  .check = mmap_check,
  .finish = mmap_finish,
  .failures = mmap_failures,
  .own_fds = mmap_own_fds,
};
