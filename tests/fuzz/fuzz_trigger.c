// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_trigger.c - libFuzzer harness for the flight recorder's trigger expressions */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trigger.h"

/* LLVMFuzzerTestOneInput - parse the input as a --trigger value; what parses must hold */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), why[256] = "";
	struct trigger t;
	struct blk_io io = { .t_issue = 1, .t_done = 1 };
	uint64_t lat;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (trigger_parse(s, &t, why, sizeof(why)) == 0) {
		/* A list that parsed names a condition, and each within its range. */
		if (!t.error && !t.latency_ns)
			abort();
		if (t.latency_ns > 86400000ull * 1000000ull)
			abort();
		/* A request of no latency and no error fires nothing. */
		if (trigger_match(&t, &io, false, &lat))
			abort();
	} else if (!why[0] || strlen(why) >= sizeof(why) - 1 || strchr(why, '\n')) {
		/* Every refusal says why, in one line. */
		abort();
	}
	free(s);
	return 0;
}
