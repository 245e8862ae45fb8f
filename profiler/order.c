/* Delivering records in time order, as perf's ordered events do.  */

#include <stdlib.h>
#include <string.h>

#include "order.h"

/* The copies of the records are kept in blocks of BLOCK_SIZE bytes (or
   of one larger record), in the order they were queued: one malloc for
   some hundreds of records, not one each.  A block goes with the last
   of its records delivered, or with the queue.  */
#define BLOCK_SIZE (64 * 1024)

struct order_block
{
  size_t size;
  /* The bytes given out, and the records in them not delivered.  */
  size_t used;
  size_t live;
  unsigned char data[];
};

struct order_entry
{
  uint64_t time;
  uint64_t seq;
  /* REC.data points to a copy in BLOCK.  */
  struct perf_record rec;
  struct order_block *block;
};

void
order_init (struct order *o, order_deliver_fn *deliver, void *arg)
{
  memset (o, 0, sizeof *o);
  o->deliver = deliver;
  o->deliver_arg = arg;
}

/* A record of BLOCK was delivered, or dropped.  */
static void
release (struct order *o, struct order_block *block)
{
  if (--block->live == 0 && block != o->block)
    free (block);
}

void
order_free (struct order *o)
{
  for (size_t i = 0; i < o->n; ++i)
    release (o, o->entries[i].block);
  free (o->block);
  o->block = NULL;
  free (o->entries);
  o->entries = NULL;
  o->n = o->n_sorted = o->cap = 0;
}

/* Room for SIZE bytes in O's current block, a new one if it has too
   little; NULL if out of memory.  */
static void *
copy_room (struct order *o, size_t size)
{
  /* Records are read with memcpy, but keep their words aligned.  */
  size = (size + 7) & ~(size_t) 7;
  struct order_block *b = o->block;
  if (b == NULL || b->size - b->used < size)
    {
      size_t block_size = size > BLOCK_SIZE ? size : BLOCK_SIZE;
      b = malloc (sizeof *b + block_size);
      if (b == NULL)
	return NULL;
      b->size = block_size;
      b->used = b->live = 0;
      if (o->block != NULL && o->block->live == 0)
	free (o->block);
      o->block = b;
    }
  void *room = b->data + b->used;
  b->used += size;
  ++b->live;
  return room;
}

int
order_queue (struct order *o, const struct perf_record *rec, uint64_t time)
{
  if (o->n == o->cap)
    {
      size_t cap = o->cap ? 2 * o->cap : 4096;
      struct order_entry *entries = realloc (o->entries,
					     cap * sizeof *entries);
      if (entries == NULL)
	return -1;
      o->entries = entries;
      o->cap = cap;
    }
  void *data = copy_room (o, rec->size);
  if (data == NULL)
    return -1;
  memcpy (data, rec->data, rec->size);

  if (o->n == 0 || time > o->max_time)
    o->max_time = time;
  if (time < o->last_flush)
    ++o->n_out_of_order;
  struct order_entry *e = &o->entries[o->n++];
  e->time = time;
  e->seq = o->seq++;
  e->rec = *rec;
  e->rec.data = data;
  e->block = o->block;
  return 0;
}

static int
compare_entry (const void *a, const void *b)
{
  const struct order_entry *x = a;
  const struct order_entry *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Bring the whole queue in delivery order: sort what came since the last
   flush, and merge it with the sorted rest.  */
static int
sort_queue (struct order *o)
{
  if (o->n_sorted == o->n)
    return 0;
  qsort (o->entries + o->n_sorted, o->n - o->n_sorted,
	 sizeof *o->entries, compare_entry);
  if (o->n_sorted > 0
      && compare_entry (&o->entries[o->n_sorted - 1],
			&o->entries[o->n_sorted]) > 0)
    {
      struct order_entry *merged = malloc (o->n * sizeof *merged);
      if (merged == NULL)
	return -1;
      size_t i = 0, j = o->n_sorted, k = 0;
      while (i < o->n_sorted && j < o->n)
	merged[k++] = (compare_entry (&o->entries[i], &o->entries[j]) <= 0
		       ? o->entries[i++] : o->entries[j++]);
      while (i < o->n_sorted)
	merged[k++] = o->entries[i++];
      while (j < o->n)
	merged[k++] = o->entries[j++];
      memcpy (o->entries, merged, o->n * sizeof *merged);
      free (merged);
    }
  o->n_sorted = o->n;
  return 0;
}

/* Deliver the queued records up to time LIMIT.  */
static int
flush_until (struct order *o, uint64_t limit)
{
  if (sort_queue (o) != 0)
    return -1;
  size_t done = 0;
  int result = 0;
  while (done < o->n && o->entries[done].time <= limit)
    {
      struct order_entry *e = &o->entries[done++];
      result = o->deliver (&e->rec, o->deliver_arg);
      o->last_flush = e->time;
      release (o, e->block);
      if (result != 0)
	break;
    }
  memmove (o->entries, o->entries + done,
	   (o->n - done) * sizeof *o->entries);
  o->n -= done;
  o->n_sorted -= done;
  return result;
}

int
order_flush_round (struct order *o)
{
  /* perf leaves everything, the next limit too, as it is when nothing is
     queued.  */
  if (o->n == 0)
    return 0;
  int result = 0;
  if (o->next_flush != 0)
    result = flush_until (o, o->next_flush);
  if (result == 0)
    o->next_flush = o->max_time;
  return result;
}

int
order_flush_all (struct order *o)
{
  if (o->n == 0)
    return 0;
  return flush_until (o, UINT64_MAX);
}
