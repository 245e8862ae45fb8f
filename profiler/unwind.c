/* The call chain of a sample, from its callchain or unwound by libdwfl
   from its user registers and stack.  */

#include <string.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "unwind.h"

#if defined __x86_64__
# include <asm/perf_regs.h>
/* The perf register (PERF_REG_X86_*) of each x86_64 DWARF register, as
   backends/x86_64_initreg.c orders them from the ptrace registers.  */
static const int dwarf_to_perf[] =
  {
    PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX,
    PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
    PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
    PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
    PERF_REG_X86_IP,
  };
# define PERF_REG_SP PERF_REG_X86_SP
# define PERF_REG_IP PERF_REG_X86_IP
# define MACHINE EM_X86_64
# define REGS_ABI PERF_SAMPLE_REGS_ABI_64
#endif

#ifdef MACHINE
/* Register REG (PERF_REG_*) of SAMPLE in *VALUE; false if the sample
   does not have it.  */
static bool
sample_reg (const struct perf_sample *s, unsigned int reg, uint64_t *value)
{
  if (reg >= 64 || !(s->regs_mask & (1ULL << reg)))
    return false;
  unsigned int i = __builtin_popcountll (s->regs_mask & ((1ULL << reg) - 1));
  if (i >= s->n_regs)
    return false;
  *value = s->regs[i];
  return true;
}

static pid_t
next_thread (Dwfl *dwfl __attribute__ ((unused)),
	     void *dwfl_arg __attribute__ ((unused)),
	     void **thread_argp __attribute__ ((unused)))
{
  /* Threads are only ever asked for by id.  */
  return 0;
}

static bool
get_thread (Dwfl *dwfl __attribute__ ((unused)),
	    pid_t tid __attribute__ ((unused)), void *dwfl_arg,
	    void **thread_argp)
{
  *thread_argp = dwfl_arg;
  return true;
}

/* Read the word at ADDR of a module's file: code and read-only data are
   as the file has them.  */
static bool
read_file_word (Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result)
{
  Dwfl_Module *mod = dwfl_addrmodule (dwfl, addr);
  if (mod == NULL)
    return false;
  Dwarf_Addr bias;
  Elf *elf = dwfl_module_getelf (mod, &bias);
  size_t phnum;
  if (elf == NULL || elf_getphdrnum (elf, &phnum) != 0)
    return false;
  Dwarf_Addr vaddr = addr - bias;
  for (size_t i = 0; i < phnum; ++i)
    {
      GElf_Phdr mem;
      GElf_Phdr *ph = gelf_getphdr (elf, i, &mem);
      if (ph == NULL || ph->p_type != PT_LOAD || (ph->p_flags & PF_W)
	  || vaddr < ph->p_vaddr || ph->p_filesz < sizeof *result
	  || vaddr - ph->p_vaddr > ph->p_filesz - sizeof *result)
	continue;
      Elf_Data *data = elf_getdata_rawchunk (elf, ph->p_offset
					     + (vaddr - ph->p_vaddr),
					     sizeof *result, ELF_T_BYTE);
      if (data == NULL || data->d_size < sizeof *result)
	return false;
      memcpy (result, data->d_buf, sizeof *result);
      return true;
    }
  return false;
}

static bool
memory_read (Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
  const struct process *proc = arg;
  const struct perf_sample *s = proc->unwinding;
  uint64_t sp;
  if (s != NULL && sample_reg (s, PERF_REG_SP, &sp) && addr >= sp
      && s->stack_dyn_size >= sizeof *result
      && addr - sp <= s->stack_dyn_size - sizeof *result)
    {
      memcpy (result, s->stack + (addr - sp), sizeof *result);
      return true;
    }
  return read_file_word (dwfl, addr, result);
}

static bool
set_initial_registers (Dwfl_Thread *thread, void *arg)
{
  const struct process *proc = arg;
  const struct perf_sample *s = proc->unwinding;
  uint64_t ip;
  uint64_t sp;
  if (s == NULL || !sample_reg (s, PERF_REG_IP, &ip)
      || !sample_reg (s, PERF_REG_SP, &sp))
    return false;
  for (unsigned int regno = 0;
       regno < sizeof dwarf_to_perf / sizeof dwarf_to_perf[0]; ++regno)
    {
      uint64_t value;
      Dwarf_Word word;
      if (sample_reg (s, dwarf_to_perf[regno], &value))
	{
	  word = value;
	  if (!dwfl_thread_state_registers (thread, regno, 1, &word))
	    return false;
	}
    }
  dwfl_thread_state_register_pc (thread, ip);
  return true;
}
#endif /* MACHINE */

void
unwinder_init (struct unwinder *uw)
{
  memset (uw, 0, sizeof *uw);
#ifdef MACHINE
  uw->callbacks.next_thread = next_thread;
  uw->callbacks.get_thread = get_thread;
  uw->callbacks.memory_read = memory_read;
  uw->callbacks.set_initial_registers = set_initial_registers;

  static GElf_Ehdr ehdr;
  memcpy (ehdr.e_ident, ELFMAG, SELFMAG);
  ehdr.e_ident[EI_CLASS] = ELFCLASS64;
  ehdr.e_ident[EI_DATA] = (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			   ? ELFDATA2LSB : ELFDATA2MSB);
  ehdr.e_ident[EI_VERSION] = EV_CURRENT;
  ehdr.e_type = ET_CORE;
  ehdr.e_machine = MACHINE;
  ehdr.e_version = EV_CURRENT;
  ehdr.e_ehsize = sizeof ehdr;
  elf_version (EV_CURRENT);
  uw->machine = elf_memory ((char *) &ehdr, sizeof ehdr);
#endif
}

void
unwinder_free (struct unwinder *uw)
{
  if (uw->machine != NULL)
    elf_end (uw->machine);
  uw->machine = NULL;
}

struct collect
{
  struct frame *frames;
  size_t n;
  size_t max;
};

static int
frame_callback (Dwfl_Frame *state, void *arg)
{
  struct collect *c = arg;
  Dwarf_Addr pc;
  bool activation;
  if (!dwfl_frame_pc (state, &pc, &activation))
    return DWARF_CB_ABORT;
  /* A return address is after the call: name the call, as perf does.  */
  if (!activation)
    --pc;
  c->frames[c->n].ip = pc;
  c->frames[c->n].cpumode = PERF_RECORD_MISC_USER;
  ++c->n;
  return c->n < c->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Unwind the user stack of SAMPLE into FRAMES.  */
static size_t
unwind_user (struct unwinder *uw, struct process *proc,
	     const struct perf_sample *s, struct frame *frames, size_t max)
{
#ifdef MACHINE
  if (max == 0)
    return 0;
  if (s->regs_abi != REGS_ABI)
    {
      tally_add (&uw->failed, "registers of another ABI");
      return 0;
    }
  Dwfl *dwfl = proc != NULL ? process_dwfl (proc) : NULL;
  if (dwfl == NULL)
    {
      tally_add (&uw->failed, "no modules in the process");
      return 0;
    }
  if (!proc->attached)
    {
      if (uw->machine == NULL
	  || !dwfl_attach_state (dwfl, uw->machine, proc->pid,
				 &uw->callbacks, proc))
	{
	  tally_add (&uw->failed, "dwfl_attach_state failed");
	  return 0;
	}
      proc->attached = true;
    }
  struct collect c = { frames, 0, max < UNWIND_MAX_FRAMES
				  ? max : UNWIND_MAX_FRAMES };
  proc->unwinding = s;
  int r = dwfl_getthread_frames (dwfl, s->tid, frame_callback, &c);
  proc->unwinding = NULL;
  if (c.n > 0)
    {
      ++uw->unwound;
      uw->frames += c.n;
    }
  else if (r != 0)
    tally_add (&uw->failed, "no frame");
  return c.n;
#else
  (void) proc;
  (void) s;
  (void) frames;
  (void) max;
  tally_add (&uw->failed, "unwinding not supported on this machine");
  return 0;
#endif
}

size_t
sample_frames (struct unwinder *uw, struct process *proc,
	       const struct perf_sample *s, struct frame *frames, size_t max)
{
  bool unwind = (s->stack != NULL && s->stack_dyn_size > 0
		 && s->n_regs > 0);
  unsigned int cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  size_t n = 0;
  for (uint64_t i = 0; i < s->callchain_nr; ++i)
    {
      uint64_t ip = perf_sample_callchain (s, i);
      if (ip >= PERF_CONTEXT_MAX)
	{
	  switch (ip)
	    {
	    case PERF_CONTEXT_HV:
	      cpumode = PERF_RECORD_MISC_HYPERVISOR;
	      break;
	    case PERF_CONTEXT_KERNEL:
	      cpumode = PERF_RECORD_MISC_KERNEL;
	      break;
	    case PERF_CONTEXT_USER:
	      cpumode = PERF_RECORD_MISC_USER;
	      break;
	    case PERF_CONTEXT_GUEST_KERNEL:
	      cpumode = PERF_RECORD_MISC_GUEST_KERNEL;
	      break;
	    case PERF_CONTEXT_GUEST_USER:
	      cpumode = PERF_RECORD_MISC_GUEST_USER;
	      break;
	    default:
	      break;
	    }
	  continue;
	}
      /* The user frames are unwound instead.  */
      if (unwind && cpumode == PERF_RECORD_MISC_USER)
	break;
      if (n == max)
	break;
      frames[n].ip = ip;
      frames[n].cpumode = cpumode;
      ++n;
    }
  if (unwind)
    n += unwind_user (uw, proc, s, frames + n, max - n);
  return n;
}
