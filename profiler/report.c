/* Printing samples and the flat profile.  */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define NSEC_PER_SEC UINT64_C (1000000000)
#define NSEC_PER_USEC UINT64_C (1000)

void
report_sample (FILE *out, const struct perf_sample *s,
	       const struct symbol_info *info)
{
  fprintf (out, "%" PRId32 " %" PRId32 " %" PRIu64 ".%06" PRIu64
	   " %" PRIx64 " %s ", s->pid, s->tid, s->time / NSEC_PER_SEC,
	   (s->time % NSEC_PER_SEC) / NSEC_PER_USEC, s->ip, info->dso);
  if (info->name != NULL)
    fprintf (out, "%s+0x%" PRIx64 "\n", info->name, info->offset);
  else
    fputs ("[unknown]\n", out);
}

void
report_frame (FILE *out, uint64_t ip, const struct symbol_info *info)
{
  if (info->name != NULL)
    fprintf (out, "\t%" PRIx64 " %s+0x%" PRIx64 " (%s)\n", ip, info->name,
	     info->offset, info->dso);
  else
    fprintf (out, "\t%" PRIx64 " [unknown] (%s)\n", ip, info->dso);
}

struct profile_entry
{
  size_t event;
  /* In the profile's name table; SYMBOL is NULL if unknown.  */
  const char *comm;
  const char *dso;
  const char *symbol;
  /* The symbol's address, as struct symbol_info has it: symbols of one
     name are apart.  */
  uint64_t start;
  bool kernel;
  uint64_t samples;
  uint64_t period;
  struct profile_entry *next;
};

void
profile_init (struct profile *profile)
{
  memset (profile, 0, sizeof *profile);
  strtab_init (&profile->names);
}

void
profile_free (struct profile *profile)
{
  for (size_t i = 0; i < profile->n_buckets; ++i)
    for (struct profile_entry *e = profile->buckets[i], *next; e != NULL;
	 e = next)
      {
	next = e->next;
	free (e);
      }
  free (profile->buckets);
  free (profile->samples);
  free (profile->period);
  strtab_free (&profile->names);
  memset (profile, 0, sizeof *profile);
}

/* The profile's copy of NAME.  */
static const char *
profile_name (struct profile *profile, const char *name)
{
  size_t i = ((uintptr_t) name >> 3) % PROFILE_SEEN_NAMES;
  if (profile->seen[i].name != name)
    {
      const char *copy = strtab_add (&profile->names, name);
      if (copy == NULL)
	return NULL;
      profile->seen[i].name = name;
      profile->seen[i].copy = copy;
    }
  return profile->seen[i].copy;
}

static size_t
entry_hash (const char *comm, const char *dso, const char *symbol,
	    uint64_t start)
{
  uintptr_t h = (uintptr_t) comm * 31 + (uintptr_t) dso;
  h = (h * 31 + (uintptr_t) symbol) * 31 + start;
  return h ^ (h >> 17);
}

static int
grow (struct profile *profile)
{
  size_t n_buckets = profile->n_buckets ? 2 * profile->n_buckets : 1024;
  struct profile_entry **buckets = calloc (n_buckets, sizeof *buckets);
  if (buckets == NULL)
    return -1;
  for (size_t i = 0; i < profile->n_buckets; ++i)
    for (struct profile_entry *e = profile->buckets[i], *next; e != NULL;
	 e = next)
      {
	next = e->next;
	size_t b = (entry_hash (e->comm, e->dso, e->symbol, e->start)
		    & (n_buckets - 1));
	e->next = buckets[b];
	buckets[b] = e;
      }
  free (profile->buckets);
  profile->buckets = buckets;
  profile->n_buckets = n_buckets;
  return 0;
}

int
profile_add (struct profile *profile, size_t event, const char *comm,
	     const struct symbol_info *info, uint64_t period)
{
  comm = profile_name (profile, comm);
  const char *dso = profile_name (profile, info->dso);
  const char *symbol = NULL;
  if (info->name != NULL
      && (symbol = profile_name (profile, info->name)) == NULL)
    return -1;
  if (comm == NULL || dso == NULL)
    return -1;
  if (event >= profile->n_events)
    {
      size_t n = event + 1;
      uint64_t *samples = realloc (profile->samples, n * sizeof *samples);
      if (samples == NULL)
	return -1;
      profile->samples = samples;
      uint64_t *periods = realloc (profile->period, n * sizeof *periods);
      if (periods == NULL)
	return -1;
      profile->period = periods;
      for (size_t i = profile->n_events; i < n; ++i)
	profile->samples[i] = profile->period[i] = 0;
      profile->n_events = n;
    }
  ++profile->samples[event];
  profile->period[event] += period;

  if (profile->n >= profile->n_buckets && grow (profile) != 0)
    return -1;
  uint64_t start = symbol != NULL ? info->start : 0;
  size_t b = (entry_hash (comm, dso, symbol, start)
	      & (profile->n_buckets - 1));
  for (struct profile_entry *e = profile->buckets[b]; e != NULL; e = e->next)
    if (e->event == event && e->comm == comm && e->dso == dso
	&& e->symbol == symbol && e->start == start
	&& e->kernel == info->kernel)
      {
	++e->samples;
	e->period += period;
	return 0;
      }
  struct profile_entry *e = malloc (sizeof *e);
  if (e == NULL)
    return -1;
  e->event = event;
  e->comm = comm;
  e->dso = dso;
  e->symbol = symbol;
  e->start = start;
  e->kernel = info->kernel;
  e->samples = 1;
  e->period = period;
  e->next = profile->buckets[b];
  profile->buckets[b] = e;
  ++profile->n;
  return 0;
}

/* The module name perf report shows: the file name without its
   directory (not for //anon).  */
static const char *
short_dso (const char *dso)
{
  if (dso[0] != '/' || dso[1] == '/')
    return dso;
  const char *slash = strrchr (dso, '/');
  return slash[1] != '\0' ? slash + 1 : dso;
}

static int
compare_entries (const void *a, const void *b)
{
  const struct profile_entry *x = *(const struct profile_entry *const *) a;
  const struct profile_entry *y = *(const struct profile_entry *const *) b;
  if (x->event != y->event)
    return x->event < y->event ? -1 : 1;
  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
  if (x->period != y->period)
    return x->period > y->period ? -1 : 1;
  int c = strcmp (x->comm, y->comm);
  if (c == 0)
    c = strcmp (x->dso, y->dso);
  if (c == 0)
    c = strcmp (x->symbol ?: "", y->symbol ?: "");
  return c;
}

/* N in decimal, right-justified in WIDTH columns, with a point before
   its last DECIMALS digits, at the end of BUF (of 32 bytes); returns
   where it starts.  */
static char *
format_number (char *buf, uint64_t n, int width, int decimals)
{
  char *p = buf + 31;
  *p = '\0';
  for (int i = 0; i < decimals; ++i, n /= 10)
    *--p = '0' + n % 10;
  if (decimals > 0)
    *--p = '.';
  do
    *--p = '0' + n % 10;
  while ((n /= 10) != 0 && p > buf);
  while (buf + 31 - p < width && p > buf)
    *--p = ' ';
  return p;
}

/* Write S left-justified in WIDTH columns, and two spaces.  */
static void
put_column (FILE *out, const char *s, int width)
{
  fputs (s, out);
  for (int n = strlen (s); n < width + 2; ++n)
    putc (' ', out);
}

/* Print SHARE as "%9.2f" does.  printf rounds the exact value of
   SHARE * 100, a tie to even: the product rounded to a double rounds
   alike unless it is next to a tie, which is left to printf, as is a
   share outside [0, 100] (a broken recording's), whose hundredths need
   not fit in 64 bits.  */
static void
put_share (FILE *out, double share)
{
  if (share >= 0 && share <= 100)
    {
      double hundredths = share * 100;
      uint64_t whole = hundredths;
      double frac = hundredths - whole;
      if (frac < 0.5 - 1e-6 || frac > 0.5 + 1e-6)
	{
	  char buf[32];
	  fputs (format_number (buf, whole + (frac > 0.5), 9, 2), out);
	  return;
	}
    }
  fprintf (out, "%9.2f", share);
}

/* Write an entry's line: SHARE as "%9.2f%%", SAMPLES as "%12" PRIu64,
   COMM, DSO, KERNEL and SYMBOL as print_event has them.  This is most
   of the time perfsym takes to print a profile, and fprintf's was
   five times as long.  */
static void
put_entry (FILE *out, double share, uint64_t samples, const char *comm,
	   int comm_width, const char *dso, int dso_width, bool kernel,
	   const char *symbol)
{
  char buf[32];
  put_share (out, share);
  fputs ("%  ", out);
  fputs (format_number (buf, samples, 12, 0), out);
  fputs ("  ", out);
  put_column (out, comm, comm_width);
  put_column (out, dso, dso_width);
  fputs (kernel ? "[k] " : "[.] ", out);
  fputs (symbol, out);
  putc ('\n', out);
}

/* Print the entries of one event, SORTED[0, N).  */
static void
print_event (const struct profile *profile, FILE *out, const char *name,
	     struct profile_entry *const *sorted, size_t n)
{
  size_t event = sorted[0]->event;
  int comm_width = (int) strlen ("Command");
  int dso_width = (int) strlen ("Shared Object");
  for (size_t i = 0; i < n; ++i)
    {
      int w = (int) strlen (sorted[i]->comm);
      if (w > comm_width)
	comm_width = w;
      w = (int) strlen (short_dso (sorted[i]->dso));
      if (w > dso_width)
	dso_width = w;
    }

  uint64_t samples = profile->samples[event];
  uint64_t period = profile->period[event];
  fprintf (out, "# Samples: %" PRIu64 " of event '%s'\n", samples, name);
  fprintf (out, "# Event count (approx.): %" PRIu64 "\n", period);
  fputs ("#\n", out);
  fprintf (out, "# Overhead       Samples  %-*s  %-*s  Symbol\n",
	   comm_width, "Command", dso_width, "Shared Object");
  fputs ("# ........  ............  ", out);
  for (int i = 0; i < comm_width; ++i)
    putc ('.', out);
  fputs ("  ", out);
  for (int i = 0; i < dso_width; ++i)
    putc ('.', out);
  fputs ("  ......\n", out);
  fputs ("#\n", out);
  for (size_t i = 0; i < n; ++i)
    {
      const struct profile_entry *e = sorted[i];
      double share = (period > 0 ? 100.0 * e->period / period
		      : 100.0 * e->samples / samples);
      put_entry (out, share, e->samples, e->comm, comm_width,
		 short_dso (e->dso), dso_width, e->kernel,
		 e->symbol ?: "[unknown]");
    }
}

void
profile_print (const struct profile *profile, FILE *out,
	       const char *const *event_names)
{
  struct profile_entry **sorted = malloc ((profile->n + 1) * sizeof *sorted);
  if (sorted == NULL)
    {
      fputs ("# out of memory\n", out);
      return;
    }
  size_t n = 0;
  for (size_t i = 0; i < profile->n_buckets; ++i)
    for (struct profile_entry *e = profile->buckets[i]; e != NULL;
	 e = e->next)
      sorted[n++] = e;
  qsort (sorted, n, sizeof *sorted, compare_entries);

  if (n == 0)
    fputs ("# Samples: 0\n", out);
  for (size_t i = 0; i < n;)
    {
      size_t j = i;
      while (j < n && sorted[j]->event == sorted[i]->event)
	++j;
      if (i > 0)
	fputs ("\n", out);
      print_event (profile, out, event_names[sorted[i]->event],
		   sorted + i, j - i);
      i = j;
    }
  free (sorted);
}
