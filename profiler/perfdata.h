/* Reading perf.data files written by perf record.
   The format is described in the Linux source tree, in
   tools/perf/Documentation/perf.data-file-format.txt, and the records in
   include/uapi/linux/perf_event.h.  Only files in the byte order of the
   host are read.  */

#ifndef PERFDATA_H
#define PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* Record types perf itself writes into the file; the kernel's end at 64.  */
enum
{
  PERF_RECORD_USER_TYPE_START = 64,
  PERF_RECORD_HEADER_ATTR = 64,
  PERF_RECORD_HEADER_EVENT_TYPE = 65,
  PERF_RECORD_HEADER_TRACING_DATA = 66,
  PERF_RECORD_HEADER_BUILD_ID = 67,
  PERF_RECORD_FINISHED_ROUND = 68,
  PERF_RECORD_ID_INDEX = 69,
  PERF_RECORD_AUXTRACE_INFO = 70,
  PERF_RECORD_AUXTRACE = 71,
  PERF_RECORD_AUXTRACE_ERROR = 72,
  PERF_RECORD_THREAD_MAP = 73,
  PERF_RECORD_CPU_MAP = 74,
  PERF_RECORD_STAT_CONFIG = 75,
  PERF_RECORD_STAT = 76,
  PERF_RECORD_STAT_ROUND = 77,
  PERF_RECORD_EVENT_UPDATE = 78,
  PERF_RECORD_TIME_CONV = 79,
  PERF_RECORD_HEADER_FEATURE = 80,
  PERF_RECORD_COMPRESSED = 81,
  PERF_RECORD_FINISHED_INIT = 82,
};

/* The most registers a PERF_SAMPLE_REGS_USER mask can select.  */
#define PERF_SAMPLE_MAX_REGS 64

/* One event attribute of the file: the fields of struct perf_event_attr
   that reading the records needs, and the sample ids that name it.  */
struct perf_attr
{
  uint32_t type;
  /* The attribute's own size: fields past it read as zero.  */
  uint32_t size;
  uint64_t config;
  uint64_t sample_type;
  uint64_t read_format;
  uint64_t branch_sample_type;
  uint64_t sample_regs_user;
  uint32_t sample_stack_user;
  bool sample_id_all;
  /* Bytes the sample_id fields take at the end of records other than
     samples, when SAMPLE_ID_ALL is set.  */
  size_t id_size;
  /* The sample ids of this attribute, N_IDS of them, owned.  */
  uint64_t *ids;
  size_t n_ids;
};

/* A record of the data section.  DATA (SIZE bytes, the header included)
   stays valid until the next perf_data_next call.  */
struct perf_record
{
  uint32_t type;
  uint16_t misc;
  uint16_t size;
  /* Where the record starts in the file (in the stream for a pipe).  */
  uint64_t offset;
  const unsigned char *data;
  /* The index in the attributes of the one a kernel record belongs to,
     found by its sample id when the record was read, so that attributes
     read after it (in pipe mode) do not change it; SIZE_MAX if none is
     (and for perf's own records).  */
  size_t attr;
};

/* The fields of a PERF_RECORD_SAMPLE that perfsym uses.  A field that
   the attribute's sample_type does not select is zero, PID and TID -1.
   The pointers point into the record.  */
struct perf_sample
{
  const struct perf_attr *attr;
  uint16_t misc;
  uint64_t id;
  uint64_t ip;
  int32_t pid;
  int32_t tid;
  uint64_t time;
  uint32_t cpu;
  uint64_t period;
  /* PERF_SAMPLE_CALLCHAIN: CALLCHAIN_NR u64 entries, unaligned.  */
  uint64_t callchain_nr;
  const unsigned char *callchain;
  /* PERF_SAMPLE_STACK_USER: STACK_SIZE bytes copied from the user stack
     pointer up, of which the kernel filled the first STACK_DYN_SIZE.  */
  const unsigned char *stack;
  uint64_t stack_size;
  uint64_t stack_dyn_size;
  /* PERF_SAMPLE_REGS_USER: REGS_ABI is PERF_SAMPLE_REGS_ABI_*; REGS[I]
     is the I-th register set in REGS_MASK (the attribute's
     sample_regs_user), N_REGS of them.  Last, as only N_REGS are set.  */
  uint64_t regs_abi;
  uint64_t regs_mask;
  unsigned int n_regs;
  uint64_t regs[PERF_SAMPLE_MAX_REGS];
};

/* The sample_id fields at the end of a record other than a sample.  */
struct perf_sample_id
{
  const struct perf_attr *attr;
  int32_t pid;
  int32_t tid;
  uint64_t time;
  uint64_t id;
  uint32_t cpu;
};

/* PERF_RECORD_MMAP and PERF_RECORD_MMAP2.  */
struct perf_mmap
{
  uint16_t misc;
  int32_t pid;
  int32_t tid;
  uint64_t start;
  uint64_t len;
  uint64_t pgoff;
  /* PROT_* bits of an MMAP2 record; -1 for an MMAP record.  */
  int prot;
  /* The build id of an MMAP2 record with PERF_RECORD_MISC_MMAP_BUILD_ID,
     BUILD_ID_SIZE bytes (0 if there is none).  */
  unsigned int build_id_size;
  const unsigned char *build_id;
  /* Else the identity of the file when it was mapped, as an MMAP2
     record has it: its device's major and minor numbers, its inode and
     the inode's generation; all 0 if not known.  */
  uint32_t maj;
  uint32_t min;
  uint64_t ino;
  uint64_t ino_generation;
  /* NUL-terminated, inside the record.  */
  const char *filename;
};

/* PERF_RECORD_COMM.  */
struct perf_comm
{
  int32_t pid;
  int32_t tid;
  bool exec;
  const char *comm;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT.  */
struct perf_task
{
  int32_t pid;
  int32_t ppid;
  int32_t tid;
  int32_t ptid;
  uint64_t time;
};

/* A build id perf record wrote in the HEADER_BUILD_ID feature section:
   that of a file it saw samples in.  */
struct perf_build_id
{
  /* Owned.  */
  char *filename;
  unsigned char id[20];
  unsigned int size;
};

/* An open perf.data file, or stream.  */
struct perf_data
{
  /* The name given to perf_data_open, for messages; not owned.  */
  const char *name;
  int fd;
  /* Whether the file is in perf's pipe format (perf record -o -), with the
     attributes in PERF_RECORD_HEADER_ATTR records.  */
  bool pipe;
  /* Whether FD cannot seek: the records are read once, in order.  */
  bool stream;
  uint64_t file_size;
  /* The data section: [DATA_OFFSET, DATA_END).  For a stream, DATA_END
     is UINT64_MAX, and the records end where the stream does.  */
  uint64_t data_offset;
  uint64_t data_end;
  /* If the header promises more data than the file holds, the size it
     promises; DATA_END is then the end of the file.  */
  uint64_t truncated_end;
  /* The feature bits of the header (HEADER_* in perf's header.h).  */
  uint64_t features[4];

  struct perf_attr *attrs;
  size_t n_attrs;
  /* The build ids of the header's feature section, if it has them.  */
  struct perf_build_id *build_ids;
  size_t n_build_ids;
  /* Every sample id of every attribute, sorted by id, for lookups.  */
  struct perf_id_entry *id_index;
  size_t n_id_index;
  /* Where the first attribute puts the sample id, counted in u64 words
     from the start of a sample and from the end of another record (as
     perf's evsel__calc_id_pos and evsel__calc_is_pos do); -1 if it has
     no id.  */
  int id_pos;
  int is_pos;

  /* Read buffer: BUF holds BUF_LEN bytes of the file from BUF_OFFSET;
     POS is the offset of the next record.  */
  unsigned char *buf;
  size_t buf_len;
  size_t buf_cap;
  uint64_t buf_offset;
  uint64_t pos;
  bool eof;
  /* A copy of the last record, when reading past what follows it would
     move the buffer under it (a stream only).  */
  unsigned char *saved;

  /* Record counts by type, for the statistics.  */
  uint64_t n_records;
  uint64_t n_compressed;
  uint64_t n_unknown_id;

  /* The message of the last error.  */
  char error[512];
};

/* Open NAME ("-" for standard input) and read its header and attributes.
   Returns 0, or -1 with the reason in PD->error.  */
extern int perf_data_open (struct perf_data *pd, const char *name);

/* Close PD and free what it holds.  */
extern void perf_data_close (struct perf_data *pd);

/* Read the next record into REC.  Returns 1 for a record, 0 at the end of
   the data, -1 with PD->error set for bad data: a truncated record, a
   size smaller than the header or running past the end.  In pipe mode
   PERF_RECORD_HEADER_ATTR records are taken in as attributes here (and
   still returned).  */
extern int perf_data_next (struct perf_data *pd, struct perf_record *rec);

/* Rewind PD to the first record.  Returns 0, or -1 for a stream.  */
extern int perf_data_rewind (struct perf_data *pd);

/* Read every record of PD and decode those perfsym uses, then rewind:
   errors are found before any record is processed.  Returns 0 with the
   number of samples in *N_SAMPLES, or -1 with PD->error set.  */
extern int perf_data_check (struct perf_data *pd, uint64_t *n_samples);

/* The attribute a record belongs to, found by its sample id as perf does
   when perf_data_next read it (REC->attr); NULL if the id names none
   (counted in PD->n_unknown_id by perf_data_next).  Only the first
   attribute has no id.  */
extern const struct perf_attr *perf_data_record_attr
  (struct perf_data *pd, const struct perf_record *rec);

/* Decode a PERF_RECORD_SAMPLE.  Returns 0, 1 if its attribute is not
   known (the sample is to be skipped), -1 with PD->error set if the record
   is malformed.  */
extern int perf_data_sample (struct perf_data *pd,
			     const struct perf_record *rec,
			     struct perf_sample *sample);

/* Decode the sample_id fields of another kernel record.  Returns 0 (all
   zero, PID and TID -1, when the attribute has no SAMPLE_ID_ALL), 1 for
   an unknown attribute, -1 with PD->error set if the record is too small
   for them.  */
extern int perf_data_sample_id (struct perf_data *pd,
				const struct perf_record *rec,
				struct perf_sample_id *sid);

/* The time of a kernel record, as perf sorts by it: a sample's time or
   that of the sample_id fields; 0 if the record has none.  Returns 0, or
   -1 with PD->error set.  */
extern int perf_data_record_time (struct perf_data *pd,
				  const struct perf_record *rec,
				  uint64_t *time);

/* Decode PERF_RECORD_MMAP, MMAP2, COMM, FORK or EXIT.  Return 0, or -1
   with PD->error set if the record is too small for its fields or its
   string is not terminated.  */
extern int perf_data_mmap (struct perf_data *pd, const struct perf_record *rec,
			   struct perf_mmap *mmap);
extern int perf_data_comm (struct perf_data *pd, const struct perf_record *rec,
			   struct perf_comm *comm);
extern int perf_data_task (struct perf_data *pd, const struct perf_record *rec,
			   struct perf_task *task);

/* The build id PD records for FILENAME (as the mmap records name it),
   or NULL.  */
extern const struct perf_build_id *perf_data_build_id
  (const struct perf_data *pd, const char *filename);

/* The name perf gives the event of ATTR, for the hardware and software
   events, else "type:config", in BUF of SIZE bytes.  */
extern const char *perf_attr_name (const struct perf_attr *attr, char *buf,
				   size_t size);

/* Entry I of SAMPLE's callchain.  */
static inline uint64_t
perf_sample_callchain (const struct perf_sample *sample, uint64_t i)
{
  uint64_t v;
  __builtin_memcpy (&v, sample->callchain + i * 8, 8);
  return v;
}

#endif /* perfdata.h */
