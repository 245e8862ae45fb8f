/* perfsym: name the samples of a perf.data file with libdwfl, whose
   address spaces are fed only by dwfl_report_elf_mmap with the mmap
   records of the file.  A record flows through perfdata.c (reading),
   order.c (time order), process.c and kernel.c (the address spaces),
   unwind.c and symbolize.c (naming) to report.c (printing), or to
   stacks.c (call stacks counted) and from there folded.c and
   flamegraph.c; session.c runs them, this file reads the command
   line.  */

#include <argp.h>
#include <stdio.h>
#include <elfutils/libdwfl.h>

#include "session.h"

#define PERFSYM_VERSION "1.0"

static void
print_version (FILE *stream, struct argp_state *state __attribute__ ((unused)))
{
  fprintf (stream, "perfsym %s (libdw %s)\n", PERFSYM_VERSION,
	   dwfl_version (NULL));
}

void (*argp_program_version_hook) (FILE *, struct argp_state *)
  = print_version;

enum
{
  OPT_PARTIAL = 0x100,
  OPT_PROGRESS,
  OPT_NO_PROGRESS,
  OPT_NO_DEMANGLE,
  OPT_STATS,
  OPT_FOLDED,
  OPT_FLAMEGRAPH,
  OPT_KALLSYMS,
};

static const struct argp_option argp_options[] =
{
  { "input", 'i', "FILE", 0,
    "Read FILE (default perf.data; - is standard input, which must be"
    " in perf's pipe format, as perf record -o - writes it)", 0 },
  { "samples", 's', NULL, 0,
    "Print one line per sample instead of the profile", 0 },
  { "callchain", 'g', NULL, 0,
    "With -s, follow each sample by its callers, one line each", 0 },
  { "folded", OPT_FOLDED, NULL, 0,
    "Print one line per distinct call stack instead of the profile:"
    " COMM;OUTERMOST;...;INNERMOST COUNT", 0 },
  { "flamegraph", OPT_FLAMEGRAPH, "FILE", 0,
    "Also write a flame graph of the call stacks to FILE, as SVG", 0 },
  { "kallsyms", OPT_KALLSYMS, "FILE", 0,
    "Name kernel addresses from FILE, a copy of /proc/kallsyms, whatever"
    " kernel the recording is of", 0 },
  { "partial", OPT_PARTIAL, NULL, 0,
    "On bad data, report what was read before it (the exit status is"
    " still 1)", 0 },
  { "progress", OPT_PROGRESS, NULL, 0,
    "Show progress on standard error (default: when it is a terminal"
    " and the file is large)", 0 },
  { "no-progress", OPT_NO_PROGRESS, NULL, 0, "Show no progress", 0 },
  { "no-demangle", OPT_NO_DEMANGLE, NULL, 0,
    "Show C++ symbols as the symbol table has them", 0 },
  { "stats", OPT_STATS, NULL, 0,
    "Print what was read and how it was resolved on standard error", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char argp_doc[] =
  "Name the samples of a perf.data file written by perf record, with "
  "libdwfl address spaces fed only by dwfl_report_elf_mmap from the "
  "file's MMAP and MMAP2 records.\n"
  "\n"
  "By default, print a flat profile like perf report --stdio "
  "--no-children -n --sort comm,dso,sym: overhead (share of the sample "
  "periods), samples, command, module file name and symbol ([.] user, "
  "[k] kernel), most samples first.\n"
  "\n"
  "With -s, print one line per sample, fields separated by single "
  "spaces:\n"
  "  PID TID TIME IP DSO SYMBOL\n"
  "TIME is in seconds with six decimals, as perf script prints it; IP is "
  "hexadecimal without 0x; DSO is the module's file name as the mmap "
  "record has it, or [kernel.kallsyms], [vdso], [unknown]...; SYMBOL is "
  "NAME+0xOFFSET or [unknown] (a demangled C++ name may hold spaces: it "
  "is the last field).  With -g each sample line is followed by one line "
  "per caller: a TAB, then IP SYMBOL (DSO).\n"
  "\n"
  "With --folded, print one line per distinct call stack, in the "
  "collapsed format flame graph tools read: the command, then the "
  "frames from the outermost to the sampled one, separated by ';', a "
  "space and the number of samples.  A frame is its symbol, or [FILE] "
  "for an address of the module FILE that no symbol covers.  The call "
  "stacks are those of -s -g: perf record -g or --call-graph dwarf "
  "gives them, without either a stack is the sampled frame alone.  "
  "--flamegraph=FILE draws the same stacks as an SVG flame graph "
  "(program code red, shared libraries yellow, the kernel blue); in a "
  "web browser, a click on a frame zooms into it, and the box at the top "
  "right searches names (text, or /regex/) and prints their share of "
  "the samples.\n"
  "\n"
  "Kernel addresses are named from /proc/kallsyms when the recording's "
  "kernel (its build id) is the running one, else from the copy of its "
  "kallsyms in perf's build-id cache (~/.debug), else not (with a "
  "warning); their DSO is [kernel.kallsyms] or [MODULE], as perf "
  "names them.\v"
  "Exit status: 0 on success, 1 on bad data or another error.";

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct session_options *opt = state->input;
  switch (key)
    {
    case 'i':
      opt->input = arg;
      break;
    case 's':
      opt->samples = true;
      break;
    case 'g':
      opt->callchain = true;
      break;
    case OPT_PARTIAL:
      opt->partial = true;
      break;
    case OPT_PROGRESS:
      opt->progress = 1;
      break;
    case OPT_NO_PROGRESS:
      opt->progress = 0;
      break;
    case OPT_NO_DEMANGLE:
      opt->demangle = false;
      break;
    case OPT_STATS:
      opt->stats = true;
      break;
    case OPT_FOLDED:
      opt->folded = true;
      break;
    case OPT_FLAMEGRAPH:
      opt->flamegraph = arg;
      break;
    case OPT_KALLSYMS:
      opt->kallsyms = arg;
      break;
    case ARGP_KEY_END:
      if (opt->folded && opt->samples)
	argp_error (state, "--folded and --samples cannot be used together");
      break;
    case ARGP_KEY_ARG:
      argp_error (state, "unexpected argument '%s'", arg);
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  struct session_options opt =
    {
      .input = "perf.data",
      .progress = -1,
      .demangle = true,
    };
  const struct argp argp =
    {
      .options = argp_options,
      .parser = parse_opt,
      .doc = argp_doc,
    };
  /* getopt names the program after ARGV[0] in its messages.  */
  argv[0] = (char *) "perfsym";
  argp_parse (&argp, argc, argv, 0, NULL, &opt);

  static char outbuf[1 << 20];
  setvbuf (stdout, outbuf, _IOFBF, sizeof outbuf);
  return session_run (&opt, stdout, stderr);
}
