/* Load shared libraries and say where they were mapped.

   Usage: mmap-probe LIB...

   Each LIB (give absolute paths, so that they match the maps and perf's
   events) is opened with dlopen (RTLD_NOW) and its mmap_lib_work is
   called.  Then the program prints
     pid PID
     maps LINE         for every line of /proc/self/maps, anonymous
                       mappings too (the caller picks out what it needs)
     bias PATH 0xADDR  for every object dl_iterate_phdr reports: its
                       dlpi_addr, the load bias (the executable is named
                       by its /proc/self/exe path)
   and finally spins in the libraries for about 0.3 s of CPU time, so
   that perf record has samples in every object.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long work_fn (unsigned long);

static char exe_path[PATH_MAX];

static int
print_bias (struct dl_phdr_info *info, size_t size __attribute__ ((unused)),
	    void *arg)
{
  int *first = arg;
  const char *name = info->dlpi_name;
  if (*first)
    name = exe_path;
  *first = 0;
  printf ("bias %s 0x%lx\n", name, (unsigned long) info->dlpi_addr);
  return 0;
}

static double
cpu_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int argc, char **argv)
{
  work_fn *work[argc];
  unsigned long sum = 0;

  ssize_t n = readlink ("/proc/self/exe", exe_path, sizeof exe_path - 1);
  if (n < 0)
    {
      perror ("mmap-probe: /proc/self/exe");
      return 1;
    }
  exe_path[n] = '\0';

  for (int i = 1; i < argc; i++)
    {
      void *h = dlopen (argv[i], RTLD_NOW);
      if (h == NULL)
	{
	  fprintf (stderr, "mmap-probe: %s\n", dlerror ());
	  return 1;
	}
      work[i] = (work_fn *) dlsym (h, "mmap_lib_work");
      if (work[i] == NULL)
	{
	  fprintf (stderr, "mmap-probe: %s: no mmap_lib_work\n", argv[i]);
	  return 1;
	}
      sum += work[i] (10);
    }

  printf ("pid %ld\n", (long) getpid ());

  FILE *maps = fopen ("/proc/self/maps", "r");
  if (maps == NULL)
    {
      perror ("mmap-probe: /proc/self/maps");
      return 1;
    }
  /* All of them, anonymous ones too: the loader's alignment
     reservations show there.  */
  char line[PATH_MAX + 100];
  while (fgets (line, sizeof line, maps) != NULL)
    printf ("maps %s", line);
  fclose (maps);

  int first = 1;
  dl_iterate_phdr (print_bias, &first);
  fflush (stdout);

  double end = cpu_seconds () + 0.3;
  while (cpu_seconds () < end)
    for (int i = 1; i < argc; i++)
      sum += work[i] (1000);

  return sum == 42;
}
