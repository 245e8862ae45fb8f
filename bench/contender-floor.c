/* Contender (d), the floor: what any contender must do for a piece, parse
   it (the driver does) and find what is known of its file and base with
   one hash lookup.  No libdwfl.  Contender (d+), floor-open, is the
   floor of a piece of a file not seen before: the same, and for the
   first piece of each file in each process, open it, read its ELF header
   and program headers and close it, the least that learning the file's
   layout takes (a Dwfl is one process, and knows only its own files).
   (d+elf), floor-libelf, reads the same through libelf, as
   dwfl_report_elf_mmap does: one pread of the file's first 4 KiB, where
   the headers lie, elf_memory of that, gelf_getehdr, elf_getphdrnum and
   gelf_getphdr, elf_end.  */

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <gelf.h>

#include "bench.h"

struct floor_state
{
  struct table *known;		/* (path, pid, start - pgoff).  */
  struct table *files;		/* (path, pid, 0), for floor-open.  */
  size_t pieces;
  size_t failures;
};

static void *
floor_start (void)
{
  struct floor_state *s = calloc (1, sizeof *s);
  if (s == NULL)
    bench_fail ("out of memory");
  s->known = table_new ();
  s->files = table_new ();
  elf_version (EV_CURRENT);
  return s;
}

static void
floor_piece (void *state, const struct piece *piece)
{
  struct floor_state *s = state;
  void **slot = table_slot (s->known, piece->path, piece->pid,
			    piece->start - piece->pgoff, true);
  /* Something to store, so that the lookup is not optimized away.  */
  *slot = (void *) (uintptr_t) ++s->pieces;
}

static void
floor_open_piece (void *state, const struct piece *piece)
{
  struct floor_state *s = state;
  void **slot = table_slot (s->files, piece->path, piece->pid, 0, true);
  if (*slot == NULL)
    {
      *slot = s;
      s->failures += ! elf_headers_read (piece->path);
    }
  floor_piece (state, piece);
}

/* What elf_headers_read does, through libelf.  */
static bool
elf_headers_read_libelf (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  union { char bytes[4096]; GElf_Xword align; } head;
  ssize_t n = pread (fd, head.bytes, sizeof head.bytes, 0);
  Elf *elf = n > 0 ? elf_memory (head.bytes, n) : NULL;
  GElf_Ehdr ehdr;
  size_t phnum;
  bool ok = (elf != NULL && gelf_getehdr (elf, &ehdr) != NULL
	     && elf_getphdrnum (elf, &phnum) == 0);
  for (size_t i = 0; ok && i < phnum; ++i)
    {
      GElf_Phdr phdr;
      ok = gelf_getphdr (elf, i, &phdr) != NULL;
    }
  elf_end (elf);
  close (fd);
  return ok;
}

static void
floor_libelf_piece (void *state, const struct piece *piece)
{
  struct floor_state *s = state;
  void **slot = table_slot (s->files, piece->path, piece->pid, 0, true);
  if (*slot == NULL)
    {
      *slot = s;
      s->failures += ! elf_headers_read_libelf (piece->path);
    }
  floor_piece (state, piece);
}

static void
floor_flush (void *state __attribute__ ((unused)),
	     long pid __attribute__ ((unused)))
{
}

static bool
floor_lookup (void *state __attribute__ ((unused)),
	      long pid __attribute__ ((unused)),
	      uint64_t addr __attribute__ ((unused)))
{
  return false;
}

static void
floor_finish (void *state)
{
  struct floor_state *s = state;
  table_free (s->known, NULL);
  table_free (s->files, NULL);
  free (s);
}

const struct contender contender_floor =
{
  .name = "floor",
  .start = floor_start,
  .piece = floor_piece,
  .flush = floor_flush,
  .lookup = floor_lookup,
  .check = NULL,
  .finish = floor_finish,
};

const struct contender contender_floor_open =
{
  .name = "floor-open",
  .start = floor_start,
  .piece = floor_open_piece,
  .flush = floor_flush,
  .lookup = floor_lookup,
  .check = NULL,
  .finish = floor_finish,
};

const struct contender contender_floor_libelf =
{
  .name = "floor-libelf",
  .start = floor_start,
  .piece = floor_libelf_piece,
  .flush = floor_flush,
  .lookup = floor_lookup,
  .check = NULL,
  .finish = floor_finish,
};
