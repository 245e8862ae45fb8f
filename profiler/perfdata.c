/* Reading perf.data files written by perf record: the header, the event
   attributes and the records of the data section.  Every length read
   from the file is checked before it is used; a problem is reported with
   the byte offset where it is.  */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"

#ifndef PERF_SAMPLE_BRANCH_COUNTERS
# define PERF_SAMPLE_BRANCH_COUNTERS (1ULL << 19)
#endif

/* "PERFILE2" read as a little-endian number, and read the other way.  */
#define PERF_MAGIC2 0x32454c4946524550ULL
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL

/* struct perf_file_header, and the older one without feature bits.  */
#define FILE_HEADER_SIZE 104
#define FILE_HEADER_SIZE_NOFEAT 72
/* struct perf_pipe_file_header.  */
#define PIPE_HEADER_SIZE 16
/* PERF_ATTR_SIZE_VER0: the smallest struct perf_event_attr.  */
#define ATTR_SIZE_VER0 64
/* The size of struct perf_file_section.  */
#define SECTION_SIZE 16

#define READ_CHUNK (1024 * 1024)

/* The feature bit of the build id table (perf's HEADER_BUILD_ID), and
   the flag of its records that have a build id size.  */
#define HEADER_BUILD_ID 2
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
/* The largest build id table read.  */
#define BUILD_ID_TABLE_MAX (64 * 1024 * 1024)

struct perf_id_entry
{
  uint64_t id;
  size_t attr;
};

static uint64_t
get_u64 (const unsigned char *p)
{
  uint64_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static uint32_t
get_u32 (const unsigned char *p)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static uint16_t
get_u16 (const unsigned char *p)
{
  uint16_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

/* Set PD's error to "NAME: offset OFFSET (0xOFFSET): MESSAGE".  */
static int __attribute__ ((format (printf, 3, 4)))
fail_at (struct perf_data *pd, uint64_t offset, const char *fmt, ...)
{
  int n = snprintf (pd->error, sizeof pd->error,
		    "%s: offset %" PRIu64 " (0x%" PRIx64 "): ",
		    pd->name, offset, offset);
  if (n < 0 || (size_t) n >= sizeof pd->error)
    n = 0;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (pd->error + n, sizeof pd->error - n, fmt, ap);
  va_end (ap);
  return -1;
}

/* Set PD's error to "NAME: MESSAGE".  */
static int __attribute__ ((format (printf, 2, 3)))
fail (struct perf_data *pd, const char *fmt, ...)
{
  int n = snprintf (pd->error, sizeof pd->error, "%s: ", pd->name);
  if (n < 0 || (size_t) n >= sizeof pd->error)
    n = 0;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (pd->error + n, sizeof pd->error - n, fmt, ap);
  va_end (ap);
  return -1;
}

/* Read exactly SIZE bytes at OFFSET of a seekable file.  Returns 0, 1 if
   the file ends first, -1 with errno set on a read error.  */
static int
pread_full (int fd, void *buf, size_t size, uint64_t offset)
{
  unsigned char *p = buf;
  while (size > 0)
    {
      ssize_t n = pread (fd, p, size, offset);
      if (n < 0)
	{
	  if (errno == EINTR)
	    continue;
	  return -1;
	}
      if (n == 0)
	return 1;
      p += n;
      size -= n;
      offset += n;
    }
  return 0;
}

/* Read up to SIZE bytes at OFFSET, or at the current position of a stream.
   Returns the number of bytes read (less only at the end), -1 on error.  */
static ssize_t
read_some (struct perf_data *pd, void *buf, size_t size, uint64_t offset)
{
  for (;;)
    {
      ssize_t n = (pd->stream ? read (pd->fd, buf, size)
		   : pread (pd->fd, buf, size, offset));
      if (n < 0 && errno == EINTR)
	continue;
      return n;
    }
}

/* Make bytes [PD->pos, PD->pos + SIZE) of the file available in PD->buf.
   Returns 0, 1 if the file ends first, -1 with PD->error set on a read
   error.  */
static int
ensure (struct perf_data *pd, size_t size)
{
  if (pd->pos >= pd->buf_offset
      && pd->pos + size <= pd->buf_offset + pd->buf_len)
    return 0;

  /* Keep what is left from POS on, at the start of the buffer (none
     before the first read: there is no buffer yet).  */
  if (pd->buf_len > 0
      && pd->pos >= pd->buf_offset && pd->pos <= pd->buf_offset + pd->buf_len)
    {
      size_t keep = pd->buf_offset + pd->buf_len - pd->pos;
      memmove (pd->buf, pd->buf + (pd->pos - pd->buf_offset), keep);
      pd->buf_len = keep;
    }
  else
    pd->buf_len = 0;
  pd->buf_offset = pd->pos;

  if (size > pd->buf_cap)
    {
      size_t cap = size < READ_CHUNK ? READ_CHUNK : size;
      unsigned char *buf = realloc (pd->buf, cap);
      if (buf == NULL)
	return fail (pd, "out of memory");
      pd->buf = buf;
      pd->buf_cap = cap;
    }

  while (pd->buf_len < size)
    {
      if (pd->eof)
	return 1;
      size_t want = pd->buf_cap - pd->buf_len;
      uint64_t at = pd->buf_offset + pd->buf_len;
      if (!pd->stream && pd->data_end - at < want)
	want = pd->data_end - at;
      if (want == 0)
	{
	  pd->eof = !pd->stream;
	  return 1;
	}
      ssize_t n = read_some (pd, pd->buf + pd->buf_len, want, at);
      if (n < 0)
	return fail_at (pd, at, "read error: %s", strerror (errno));
      if (n == 0)
	{
	  pd->eof = true;
	  return 1;
	}
      pd->buf_len += n;
    }
  return 0;
}

/* Skip SIZE bytes that follow the current record, which PD->pos points
   past already.  */
static int
skip_payload (struct perf_data *pd, uint64_t size, uint64_t record_offset)
{
  if (!pd->stream)
    {
      if (size > pd->data_end - pd->pos)
	return fail_at (pd, record_offset,
			"the %" PRIu64 " bytes that follow the record run past"
			" the end of the data at %" PRIu64,
			size, pd->data_end);
      pd->pos += size;
      return 0;
    }
  while (size > 0)
    {
      size_t n = size < READ_CHUNK ? size : READ_CHUNK;
      int r = ensure (pd, n);
      if (r < 0)
	return -1;
      if (r > 0)
	return fail_at (pd, record_offset,
			"the data that follows the record is cut off at"
			" %" PRIu64, pd->buf_offset + pd->buf_len);
      pd->pos += n;
      size -= n;
    }
  return 0;
}

static int
compare_id_entry (const void *a, const void *b)
{
  const struct perf_id_entry *x = a;
  const struct perf_id_entry *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The size of the sample_id fields of records other than samples.  */
static size_t
sample_id_size (uint64_t sample_type, bool sample_id_all)
{
  if (!sample_id_all)
    return 0;
  size_t size = 0;
  if (sample_type & PERF_SAMPLE_TID)
    size += 8;
  if (sample_type & PERF_SAMPLE_TIME)
    size += 8;
  if (sample_type & PERF_SAMPLE_ID)
    size += 8;
  if (sample_type & PERF_SAMPLE_STREAM_ID)
    size += 8;
  if (sample_type & PERF_SAMPLE_CPU)
    size += 8;
  if (sample_type & PERF_SAMPLE_IDENTIFIER)
    size += 8;
  return size;
}

/* Rebuild the id index and the id positions after attributes changed.  */
static int
index_ids (struct perf_data *pd)
{
  size_t n = 0;
  for (size_t i = 0; i < pd->n_attrs; ++i)
    n += pd->attrs[i].n_ids;
  struct perf_id_entry *index = NULL;
  if (n > 0)
    {
      index = malloc (n * sizeof *index);
      if (index == NULL)
	return fail (pd, "out of memory");
    }
  n = 0;
  for (size_t i = 0; i < pd->n_attrs; ++i)
    for (size_t j = 0; j < pd->attrs[i].n_ids; ++j)
      {
	index[n].id = pd->attrs[i].ids[j];
	index[n].attr = i;
	++n;
      }
  if (n > 0)
    qsort (index, n, sizeof *index, compare_id_entry);
  free (pd->id_index);
  pd->id_index = index;
  pd->n_id_index = n;

  uint64_t type = pd->n_attrs > 0 ? pd->attrs[0].sample_type : 0;
  if (type & PERF_SAMPLE_IDENTIFIER)
    {
      pd->id_pos = 0;
      pd->is_pos = 1;
    }
  else if (!(type & PERF_SAMPLE_ID))
    pd->id_pos = pd->is_pos = -1;
  else
    {
      pd->id_pos = (!!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID)
		    + !!(type & PERF_SAMPLE_TIME)
		    + !!(type & PERF_SAMPLE_ADDR));
      pd->is_pos = (1 + !!(type & PERF_SAMPLE_CPU)
		    + !!(type & PERF_SAMPLE_STREAM_ID));
    }
  return 0;
}

/* Decode the struct perf_event_attr at P, AVAIL bytes of which may be
   read, found at file offset OFFSET, into ATTR.  */
static int
decode_attr (struct perf_data *pd, const unsigned char *p, size_t avail,
	     uint64_t offset, struct perf_attr *attr)
{
  memset (attr, 0, sizeof *attr);
  if (avail < ATTR_SIZE_VER0)
    return fail_at (pd, offset, "event attribute cut off: %zu bytes,"
		    " at least %d needed", avail, ATTR_SIZE_VER0);
  uint32_t size = get_u32 (p + 4);
  /* perf takes a zero size as that of the first version.  */
  if (size == 0)
    size = ATTR_SIZE_VER0;
  if (size < ATTR_SIZE_VER0 || size % 8 != 0 || size > avail)
    return fail_at (pd, offset, "event attribute of unknown size %" PRIu32
		    " (at least %d, a multiple of 8, at most %zu here)",
		    size, ATTR_SIZE_VER0, avail);
  attr->type = get_u32 (p);
  attr->size = size;
  attr->config = get_u64 (p + 8);
  attr->sample_type = get_u64 (p + 24);
  attr->read_format = get_u64 (p + 32);
  uint64_t flags = get_u64 (p + 40);
  /* sample_id_all is bit 18 of the bit-field word.  */
  attr->sample_id_all = (flags >> 18) & 1;
  if (size >= 80)
    attr->branch_sample_type = get_u64 (p + 72);
  if (size >= 88)
    attr->sample_regs_user = get_u64 (p + 80);
  if (size >= 96)
    attr->sample_stack_user = get_u32 (p + 88);
  attr->id_size = sample_id_size (attr->sample_type, attr->sample_id_all);
  return 0;
}

/* Append ATTR, taking its ids, to PD's attributes.  */
static int
add_attr (struct perf_data *pd, struct perf_attr *attr)
{
  struct perf_attr *attrs = realloc (pd->attrs,
				     (pd->n_attrs + 1) * sizeof *attrs);
  if (attrs == NULL)
    {
      free (attr->ids);
      return fail (pd, "out of memory");
    }
  pd->attrs = attrs;
  pd->attrs[pd->n_attrs++] = *attr;
  return index_ids (pd);
}

/* Read the attrs section of a file: N entries of ATTR_SIZE bytes, a
   struct perf_event_attr followed by the file section of its ids.  */
static int
read_attrs (struct perf_data *pd, uint64_t offset, uint64_t size,
	    uint64_t attr_size)
{
  if (attr_size < ATTR_SIZE_VER0 + SECTION_SIZE || attr_size % 8 != 0
      || attr_size > (1 << 16))
    return fail_at (pd, 16, "unknown attribute size %" PRIu64
		    " in the header", attr_size);
  if (size == 0 || size % attr_size != 0)
    return fail_at (pd, 24, "attrs section of %" PRIu64 " bytes is not a"
		    " whole number of %" PRIu64 "-byte attributes",
		    size, attr_size);
  if (offset > pd->file_size || size > pd->file_size - offset)
    return fail_at (pd, 24, "attrs section [%" PRIu64 ", %" PRIu64 ") runs"
		    " past the end of the file at %" PRIu64,
		    offset, offset + size, pd->file_size);
  unsigned char *raw = malloc (size);
  if (raw == NULL)
    return fail (pd, "out of memory");
  if (pread_full (pd->fd, raw, size, offset) != 0)
    {
      free (raw);
      return fail_at (pd, offset, "cannot read the attrs section: %s",
		      errno ? strerror (errno) : "file shrank");
    }

  int result = 0;
  for (uint64_t at = 0; at < size && result == 0; at += attr_size)
    {
      struct perf_attr attr;
      if (decode_attr (pd, raw + at, attr_size - SECTION_SIZE,
		       offset + at, &attr) != 0)
	{
	  result = -1;
	  break;
	}
      const unsigned char *ids = raw + at + attr_size - SECTION_SIZE;
      uint64_t ids_offset = get_u64 (ids);
      uint64_t ids_size = get_u64 (ids + 8);
      if (ids_size % 8 != 0 || ids_offset > pd->file_size
	  || ids_size > pd->file_size - ids_offset)
	{
	  result = fail_at (pd, offset + at + attr_size - SECTION_SIZE,
			    "ids section [%" PRIu64 ", +%" PRIu64 ") of an"
			    " attribute is not inside the file of %" PRIu64
			    " bytes", ids_offset, ids_size, pd->file_size);
	  break;
	}
      if (ids_size > 0)
	{
	  attr.ids = malloc (ids_size);
	  if (attr.ids == NULL)
	    {
	      result = fail (pd, "out of memory");
	      break;
	    }
	  if (pread_full (pd->fd, attr.ids, ids_size, ids_offset) != 0)
	    {
	      free (attr.ids);
	      result = fail_at (pd, ids_offset, "cannot read the ids");
	      break;
	    }
	  attr.n_ids = ids_size / 8;
	}
      result = add_attr (pd, &attr);
    }
  free (raw);
  return result;
}

/* Take in the attribute of a PERF_RECORD_HEADER_ATTR record (pipe mode):
   a struct perf_event_attr, then the ids to the end of the record.  */
static int
record_attr (struct perf_data *pd, const struct perf_record *rec)
{
  struct perf_attr attr;
  if (decode_attr (pd, rec->data + 8, rec->size - 8, rec->offset + 8,
		   &attr) != 0)
    return -1;
  size_t ids_size = rec->size - 8 - attr.size;
  if (ids_size % 8 != 0)
    return fail_at (pd, rec->offset, "HEADER_ATTR record of size %u: its"
		    " ids are not whole u64 words", rec->size);
  if (ids_size > 0)
    {
      attr.ids = malloc (ids_size);
      if (attr.ids == NULL)
	return fail (pd, "out of memory");
      memcpy (attr.ids, rec->data + 8 + attr.size, ids_size);
      attr.n_ids = ids_size / 8;
    }
  return add_attr (pd, &attr);
}

/* Read the build id table of the feature sections, which start at
   offset TABLE with one struct perf_file_section per feature bit set.
   Features are optional: a table that is not right is ignored.  */
static void
read_build_ids (struct perf_data *pd, uint64_t table)
{
  if (!(pd->features[0] & (1ULL << HEADER_BUILD_ID)))
    return;
  unsigned int index = __builtin_popcountll (pd->features[0]
					     & ((1ULL << HEADER_BUILD_ID) - 1));
  unsigned char section[SECTION_SIZE];
  if (table > pd->file_size
      || pread_full (pd->fd, section, sizeof section,
		     table + SECTION_SIZE * index) != 0)
    return;
  uint64_t offset = get_u64 (section);
  uint64_t size = get_u64 (section + 8);
  if (offset > pd->file_size || size > pd->file_size - offset
      || size > BUILD_ID_TABLE_MAX)
    return;
  unsigned char *raw = malloc (size);
  if (raw == NULL || pread_full (pd->fd, raw, size, offset) != 0)
    {
      free (raw);
      return;
    }
  /* Records of a struct perf_event_header, a pid, 24 bytes of build id
     (20 of id, its size, padding), the file name.  */
  for (uint64_t at = 0; at + 8 <= size;)
    {
      uint16_t misc = get_u16 (raw + at + 4);
      uint16_t rsize = get_u16 (raw + at + 6);
      if (rsize < 8 + 4 + 24 + 1 || rsize > size - at)
	break;
      const char *name = (const char *) raw + at + 36;
      if (memchr (name, '\0', rsize - 36) == NULL)
	break;
      struct perf_build_id *ids
	= realloc (pd->build_ids, (pd->n_build_ids + 1) * sizeof *ids);
      if (ids == NULL)
	break;
      pd->build_ids = ids;
      struct perf_build_id *b = &ids[pd->n_build_ids];
      b->filename = strdup (name);
      if (b->filename == NULL)
	break;
      memcpy (b->id, raw + at + 12, sizeof b->id);
      b->size = ((misc & PERF_RECORD_MISC_BUILD_ID_SIZE)
		 ? raw[at + 32] : sizeof b->id);
      if (b->size > sizeof b->id)
	b->size = sizeof b->id;
      ++pd->n_build_ids;
      at += rsize;
    }
  free (raw);
}

const struct perf_build_id *
perf_data_build_id (const struct perf_data *pd, const char *filename)
{
  for (size_t i = 0; i < pd->n_build_ids; ++i)
    if (strcmp (pd->build_ids[i].filename, filename) == 0)
      return &pd->build_ids[i];
  return NULL;
}

int
perf_data_open (struct perf_data *pd, const char *name)
{
  memset (pd, 0, sizeof *pd);
  pd->name = name;
  pd->fd = -1;
  pd->id_pos = pd->is_pos = -1;

  if (strcmp (name, "-") == 0)
    {
      pd->name = "<stdin>";
      pd->fd = dup (STDIN_FILENO);
    }
  else
    pd->fd = open (name, O_RDONLY | O_CLOEXEC);
  if (pd->fd < 0)
    return fail (pd, "cannot open: %s", strerror (errno));

  struct stat st;
  if (fstat (pd->fd, &st) != 0)
    return fail (pd, "cannot stat: %s", strerror (errno));
  if (S_ISDIR (st.st_mode))
    return fail (pd, "is a directory (perf record --threaded"
		 " directories are not supported)");
  pd->stream = !S_ISREG (st.st_mode);
  pd->file_size = pd->stream ? UINT64_MAX : (uint64_t) st.st_size;
  pd->data_end = pd->file_size;

  /* The magic and the header size, common to both formats.  */
  unsigned char head[FILE_HEADER_SIZE];
  int r = ensure (pd, PIPE_HEADER_SIZE);
  if (r < 0)
    return -1;
  if (r > 0)
    return fail_at (pd, 0, "file too short for a perf.data header"
		    " (%zu bytes)", pd->buf_len);
  memcpy (head, pd->buf, PIPE_HEADER_SIZE);
  uint64_t magic = get_u64 (head);
  if (magic == PERF_MAGIC2_SWAPPED)
    return fail_at (pd, 0, "perf.data of the other byte order: not"
		    " supported");
  if (memcmp (head, "PERFFILE", 8) == 0)
    return fail_at (pd, 0, "perf.data of the old PERFFILE format: not"
		    " supported");
  if (magic != PERF_MAGIC2)
    return fail_at (pd, 0, "not a perf.data file: wrong magic (expected"
		    " \"PERFILE2\")");
  uint64_t header_size = get_u64 (head + 8);

  if (header_size == PIPE_HEADER_SIZE)
    {
      /* Pipe mode: the records follow; attributes come as records.  */
      pd->pipe = true;
      pd->data_offset = PIPE_HEADER_SIZE;
      pd->pos = PIPE_HEADER_SIZE;
      return 0;
    }
  if (header_size != FILE_HEADER_SIZE
      && header_size != FILE_HEADER_SIZE_NOFEAT)
    return fail_at (pd, 8, "unknown header size %" PRIu64 " (expected %d,"
		    " %d, or %d for pipe mode)", header_size,
		    FILE_HEADER_SIZE, FILE_HEADER_SIZE_NOFEAT,
		    PIPE_HEADER_SIZE);
  if (pd->stream)
    return fail (pd, "a perf.data file that is not in pipe mode must be"
		 " read from a regular file, not a pipe");
  if (header_size > pd->file_size)
    return fail_at (pd, 0, "file too short for a perf.data header"
		    " (%" PRIu64 " bytes, %" PRIu64 " needed)",
		    pd->file_size, header_size);
  if (pread_full (pd->fd, head, header_size, 0) != 0)
    return fail_at (pd, 0, "cannot read the header: %s",
		    errno ? strerror (errno) : "file shrank");

  uint64_t attr_size = get_u64 (head + 16);
  uint64_t attrs_offset = get_u64 (head + 24);
  uint64_t attrs_size = get_u64 (head + 32);
  uint64_t data_offset = get_u64 (head + 40);
  uint64_t data_size = get_u64 (head + 48);
  if (header_size == FILE_HEADER_SIZE)
    memcpy (pd->features, head + 72, sizeof pd->features);

  if (read_attrs (pd, attrs_offset, attrs_size, attr_size) != 0)
    return -1;

  if (data_offset > pd->file_size)
    return fail_at (pd, 40, "data section at %" PRIu64 " starts past the"
		    " end of the file at %" PRIu64, data_offset,
		    pd->file_size);
  pd->data_offset = data_offset;
  if (data_size == 0)
    /* perf record writes the size when it ends: it did not.  Read to the
       end of the file, as what is there may be whole.  */
    pd->data_end = pd->file_size;
  else if (data_size > pd->file_size - data_offset)
    {
      pd->truncated_end = data_offset + data_size;
      pd->data_end = pd->file_size;
    }
  else
    {
      pd->data_end = data_offset + data_size;
      read_build_ids (pd, pd->data_end);
    }
  pd->pos = data_offset;
  pd->buf_offset = data_offset;
  pd->buf_len = 0;
  pd->eof = false;
  return 0;
}

void
perf_data_close (struct perf_data *pd)
{
  if (pd->fd >= 0)
    close (pd->fd);
  pd->fd = -1;
  for (size_t i = 0; i < pd->n_attrs; ++i)
    free (pd->attrs[i].ids);
  free (pd->attrs);
  pd->attrs = NULL;
  pd->n_attrs = 0;
  for (size_t i = 0; i < pd->n_build_ids; ++i)
    free (pd->build_ids[i].filename);
  free (pd->build_ids);
  pd->build_ids = NULL;
  pd->n_build_ids = 0;
  free (pd->id_index);
  pd->id_index = NULL;
  free (pd->buf);
  pd->buf = NULL;
  free (pd->saved);
  pd->saved = NULL;
}

int
perf_data_rewind (struct perf_data *pd)
{
  if (pd->stream)
    return fail (pd, "cannot read a pipe twice");
  pd->pos = pd->data_offset;
  pd->eof = false;
  pd->n_records = pd->n_compressed = pd->n_unknown_id = 0;
  if (pd->pipe)
    {
      /* The attributes are read again from their records.  */
      for (size_t i = 0; i < pd->n_attrs; ++i)
	free (pd->attrs[i].ids);
      pd->n_attrs = 0;
      return index_ids (pd);
    }
  return 0;
}

int
perf_data_check (struct perf_data *pd, uint64_t *n_samples)
{
  *n_samples = 0;
  struct perf_record rec;
  int r;
  while ((r = perf_data_next (pd, &rec)) > 0)
    {
      struct perf_sample sample;
      struct perf_mmap mmap;
      struct perf_comm comm;
      struct perf_task task;
      switch (rec.type)
	{
	case PERF_RECORD_SAMPLE:
	  r = perf_data_sample (pd, &rec, &sample);
	  *n_samples += r == 0;
	  break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	  r = perf_data_mmap (pd, &rec, &mmap);
	  break;
	case PERF_RECORD_COMM:
	  r = perf_data_comm (pd, &rec, &comm);
	  break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	  r = perf_data_task (pd, &rec, &task);
	  break;
	default:
	  /* Not decoded: only its size matters.  */
	  r = 0;
	  break;
	}
      if (r < 0)
	return -1;
    }
  if (r < 0)
    return -1;
  return perf_data_rewind (pd);
}

/* The attribute of sample id ID; NULL if none has it.  */
static const struct perf_attr *
attr_by_id (struct perf_data *pd, uint64_t id)
{
  size_t lo = 0;
  size_t hi = pd->n_id_index;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (pd->id_index[mid].id < id)
	lo = mid + 1;
      else if (pd->id_index[mid].id > id)
	hi = mid;
      else
	return &pd->attrs[pd->id_index[mid].attr];
    }
  return NULL;
}

/* The attribute of the kernel record REC by the attributes read so far,
   as perf finds it: by the sample id, where the first attribute puts
   it; NULL if the id names none.  */
static const struct perf_attr *
find_record_attr (struct perf_data *pd, const struct perf_record *rec)
{
  if (pd->n_attrs == 0)
    return NULL;
  const struct perf_attr *first = &pd->attrs[0];
  if (pd->n_attrs == 1)
    return first;

  size_t at;
  if (rec->type == PERF_RECORD_SAMPLE)
    {
      if (pd->id_pos < 0)
	return first;
      at = 8 + 8 * (size_t) pd->id_pos;
      if (at + 8 > rec->size)
	return first;
    }
  else
    {
      if (!first->sample_id_all || pd->is_pos < 0)
	return first;
      if (8 * (size_t) pd->is_pos > rec->size - 8u)
	return first;
      at = rec->size - 8 * (size_t) pd->is_pos;
    }
  uint64_t id = get_u64 (rec->data + at);
  /* Records perf synthesizes have id 0.  */
  if (id == 0)
    return first;
  return attr_by_id (pd, id);
}

int
perf_data_next (struct perf_data *pd, struct perf_record *rec)
{
  if (pd->pos == pd->data_end)
    {
      if (pd->truncated_end != 0)
	return fail_at (pd, pd->pos, "the file ends here, but its header"
			" says the data section ends at %" PRIu64
			" (truncated file?)", pd->truncated_end);
      return 0;
    }
  uint64_t offset = pd->pos;
  int r = ensure (pd, 8);
  if (r < 0)
    return -1;
  if (r > 0)
    {
      size_t left = pd->buf_offset + pd->buf_len - pd->pos;
      if (pd->stream && left == 0)
	return 0;
      return fail_at (pd, offset, "truncated record header: %zu bytes"
		      " left, 8 needed", left);
    }
  const unsigned char *p = pd->buf + (pd->pos - pd->buf_offset);
  rec->type = get_u32 (p);
  rec->misc = get_u16 (p + 4);
  rec->size = get_u16 (p + 6);
  rec->offset = offset;
  if (rec->size < 8)
    return fail_at (pd, offset, "record of type %" PRIu32 " has size %u,"
		    " less than its 8-byte header", rec->type, rec->size);
  if (rec->size > pd->data_end - offset)
    {
      if (pd->truncated_end != 0)
	return fail_at (pd, offset, "record of type %" PRIu32 " and size %u"
			" is cut off by the end of the file at %" PRIu64
			" (the header says the data ends at %" PRIu64
			": truncated file?)", rec->type, rec->size,
			pd->data_end, pd->truncated_end);
      return fail_at (pd, offset, "record of type %" PRIu32 " and size %u"
		      " runs past the end of the data section at %" PRIu64,
		      rec->type, rec->size, pd->data_end);
    }
  r = ensure (pd, rec->size);
  if (r < 0)
    return -1;
  if (r > 0)
    return fail_at (pd, offset, "record of type %" PRIu32 " and size %u"
		    " is cut off by the end of the file at %" PRIu64,
		    rec->type, rec->size, pd->buf_offset + pd->buf_len);
  rec->data = pd->buf + (pd->pos - pd->buf_offset);
  pd->pos += rec->size;
  ++pd->n_records;

  /* The attribute is found now: in pipe mode, those read later could
     give another answer when the record is decoded, after it waited in
     the time order, than when its time was read, or when the whole file
     was checked.  */
  rec->attr = SIZE_MAX;
  if (rec->type < PERF_RECORD_USER_TYPE_START)
    {
      const struct perf_attr *attr = find_record_attr (pd, rec);
      if (attr != NULL)
	rec->attr = attr - pd->attrs;
      else
	++pd->n_unknown_id;
    }

  /* Records perf follows with data of their own.  */
  if (rec->type == PERF_RECORD_AUXTRACE
      || rec->type == PERF_RECORD_HEADER_TRACING_DATA)
    {
      if (rec->size < 16)
	return fail_at (pd, offset, "record of type %" PRIu32 " has size %u,"
			" too small for its fields", rec->type, rec->size);
      uint64_t extra = (rec->type == PERF_RECORD_AUXTRACE
			? get_u64 (rec->data + 8) : get_u32 (rec->data + 8));
      /* Skipping a stream moves the buffer: keep the record in a copy.  */
      if (pd->stream && extra > 0)
	{
	  if (pd->saved == NULL && (pd->saved = malloc (UINT16_MAX)) == NULL)
	    return fail (pd, "out of memory");
	  memcpy (pd->saved, rec->data, rec->size);
	  rec->data = pd->saved;
	}
      if (skip_payload (pd, extra, offset) != 0)
	return -1;
    }
  else if (rec->type == PERF_RECORD_COMPRESSED)
    ++pd->n_compressed;
  else if (rec->type == PERF_RECORD_HEADER_ATTR && pd->pipe)
    {
      if (record_attr (pd, rec) != 0)
	return -1;
    }
  return 1;
}

const struct perf_attr *
perf_data_record_attr (struct perf_data *pd, const struct perf_record *rec)
{
  return rec->attr < pd->n_attrs ? &pd->attrs[rec->attr] : NULL;
}

/* A cursor over the fields of a record.  */
struct cursor
{
  const unsigned char *p;
  size_t left;
};

static const unsigned char *
take (struct cursor *c, uint64_t size)
{
  if (size > c->left)
    return NULL;
  const unsigned char *p = c->p;
  c->p += size;
  c->left -= size;
  return p;
}

static bool
take_u64 (struct cursor *c, uint64_t *v)
{
  const unsigned char *p = take (c, 8);
  if (p == NULL)
    return false;
  *v = get_u64 (p);
  return true;
}

/* The size of a struct read_format with FORMAT at C, skipped.  */
static bool
skip_read_format (struct cursor *c, uint64_t format)
{
  uint64_t per_value = 1 + !!(format & PERF_FORMAT_ID)
		       + !!(format & PERF_FORMAT_LOST);
  uint64_t times = (!!(format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		    + !!(format & PERF_FORMAT_TOTAL_TIME_RUNNING));
  if (!(format & PERF_FORMAT_GROUP))
    return take (c, 8 * (per_value + times)) != NULL;
  uint64_t nr;
  if (!take_u64 (c, &nr) || nr > c->left / 8 / per_value)
    return false;
  return take (c, 8 * (times + nr * per_value)) != NULL;
}

int
perf_data_sample (struct perf_data *pd, const struct perf_record *rec,
		  struct perf_sample *s)
{
  memset (s, 0, offsetof (struct perf_sample, regs));
  s->pid = s->tid = -1;
  s->misc = rec->misc;
  const struct perf_attr *attr = perf_data_record_attr (pd, rec);
  if (attr == NULL)
    return 1;
  s->attr = attr;
  uint64_t type = attr->sample_type;
  struct cursor c = { rec->data + 8, rec->size - 8u };
  const unsigned char *p;
  const char *what;
  uint64_t v;

#define FIELD(bit, name, dest)			\
  if (type & (bit))				\
    {						\
      what = (name);				\
      if (!take_u64 (&c, &v))			\
	goto short_record;			\
      dest;					\
    }

  FIELD (PERF_SAMPLE_IDENTIFIER, "id", s->id = v);
  FIELD (PERF_SAMPLE_IP, "ip", s->ip = v);
  FIELD (PERF_SAMPLE_TID, "pid and tid",
	 (s->pid = (int32_t) (v & 0xffffffff), s->tid = (int32_t) (v >> 32)));
  FIELD (PERF_SAMPLE_TIME, "time", s->time = v);
  FIELD (PERF_SAMPLE_ADDR, "addr", (void) v);
  FIELD (PERF_SAMPLE_ID, "id", s->id = v);
  FIELD (PERF_SAMPLE_STREAM_ID, "stream id", (void) v);
  FIELD (PERF_SAMPLE_CPU, "cpu", s->cpu = (uint32_t) v);
  FIELD (PERF_SAMPLE_PERIOD, "period", s->period = v);
#undef FIELD

  if (type & PERF_SAMPLE_READ)
    {
      what = "read values";
      if (!skip_read_format (&c, attr->read_format))
	goto short_record;
    }
  if (type & PERF_SAMPLE_CALLCHAIN)
    {
      what = "callchain";
      if (!take_u64 (&c, &s->callchain_nr) || s->callchain_nr > c.left / 8)
	goto short_record;
      s->callchain = take (&c, 8 * s->callchain_nr);
    }
  if (type & PERF_SAMPLE_RAW)
    {
      /* A u32 size, then the data; the kernel pads the pair to u64s.  */
      what = "raw data";
      p = take (&c, 4);
      if (p == NULL || take (&c, get_u32 (p)) == NULL)
	goto short_record;
    }
  if (type & PERF_SAMPLE_BRANCH_STACK)
    {
      what = "branch stack";
      uint64_t nr;
      if (!take_u64 (&c, &nr) || nr > c.left / 24)
	goto short_record;
      if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
	  && take (&c, 8) == NULL)
	goto short_record;
      if (take (&c, 24 * nr) == NULL)
	goto short_record;
      if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS)
	  && take (&c, 8 * nr) == NULL)
	goto short_record;
    }
  if (type & PERF_SAMPLE_REGS_USER)
    {
      what = "user registers";
      if (!take_u64 (&c, &s->regs_abi))
	goto short_record;
      if (s->regs_abi != PERF_SAMPLE_REGS_ABI_NONE)
	{
	  s->regs_mask = attr->sample_regs_user;
	  s->n_regs = __builtin_popcountll (s->regs_mask);
	  p = take (&c, 8 * (uint64_t) s->n_regs);
	  if (p == NULL)
	    goto short_record;
	  memcpy (s->regs, p, 8 * (size_t) s->n_regs);
	}
    }
  if (type & PERF_SAMPLE_STACK_USER)
    {
      what = "user stack";
      if (!take_u64 (&c, &s->stack_size))
	goto short_record;
      if (s->stack_size > 0)
	{
	  s->stack = take (&c, s->stack_size);
	  if (s->stack == NULL || !take_u64 (&c, &s->stack_dyn_size))
	    goto short_record;
	  if (s->stack_dyn_size > s->stack_size)
	    return fail_at (pd, rec->offset, "sample: user stack of %" PRIu64
			    " bytes claims %" PRIu64 " filled",
			    s->stack_size, s->stack_dyn_size);
	}
    }
  /* What follows (weight, data_src, ...) is not used.  */
  return 0;

 short_record:
  return fail_at (pd, rec->offset, "sample of size %u is too small for"
		  " its %s (sample_type 0x%" PRIx64 ")",
		  rec->size, what, type);
}

/* The size of the sample_id fields of REC: those of its attribute, or of
   the first one if its attribute is not known.  */
static size_t
record_id_size (struct perf_data *pd, const struct perf_record *rec,
		const struct perf_attr **attrp)
{
  const struct perf_attr *attr = perf_data_record_attr (pd, rec);
  *attrp = attr;
  if (attr == NULL)
    attr = pd->n_attrs > 0 ? &pd->attrs[0] : NULL;
  return attr != NULL ? attr->id_size : 0;
}

int
perf_data_sample_id (struct perf_data *pd, const struct perf_record *rec,
		     struct perf_sample_id *sid)
{
  memset (sid, 0, sizeof *sid);
  sid->pid = sid->tid = -1;
  const struct perf_attr *attr = perf_data_record_attr (pd, rec);
  if (attr == NULL)
    return 1;
  sid->attr = attr;
  if (attr->id_size == 0)
    return 0;
  if (attr->id_size > rec->size - 8u)
    return fail_at (pd, rec->offset, "record of type %" PRIu32 " and size"
		    " %u is too small for its %zu bytes of sample_id",
		    rec->type, rec->size, attr->id_size);
  const unsigned char *p = rec->data + rec->size - attr->id_size;
  uint64_t type = attr->sample_type;
  if (type & PERF_SAMPLE_TID)
    {
      sid->pid = (int32_t) get_u32 (p);
      sid->tid = (int32_t) get_u32 (p + 4);
      p += 8;
    }
  if (type & PERF_SAMPLE_TIME)
    {
      sid->time = get_u64 (p);
      p += 8;
    }
  if (type & PERF_SAMPLE_ID)
    {
      sid->id = get_u64 (p);
      p += 8;
    }
  if (type & PERF_SAMPLE_STREAM_ID)
    p += 8;
  if (type & PERF_SAMPLE_CPU)
    {
      sid->cpu = get_u32 (p);
      p += 8;
    }
  if (type & PERF_SAMPLE_IDENTIFIER)
    sid->id = get_u64 (p);
  return 0;
}

int
perf_data_record_time (struct perf_data *pd, const struct perf_record *rec,
		       uint64_t *time)
{
  *time = 0;
  if (rec->type != PERF_RECORD_SAMPLE)
    {
      /* A record too small for its sample_id has no time: those perfsym
	 decodes say why when they are decoded.  */
      const struct perf_attr *attr;
      if (record_id_size (pd, rec, &attr) > rec->size - 8u)
	return 0;
      struct perf_sample_id sid;
      int r = perf_data_sample_id (pd, rec, &sid);
      if (r < 0)
	return -1;
      *time = sid.time;
      return 0;
    }
  const struct perf_attr *attr = perf_data_record_attr (pd, rec);
  if (attr == NULL || !(attr->sample_type & PERF_SAMPLE_TIME))
    return 0;
  uint64_t type = attr->sample_type;
  size_t at = 8 + 8 * (!!(type & PERF_SAMPLE_IDENTIFIER)
		       + !!(type & PERF_SAMPLE_IP)
		       + !!(type & PERF_SAMPLE_TID));
  if (at + 8 > rec->size)
    return fail_at (pd, rec->offset, "sample of size %u is too small for"
		    " its time (sample_type 0x%" PRIx64 ")", rec->size, type);
  *time = get_u64 (rec->data + at);
  return 0;
}

/* Check that the string at OFFSET of REC, which ends ID_SIZE bytes before
   the end of REC, is terminated.  */
static const char *
record_string (struct perf_data *pd, const struct perf_record *rec,
	       size_t offset, size_t id_size, const char *what)
{
  if (offset + id_size > rec->size)
    {
      fail_at (pd, rec->offset, "%s record of size %u is too small for its"
	       " fields", what, rec->size);
      return NULL;
    }
  const char *s = (const char *) rec->data + offset;
  if (memchr (s, '\0', rec->size - id_size - offset) == NULL)
    {
      fail_at (pd, rec->offset, "%s record of size %u: its name is not"
	       " terminated", what, rec->size);
      return NULL;
    }
  return s;
}

int
perf_data_mmap (struct perf_data *pd, const struct perf_record *rec,
		struct perf_mmap *m)
{
  const struct perf_attr *attr;
  size_t id_size = record_id_size (pd, rec, &attr);
  bool v2 = rec->type == PERF_RECORD_MMAP2;
  size_t fixed = v2 ? 72 : 40;
  const char *name = record_string (pd, rec, fixed, id_size,
				    v2 ? "MMAP2" : "MMAP");
  if (name == NULL)
    return -1;
  const unsigned char *p = rec->data;
  memset (m, 0, sizeof *m);
  m->misc = rec->misc;
  m->pid = (int32_t) get_u32 (p + 8);
  m->tid = (int32_t) get_u32 (p + 12);
  m->start = get_u64 (p + 16);
  m->len = get_u64 (p + 24);
  m->pgoff = get_u64 (p + 32);
  m->prot = -1;
  if (v2)
    {
      if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
	{
	  m->build_id_size = p[40];
	  if (m->build_id_size > 20)
	    m->build_id_size = 20;
	  m->build_id = p + 44;
	}
      else
	{
	  m->maj = get_u32 (p + 40);
	  m->min = get_u32 (p + 44);
	  m->ino = get_u64 (p + 48);
	  m->ino_generation = get_u64 (p + 56);
	}
      m->prot = (int) get_u32 (p + 64);
    }
  m->filename = name;
  return 0;
}

int
perf_data_comm (struct perf_data *pd, const struct perf_record *rec,
		struct perf_comm *c)
{
  const struct perf_attr *attr;
  size_t id_size = record_id_size (pd, rec, &attr);
  const char *name = record_string (pd, rec, 16, id_size, "COMM");
  if (name == NULL)
    return -1;
  c->pid = (int32_t) get_u32 (rec->data + 8);
  c->tid = (int32_t) get_u32 (rec->data + 12);
  c->exec = (rec->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
  c->comm = name;
  return 0;
}

int
perf_data_task (struct perf_data *pd, const struct perf_record *rec,
		struct perf_task *t)
{
  if (rec->size < 32)
    return fail_at (pd, rec->offset, "%s record of size %u is too small for"
		    " its fields",
		    rec->type == PERF_RECORD_FORK ? "FORK" : "EXIT",
		    rec->size);
  const unsigned char *p = rec->data;
  t->pid = (int32_t) get_u32 (p + 8);
  t->ppid = (int32_t) get_u32 (p + 12);
  t->tid = (int32_t) get_u32 (p + 16);
  t->ptid = (int32_t) get_u32 (p + 20);
  t->time = get_u64 (p + 24);
  return 0;
}

const char *
perf_attr_name (const struct perf_attr *attr, char *buf, size_t size)
{
  static const char *const hardware[] =
    {
      "cycles", "instructions", "cache-references", "cache-misses",
      "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
      "stalled-cycles-backend", "ref-cycles",
    };
  static const char *const software[] =
    {
      "cpu-clock", "task-clock", "page-faults", "context-switches",
      "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
      "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
    };
  if (attr->type == PERF_TYPE_HARDWARE
      && attr->config < sizeof hardware / sizeof hardware[0])
    snprintf (buf, size, "%s", hardware[attr->config]);
  else if (attr->type == PERF_TYPE_SOFTWARE
	   && attr->config < sizeof software / sizeof software[0])
    snprintf (buf, size, "%s", software[attr->config]);
  else
    snprintf (buf, size, "%" PRIu32 ":0x%" PRIx64, attr->type, attr->config);
  return buf;
}
