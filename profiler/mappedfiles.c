/* The file each mapping of the recording is read from.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "mappedfiles.h"

void
mapped_files_init (struct mapped_files *mf, const struct perf_data *data)
{
  memset (mf, 0, sizeof *mf);
  elf_files_init (&mf->files);
  strtab_init (&mf->names);
  mf->data = data;
}

void
mapped_files_free (struct mapped_files *mf)
{
  for (struct mapped_file *f = mf->all, *next; f != NULL; f = next)
    {
      next = f->next_in_table;
      free (f);
    }
  strtab_free (&mf->names);
  elf_files_free (&mf->files);
  mf->all = NULL;
  mf->vdso = NULL;
}

int
mapped_files_set_vdso (struct mapped_files *mf, void *image, size_t size)
{
  mf->vdso = elf_files_add_image (&mf->files, "[vdso]", image, size);
  return mf->vdso != NULL ? 0 : -1;
}

/* Whether F is the file of M: of its build id, or of its identity.  */
static bool
same_identity (const struct mapped_file *f, const struct perf_mmap *m)
{
  if (m->build_id_size > 0)
    return (f->build_id_size == m->build_id_size
	    && memcmp (f->build_id, m->build_id, m->build_id_size) == 0);
  return (f->build_id_size == 0 && f->ino == m->ino && f->maj == m->maj
	  && f->min == m->min && f->ino_generation == m->ino_generation);
}

/* ID of SIZE bytes (at most 20) in hexadecimal, in HEX.  */
static void
hex_build_id (char *hex, const unsigned char *id, size_t size)
{
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < size; ++i)
    {
      hex[2 * i] = digits[id[i] >> 4];
      hex[2 * i + 1] = digits[id[i] & 0xf];
    }
  hex[2 * size] = '\0';
}

/* Read for F the copy perf's build-id cache keeps of the file with build
   id ID of SIZE bytes under NAME (elf, vdso), if it is there: F's FILE
   and FROM_CACHE are set then.  Returns 0, -1 if out of memory.  */
static int
read_cached (struct mapped_files *mf, struct mapped_file *f,
	     const unsigned char *id, size_t size, const char *name)
{
  const char *home = getenv ("HOME");
  if (home == NULL)
    return 0;
  char hex[2 * 20 + 1];
  hex_build_id (hex, id, size);
  char path[4096];
  if ((size_t) snprintf (path, sizeof path, "%s/.debug/.build-id/%.2s/%s/%s",
			 home, hex, hex + 2, name) >= sizeof path)
    return 0;
  struct elf_file *copy = elf_files_open (&mf->files, path, true);
  if (copy == NULL)
    return -1;
  if (copy->elf != NULL)
    {
      f->file = copy;
      f->from_cache = true;
    }
  return 0;
}

/* Decide what is read for F.  Returns 0, -1 if out of memory.  */
static int
choose_file (struct mapped_files *mf, struct mapped_file *f)
{
  /* The build id the recording has for the file: its records', else
     the header's.  */
  const unsigned char *id = f->build_id;
  size_t size = f->build_id_size;
  const struct perf_build_id *b;
  if (size == 0 && mf->data != NULL
      && (b = perf_data_build_id (mf->data, f->filename)) != NULL
      && b->size <= sizeof b->id)
    {
      id = b->id;
      size = b->size;
    }

  if (strcmp (f->filename, "[vdso]") == 0)
    {
      /* Which vdso it was only a build id tells.  */
      if (size == 0)
	return 0;
      if (mf->vdso != NULL && elf_file_has_build_id (mf->vdso, id, size))
	{
	  f->file = mf->vdso;
	  return 0;
	}
      return read_cached (mf, f, id, size, "vdso");
    }

  const char *path = f->filename;
  if (mf->map_file != NULL)
    path = mf->map_file (f->filename, mf->map_file_arg);
  /* perf record has the build ids of the files it saw samples in: their
     symbol tables are read.  */
  struct elf_file *file = elf_files_open (&mf->files, path, size > 0);
  if (file == NULL)
    return -1;
  if (size > 0 && !elf_file_has_build_id (file, id, size))
    {
      if (read_cached (mf, f, id, size, "elf") != 0)
	return -1;
      f->build_id_differs = !f->from_cache && file->elf != NULL;
    }
  else if (size == 0 && f->ino != 0 && file->elf != NULL)
    f->identity_differs = (file->ino != f->ino
			   || major (file->dev) != f->maj
			   || minor (file->dev) != f->min);
  if (f->file == NULL)
    f->file = file;
  return 0;
}

const struct mapped_file *
mapped_files_find (struct mapped_files *mf, const struct perf_mmap *m,
		   const char *filename)
{
  const char *name = strtab_add (&mf->names, filename);
  if (name == NULL)
    return NULL;
  struct mapped_file **first = (struct mapped_file **) strtab_value (name);
  for (struct mapped_file *f = *first; f != NULL; f = f->next)
    if (same_identity (f, m))
      return f;

  struct mapped_file *f = calloc (1, sizeof *f);
  if (f == NULL)
    return NULL;
  f->filename = name;
  if (m->build_id_size > 0)
    {
      f->build_id_size = m->build_id_size;
      memcpy (f->build_id, m->build_id, m->build_id_size);
    }
  else
    {
      f->maj = m->maj;
      f->min = m->min;
      f->ino = m->ino;
      f->ino_generation = m->ino_generation;
    }
  if (choose_file (mf, f) != 0)
    {
      free (f);
      return NULL;
    }
  f->next = *first;
  *first = f;
  f->next_in_table = mf->all;
  mf->all = f;
  return f;
}
