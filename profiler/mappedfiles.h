/* The file each mapping of the recording is read from, decided once for
   each file name and identity that mmap records give, and opened once
   (elffiles.h).  An MMAP2 record has the file as it was when it was
   mapped: its device, inode and generation, or its build id; the
   header has the build ids of the files perf record saw samples in.
   The file read is the one perf report reads:

   - for a file whose build id the recording has, the file of the name
     if it has that build id, else the copy of perf's build-id cache
     (~/.debug/.build-id/XX/YYYY/elf) if there is one, else the file of
     the name all the same;
   - for a file of which it has none, the file of the name, even if it
     is no longer the one mapped (another device or inode): perf report
     reads it, and a build id, where there is one, tells better (the
     device of a file on overlayfs is not the one stat gives);
   - for the vdso, this machine's if it has the recorded build id, else
     the copy of perf's cache, else none.  */

#ifndef MAPPEDFILES_H
#define MAPPEDFILES_H

#include <stdbool.h>
#include <stdint.h>

#include "elffiles.h"
#include "perfdata.h"
#include "strtab.h"

struct mapped_file
{
  /* The name the records give, in the table's names, and the identity
     they give the file: an MMAP2 record's device numbers, inode and
     inode generation, or its build id (BUILD_ID_SIZE bytes); all 0 if
     not known (an MMAP record).  */
  const char *filename;
  uint32_t maj;
  uint32_t min;
  uint64_t ino;
  uint64_t ino_generation;
  unsigned int build_id_size;
  unsigned char build_id[20];
  /* The file read for it, NULL if none (a vdso without a copy).  It may
     have failed to read (its ELF NULL).  */
  struct elf_file *file;
  /* Whether FILE is the copy in perf's build-id cache.  Whether FILE is
     the file of the name all the same although its build id is not the
     one recorded, or (with no build id recorded) it is not the file
     mapped.  */
  bool from_cache;
  bool build_id_differs;
  bool identity_differs;
  /* The next identity of FILENAME, and the next of the table.  */
  struct mapped_file *next;
  struct mapped_file *next_in_table;
};

struct mapped_files
{
  struct elf_files files;
  /* The names records give; a name's value (strtab_value) is the first
     of its identities, a struct mapped_file.  */
  struct strtab names;
  /* Every identity, to free them.  */
  struct mapped_file *all;
  /* The recording, for the build ids in its header; NULL for none.  */
  const struct perf_data *data;
  /* This machine's vdso, or NULL.  */
  struct elf_file *vdso;
  /* If not NULL, what to read for the file FILENAME a record names
     (before perf's build-id cache is looked at), called with
     MAP_FILE_ARG; it returns a file name, which is copied.  NULL by
     default: FILENAME itself.  The fuzzer keeps the files read to a
     fixed set this way.  */
  const char *(*map_file) (const char *filename, void *arg);
  void *map_file_arg;
};

/* Start an empty table for the recording DATA (NULL for none).  */
extern void mapped_files_init (struct mapped_files *mf,
			       const struct perf_data *data);

/* Close every file.  Every Dwfl that read one must have ended.  */
extern void mapped_files_free (struct mapped_files *mf);

/* IMAGE, SIZE bytes allocated with malloc, is this machine's vdso; MF
   owns it from now on.  Returns 0, -1 if out of memory.  */
extern int mapped_files_set_vdso (struct mapped_files *mf, void *image,
				  size_t size);

/* What is read for the mapping M, of the file FILENAME (M's, or the
   name perf gives it), "[vdso]" for the vdso; NULL if out of memory.  */
extern const struct mapped_file *mapped_files_find (struct mapped_files *mf,
						    const struct perf_mmap *m,
						    const char *filename);

#endif /* mappedfiles.h */
