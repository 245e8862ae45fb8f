/* The vdso of the running kernel, for recordings made on this machine:
   perf record does not keep the vdso in perf.data (it copies it to
   ~/.debug, unless -N), but its build id is in the file's header.  */

#ifndef VDSO_H
#define VDSO_H

#include <stddef.h>

/* A file descriptor of a copy of the vdso this process has (a memfd),
   if its GNU build id is the SIZE bytes at BUILD_ID; else -1.  The
   caller owns it.  */
extern int vdso_open (const unsigned char *build_id, size_t size);

#endif /* vdso.h */
