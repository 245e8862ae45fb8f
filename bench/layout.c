/* The program headers of an ELF file, read with pread and <elf.h> only:
   the input generator, the truth and the contenders that work the bias
   out themselves need them, and none of them may lean on the libdwfl
   code under test.  */

#include <elf.h>
#include <endian.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

/* Fill LAYOUT from the program headers of the 64-bit file at FD.  */
static bool
read_phdrs (int fd, const Elf64_Ehdr *ehdr, struct elf_layout *layout)
{
  if (ehdr->e_phentsize != sizeof (Elf64_Phdr) || ehdr->e_phnum == 0
      || ehdr->e_phnum > 256)
    return false;
  Elf64_Phdr phdrs[256];
  size_t size = ehdr->e_phnum * sizeof phdrs[0];
  if (pread (fd, phdrs, size, ehdr->e_phoff) != (ssize_t) size)
    return false;

  layout->e_type = ehdr->e_type;
  layout->nloads = 0;
  layout->has_relro = false;
  for (size_t i = 0; i < ehdr->e_phnum; ++i)
    if (phdrs[i].p_type == PT_LOAD)
      {
	if (layout->nloads == LAYOUT_MAX_LOADS)
	  return false;
	struct load_segment *s = &layout->loads[layout->nloads++];
	s->offset = phdrs[i].p_offset;
	s->vaddr = phdrs[i].p_vaddr;
	s->filesz = phdrs[i].p_filesz;
	s->memsz = phdrs[i].p_memsz;
	s->align = phdrs[i].p_align;
	s->flags = phdrs[i].p_flags;
      }
    else if (phdrs[i].p_type == PT_GNU_RELRO)
      {
	layout->has_relro = true;
	layout->relro_vaddr = phdrs[i].p_vaddr;
	layout->relro_memsz = phdrs[i].p_memsz;
      }
  return layout->nloads > 0;
}

bool
elf_layout_read (const char *path, struct elf_layout *layout)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  /* Only regular files: a device or a FIFO in the maps must not hang us.  */
  struct stat st;
  Elf64_Ehdr ehdr;
  bool ok = (fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
	     && pread (fd, &ehdr, sizeof ehdr, 0) == sizeof ehdr
	     && memcmp (ehdr.e_ident, ELFMAG, SELFMAG) == 0
	     && ehdr.e_ident[EI_CLASS] == ELFCLASS64
	     && ehdr.e_ident[EI_DATA] == ELFDATA2LSB
	     && (ehdr.e_type == ET_DYN || ehdr.e_type == ET_EXEC)
	     && read_phdrs (fd, &ehdr, layout));
  close (fd);
  return ok;
}

bool
elf_headers_read (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  Elf64_Ehdr ehdr;
  Elf64_Phdr phdrs[256];
  bool ok = (pread (fd, &ehdr, sizeof ehdr, 0) == sizeof ehdr
	     && memcmp (ehdr.e_ident, ELFMAG, SELFMAG) == 0
	     && ehdr.e_phentsize == sizeof phdrs[0]
	     && ehdr.e_phnum <= 256
	     && (pread (fd, phdrs, ehdr.e_phnum * sizeof phdrs[0],
			ehdr.e_phoff)
		 == (ssize_t) (ehdr.e_phnum * sizeof phdrs[0])));
  close (fd);
  return ok;
}

bool
layout_piece_bias (const struct elf_layout *layout, const struct piece *piece,
		   uint64_t *bias)
{
  if (layout->e_type == ET_EXEC)
    {
      *bias = 0;
      return true;
    }
  const struct load_segment *best = NULL;
  int best_score = -1;
  for (size_t i = 0; i < layout->nloads; ++i)
    {
      const struct load_segment *seg = &layout->loads[i];
      if (seg->offset + seg->filesz <= piece->pgoff
	  || seg->offset >= piece->pgoff + piece->len)
	continue;
      int score = 0;
      if (piece->prot >= 0)
	score = ((!! (seg->flags & PF_X) == !! (piece->prot & PROT_EXEC))
		 * 2
		 + (!! (seg->flags & PF_W) == !! (piece->prot & PROT_WRITE)));
      if (score > best_score)
	{
	  best = seg;
	  best_score = score;
	}
    }
  if (best == NULL)
    return false;
  *bias = piece->start - piece->pgoff + best->offset - best->vaddr;
  return true;
}
