/* The ELF files the recording's mappings are of, each opened once for
   the whole run.  Its Elf is given to dwfl_report_elf_mmap_elf for every
   piece of the file in every process, so that reporting a piece of a
   file the run knows costs no system call and reads no header again,
   and every module of the file in every process reads that one Elf
   (holding a reference to it).  A system-wide recording of a build has
   the same compiler mapped piece by piece in thousands of processes.  A
   file that cannot be read, or is not ELF, is remembered as such.  */

#ifndef ELFFILES_H
#define ELFFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <gelf.h>

#include "strtab.h"

struct elf_file
{
  /* The file's path, or for an image in memory its name ([vdso]); in
     the table's paths.  */
  const char *path;
  /* The file read, or NULL if it could not be: FAILURE says why.  */
  Elf *elf;
  const char *failure;
  /* Its device and inode when it was opened; 0 for an image.  */
  dev_t dev;
  ino_t ino;
  /* Its GNU build id, BUILD_ID_SIZE bytes (0 if it has none), read from
     ELF when first asked for (elf_file_has_build_id).  */
  bool build_id_read;
  size_t build_id_size;
  const unsigned char *build_id;
  /* The descriptor ELF reads, or -1: then ELF reads BYTES, SIZE bytes
     in memory, the file mapped whole or IMAGE (owned).  */
  int fd;
  const char *bytes;
  size_t size;
  void *image;
  struct elf_file *next;
};

struct elf_files
{
  /* The files by path; a path's value (strtab_value) is its struct
     elf_file.  */
  struct strtab paths;
  /* Every file, to free them.  */
  struct elf_file *list;
  /* The reasons of failures, kept once.  */
  struct strtab failures;
  /* The descriptors files keep, and how many they may.  */
  size_t fds;
  size_t max_fds;
  /* Files opened, and of those files that are not ELF.  */
  size_t opened;
  size_t not_elf;
};

extern void elf_files_init (struct elf_files *files);

/* Close every file.  Every Dwfl that read one must have ended.  */
extern void elf_files_free (struct elf_files *files);

/* The file at PATH, opened the first time it is asked for; NULL if out
   of memory.  SYMBOLS says whether its symbol table is likely to be read
   (the recording has samples in it), so that the file is mapped whole;
   else libelf reads what is asked for, at first only the headers.  */
extern struct elf_file *elf_files_open (struct elf_files *files,
					const char *path, bool symbols);

/* IMAGE, SIZE bytes allocated with malloc, as the file NAME (not a path:
   [vdso]); FILES owns it from now on.  NULL if out of memory.  */
extern struct elf_file *elf_files_add_image (struct elf_files *files,
					     const char *name, void *image,
					     size_t size);

/* Whether FILE is an ELF file with the GNU build id ID of SIZE bytes.  */
extern bool elf_file_has_build_id (struct elf_file *file,
				   const unsigned char *id, size_t size);

#endif /* elffiles.h */
