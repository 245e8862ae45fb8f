/* The collapsed stack format that flame graph tools read (FlameGraph,
   inferno, speedscope): one line per distinct stack.  */

#ifndef FOLDED_H
#define FOLDED_H

#include <stdio.h>

#include "stacks.h"

/* Print each stack of ST as "COMM;OUTERMOST;...;INNERMOST COUNT", COUNT
   its samples, sorted as stacks_sorted sorts them.  Returns 0, -1 if out
   of memory.  */
extern int folded_print (const struct stacks *st, FILE *out);

#endif /* folded.h */
