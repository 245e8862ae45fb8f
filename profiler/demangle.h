/* Symbol names demangled as perf shows them by default (perf report,
   perf script): C++ names without the parameter list of the function,
   its qualifiers, the return type of a template or a clone suffix
   (".isra.0", ".constprop.0"), as libiberty's cplus_demangle gives them
   without DMGL_PARAMS, which is what perf calls; Rust names as that
   function demangles them too; OCaml names as perf demangles them.  */

#ifndef DEMANGLE_H
#define DEMANGLE_H

/* NAME demangled as perf shows it, in a new string; NULL if NAME is not
   a name perf demangles (or out of memory).  */
extern char *demangle_as_perf (const char *name);

#endif /* demangle.h */
