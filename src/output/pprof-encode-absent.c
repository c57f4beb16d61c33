// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pprof-encode-absent.c - the profile encoder of an iotap built without libprotobuf-c
 * (configure said so): the profiles are built as anywhere, and writing one is refused, so
 * that --pprof fails in one line, before tracing (pprof_supported).
 */
#include <errno.h>

#include "pprof.h"

/* pprof_supported - this build writes no profiles */
bool pprof_supported(void)
{
	return false;
}

/* pprof_write - refused: nothing to encode with */
int pprof_write(const struct pprof *p, FILE *f)
{
	return -ENOTSUP;
}
