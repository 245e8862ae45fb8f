/* Write a perf.data file described by a small text, for perfsym's unit
   tests: good files with records in any order, and bad ones.
   Usage: make-perfdata OUTPUT < DESCRIPTION

   The description has one item a line, WORD KEY=VALUE..., '#' starts a
   comment.  Numbers are C literals (0x...).  The file gets a header, the
   attributes with their ids, and the data section with the records in
   the order given; no feature sections.

     attr sample_type=ip,tid,... [id_all] [size=N] [ids=1,2] [type=N]
	  [config=N] [read_format=N] [regs_user=MASK] [stack_user=N]
	  [branch_type=N]
	    An event attribute (size: its own size field, default 128).
     mmap  pid= tid= start= len= pgoff= file= [data] [kernel] [time=]
	  [id=]
     mmap2 pid= tid= start= len= pgoff= prot=r-x file= [buildid=HEX]
	  [maj=] [min=] [ino=] [ino_generation=] [kernel] [time=] [id=]
	    kernel sets cpumode: a map of the kernel or of a module.
     comm pid= tid= name= [exec] [time=]
     fork|exit pid= ppid= tid= ptid= [time=]
     sample [attr=N] [ip=] [pid=] [tid=] [time=] [period=] [id=] [cpu=]
	  [kernel] [callchain=A,B,...] [regs=A,B,...] [stack=N] [raw=N]
	  [group=N] [branches=N]
	    Fields as the attribute's sample_type asks; kernel sets cpumode.
     round
	    PERF_RECORD_FINISHED_ROUND.
     record type=N [size=N] [misc=N] [payload=N] [extra=N]
	    A record of any type: SIZE in its header (default 8 + payload),
	    PAYLOAD zero bytes after the header; EXTRA bytes after the
	    record, their number in the first payload word (AUXTRACE).
     pipe
	    Pipe mode: a 16-byte header, the attributes as HEADER_ATTR
	    records; must come before the attributes.
     buildid file=NAME id=HEX
	    An entry of the build id table (feature HEADER_BUILD_ID).
     header [magic=STRING] [size=N] [attr_size=N] [data_size=N]
	    Override header fields.
     truncate N
	    Cut N bytes off the end of the file.
     set OFFSET VALUE
	    Set the byte at OFFSET of the file to VALUE, to corrupt it.
     variants DIR
	    Also write DIR/OFFSET-VALUE.data for every byte of the file set
	    to 0 and to 0xff (unless it has that value already).

   Records other than samples get the sample_id fields of attribute 0
   (or attr=N) when it has id_all.  */

#include <stdarg.h>
#include <stdbool.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define PERF_RECORD_HEADER_BUILD_ID 67

#define MAX_ATTRS 8
#define MAX_WORDS 256

struct attr
{
  uint32_t type;
  uint32_t size;
  uint64_t config;
  uint64_t sample_type;
  uint64_t read_format;
  uint64_t regs_user;
  uint32_t stack_user;
  uint64_t branch_type;
  int id_all;
  uint64_t ids[16];
  int n_ids;
};

/* A growing byte buffer.  */
struct buf
{
  unsigned char *p;
  size_t len;
  size_t cap;
};

static const char *input_line;
static int line_no;

static void __attribute__ ((noreturn, format (printf, 1, 2)))
die (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "make-perfdata: line %d: ", line_no);
  vfprintf (stderr, fmt, ap);
  fprintf (stderr, "\n  %s", input_line ? input_line : "");
  va_end (ap);
  exit (2);
}

static void
put (struct buf *b, const void *data, size_t len)
{
  if (b->len + len > b->cap)
    {
      b->cap = (b->len + len) * 2 + 64;
      b->p = realloc (b->p, b->cap);
      if (b->p == NULL)
	die ("out of memory");
    }
  if (data != NULL)
    memcpy (b->p + b->len, data, len);
  else
    memset (b->p + b->len, 0, len);
  b->len += len;
}

static void
put_u64 (struct buf *b, uint64_t v)
{
  put (b, &v, 8);
}

static void
put_u32 (struct buf *b, uint32_t v)
{
  put (b, &v, 4);
}

/* The KEY=VALUE words of the current line.  */
static char *words[MAX_WORDS];
static int n_words;

static const char *
get (const char *key)
{
  size_t n = strlen (key);
  for (int i = 1; i < n_words; ++i)
    if (strncmp (words[i], key, n) == 0
	&& (words[i][n] == '=' || words[i][n] == '\0'))
      return words[i][n] == '=' ? words[i] + n + 1 : "";
  return NULL;
}

static uint64_t
number (const char *s)
{
  char *end;
  errno = 0;
  uint64_t v = strtoull (s, &end, 0);
  if (errno != 0 || end == s || *end != '\0')
    die ("bad number '%s'", s);
  return v;
}

static uint64_t
get_num (const char *key, uint64_t dflt)
{
  const char *s = get (key);
  return s != NULL ? number (s) : dflt;
}

/* Parse "A,B,C" into V, returning the count.  */
static int
get_list (const char *key, uint64_t *v, int max)
{
  const char *s = get (key);
  if (s == NULL || *s == '\0')
    return 0;
  char *copy = strdup (s);
  int n = 0;
  for (char *tok = strtok (copy, ","); tok != NULL; tok = strtok (NULL, ","))
    {
      if (n == max)
	die ("too many values for %s", key);
      v[n++] = number (tok);
    }
  free (copy);
  return n;
}

static uint64_t
sample_type (const char *s)
{
  static const struct { const char *name; uint64_t bit; } bits[] =
    {
      { "identifier", PERF_SAMPLE_IDENTIFIER }, { "ip", PERF_SAMPLE_IP },
      { "tid", PERF_SAMPLE_TID }, { "time", PERF_SAMPLE_TIME },
      { "addr", PERF_SAMPLE_ADDR }, { "id", PERF_SAMPLE_ID },
      { "stream_id", PERF_SAMPLE_STREAM_ID }, { "cpu", PERF_SAMPLE_CPU },
      { "period", PERF_SAMPLE_PERIOD }, { "read", PERF_SAMPLE_READ },
      { "callchain", PERF_SAMPLE_CALLCHAIN }, { "raw", PERF_SAMPLE_RAW },
      { "branch_stack", PERF_SAMPLE_BRANCH_STACK },
      { "regs_user", PERF_SAMPLE_REGS_USER },
      { "stack_user", PERF_SAMPLE_STACK_USER },
      { "weight", PERF_SAMPLE_WEIGHT },
    };
  uint64_t type = 0;
  char *copy = strdup (s);
  for (char *tok = strtok (copy, ","); tok != NULL; tok = strtok (NULL, ","))
    {
      size_t i;
      for (i = 0; i < sizeof bits / sizeof bits[0]; ++i)
	if (strcmp (tok, bits[i].name) == 0)
	  break;
      if (i == sizeof bits / sizeof bits[0])
	die ("unknown sample type '%s'", tok);
      type |= bits[i].bit;
    }
  free (copy);
  return type;
}

/* The struct perf_event_attr of A, A->size bytes.  */
static void
put_attr (struct buf *b, const struct attr *a)
{
  unsigned char raw[512] = { 0 };
  if (a->size > sizeof raw)
    die ("attr size too large");
  memcpy (raw, &a->type, 4);
  memcpy (raw + 4, &a->size, 4);
  memcpy (raw + 8, &a->config, 8);
  memcpy (raw + 24, &a->sample_type, 8);
  memcpy (raw + 32, &a->read_format, 8);
  uint64_t flags = (uint64_t) a->id_all << 18;
  memcpy (raw + 40, &flags, 8);
  if (a->size >= 80)
    memcpy (raw + 72, &a->branch_type, 8);
  if (a->size >= 88)
    memcpy (raw + 80, &a->regs_user, 8);
  if (a->size >= 92)
    memcpy (raw + 88, &a->stack_user, 4);
  /* The first 64 bytes are always written: a size below that is a lie
     the reader must catch.  */
  put (b, raw, a->size > 64 ? a->size : 64);
}

/* The sample_id fields of a record other than a sample.  */
static void
put_sample_id (struct buf *b, const struct attr *a)
{
  if (!a->id_all)
    return;
  uint64_t t = a->sample_type;
  if (t & PERF_SAMPLE_TID)
    {
      put_u32 (b, get_num ("pid", 0));
      put_u32 (b, get_num ("tid", get_num ("pid", 0)));
    }
  if (t & PERF_SAMPLE_TIME)
    put_u64 (b, get_num ("time", 0));
  if (t & PERF_SAMPLE_ID)
    put_u64 (b, get_num ("id", 0));
  if (t & PERF_SAMPLE_STREAM_ID)
    put_u64 (b, 0);
  if (t & PERF_SAMPLE_CPU)
    put_u64 (b, get_num ("cpu", 0));
  if (t & PERF_SAMPLE_IDENTIFIER)
    put_u64 (b, get_num ("id", 0));
}

static void
put_string (struct buf *b, const char *s)
{
  size_t len = strlen (s) + 1;
  put (b, s, len);
  put (b, NULL, (8 - len % 8) % 8);
}

static void
put_sample (struct buf *b, const struct attr *a)
{
  uint64_t t = a->sample_type;
  uint64_t id = get_num ("id", 0);
  if (t & PERF_SAMPLE_IDENTIFIER)
    put_u64 (b, id);
  if (t & PERF_SAMPLE_IP)
    put_u64 (b, get_num ("ip", 0));
  if (t & PERF_SAMPLE_TID)
    {
      put_u32 (b, get_num ("pid", 0));
      put_u32 (b, get_num ("tid", get_num ("pid", 0)));
    }
  if (t & PERF_SAMPLE_TIME)
    put_u64 (b, get_num ("time", 0));
  if (t & PERF_SAMPLE_ADDR)
    put_u64 (b, 0);
  if (t & PERF_SAMPLE_ID)
    put_u64 (b, id);
  if (t & PERF_SAMPLE_STREAM_ID)
    put_u64 (b, 0);
  if (t & PERF_SAMPLE_CPU)
    put_u64 (b, get_num ("cpu", 0));
  if (t & PERF_SAMPLE_PERIOD)
    put_u64 (b, get_num ("period", 1));
  if (t & PERF_SAMPLE_READ)
    {
      /* The values of GROUP events (default 1: no group), each with an
	 id and lost count if asked for, after the times.  */
      uint64_t f = a->read_format;
      int times = (!!(f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		   + !!(f & PERF_FORMAT_TOTAL_TIME_RUNNING));
      int per_value = 1 + !!(f & PERF_FORMAT_ID) + !!(f & PERF_FORMAT_LOST);
      uint64_t group = get_num ("group", 2);
      if (f & PERF_FORMAT_GROUP)
	put_u64 (b, group);
      else
	group = 1;
      for (uint64_t i = 0; i < times + group * per_value; ++i)
	put_u64 (b, 0);
    }
  if (t & PERF_SAMPLE_CALLCHAIN)
    {
      uint64_t chain[MAX_WORDS];
      int n = get_list ("callchain", chain, MAX_WORDS);
      put_u64 (b, get_num ("nr", n));
      put (b, chain, 8 * (size_t) n);
    }
  if (t & PERF_SAMPLE_RAW)
    {
      /* The u32 size and the data end on a u64 boundary.  */
      uint32_t size = get_num ("raw", 4);
      put_u32 (b, size);
      put (b, NULL, size);
    }
  if (t & PERF_SAMPLE_BRANCH_STACK)
    {
      /* NR entries of from, to, flags; hw_idx first if asked for.  */
      uint64_t nr = get_num ("branches", 0);
      put_u64 (b, nr);
      if (a->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
	put_u64 (b, 0);
      put (b, NULL, 24 * nr);
    }
  if (t & PERF_SAMPLE_REGS_USER)
    {
      uint64_t regs[64];
      int n = get_list ("regs", regs, 64);
      put_u64 (b, n > 0 ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE);
      put (b, regs, 8 * (size_t) n);
    }
  if (t & PERF_SAMPLE_STACK_USER)
    {
      uint64_t size = get_num ("stack", 0);
      put_u64 (b, size);
      if (size > 0)
	{
	  put (b, NULL, size);
	  put_u64 (b, size);
	}
    }
  if (t & PERF_SAMPLE_WEIGHT)
    put_u64 (b, 0);
}

/* Append a record of TYPE and MISC whose body is in BODY to DATA.  */
static void
put_record (struct buf *data, uint32_t type, uint16_t misc,
	    const struct buf *body)
{
  if (8 + body->len > UINT16_MAX)
    die ("record too large");
  uint16_t size = get ("size") != NULL ? get_num ("size", 0) : 8 + body->len;
  put_u32 (data, type);
  put (data, &misc, 2);
  put (data, &size, 2);
  put (data, body->p, body->len);
}

static int
prot_bits (const char *s)
{
  if (strlen (s) != 3)
    die ("prot must be like r-x");
  return ((s[0] == 'r' ? 1 : 0) | (s[1] == 'w' ? 2 : 0)
	  | (s[2] == 'x' ? 4 : 0));
}

static int
write_file (const char *name, const void *data, size_t len)
{
  FILE *out = fopen (name, "w");
  if (out == NULL || fwrite (data, 1, len, out) != len || fclose (out) != 0)
    {
      fprintf (stderr, "make-perfdata: %s: %s\n", name, strerror (errno));
      return -1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: make-perfdata OUTPUT < DESCRIPTION\n");
      return 2;
    }
  static struct attr attrs[MAX_ATTRS];
  int n_attrs = 0;
  struct buf data = { 0 };
  struct buf build_ids = { 0 };
  bool pipe_mode = false;
  const char *magic = "PERFILE2";
  int64_t header_size = -1, attr_size = -1, data_size = -1;
  uint64_t truncate_by = 0;
  const char *variants = NULL;
  int64_t set_offset = -1;
  unsigned char set_value = 0;

  char line[4096];
  while (fgets (line, sizeof line, stdin) != NULL)
    {
      ++line_no;
      input_line = line;
      char *hash = strchr (line, '#');
      char copy[sizeof line];
      strcpy (copy, line);
      if (hash != NULL)
	copy[hash - line] = '\0';
      n_words = 0;
      for (char *tok = strtok (copy, " \t\n"); tok != NULL;
	   tok = strtok (NULL, " \t\n"))
	{
	  if (n_words == MAX_WORDS)
	    die ("too many words");
	  words[n_words++] = tok;
	}
      if (n_words == 0)
	continue;
      const char *what = words[0];
      struct attr *a = &attrs[get_num ("attr", 0)];
      if (get_num ("attr", 0) >= MAX_ATTRS)
	die ("no such attr");
      struct buf body = { 0 };
      uint16_t misc = get_num ("misc", 0);

      if (strcmp (what, "attr") == 0)
	{
	  if (n_attrs == MAX_ATTRS)
	    die ("too many attrs");
	  struct attr *n = &attrs[n_attrs++];
	  n->type = get_num ("type", PERF_TYPE_SOFTWARE);
	  n->config = get_num ("config", 0);
	  n->size = get_num ("size", 128);
	  n->sample_type = sample_type (get ("sample_type") ?: "ip");
	  n->read_format = get_num ("read_format", 0);
	  n->regs_user = get_num ("regs_user", 0);
	  n->stack_user = get_num ("stack_user", 0);
	  n->branch_type = get_num ("branch_type", 0);
	  n->id_all = get ("id_all") != NULL;
	  n->n_ids = get_list ("ids", n->ids, 16);
	  if (pipe_mode)
	    {
	      put_attr (&body, n);
	      put (&body, n->ids, 8 * (size_t) n->n_ids);
	      put_record (&data, 64, 0, &body);
	    }
	}
      else if (strcmp (what, "pipe") == 0)
	pipe_mode = true;
      else if (strcmp (what, "header") == 0)
	{
	  magic = get ("magic") ? strdup (get ("magic")) : magic;
	  header_size = get ("size") ? (int64_t) get_num ("size", 0) : -1;
	  attr_size = get ("attr_size") ? (int64_t) get_num ("attr_size", 0)
					  : -1;
	  data_size = get ("data_size") ? (int64_t) get_num ("data_size", 0)
					  : -1;
	}
      else if (strcmp (what, "buildid") == 0)
	{
	  /* struct perf_record_header_build_id: a header, a pid, 20 bytes
	     of id, its size and padding, the name padded to 8 bytes.  */
	  const char *hex = get ("id") ?: "";
	  unsigned char id[24] = { 0 };
	  size_t n = strlen (hex) / 2;
	  if (n > 20)
	    die ("build id too long");
	  for (size_t i = 0; i < n; ++i)
	    sscanf (hex + 2 * i, "%2hhx", &id[i]);
	  id[20] = n;
	  put_u32 (&body, get_num ("pid", (uint32_t) -1));
	  put (&body, id, sizeof id);
	  put_string (&body, get ("file") ?: "");
	  uint16_t size = 8 + body.len;
	  put_u32 (&build_ids, PERF_RECORD_HEADER_BUILD_ID);
	  uint16_t bmisc = PERF_RECORD_MISC_USER | (1 << 15);
	  put (&build_ids, &bmisc, 2);
	  put (&build_ids, &size, 2);
	  put (&build_ids, body.p, body.len);
	}
      else if (strcmp (what, "truncate") == 0)
	truncate_by = n_words > 1 ? number (words[1]) : 0;
      else if (strcmp (what, "variants") == 0)
	{
	  if (n_words != 2)
	    die ("variants needs a directory");
	  variants = strdup (words[1]);
	}
      else if (strcmp (what, "set") == 0)
	{
	  if (n_words != 3)
	    die ("set needs an offset and a value");
	  set_offset = number (words[1]);
	  set_value = number (words[2]);
	}
      else if (strcmp (what, "mmap") == 0 || strcmp (what, "mmap2") == 0)
	{
	  bool v2 = what[4] == '2';
	  put_u32 (&body, get_num ("pid", 0));
	  put_u32 (&body, get_num ("tid", get_num ("pid", 0)));
	  put_u64 (&body, get_num ("start", 0));
	  put_u64 (&body, get_num ("len", 0));
	  put_u64 (&body, get_num ("pgoff", 0));
	  if (v2)
	    {
	      const char *bid = get ("buildid");
	      if (bid != NULL)
		{
		  unsigned char ids[24] = { 0 };
		  misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		  size_t n = strlen (bid) / 2;
		  if (n > 20)
		    die ("build id too long");
		  ids[0] = n;
		  for (size_t i = 0; i < n; ++i)
		    sscanf (bid + 2 * i, "%2hhx", &ids[4 + i]);
		  put (&body, ids, 24);
		}
	      else
		{
		  /* Else the file's identity is there.  */
		  put_u32 (&body, get_num ("maj", 0));
		  put_u32 (&body, get_num ("min", 0));
		  put_u64 (&body, get_num ("ino", 0));
		  put_u64 (&body, get_num ("ino_generation", 0));
		}
	      put_u32 (&body, prot_bits (get ("prot") ?: "r-x"));
	      put_u32 (&body, 2);
	    }
	  else if (get ("data") != NULL)
	    misc |= PERF_RECORD_MISC_MMAP_DATA;
	  if (get ("noterm") != NULL)
	    put (&body, get ("file"), strlen (get ("file")));
	  else
	    put_string (&body, get ("file") ?: "");
	  put_sample_id (&body, a);
	  put_record (&data, v2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP,
		      misc | (get ("kernel") ? PERF_RECORD_MISC_KERNEL
			      : PERF_RECORD_MISC_USER), &body);
	}
      else if (strcmp (what, "comm") == 0)
	{
	  put_u32 (&body, get_num ("pid", 0));
	  put_u32 (&body, get_num ("tid", get_num ("pid", 0)));
	  put_string (&body, get ("name") ?: "");
	  put_sample_id (&body, a);
	  put_record (&data, PERF_RECORD_COMM,
		      misc | (get ("exec") ? PERF_RECORD_MISC_COMM_EXEC : 0),
		      &body);
	}
      else if (strcmp (what, "fork") == 0 || strcmp (what, "exit") == 0)
	{
	  put_u32 (&body, get_num ("pid", 0));
	  put_u32 (&body, get_num ("ppid", 0));
	  put_u32 (&body, get_num ("tid", get_num ("pid", 0)));
	  put_u32 (&body, get_num ("ptid", get_num ("ppid", 0)));
	  put_u64 (&body, get_num ("time", 0));
	  put_sample_id (&body, a);
	  put_record (&data, (what[0] == 'f' ? PERF_RECORD_FORK
			      : PERF_RECORD_EXIT), misc, &body);
	}
      else if (strcmp (what, "sample") == 0)
	{
	  put_sample (&body, a);
	  misc |= (get ("kernel") ? PERF_RECORD_MISC_KERNEL
		   : PERF_RECORD_MISC_USER);
	  put_record (&data, PERF_RECORD_SAMPLE, misc, &body);
	}
      else if (strcmp (what, "round") == 0)
	put_record (&data, 68, 0, &body);
      else if (strcmp (what, "record") == 0)
	{
	  /* EXTRA bytes follow the record, their number in its first
	     payload word, as for PERF_RECORD_AUXTRACE.  */
	  uint64_t extra = get_num ("extra", 0);
	  uint64_t payload = get_num ("payload", 0);
	  if (extra > 0)
	    {
	      if (payload < 8)
		die ("extra needs a payload of 8 bytes or more");
	      put_u64 (&body, extra);
	      payload -= 8;
	    }
	  put (&body, NULL, payload);
	  put_record (&data, get_num ("type", 0), misc, &body);
	  for (uint64_t i = 0; i < extra; ++i)
	    put (&data, "U", 1);
	}
      else
	die ("unknown item '%s'", what);
      free (body.p);
    }
  input_line = NULL;

  struct buf file = { 0 };
  put (&file, magic, 8);
  if (pipe_mode)
    {
      put_u64 (&file, header_size >= 0 ? (uint64_t) header_size : 16);
      put (&file, data.p, data.len);
    }
  else
    {
      /* Header, attrs (each followed by its ids section), ids, data.  */
      uint64_t entry = attr_size >= 0 ? (uint64_t) attr_size : 128 + 16;
      uint64_t attrs_offset = 104;
      uint64_t ids_offset = attrs_offset + n_attrs * entry;
      uint64_t n_ids = 0;
      for (int i = 0; i < n_attrs; ++i)
	n_ids += attrs[i].n_ids;
      uint64_t data_offset = ids_offset + 8 * n_ids;
      put_u64 (&file, header_size >= 0 ? (uint64_t) header_size : 104);
      put_u64 (&file, entry);
      put_u64 (&file, attrs_offset);
      put_u64 (&file, n_attrs * entry);
      put_u64 (&file, data_offset);
      put_u64 (&file, data_size >= 0 ? (uint64_t) data_size : data.len);
      put (&file, NULL, 72 - file.len);
      /* The feature bits: HEADER_BUILD_ID (2) if there is a table.  */
      put_u64 (&file, build_ids.len > 0 ? 1 << 2 : 0);
      put (&file, NULL, 104 - file.len);
      uint64_t ids_at = ids_offset;
      for (int i = 0; i < n_attrs; ++i)
	{
	  size_t start = file.len;
	  put_attr (&file, &attrs[i]);
	  if (file.len - start > entry - 16)
	    file.len = start + entry - 16;
	  put (&file, NULL, start + entry - 16 - file.len);
	  put_u64 (&file, ids_at);
	  put_u64 (&file, 8 * (uint64_t) attrs[i].n_ids);
	  ids_at += 8 * (uint64_t) attrs[i].n_ids;
	}
      for (int i = 0; i < n_attrs; ++i)
	put (&file, attrs[i].ids, 8 * (size_t) attrs[i].n_ids);
      put (&file, data.p, data.len);
      /* The feature sections after the data: their table, then them.  */
      if (build_ids.len > 0)
	{
	  put_u64 (&file, file.len + 16);
	  put_u64 (&file, build_ids.len);
	  put (&file, build_ids.p, build_ids.len);
	}
    }
  if (truncate_by > file.len)
    truncate_by = file.len;
  if (set_offset >= 0 && (uint64_t) set_offset < file.len)
    file.p[set_offset] = set_value;

  size_t len = file.len - truncate_by;
  if (write_file (argv[1], file.p, len) != 0)
    return 1;
  for (size_t i = 0; variants != NULL && i < len; ++i)
    {
      static const unsigned char values[] = { 0, 0xff };
      for (size_t j = 0; j < sizeof values; ++j)
	{
	  unsigned char old = file.p[i];
	  if (old == values[j])
	    continue;
	  char name[4096];
	  snprintf (name, sizeof name, "%s/%zu-%u.data", variants, i,
		    values[j]);
	  file.p[i] = values[j];
	  int r = write_file (name, file.p, len);
	  file.p[i] = old;
	  if (r != 0)
	    return 1;
	}
    }
  return 0;
}
