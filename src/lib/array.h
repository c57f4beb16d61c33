/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_ARRAY_H
#define IOTAP_ARRAY_H

#include <stddef.h>

/*
 * Growing arrays: the user keeps a pointer, a capacity and a count, and asks
 * for room before appending.  The capacity doubles from a minimum, so
 * appending n elements costs O(n) copies in all.
 */

/* Out of line part of array_reserve(); use that. 0 or -ENOMEM. */
int array_grow(void *arrayp, size_t *cap, size_t need, size_t size,
	       size_t min);

/*
 * array_reserve - make *arrayp hold at least need elements of size bytes
 *
 * arrayp is the address of the array pointer (any element type; NULL when
 * nothing is allocated yet), cap its capacity in elements, updated when the
 * array moves.  The new capacity is the larger of *cap and min (size > 0),
 * doubled until it holds need.  Elements already there are kept; new ones are not
 * initialised.  Returns 0, or -ENOMEM with the array and *cap unchanged.
 */
static inline int array_reserve(void *arrayp, size_t *cap, size_t need,
				size_t size, size_t min)
{
	if (need <= *cap)
		return 0;
	return array_grow(arrayp, cap, need, size, min);
}

#endif
