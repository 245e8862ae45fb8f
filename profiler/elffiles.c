/* The ELF files of the processes' modules, each mapped once.  */

#define _GNU_SOURCE 1

#include <fcntl.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elffiles.h"

/* A file mapped whole, and the Elf over it that its modules share.  The
   mapping is private and writable, as libelf maps a file for
   ELF_C_READ_MMAP_PRIVATE, the kind of descriptor elf_memory makes:
   libelf may convert data in place.  */
struct elf_file
{
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  void *map;
  /* Each module that found it holds a reference (elf_begin of it), this
     table one more, dropped when the table is freed.  */
  Elf *elf;
};

/* A path modules read, the value of their module's userdata.  */
struct elf_path
{
  const char *path;
  struct elf_files *files;
  /* Whether mapping it was tried, and the file if it worked.  */
  bool tried;
  struct elf_file *file;
  struct elf_path *next;
};

void
elf_files_init (struct elf_files *files)
{
  strtab_init (&files->paths);
  files->path_list = NULL;
  files->by_identity = NULL;
}

static void
free_file (void *p)
{
  struct elf_file *file = p;
  elf_end (file->elf);
  munmap (file->map, file->size);
  free (file);
}

void
elf_files_free (struct elf_files *files)
{
  tdestroy (files->by_identity, free_file);
  files->by_identity = NULL;
  for (struct elf_path *p = files->path_list, *next; p != NULL; p = next)
    {
      next = p->next;
      free (p);
    }
  files->path_list = NULL;
  strtab_free (&files->paths);
}

int
elf_files_attach (struct elf_files *files, Dwfl_Module *mod, const char *path)
{
  void **userdata;
  dwfl_module_info (mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
  /* A module grown by a piece has its file already.  */
  if (*userdata != NULL)
    return 0;
  const char *key = strtab_add (&files->paths, path);
  if (key == NULL)
    return -1;
  struct elf_path **slot = (struct elf_path **) strtab_value (key);
  if (*slot == NULL)
    {
      *slot = calloc (1, sizeof **slot);
      if (*slot == NULL)
	return -1;
      (*slot)->path = key;
      (*slot)->files = files;
      (*slot)->next = files->path_list;
      files->path_list = *slot;
    }
  *userdata = *slot;
  return 0;
}

static int
compare_identity (const void *a, const void *b)
{
  const struct elf_file *x = a;
  const struct elf_file *y = b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  if (x->size != y->size)
    return x->size < y->size ? -1 : 1;
  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  return (x->mtime.tv_nsec > y->mtime.tv_nsec)
	 - (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/* Map the file open at FD, whose identity KEY has, and add it to
   FILES.  NULL if it is not an ELF file or cannot be mapped.  */
static struct elf_file *
map_file (struct elf_files *files, int fd, const struct elf_file *key)
{
  struct elf_file *file = malloc (sizeof *file);
  if (file == NULL)
    return NULL;
  *file = *key;
  file->map = mmap (NULL, file->size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		    fd, 0);
  if (file->map == MAP_FAILED)
    {
      free (file);
      return NULL;
    }
  file->elf = elf_memory (file->map, file->size);
  if (file->elf == NULL || elf_kind (file->elf) != ELF_K_ELF
      || tsearch (file, &files->by_identity, compare_identity) == NULL)
    {
      free_file (file);
      return NULL;
    }
  return file;
}

/* The file at PATH, mapped the first time a file of its identity is
   wanted; NULL if it cannot be.  */
static struct elf_file *
path_file (struct elf_path *path)
{
  if (path->tried)
    return path->file;
  path->tried = true;
  int fd = open (path->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0)
    {
      struct elf_file key =
	{
	  .dev = st.st_dev,
	  .ino = st.st_ino,
	  .size = st.st_size,
	  .mtime = st.st_mtim,
	};
      void **found = tfind (&key, &path->files->by_identity,
			    compare_identity);
      path->file = (found != NULL ? *found
		    : map_file (path->files, fd, &key));
    }
  close (fd);
  return path->file;
}

int
elf_files_find_elf (Dwfl_Module *mod __attribute__ ((unused)),
		    void **userdata,
		    const char *modname __attribute__ ((unused)),
		    Dwarf_Addr base __attribute__ ((unused)),
		    char **file_name, Elf **elfp)
{
  struct elf_path *path = *userdata;
  *elfp = NULL;
  if (path == NULL)
    return -1;
  /* Named as the file libdwfl would open: separate debug files are
     looked for beside it.  */
  *file_name = strdup (path->path);
  struct elf_file *file = path_file (path);
  if (*file_name != NULL && file != NULL)
    *elfp = elf_begin (-1, ELF_C_READ_MMAP_PRIVATE, file->elf);
  /* No descriptor: when the module goes, libdwfl's free_file only
     drops its reference to the Elf.  */
  return -1;
}
