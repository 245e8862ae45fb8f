/* Printing what perfsym found: a line per sample (and per frame of its
   call chain), or a flat profile by command, module and symbol.  */

#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "perfdata.h"
#include "strtab.h"
#include "symbolize.h"

/* "PID TID TIME IP DSO SYMBOL": TIME in seconds with six decimals as perf
   script prints it, IP in hex, SYMBOL as NAME+0xOFFSET or [unknown].  */
extern void report_sample (FILE *out, const struct perf_sample *sample,
			   const struct symbol_info *info);

/* A frame of the call chain after the sample's line:
   "\tIP SYMBOL (DSO)".  */
extern void report_frame (FILE *out, uint64_t ip,
			  const struct symbol_info *info);

struct profile_entry;

/* How many names the profile remembers by their address.  */
#define PROFILE_SEEN_NAMES 4096

/* The samples of each event, counted by command, module and symbol
   (symbols of one name apart, as perf report has them).  */
struct profile
{
  /* Commands, module paths and symbol names, kept once, and those of
     the names last passed, by their address (a recording passes the
     same few thousand names again and again).  */
  struct strtab names;
  struct
  {
    const char *name;
    const char *copy;
  } seen[PROFILE_SEEN_NAMES];
  struct profile_entry **buckets;
  size_t n_buckets;
  size_t n;
  /* The samples and their period, by event, N_EVENTS of them.  */
  uint64_t *samples;
  uint64_t *period;
  size_t n_events;
};

extern void profile_init (struct profile *profile);
extern void profile_free (struct profile *profile);

/* Count a sample of event EVENT (an index) of COMM at the address INFO
   names, of PERIOD (its weight in the overhead).  The strings of COMM
   and INFO must not change, nor be freed, while PROFILE lives: a name
   seen before is known by its address.  Returns 0, -1 if out of
   memory.  */
extern int profile_add (struct profile *profile, size_t event,
			const char *comm, const struct symbol_info *info,
			uint64_t period);

/* Print PROFILE like perf report --stdio --no-children -n
   --sort comm,dso,sym, a part for each event with samples, named
   EVENT_NAMES[EVENT]: the overhead (share of the event's period), the
   number of samples, the command, the module's file name and the
   symbol, "[.]" for user and "[k]" for kernel code; by samples, most
   first.  */
extern void profile_print (const struct profile *profile, FILE *out,
			   const char *const *event_names);

#endif /* report.h */
