/* The distinct call stacks of the samples, each with its number of
   samples: what the folded output (folded.c) and the flame graph
   (flamegraph.c) are made of.  A frame is named by its symbol without
   the offset, so that the samples of one function in one caller count
   together.  */

#ifndef STACKS_H
#define STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"
#include "symbolize.h"

/* What kind of module a frame's code is in, for the flame graph's
   colours.  */
enum frame_kind
{
  /* A program's own code: an executable, or code in anonymous memory
     (a JIT compiler's).  */
  FRAME_USER,
  /* A shared library (a file named *.so or *.so.*) or the vdso.  */
  FRAME_LIBRARY,
  /* The kernel or one of its modules.  */
  FRAME_KERNEL,
  /* A command, or an address in no known mapping.  */
  FRAME_OTHER,
};

struct stack_frame
{
  /* The symbol; or, where no symbol covers the address, [MODULE] with
     the module's file name (or its bracketed name as it is:
     [kernel.kallsyms]), or [unknown] when no module does.  ';', which
     separates frames in the folded format, is written as ':'.  */
  const char *label;
  /* The module, as struct symbol_info has it.  */
  const char *dso;
  enum frame_kind kind;
};

struct stack
{
  /* The command of the sampled thread (';' as ':'), then the frames,
     outermost first; in the table's strings.  */
  const char *comm;
  const struct stack_frame **frames;
  size_t n_frames;
  uint64_t samples;
  size_t hash;
  struct stack *next;
};

struct stacks
{
  /* Commands, frame keys (each with its struct stack_frame as
     strtab_value) and what the frames point to.  */
  struct strtab names;
  struct stack **buckets;
  size_t n_buckets;
  size_t n;
  /* Every struct stack_frame made, to free them.  */
  struct stack_frame **frames;
  size_t n_frames;
  size_t cap_frames;
  /* A buffer for building keys.  */
  char *key;
  size_t key_size;
  uint64_t samples;
};

extern void stacks_init (struct stacks *st);
extern void stacks_free (struct stacks *st);

/* Count a sample of a thread of COMM whose N frames, innermost first,
   INFOS names.  Returns 0, -1 if out of memory.  */
extern int stacks_add (struct stacks *st, const char *comm,
		       const struct symbol_info *infos, size_t n);

/* The stacks of ST sorted by command, then by their frames' labels from
   the outermost, a shorter stack before those it begins: a new array
   of ST->n, which the caller frees, or NULL if out of memory.  */
extern struct stack **stacks_sorted (const struct stacks *st);

#endif /* stacks.h */
