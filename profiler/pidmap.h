/* A map from process or thread ids to pointers.  */

#ifndef PIDMAP_H
#define PIDMAP_H

#include <stddef.h>
#include <stdint.h>

struct pidmap_node;

struct pidmap
{
  struct pidmap_node **buckets;
  size_t n_buckets;
  size_t n;
};

extern void pidmap_init (struct pidmap *map);

/* Free the map's nodes, not the values.  */
extern void pidmap_free (struct pidmap *map);

/* The value of KEY, or NULL.  */
extern void *pidmap_get (const struct pidmap *map, int32_t key);

/* Set the value of KEY to VALUE.  Returns 0, -1 if out of memory.  */
extern int pidmap_set (struct pidmap *map, int32_t key, void *value);

/* Remove KEY, returning its value, or NULL.  */
extern void *pidmap_remove (struct pidmap *map, int32_t key);

/* Call FN with every value and ARG, in no particular order.  FN must not
   change the map.  */
extern void pidmap_foreach (const struct pidmap *map,
			    void (*fn) (void *value, void *arg), void *arg);

#endif /* pidmap.h */
