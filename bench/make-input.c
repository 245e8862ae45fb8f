/* Make the benchmark's inputs, lines of pieces as bench.h describes them,
   and the truth the contenders are judged by.
   Usage: make-input perf [SINCE] < PERF-SCRIPT-OUTPUT > PIECES
	  make-input maps [SINCE [PROC]] > PIECES
	  make-input truth < PIECES > TRUTH
	  make-input synth N TOTAL TRUTH LIB... > PIECES
   perf reads the PERF_RECORD_MMAP2 lines of perf script --show-mmap-events,
   maps the /proc/PID/maps of every process; both keep only pieces of
   64-bit ELF executables and shared objects, and with SINCE (seconds
   since the epoch) only of files not modified since then and, for perf,
   that are still the file (inode) that was mapped: a file rewritten in
   place while a contender maps it can vanish under it (SIGBUS), and one
   replaced is not what was mapped.  synth maps the LIBs in turn
   at N addresses, piece by piece as the dynamic loader does, then repeats
   pieces of them until there are TOTAL pieces.  */

#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "bench.h"

static const char usage_text[] =
  "usage: make-input perf [SINCE] < PERF-SCRIPT-OUTPUT\n"
  "       make-input maps [SINCE [PROC]]\n"
  "       make-input truth < PIECES\n"
  "       make-input synth N TOTAL TRUTH LIB...\n";

static uint64_t page_size;

static uint64_t
page_down (uint64_t x)
{
  return x & -page_size;
}

static uint64_t
page_up (uint64_t x)
{
  return (x + page_size - 1) & -page_size;
}

/* A separate debug file has the PT_LOADs of its object but not their
   bytes: nothing loads it, and a mapping of it is data.  */
static bool
is_debug_file (const struct elf_layout *l)
{
  for (size_t i = 0; i < l->nloads; ++i)
    if ((l->loads[i].flags & PF_X) && l->loads[i].filesz == 0)
      return true;
  return false;
}

/* The layout of PATH, read once; NULL if it is no ELF file of ours.  */
static const struct elf_layout *
layout_of (struct table *cache, const char *path)
{
  void **slot = table_slot (cache, path, 0, 0, true);
  if (*slot == NULL)
    {
      struct elf_layout *l = malloc (sizeof *l);
      if (l == NULL)
	bench_fail ("out of memory");
      if (! elf_layout_read (path, l) || is_debug_file (l))
	l->nloads = 0;
      *slot = l;
    }
  const struct elf_layout *l = *slot;
  return l->nloads > 0 ? l : NULL;
}

/* Files modified at or after this time are left out; 0 keeps all.  */
static time_t stable_since;

/* Whether PATH is unchanged since STABLE_SINCE and, if INO is not 0, is
   still the file with inode INO; remembered in CACHE.  */
static bool
stable (struct table *cache, const char *path, uint64_t ino)
{
  if (stable_since == 0)
    return true;
  void **slot = table_slot (cache, path, ino, 1, true);
  if (*slot == NULL)
    {
      struct stat st;
      bool ok = (stat (path, &st) == 0 && st.st_mtime < stable_since
		 && (ino == 0 || st.st_ino == ino));
      *slot = ok ? (void *) cache : (void *) path;
    }
  return *slot == cache;
}

/* Parse maps' "rwxp" into PROT_* bits.  */
static int
parse_perms (const char *s)
{
  return ((s[0] == 'r' ? PROT_READ : 0) | (s[1] == 'w' ? PROT_WRITE : 0)
	  | (s[2] == 'x' ? PROT_EXEC : 0));
}

static void
print_piece (long pid, uint64_t start, uint64_t len, uint64_t pgoff,
	     int prot, const char *path)
{
  char letters[4];
  prot_letters (prot, letters);
  printf ("%ld %llx %llx %llx %s %s\n", pid, (unsigned long long) start,
	  (unsigned long long) len, (unsigned long long) pgoff, letters, path);
}

/* "comm PID/TID [cpu] time: PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN)
   @ PGOFF MAJ:MIN INO GEN]: PROT PATH".  */
static int
from_perf (void)
{
  struct table *cache = table_new ();
  char *line = NULL;
  size_t size = 0;
  ssize_t len;
  while ((len = getline (&line, &size, stdin)) > 0)
    {
      if (line[len - 1] == '\n')
	line[len - 1] = '\0';
      const char *p = strstr (line, "PERF_RECORD_MMAP2 ");
      long pid;
      unsigned long long start, length, pgoff, ino;
      char perms[5];
      int path_at;
      if (p == NULL
	  || sscanf (p, "PERF_RECORD_MMAP2 %ld/%*d: [%llx(%llx) @ %llx "
		     "%*x:%*x %llu %*u]: %4s %n", &pid, &start, &length,
		     &pgoff, &ino, perms, &path_at) < 6
	  || p[path_at] != '/'
	  || ! stable (cache, p + path_at, ino)
	  || layout_of (cache, p + path_at) == NULL)
	continue;
      print_piece (pid, start, length, pgoff, parse_perms (perms),
		   p + path_at);
    }
  free (line);
  return 0;
}

static void
maps_of (struct table *cache, const char *proc, long pid)
{
  char *name;
  if (asprintf (&name, "%s/%ld/maps", proc, pid) < 0)
    bench_fail ("out of memory");
  FILE *f = fopen (name, "r");
  free (name);
  if (f == NULL)
    return;			/* The process is gone.  */
  char *line = NULL;
  size_t size = 0;
  ssize_t len;
  while ((len = getline (&line, &size, f)) > 0)
    {
      if (line[len - 1] == '\n')
	line[len - 1] = '\0';
      unsigned long long start, end, pgoff;
      char perms[5];
      int path_at = 0;
      if (sscanf (line, "%llx-%llx %4s %llx %*x:%*x %*u %n", &start, &end,
		  perms, &pgoff, &path_at) < 4
	  || path_at == 0 || line[path_at] != '/'
	  || ! stable (cache, line + path_at, 0)
	  || layout_of (cache, line + path_at) == NULL)
	continue;
      print_piece (pid, start, end - start, pgoff, parse_perms (perms),
		   line + path_at);
    }
  free (line);
  fclose (f);
}

static int
from_maps (const char *proc)
{
  struct table *cache = table_new ();
  DIR *dir = opendir (proc);
  if (dir == NULL)
    bench_fail ("cannot open %s", proc);
  struct dirent *d;
  while ((d = readdir (dir)) != NULL)
    {
      char *end;
      long pid = strtol (d->d_name, &end, 10);
      if (end != d->d_name && *end == '\0')
	maps_of (cache, proc, pid);
    }
  closedir (dir);
  return 0;
}

static int
segment_prot (const struct load_segment *s)
{
  return ((s->flags & PF_R ? PROT_READ : 0) | (s->flags & PF_W ? PROT_WRITE : 0)
	  | (s->flags & PF_X ? PROT_EXEC : 0));
}

/* The executable pieces of one file in one process.  */
struct exec_ranges
{
  size_t count;
  struct { uint64_t start, end; } *ranges;
};

static void
add_exec_range (struct table *execs, const struct piece *piece)
{
  void **slot = table_slot (execs, piece->path, piece->pid, 0, true);
  if (*slot == NULL && (*slot = calloc (1, sizeof (struct exec_ranges))) == NULL)
    bench_fail ("out of memory");
  struct exec_ranges *r = *slot;
  r->ranges = realloc (r->ranges, (r->count + 1) * sizeof r->ranges[0]);
  if (r->ranges == NULL)
    bench_fail ("out of memory");
  r->ranges[r->count].start = piece->start;
  r->ranges[r->count++].end = piece->start + piece->len;
}

/* Whether PATH has an executable piece holding ADDR in process PID.  */
static bool
exec_at (struct table *execs, const char *path, long pid, uint64_t addr)
{
  void **slot = table_slot (execs, path, pid, 0, false);
  if (slot == NULL)
    return false;
  const struct exec_ranges *r = *slot;
  for (size_t i = 0; i < r->count; ++i)
    if (r->ranges[i].start <= addr && addr < r->ranges[i].end)
      return true;
  return false;
}

/* Where the loader maps the text of L, at BIAS: its first executable
   segment's first page.  */
static uint64_t
text_address (const struct elf_layout *l, uint64_t bias)
{
  for (size_t i = 0; i < l->nloads; ++i)
    if (l->loads[i].flags & PF_X)
      return bias + page_down (l->loads[i].vaddr);
  return bias;
}

/* Print the load LINE, a piece at file offset 0, tells of, if it tells
   of one not printed yet (see truth below).  */
static void
print_load (struct table *cache, struct table *seen, struct table *execs,
	    const char *line)
{
  struct piece piece;
  piece_parse (line, &piece);
  const struct elf_layout *l = layout_of (cache, piece.path);
  if (l == NULL || page_down (l->loads[0].offset) != 0
      || piece.prot != segment_prot (&l->loads[0]))
    return;
  uint64_t bias = (l->e_type == ET_EXEC ? 0
		   : piece.start - page_down (l->loads[0].vaddr));
  if (! exec_at (execs, piece.path, piece.pid, text_address (l, bias)))
    return;
  const struct load_segment *last = &l->loads[l->nloads - 1];
  uint64_t end = bias + page_up (last->vaddr + last->memsz);
  void **slot = table_slot (seen, piece.path, piece.pid, bias, true);
  if (*slot == NULL)
    {
      *slot = seen;
      printf ("%ld %llx %llx %llx %s\n", piece.pid,
	      (unsigned long long) bias, (unsigned long long) piece.start,
	      (unsigned long long) end, piece.path);
    }
}

/* The truth is the loader's rule, with this machine's page size: the
   first PT_LOAD is mapped from file offset page_down (p_offset) at
   bias + page_down (p_vaddr) with the segment's protection, so a piece
   at file offset 0 with that protection, of a file whose first segment
   starts in page 0, gives the bias start - page_down (p_vaddr).  ET_EXEC
   files have bias 0.  A load is there to run the file's code, so the
   loader mapped its text where that bias puts it: an executable piece
   of the file must hold that address.  That tells a load from the file
   mapped as data (as a linker reads its inputs, or a program copies
   one), which has no true bias.  */
static int
truth (void)
{
  struct table *cache = table_new ();
  struct table *seen = table_new ();
  struct table *execs = table_new ();
  char **lines = NULL;
  size_t nlines = 0;
  char *line = NULL;
  size_t size = 0;
  ssize_t len;
  while ((len = getline (&line, &size, stdin)) > 0)
    {
      if (line[len - 1] == '\n')
	line[len - 1] = '\0';
      struct piece piece;
      if (line[0] == '@' || ! piece_parse (line, &piece) || piece.prot <= 0)
	continue;
      if (piece.prot & PROT_EXEC)
	add_exec_range (execs, &piece);
      if (piece.pgoff != 0)
	continue;
      lines = realloc (lines, (nlines + 1) * sizeof lines[0]);
      if (lines == NULL || (lines[nlines++] = strdup (line)) == NULL)
	bench_fail ("out of memory");
    }
  free (line);

  for (size_t i = 0; i < nlines; ++i)
    {
      print_load (cache, seen, execs, lines[i]);
      free (lines[i]);
    }
  free (lines);
  return 0;
}

/* The pieces of one synthetic module, as the loader maps it.  */
struct synth_piece
{
  uint64_t start, len, pgoff;
  int prot;
};

struct synth_module
{
  const char *path;
  struct synth_piece pieces[2 * LAYOUT_MAX_LOADS + 1];
  size_t npieces;		/* The first is the whole span.  */
};

static void
add_piece (struct synth_module *m, uint64_t start, uint64_t end,
	   uint64_t pgoff, int prot)
{
  if (end > start)
    m->pieces[m->npieces++] = (struct synth_piece) { start, end - start,
						     pgoff, prot };
}

/* glibc's _dl_map_segments: the whole span with the first segment's file
   offset and protection, each later segment over it, PROT_NONE over the
   holes between them, then mprotect of the RELRO part to read-only.  */
static void
loader_pieces (struct synth_module *m, const struct elf_layout *l,
	       uint64_t bias)
{
  const struct load_segment *first = &l->loads[0];
  const struct load_segment *last = &l->loads[l->nloads - 1];
  uint64_t map_start = bias + page_down (first->vaddr);
  uint64_t first_pgoff = page_down (first->offset);
  m->npieces = 0;
  add_piece (m, map_start, bias + page_up (last->vaddr + last->memsz),
	     first_pgoff, segment_prot (first));
  uint64_t prev_end = bias + page_up (first->vaddr + first->filesz);
  for (size_t i = 1; i < l->nloads; ++i)
    {
      const struct load_segment *s = &l->loads[i];
      uint64_t start = bias + page_down (s->vaddr);
      add_piece (m, prev_end, start, first_pgoff + prev_end - map_start, 0);
      add_piece (m, start, bias + page_up (s->vaddr + s->filesz),
		 page_down (s->offset), segment_prot (s));
      prev_end = bias + page_up (s->vaddr + s->filesz);
    }
  if (l->has_relro)
    for (size_t i = 0; i < l->nloads; ++i)
      {
	const struct load_segment *s = &l->loads[i];
	if (l->relro_vaddr < s->vaddr
	    || l->relro_vaddr >= s->vaddr + s->memsz)
	  continue;
	uint64_t start = page_down (l->relro_vaddr);
	add_piece (m, bias + start,
		   bias + page_down (l->relro_vaddr + l->relro_memsz),
		   page_down (s->offset + start - s->vaddr), PROT_READ);
      }
}

static uint64_t
max_align (const struct elf_layout *l)
{
  uint64_t align = page_size;
  for (size_t i = 0; i < l->nloads; ++i)
    if (l->loads[i].align > align)
      align = l->loads[i].align;
  return align;
}

static void
print_synth (const struct synth_module *m, const struct synth_piece *p)
{
  print_piece (1, p->start, p->len, p->pgoff, p->prot, m->path);
}

/* A small deterministic generator, so that every run is fed the same.  */
static uint64_t
next_random (uint64_t *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static int
synth (long n, long total, const char *truth_name, char **libs, int nlibs)
{
  struct table *cache = table_new ();
  struct synth_module *mods = calloc (n, sizeof mods[0]);
  FILE *truth_file = fopen (truth_name, "w");
  if (mods == NULL || truth_file == NULL)
    bench_fail ("cannot make %s", truth_name);

  /* The modules one after the other from a high address, each at its
     file's alignment, as mmap places libraries.  */
  uint64_t cursor = 0x100000000000ULL;
  long npieces = 0;
  for (long k = 0; k < n; ++k)
    {
      const char *path = libs[k % nlibs];
      const struct elf_layout *l = layout_of (cache, path);
      if (l == NULL || l->e_type != ET_DYN)
	bench_fail ("%s: not a shared object", path);
      uint64_t align = max_align (l);
      uint64_t bias = (cursor - page_down (l->loads[0].vaddr) + align - 1)
		      & -align;
      mods[k].path = path;
      loader_pieces (&mods[k], l, bias);
      cursor = mods[k].pieces[0].start + mods[k].pieces[0].len;
      npieces += mods[k].npieces;
      fprintf (truth_file, "1 %llx %llx %llx %s\n", (unsigned long long) bias,
	       (unsigned long long) mods[k].pieces[0].start,
	       (unsigned long long) cursor, path);
    }
  fclose (truth_file);

  printf ("@modules %ld\n@phase first\n", n);
  for (long k = 0; k < n; ++k)
    print_synth (&mods[k], &mods[k].pieces[0]);
  printf ("@phase rest\n");
  for (long k = 0; k < n; ++k)
    for (size_t i = 1; i < mods[k].npieces; ++i)
      print_synth (&mods[k], &mods[k].pieces[i]);
  /* The rest are pieces of known modules that are not gaps, in random
     order: what a profiler sees once the libraries are in.  */
  printf ("@phase known\n");
  uint64_t rnd = 0x9e3779b97f4a7c15ULL;
  for (long i = npieces; i < total; )
    {
      const struct synth_module *m = &mods[next_random (&rnd) % n];
      const struct synth_piece *p
	= &m->pieces[next_random (&rnd) % m->npieces];
      if (p->prot != 0)
	{
	  print_synth (m, p);
	  i++;
	}
    }
  free (mods);
  return 0;
}

int
main (int argc, char **argv)
{
  page_size = sysconf (_SC_PAGESIZE);
  if ((argc == 2 || argc == 3) && strcmp (argv[1], "perf") == 0)
    {
      stable_since = argc == 3 ? atol (argv[2]) : 0;
      return from_perf ();
    }
  if (argc >= 2 && argc <= 4 && strcmp (argv[1], "maps") == 0)
    {
      stable_since = argc >= 3 ? atol (argv[2]) : 0;
      return from_maps (argc == 4 ? argv[3] : "/proc");
    }
  if (argc == 2 && strcmp (argv[1], "truth") == 0)
    return truth ();
  if (argc >= 6 && strcmp (argv[1], "synth") == 0)
    return synth (atol (argv[2]), atol (argv[3]), argv[4], argv + 5,
		  argc - 5);
  fputs (usage_text, stderr);
  return 2;
}
