/* Reading the truth file that make-input writes, and judging a module's
   bias by it.  Each line is "PID BIAS START END PATH": the loader gave
   PATH that bias in process PID, and reserved [START, END) for it.  A
   process that exec'd or reloaded a library can have several.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct load
{
  uint64_t bias, start, end;
};

struct loads
{
  size_t count;
  struct load *loads;
};

struct truth
{
  struct table *by_file;	/* (path, pid, 0) to struct loads.  */
};

static void
truth_add (struct truth *truth, long pid, const struct load *load,
	   const char *path)
{
  void **slot = table_slot (truth->by_file, path, pid, 0, true);
  if (*slot == NULL)
    *slot = calloc (1, sizeof (struct loads));
  struct loads *l = *slot;
  l->loads = realloc (l->loads, (l->count + 1) * sizeof l->loads[0]);
  if (l == NULL || l->loads == NULL)
    bench_fail ("out of memory");
  l->loads[l->count++] = *load;
}

struct truth *
truth_read (const char *file_name)
{
  FILE *f = fopen (file_name, "r");
  if (f == NULL)
    bench_fail ("cannot open %s", file_name);
  struct truth *truth = malloc (sizeof *truth);
  if (truth == NULL)
    bench_fail ("out of memory");
  truth->by_file = table_new ();

  char *line = NULL;
  size_t size = 0;
  ssize_t len;
  while ((len = getline (&line, &size, f)) > 0)
    {
      if (line[len - 1] == '\n')
	line[len - 1] = '\0';
      long pid;
      unsigned long long bias, start, end;
      int path_at;
      if (sscanf (line, "%ld %llx %llx %llx %n", &pid, &bias, &start, &end,
		  &path_at) < 4)
	bench_fail ("%s: bad line: %s", file_name, line);
      struct load load = { bias, start, end };
      truth_add (truth, pid, &load, line + path_at);
    }
  free (line);
  fclose (f);
  return truth;
}

/* A module is judged by the loads of its file whose reserved range meets
   its own: it is right if its bias is one of theirs.  A module that meets
   none (a file mapped as data) has no truth.  */
enum verdict
truth_judge (const struct truth *truth, long pid, const char *path,
	     uint64_t bias, uint64_t low, uint64_t high)
{
  void **slot = table_slot (truth->by_file, path, pid, 0, false);
  if (slot == NULL)
    return VERDICT_UNKNOWN;
  const struct loads *l = *slot;
  bool met = false;
  for (size_t i = 0; i < l->count; ++i)
    if (l->loads[i].start < high && l->loads[i].end > low)
      {
	if (l->loads[i].bias == bias)
	  return VERDICT_RIGHT;
	met = true;
      }
  return met ? VERDICT_WRONG : VERDICT_UNKNOWN;
}
