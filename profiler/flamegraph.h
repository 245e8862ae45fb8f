/* A flame graph of the stacks as a self-contained SVG picture, readable
   without JavaScript: each frame a box as wide as its share of the
   samples, on top of its caller, coloured by the kind of module its
   code is in, with its name inside (cut to the box) and in full, with
   its module and samples, in its tooltip (<title>).  */

#ifndef FLAMEGRAPH_H
#define FLAMEGRAPH_H

#include <stdio.h>

#include "stacks.h"

/* Write the flame graph of ST to OUT, titled TITLE, with SUBTITLE (may be
   NULL) under the title.  The bottom row is all samples, the next the
   commands, then the outermost frames; siblings are in alphabetical
   order.  Returns 0, -1 if out of memory.  */
extern int flamegraph_write (const struct stacks *st, FILE *out,
			     const char *title, const char *subtitle);

#endif /* flamegraph.h */
