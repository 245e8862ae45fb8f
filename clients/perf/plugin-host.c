/* Loads each plugin given, in turn, calls its plugin_run for SLICE
   milliseconds of CPU time and unloads it, again and again until MSEC
   milliseconds of CPU time are used.  A plugin unloaded leaves its
   addresses to the next one, so the plugins, linked by different
   linkers from one source (plugin.c), are mapped in turn at the same
   addresses.  Prints where each plugin was loaded, once.
   Usage: plugin-host MSEC SLICE PLUGIN...  */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int
main (int argc, char **argv)
{
  if (argc < 4 || atol (argv[1]) <= 0 || atol (argv[2]) <= 0)
    {
      fprintf (stderr, "usage: %s MSEC SLICE PLUGIN...\n", argv[0]);
      return 2;
    }
  double msec = atol (argv[1]);
  unsigned int slice = atol (argv[2]);

  for (unsigned int round = 0; clock () < msec * (CLOCKS_PER_SEC / 1000);
       round++)
    for (int i = 3; i < argc; i++)
      {
	void *plugin = dlopen (argv[i], RTLD_NOW | RTLD_LOCAL);
	if (plugin == NULL)
	  {
	    fprintf (stderr, "plugin-host: %s\n", dlerror ());
	    return 1;
	  }
	unsigned long (*run) (unsigned int)
	  = (unsigned long (*) (unsigned int)) dlsym (plugin, "plugin_run");
	if (run == NULL)
	  {
	    fprintf (stderr, "plugin-host: %s\n", dlerror ());
	    return 1;
	  }
	if (round == 0)
	  printf ("plugin-host: %s: plugin_run at %p\n", argv[i], (void *) run);
	run (slice);
	dlclose (plugin);
      }
  return 0;
}
