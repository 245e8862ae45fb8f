/* The ELF files of the recording's mappings, each opened once.  */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>

#include "elffiles.h"

void
elf_files_init (struct elf_files *files)
{
  memset (files, 0, sizeof *files);
  strtab_init (&files->paths);
  strtab_init (&files->failures);
  /* Half the descriptors a process may have, for files kept open; the
     rest is libdwfl's (separate debug files) and the run's.  */
  struct rlimit rl;
  files->max_fds = (getrlimit (RLIMIT_NOFILE, &rl) == 0
		    && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur / 2 : 512);
}

static void
close_file (struct elf_file *file)
{
  elf_end (file->elf);
  if (file->fd >= 0)
    close (file->fd);
  free (file->image);
  free (file);
}

void
elf_files_free (struct elf_files *files)
{
  for (struct elf_file *file = files->list, *next; file != NULL; file = next)
    {
      next = file->next;
      close_file (file);
    }
  strtab_free (&files->paths);
  strtab_free (&files->failures);
  elf_files_init (files);
}

/* The entry of FILES for PATH, made (not read) if there is none; NULL if
   out of memory.  */
static struct elf_file *
find_file (struct elf_files *files, const char *path)
{
  const char *key = strtab_add (&files->paths, path);
  if (key == NULL)
    return NULL;
  struct elf_file **slot = (struct elf_file **) strtab_value (key);
  if (*slot == NULL && (*slot = calloc (1, sizeof **slot)) != NULL)
    {
      (*slot)->path = key;
      (*slot)->fd = -1;
      (*slot)->next = files->list;
      files->list = *slot;
    }
  return *slot;
}

/* Set FILE's FAILURE to REASON, in FILES' copy.  */
static void
fail (struct elf_files *files, struct elf_file *file, const char *reason)
{
  file->failure = strtab_add (&files->failures, reason) ?: "out of memory";
}

/* Read FILE, open at FD, as ELF: set its Elf, or its FAILURE.  Returns
   whether FILE keeps FD.  */
static bool
read_file (struct elf_files *files, struct elf_file *file, int fd,
	   bool symbols)
{
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      fail (files, file, strerror (errno));
      return false;
    }
  file->dev = st.st_dev;
  file->ino = st.st_ino;
  /* Reading a device could hang too.  */
  if (!S_ISREG (st.st_mode))
    {
      fail (files, file, "not an ELF file");
      return false;
    }

  /* A file whose symbol table is to be read is mapped: read from the
     mapping, a large table costs no copy.  Another is read as libelf
     reads by default, what is asked for with pread: its headers, for
     most files, without mapping every page around them.  It keeps
     its descriptor, while there are enough.  */
  bool keep = !symbols && files->fds < files->max_fds;
  file->elf = elf_begin (fd, keep ? ELF_C_READ : ELF_C_READ_MMAP, NULL);
  if (file->elf == NULL || elf_kind (file->elf) != ELF_K_ELF)
    {
      elf_end (file->elf);
      file->elf = NULL;
      fail (files, file, "not an ELF file");
      ++files->not_elf;
      return false;
    }
  if (keep)
    {
      file->fd = fd;
      ++files->fds;
    }
  /* Read whatever libelf could not map: the descriptor is closed.  */
  else if (elf_cntl (file->elf, ELF_C_FDREAD) != 0)
    {
      elf_end (file->elf);
      file->elf = NULL;
      fail (files, file, elf_errmsg (-1));
    }
  else
    file->bytes = elf_rawfile (file->elf, &file->size);
  return keep;
}

struct elf_file *
elf_files_open (struct elf_files *files, const char *path, bool symbols)
{
  struct elf_file *file = find_file (files, path);
  if (file == NULL || file->elf != NULL || file->failure != NULL)
    return file;
  ++files->opened;
  /* Not to hang on a path that is now a fifo, nor take a terminal.  */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    fail (files, file, strerror (errno));
  else if (!read_file (files, file, fd, symbols))
    close (fd);
  return file;
}

struct elf_file *
elf_files_add_image (struct elf_files *files, const char *name, void *image,
		     size_t size)
{
  struct elf_file *file = find_file (files, name);
  if (file == NULL || file->elf != NULL || file->failure != NULL)
    {
      free (image);
      return file;
    }
  file->image = image;
  file->bytes = image;
  file->size = size;
  file->elf = elf_memory (image, size);
  if (file->elf == NULL || elf_kind (file->elf) != ELF_K_ELF)
    {
      elf_end (file->elf);
      file->elf = NULL;
      fail (files, file, "not an ELF file");
    }
  return file;
}

bool
elf_file_has_build_id (struct elf_file *file, const unsigned char *id,
		       size_t size)
{
  if (file->elf == NULL)
    return false;
  if (!file->build_id_read)
    {
      const void *bits;
      ssize_t len = dwelf_elf_gnu_build_id (file->elf, &bits);
      file->build_id_read = true;
      file->build_id_size = len > 0 ? len : 0;
      file->build_id = len > 0 ? bits : NULL;
    }
  return (file->build_id_size == size
	  && memcmp (file->build_id, id, size) == 0);
}
