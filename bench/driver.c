/* The benchmark driver: feeds the pieces of one input file to one
   contender, RUNS times with a fresh state each time, and prints the time
   of each phase of the input, the memory of the first run and what the
   contender's modules look like against the truth.  With -m it also
   times each piece and prints the median piece of each phase: on a
   shared machine, a run of a few milliseconds that the scheduler
   interrupts once is slower by a whole time slice, a median piece is
   not.  Output lines are "key=value" pairs for run.sh to summarize.
   Usage: bench-driver [-r RUNS] [-l] [-b] [-m] [-k MAX] [-p PHASES]
			[-t TRUTH] CONTENDER INPUT  */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "bench.h"

/* The driver linked with an elfutils without the series (make
   BENCH_PRISTINE) has only the contenders that need none of it.  */
static const struct contender *const contenders[] =
{
#ifndef BENCH_PRISTINE
  &contender_mmap, &contender_mmap_fd, &contender_mmap_elf,
  &contender_report_elf, &contender_proc_maps, &contender_mixed,
#endif
  &contender_module, &contender_floor, &contender_floor_open,
  &contender_floor_libelf,
};

struct phase
{
  const char *name;
  char **lines;
  size_t count;
};

struct options
{
  int runs;
  bool lookup;			/* A dwfl_addrmodule after every piece.  */
  bool batch;			/* Flush only when the process changes.  */
  bool piece_times;		/* Time each piece too.  */
  size_t max;			/* At most this many pieces per phase.  */
  const char *phases;		/* Comma-separated names to run, or NULL.  */
  const char *truth;
};

struct input
{
  struct phase *phases;
  size_t nphases;
  long modules;			/* From "@modules N", or -1.  */
};

static void
usage (void)
{
  fprintf (stderr, "usage: bench-driver [-r RUNS] [-l] [-b] [-m] [-k MAX] "
	   "[-p PHASES] [-t TRUTH] CONTENDER INPUT\n");
  exit (2);
}

static char *
read_file (const char *file_name)
{
  FILE *f = fopen (file_name, "r");
  if (f == NULL)
    bench_fail ("%s: %s", file_name, strerror (errno));
  char *text = NULL;
  size_t size = 0;
  if (getdelim (&text, &size, '\0', f) < 0 && ! feof (f))
    bench_fail ("%s: %s", file_name, strerror (errno));
  fclose (f);
  return text ? text : strdup ("");
}

/* A growing array of pointers.  */
static void
push (void *array, size_t *count, size_t *alloc, size_t size,
      const void *elem)
{
  void **base = array;
  if (*count == *alloc)
    {
      *alloc = *alloc ? 2 * *alloc : 1024;
      *base = realloc (*base, *alloc * size);
      if (*base == NULL)
	bench_fail ("out of memory");
    }
  memcpy ((char *) *base + (*count)++ * size, elem, size);
}

/* Split TEXT into lines in place, grouped by its "@phase" directives; the
   pieces before the first one are the phase "all".  */
static void
split_input (char *text, struct input *input)
{
  char **lines = NULL;
  size_t nlines = 0, lines_alloc = 0;
  struct phase *phases = NULL;
  size_t nphases = 0, phases_alloc = 0;
  size_t *starts = NULL;	/* Index of each phase's first line.  */
  size_t nstarts = 0, starts_alloc = 0;
  input->modules = -1;
  for (char *line = text, *next; *line != '\0'; line = next)
    {
      next = strchrnul (line, '\n');
      if (*next != '\0')
	*next++ = '\0';
      bool new_phase = strncmp (line, "@phase ", 7) == 0;
      if (strncmp (line, "@modules ", 9) == 0)
	input->modules = atol (line + 9);
      else if (new_phase || (line[0] != '@' && nphases == 0))
	{
	  struct phase phase = { new_phase ? line + 7 : "all", NULL, 0 };
	  push (&phases, &nphases, &phases_alloc, sizeof phase, &phase);
	  push (&starts, &nstarts, &starts_alloc, sizeof nlines, &nlines);
	}
      if (line[0] != '@' && line[0] != '\0')
	push (&lines, &nlines, &lines_alloc, sizeof line, &line);
    }
  for (size_t i = 0; i < nphases; ++i)
    {
      size_t end = i + 1 < nphases ? starts[i + 1] : nlines;
      phases[i].lines = lines + starts[i];
      phases[i].count = end - starts[i];
    }
  free (starts);
  input->phases = phases;
  input->nphases = nphases;
}

static bool
phase_selected (const struct options *opt, const char *name)
{
  if (opt->phases == NULL)
    return true;
  size_t len = strlen (name);
  for (const char *p = opt->phases; *p != '\0'; p += strcspn (p, ","),
       p += *p == ',')
    if (strncmp (p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
      return true;
  return false;
}

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The pieces of one phase, parse included, and with -m the time of each
   in TIMES.  Under callgrind, instructions are counted only inside this
   function (--toggle-collect=run_phase).  */
static __attribute__ ((noinline)) size_t
run_phase (const struct contender *c, void *state,
	   const struct phase *phase, size_t count,
	   const struct options *opt, size_t *hits, uint64_t *times)
{
  long batch_pid = -1;
  size_t done = 0;
  for (size_t i = 0; i < count; ++i)
    {
      uint64_t t0 = times != NULL ? now_ns () : 0;
      struct piece piece;
      if (! piece_parse (phase->lines[i], &piece))
	bench_fail ("bad piece: %s", phase->lines[i]);
      if (opt->batch && batch_pid != piece.pid && batch_pid != -1)
	c->flush (state, batch_pid);
      batch_pid = piece.pid;
      c->piece (state, &piece);
      if (! opt->batch)
	c->flush (state, piece.pid);
      if (opt->lookup)
	*hits += c->lookup (state, piece.pid, piece.start);
      if (times != NULL)
	times[i] = now_ns () - t0;
      done++;
    }
  if (opt->batch && batch_pid != -1)
    c->flush (state, batch_pid);
  return done;
}

static int
compare_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* /proc/self/status and /proc/self/fd, open from the start: when a
   contender has used up the descriptors, opening them would fail.  */
static FILE *status_file;
static DIR *fd_dir;

/* A field of /proc/self/status, in kB.  */
static long
status_kb (const char *field)
{
  char line[256];
  long kb = -1;
  size_t len = strlen (field);
  if (status_file != NULL)
    rewind (status_file);
  while (status_file != NULL
	 && fgets (line, sizeof line, status_file) != NULL)
    if (strncmp (line, field, len) == 0 && line[len] == ':')
      kb = atol (line + len + 1);
  return kb;
}

/* The bytes malloc has handed out and not had back.  */
static size_t
heap_bytes (void)
{
  struct mallinfo2 mi = mallinfo2 ();
  return mi.uordblks + mi.hblkhd;
}

/* The descriptors this process has open.  */
static long
open_fds (void)
{
  if (fd_dir == NULL)
    return -1;
  rewinddir (fd_dir);
  long n = 0;
  struct dirent *d;
  while ((d = readdir (fd_dir)) != NULL)
    n += d->d_name[0] != '.';
  return n - 1;			/* Not FD_DIR's own.  */
}

/* A module of dwfl_report_elf holds an open file: allow as many as the
   system does.  */
static void
raise_file_limit (void)
{
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) != 0)
    return;
  struct rlimit want = { 1 << 20, 1 << 20 };
  if (setrlimit (RLIMIT_NOFILE, &want) != 0)
    {
      rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_NOFILE, &rl);
    }
  getrlimit (RLIMIT_NOFILE, &rl);
  printf ("nofile=%lu\n", (unsigned long) rl.rlim_cur);
}

static void
run_once (const struct contender *c, const struct input *input,
	  const struct options *opt, const struct truth *truth, int run)
{
  long rss_start = status_kb ("VmRSS");
  size_t heap_start = heap_bytes ();
  long fds_start = open_fds ();
  void *state = c->start ();
  size_t hits = 0;
  for (size_t i = 0; i < input->nphases; ++i)
    {
      const struct phase *phase = &input->phases[i];
      if (! phase_selected (opt, phase->name))
	continue;
      size_t count = phase->count < opt->max ? phase->count : opt->max;
      uint64_t *times = NULL;
      if (opt->piece_times
	  && (times = malloc ((count + 1) * sizeof times[0])) == NULL)
	bench_fail ("out of memory");
      uint64_t t0 = now_ns ();
      size_t done = run_phase (c, state, phase, count, opt, &hits, times);
      uint64_t t1 = now_ns ();
      printf ("run=%d phase=%s pieces=%zu ns=%llu", run, phase->name,
	      done, (unsigned long long) (t1 - t0));
      if (times != NULL && done > 0)
	{
	  qsort (times, done, sizeof times[0], compare_u64);
	  printf (" median_piece_ns=%llu",
		  (unsigned long long) times[done / 2]);
	}
      putchar ('\n');
      free (times);
      /* What the modules hold before anything asks for their ELF.  */
      if (run == 1)
	{
	  /* Those the contender holds itself are counted apart.  */
	  long own = c->own_fds != NULL ? c->own_fds (state) : 0;
	  printf ("mem phase=%s rss_start_kb=%ld hwm_kb=%ld heap_bytes=%zd "
		  "fds=%ld own_fds=%ld\n", phase->name, rss_start,
		  status_kb ("VmHWM"), (ssize_t) (heap_bytes () - heap_start),
		  open_fds () - fds_start - own, own);
	}
    }
  if (opt->lookup)
    printf ("run=%d lookup_hits=%zu\n", run, hits);
  if (c->failures != NULL)
    {
      size_t failed, emfile;
      c->failures (state, &failed, &emfile);
      printf ("run=%d failures=%zu emfile=%zu\n", run, failed, emfile);
    }
  if (run == 1 && truth != NULL && c->check != NULL)
    {
      struct check_counts counts = { 0, 0, 0 };
      c->check (state, truth, &counts);
      printf ("check modules=%zu wrong=%zu unknown=%zu\n",
	      counts.modules, counts.wrong, counts.unknown);
    }
  c->finish (state);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  struct options opt = { .runs = 1, .max = (size_t) -1 };
  int c;
  while ((c = getopt (argc, argv, "r:lbmk:p:t:")) != -1)
    switch (c)
      {
      case 'r':
	opt.runs = atoi (optarg);
	break;
      case 'l':
	opt.lookup = true;
	break;
      case 'b':
	opt.batch = true;
	break;
      case 'm':
	opt.piece_times = true;
	break;
      case 'k':
	opt.max = strtoul (optarg, NULL, 10);
	break;
      case 'p':
	opt.phases = optarg;
	break;
      case 't':
	opt.truth = optarg;
	break;
      default:
	usage ();
      }
  if (argc - optind != 2 || opt.runs < 1)
    usage ();

  const struct contender *contender = NULL;
  for (size_t i = 0; i < sizeof contenders / sizeof contenders[0]; ++i)
    if (strcmp (contenders[i]->name, argv[optind]) == 0)
      contender = contenders[i];
  if (contender == NULL)
    bench_fail ("no contender %s", argv[optind]);

  raise_file_limit ();
  status_file = fopen ("/proc/self/status", "r");
  fd_dir = opendir ("/proc/self/fd");
  struct input input;
  split_input (read_file (argv[optind + 1]), &input);
  struct truth *truth = opt.truth ? truth_read (opt.truth) : NULL;
  printf ("contender=%s modules=%ld\n", contender->name, input.modules);
  for (int run = 1; run <= opt.runs; ++run)
    run_once (contender, &input, &opt, truth, run);
  return 0;
}
