/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_OTF2REPORT_H
#define IOTAP_OTF2REPORT_H

/*
 * The analysis behind 'iotap report --otf2 DIR': one pass over the input
 * that writes, as they happen, each block request (blktrack: begun at its
 * submission, issued, completed) and each read and write syscall (systrack,
 * with its file's name) as I/O operations on the location of the thread
 * that did them, and at the end the archive's definitions. Not in the
 * tools' table: it runs only through report, into an archive the caller
 * made and commits (otf2write.h).
 */
#include "iotap.h"

struct otf2w;

struct otf2report_params {
	struct otf2w *w;		/* the archive written into */
	const char *description;	/* the archive's: what it was made from */
};

extern const struct tool tool_otf2report;

#endif
