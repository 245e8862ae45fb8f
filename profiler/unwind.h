/* The call chain of a sample: the frames the kernel recorded
   (PERF_SAMPLE_CALLCHAIN, perf record -g), and the user frames unwound
   from the registers and stack copy of perf record --call-graph dwarf
   (PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER) with
   dwfl_getthread_frames.  */

#ifndef UNWIND_H
#define UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

#include "perfdata.h"
#include "process.h"

/* The most user frames unwound, as perf's default --max-stack.  */
#define UNWIND_MAX_FRAMES 127

struct frame
{
  uint64_t ip;
  /* The PERF_RECORD_MISC_CPUMODE the address belongs to, from the
     callchain's context markers.  */
  unsigned int cpumode;
};

struct unwinder
{
  Dwfl_Thread_Callbacks callbacks;
  /* An ELF header of the machine, whose backend attached Dwfls use: one
     of a module can be freed while the Dwfl lives on.  */
  Elf *machine;
  /* Samples unwound, frames found, and why unwinding failed.  */
  uint64_t unwound;
  uint64_t frames;
  struct tally failed;
};

extern void unwinder_init (struct unwinder *uw);
extern void unwinder_free (struct unwinder *uw);

/* The frames of SAMPLE of process PROC (which may be NULL), innermost
   first, in FRAMES (at most MAX of them); returns their number.  The
   context markers of the callchain only set the mode of the frames after
   them.  If the sample has user registers and stack, its user frames
   are unwound (return addresses less one, as perf shows them) instead
   of taken from the callchain.  The first frame is normally the sampled
   address itself.  */
extern size_t sample_frames (struct unwinder *uw, struct process *proc,
			     const struct perf_sample *sample,
			     struct frame *frames, size_t max);

#endif /* unwind.h */
