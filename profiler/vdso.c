/* The vdso of the running kernel, as an image to read.  */

#define _GNU_SOURCE 1

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "vdso.h"

/* The size of the ELF image at BASE: up to the end of its last segment
   or of its section headers.  */
static size_t
image_size (const unsigned char *base)
{
  const ElfW(Ehdr) *ehdr = (const ElfW(Ehdr) *) base;
  if (memcmp (ehdr->e_ident, ELFMAG, SELFMAG) != 0
      || ehdr->e_phentsize != sizeof (ElfW(Phdr)))
    return 0;
  size_t size = ehdr->e_shoff + (size_t) ehdr->e_shnum * ehdr->e_shentsize;
  const ElfW(Phdr) *phdr = (const ElfW(Phdr) *) (base + ehdr->e_phoff);
  for (size_t i = 0; i < ehdr->e_phnum; ++i)
    if (phdr[i].p_type == PT_LOAD
	&& phdr[i].p_offset + phdr[i].p_filesz > size)
      size = phdr[i].p_offset + phdr[i].p_filesz;
  return size;
}

void *
vdso_copy (size_t *size)
{
  const unsigned char *base = (const unsigned char *) getauxval
    (AT_SYSINFO_EHDR);
  if (base == NULL)
    return NULL;
  *size = image_size (base);
  void *copy = *size > 0 ? malloc (*size) : NULL;
  if (copy != NULL)
    memcpy (copy, base, *size);
  return copy;
}
