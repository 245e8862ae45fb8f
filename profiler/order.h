/* Delivering records in time order, as perf's ordered events do.
   perf record writes each CPU's buffer in turn, so records are only
   roughly in time order; a PERF_RECORD_FINISHED_ROUND record ends a round
   of reading every buffer.  Like perf, records are queued by time
   (records with the same time keep their order in the file); at the end
   of a round those not later than the latest time queued before the
   previous round ended are delivered; the rest wait, as a buffer read
   in this round can still hold older records.  A record without a time
   is not queued: it is delivered at once.  */

#ifndef ORDER_H
#define ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "perfdata.h"

/* Called for each record in turn; a non-zero return stops the delivery
   and is returned by the order_* call that delivered.  */
typedef int order_deliver_fn (const struct perf_record *rec, void *arg);

struct order_entry;
struct order_block;

struct order
{
  /* The queue: entries [0, N_SORTED) are in delivery order, those from
     N_SORTED to N came since the last flush, in file order.  */
  struct order_entry *entries;
  size_t n;
  size_t n_sorted;
  size_t cap;
  /* Where copies of the records are made now.  */
  struct order_block *block;
  /* The time up to which the next round's end delivers; 0 before the
     first round ended.  */
  uint64_t next_flush;
  /* The latest time in the queue (or in it when it was last emptied).  */
  uint64_t max_time;
  /* The time of the last record delivered from the queue.  */
  uint64_t last_flush;
  /* The number of records queued, to keep equal times in file order.  */
  uint64_t seq;
  /* Records queued with a time before one already delivered: perf calls
     them out of order, and delivers them late, as this does.  */
  uint64_t n_out_of_order;
  order_deliver_fn *deliver;
  void *deliver_arg;
};

/* Start an empty queue that delivers to DELIVER with ARG.  */
extern void order_init (struct order *o, order_deliver_fn *deliver,
			void *arg);

/* Free what is still queued, undelivered.  */
extern void order_free (struct order *o);

/* Queue a copy of REC, of time TIME (not 0).  Returns 0, -1 if out of
   memory.  */
extern int order_queue (struct order *o, const struct perf_record *rec,
			uint64_t time);

/* A PERF_RECORD_FINISHED_ROUND: deliver what the round allows.  */
extern int order_flush_round (struct order *o);

/* The end of the data: deliver everything.  */
extern int order_flush_all (struct order *o);

#endif /* order.h */
