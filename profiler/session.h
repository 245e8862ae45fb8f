/* One run of perfsym: the records of a perf.data file read (perfdata.c),
   put in time order (order.c), applied to the address spaces
   (process.c, kernel.c), named (unwind.c, symbolize.c) and printed
   (report.c; the call stacks counted by stacks.c, printed by folded.c
   and drawn by flamegraph.c).
   perfsym.c parses the command line and calls session_run; the fuzzer
   of the reader calls it too.  */

#ifndef SESSION_H
#define SESSION_H

#include <stdbool.h>
#include <stdio.h>

/* What perfsym's command line asks for.  */
struct session_options
{
  /* The perf.data file; "-" is standard input.  */
  const char *input;
  /* One line per sample instead of the profile, and with CALLCHAIN the
     sample's callers after it.  */
  bool samples;
  bool callchain;
  /* Instead of the profile, one line per distinct call stack in the
     collapsed format (folded.h).  */
  bool folded;
  /* If not NULL, also write a flame graph of the call stacks there, as
     SVG.  */
  const char *flamegraph;
  /* If not NULL, the kallsyms file that names kernel addresses, whatever
     the recording's kernel (kernel.h says which is read otherwise).  */
  const char *kallsyms;
  /* On bad data, print what was read before it.  */
  bool partial;
  /* 1 on, 0 off, -1 when ERR is a terminal and the file is large.  */
  int progress;
  bool demangle;
  /* Print what was read and resolved on ERR.  */
  bool stats;
  /* If not NULL, the file to read for the file FILENAME an mmap record
     names, with MAP_FILE_ARG (see mappedfiles.h).  */
  const char *(*map_file) (const char *filename, void *arg);
  void *map_file_arg;
};

/* Read OPT->input and print what OPT asks for on OUT.  Errors, warnings,
   progress and statistics go to ERR, each line starting "perfsym: ".
   Returns the exit status: 0, or 1 after an error message on ERR.
   Everything the run opened and allocated is closed and freed.  */
extern int session_run (const struct session_options *opt, FILE *out,
			FILE *err);

#endif /* session.h */
