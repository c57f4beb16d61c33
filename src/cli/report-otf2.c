// SPDX-License-Identifier: GPL-2.0-or-later
/* report-otf2.c - iotap report -i FILE --otf2 DIR: the archive made, one pass, then committed */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "otf2write.h"
#include "select.h"
#include "tools/otf2report.h"

#define CLI_S(n) ((n) == 1 ? "" : "s")

/* cli_otf2_summary - what the archive holds, in one line */
static void cli_otf2_summary(struct otf2w *w, const char *dir)
{
	const struct otf2_defs *d = otf2w_defs(w);
	size_t disks = 0;
	uint64_t events = 0;
	char line[512];

	for (size_t i = 0; i < d->nr_handles; i++)
		disks += d->handles[i].kind == OTF2_HANDLE_DISK;
	for (size_t i = 0; i < d->nr_locs; i++)
		events += d->locs[i].events;
	snprintf(line, sizeof(line), "%llu events of %zu thread%s in %zu process%s, on %zu disk%s "
		 "and %zu file%s, written to %s (open %s/traces.otf2)", (unsigned long long)events,
		 d->nr_locs, CLI_S(d->nr_locs), d->nr_procs, d->nr_procs == 1 ? "" : "es", disks,
		 CLI_S(disks), d->nr_handles - disks, CLI_S(d->nr_handles - disks), dir, dir);
	cli_log(LOG_INFO, line);
}

/*
 * cli_report_otf2 - iotap report -i FILE --otf2 DIR: DIR checked and the archive begun
 * before the input is read, so a bad DIR costs no pass; written whole or not at all
 */
int cli_report_otf2(const struct session_opts *so, const char *dir)
{
	struct otf2report_params op = { .description = so->input };
	struct session s;
	char why[512];
	int ret;

	ret = otf2w_create(&op.w, dir, why, sizeof(why));
	if (ret == -ENOTSUP) {
		cli_error("--otf2: %s", why);
		return EXIT_USAGE;
	}
	if (ret) {
		cli_error("cannot write %s: %s", dir, why);
		return EXIT_TRACE;
	}
	session_signals_install();
	ret = session_init(&s, &tool_otf2report, &op, so);
	if (!ret)
		ret = session_run(&s, 0, 0, 0);
	/* An archive of part of the input would pass for all of it. */
	if (!ret && session_signalled(&s)) {
		cli_error("interrupted: %s not written", dir);
		ret = -EINTR;
	}
	session_release(&s);
	if (!ret)
		ret = otf2w_commit(op.w);
	/* What the session or the tool failed at, it said; what the archive failed at, here. */
	if (ret && otf2w_why(op.w)[0])
		cli_error("cannot write %s: %s", dir, otf2w_why(op.w));
	else if (ret == -ENOMEM)
		cli_error("out of memory");
	if (!ret)
		cli_otf2_summary(op.w, dir);
	otf2w_free(op.w);
	return cli_stdout_check(ret ? EXIT_TRACE : 0);
}
