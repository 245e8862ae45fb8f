/* A flame graph of the stacks as a self-contained SVG picture: each
   frame a box as wide as its share of the samples, on top of its
   caller, coloured by the kind of module its code is in, with its name
   inside (cut to the box) and in full, with its module and samples, in
   its tooltip (<title>).  It needs no JavaScript to be seen; in a web
   browser, its script (flamegraph-script.c) zooms into the frame
   clicked, searches names and shows a richer tooltip.  */

#ifndef FLAMEGRAPH_H
#define FLAMEGRAPH_H

#include <stdio.h>

#include "stacks.h"

/* Write the flame graph of ST to OUT, titled TITLE, with SUBTITLE (may be
   NULL) under the title.  The bottom row is all samples, the next the
   commands, then the outermost frames; siblings are in alphabetical
   order.  Each frame is a group (<g class="f">) holding its tooltip, its
   box and the groups of its callees, with the attributes the script
   reads: data-name, data-samples and data-offset (the samples of the
   frames left of it).  Frames narrower than a tenth of a pixel are left
   out, with their callees.  Returns 0, -1 if out of memory.  */
extern int flamegraph_write (const struct stacks *st, FILE *out,
			     const char *title, const char *subtitle);

#endif /* flamegraph.h */
