/* Printing the stacks in the collapsed format.  */

#include <inttypes.h>
#include <stdlib.h>

#include "folded.h"

int
folded_print (const struct stacks *st, FILE *out)
{
  struct stack **sorted = stacks_sorted (st);
  if (sorted == NULL)
    return -1;
  for (size_t i = 0; i < st->n; ++i)
    {
      const struct stack *s = sorted[i];
      fputs (s->comm, out);
      for (size_t j = 0; j < s->n_frames; ++j)
	{
	  putc (';', out);
	  fputs (s->frames[j]->label, out);
	}
      fprintf (out, " %" PRIu64 "\n", s->samples);
    }
  free (sorted);
  return 0;
}
