/* The vdso of the running kernel, as a file.  */

#define _GNU_SOURCE 1

#include <link.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <gelf.h>

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

/* Whether ELF has the GNU build id BUILD_ID of SIZE bytes.  */
static bool
has_build_id (Elf *elf, const unsigned char *build_id, size_t size)
{
  size_t phnum;
  if (elf_getphdrnum (elf, &phnum) != 0)
    return false;
  for (size_t i = 0; i < phnum; ++i)
    {
      GElf_Phdr mem;
      GElf_Phdr *phdr = gelf_getphdr (elf, i, &mem);
      if (phdr == NULL || phdr->p_type != PT_NOTE)
	continue;
      Elf_Data *data = elf_getdata_rawchunk (elf, phdr->p_offset,
					     phdr->p_filesz, ELF_T_NHDR);
      if (data == NULL)
	continue;
      GElf_Nhdr nhdr;
      size_t offset = 0;
      size_t name_offset;
      size_t desc_offset;
      while ((offset = gelf_getnote (data, offset, &nhdr, &name_offset,
				     &desc_offset)) > 0)
	if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == sizeof "GNU"
	    && memcmp ((char *) data->d_buf + name_offset, "GNU",
		       sizeof "GNU") == 0)
	  return (nhdr.n_descsz == size
		  && memcmp ((char *) data->d_buf + desc_offset, build_id,
			     size) == 0);
    }
  return false;
}

int
vdso_open (const unsigned char *build_id, size_t size)
{
  const unsigned char *base = (const unsigned char *) getauxval
    (AT_SYSINFO_EHDR);
  if (base == NULL || size == 0)
    return -1;
  size_t len = image_size (base);
  if (len == 0)
    return -1;
  elf_version (EV_CURRENT);
  Elf *elf = elf_memory ((char *) base, len);
  bool same = elf != NULL && has_build_id (elf, build_id, size);
  elf_end (elf);
  if (!same)
    return -1;

  int fd = memfd_create ("vdso", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  if (write (fd, base, len) != (ssize_t) len)
    {
      close (fd);
      return -1;
    }
  return fd;
}
