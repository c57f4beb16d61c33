// SPDX-License-Identifier: GPL-2.0-or-later
/* array.c - room in growing arrays, doubling */
#include "array.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* array_grow - reallocate *arrayp to the doubled capacity that holds need elements */
int array_grow(void *arrayp, size_t *cap, size_t need, size_t size,
	       size_t min)
{
	size_t c = *cap > min ? *cap : min;
	void *array;

	if (!c)
		c = 1;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		return -ENOMEM;
	/* Through memcpy: *arrayp may be a pointer to any element type. */
	memcpy(&array, arrayp, sizeof(array));
	array = realloc(array, c * size);
	if (!array)
		return -ENOMEM;
	memcpy(arrayp, &array, sizeof(array));
	*cap = c;
	return 0;
}
