/* The script that makes the flame graph explorable in a web browser:
   zoom into a frame, search names, a tooltip for each frame.  */

#ifndef FLAMEGRAPH_SCRIPT_H
#define FLAMEGRAPH_SCRIPT_H

/* JavaScript, run at the end of the SVG file, that reads the frames
   flamegraph_write draws and a constant LAYOUT defined before it (see
   flamegraph.c).  */
extern const char flamegraph_script[];

#endif /* flamegraph-script.h */
