/* The vdso of the running kernel, for recordings made on this machine:
   perf record does not keep the vdso in perf.data (it copies it to
   ~/.debug, unless -N), but its build id is in the file's header, to
   tell whether this one is the one recorded.  */

#ifndef VDSO_H
#define VDSO_H

#include <stddef.h>

/* A copy of the vdso this process has, allocated with malloc, of *SIZE
   bytes; NULL if there is none.  */
extern void *vdso_copy (size_t *size);

#endif /* vdso.h */
