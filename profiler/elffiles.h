/* The ELF files the processes' modules read, each mapped once for the
   whole run and shared by every module of it in every process.  A module
   of dwfl_report_elf_mmap holds no file until its ELF is wanted; then
   libdwfl would open the file and libelf map it, again for each module,
   and unmap it when the module goes: a system-wide recording has the
   same compiler in thousands of processes.  Instead the Dwfls' find_elf
   callback hands each module a reference to the one Elf of its file.  */

#ifndef ELFFILES_H
#define ELFFILES_H

#include <elfutils/libdwfl.h>

#include "strtab.h"

struct elf_files
{
  /* The files by the path they are read from; a path's value
     (strtab_value) is its struct elf_path.  */
  struct strtab paths;
  /* Every struct elf_path, to free them.  */
  struct elf_path *path_list;
  /* The files mapped, by identity (device, inode, size, modification
     time), a tsearch tree of struct elf_file: paths that are one file
     share its Elf.  */
  void *by_identity;
};

extern void elf_files_init (struct elf_files *files);

/* Unmap every file.  Every Dwfl that read one must have ended.  */
extern void elf_files_free (struct elf_files *files);

/* MOD, a module of dwfl_report_elf_mmap, reads the file at PATH: its
   Elf is found by elf_files_find_elf.  Returns 0, -1 if out of
   memory.  */
extern int elf_files_attach (struct elf_files *files, Dwfl_Module *mod,
			     const char *path);

/* The find_elf callback of the Dwfls: a reference to the shared Elf of
   the module's file, if it was attached and can be mapped.  Otherwise
   nothing is found, and libdwfl opens the file the module was reported
   for.  */
extern int elf_files_find_elf (Dwfl_Module *mod, void **userdata,
			       const char *modname, Dwarf_Addr base,
			       char **file_name, Elf **elfp);

#endif /* elffiles.h */
