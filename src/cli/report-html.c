// SPDX-License-Identifier: GPL-2.0-or-later
/* report-html.c - iotap report -i FILE --html OUT: the page's header, its sessions, the file */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"
#include "opt.h"
#include "outfile.h"
#include "select.h"
#include "source-recording.h"
#include "tools/htmlreport.h"

/* cli_html_fact - one row of the page's header table; value escaped */
static void cli_html_fact(FILE *f, const char *key, const char *value)
{
	fprintf(f, "<tr><th>%s</th><td>", key);
	html_text(f, value);
	fputs("</td></tr>\n", f);
}

/* cli_html_head - the page's header: what --info says, and what fired a dump */
static void cli_html_head(FILE *f, struct session *s, const struct recording_info *in)
{
	uint64_t events = 0, undelivered = 0, stackless = 0, lost = session_lost_total(s);
	uint64_t dur = in->t_end > in->t_start ? in->t_end - in->t_start : 0;
	char buf[512], when[64] = "?";

	for (size_t i = 0; i < in->nr_ev; i++) {
		events += in->ev[i].count;
		undelivered += in->ev[i].undelivered;
		stackless += in->ev[i].stackless;
	}
	if (!iotap_strftime(&s->ctx, in->t_start, "%Y-%m-%d %H:%M:%S", when, sizeof(when)))
		snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03u",
			 (unsigned int)((in->t_start + s->wall_offset) / 1000000 % 1000));
	fprintf(f, "<header id=\"head\" data-events=\"%" PRIu64 "\" data-lost=\"%" PRIu64
		"\" data-undelivered=\"%" PRIu64 "\" data-stackless=\"%" PRIu64
		"\" data-span=\"%.9g\">\n<h1>iotap report: ", events, lost, undelivered, stackless,
		dur / 1e9);
	html_text(f, in->host ? in->host : in->path);
	fputs("</h1>\n<table class=\"facts\">\n", f);
	cli_html_fact(f, "recording", in->path);
	if (in->writer)
		cli_html_fact(f, "written by", in->writer);
	cli_html_fact(f, "host", in->host ? in->host : "?");
	snprintf(buf, sizeof(buf), "%s %s %s %s", in->sysname ? in->sysname : "?",
		 in->release ? in->release : "?", in->kversion ? in->kversion : "",
		 in->machine ? in->machine : "");
	cli_html_fact(f, "kernel", buf);
	snprintf(buf, sizeof(buf), "%s (the recording's local time), %.3f s, %d CPUs", when,
		 dur / 1e9, in->nr_cpus);
	cli_html_fact(f, "time span", buf);
	if (in->command)
		cli_html_fact(f, "command", in->command);
	snprintf(buf, sizeof(buf), "%" PRIu64 " events; lost (rings overflowed): %" PRIu64
		 "; counted by the kernel but not delivered: %" PRIu64 "; without a stack: %" PRIu64,
		 events, lost, undelivered, stackless);
	cli_html_fact(f, "events", buf);
	if (in->cut_short) {
		snprintf(buf, sizeof(buf), "no: cut short at byte %" PRIu64 " (the recording was "
			 "interrupted); shown up to there", in->cut_at);
		cli_html_fact(f, "complete", buf);
	}
	fputs("</table>\n", f);
	if (in->trig) {
		fputs("<div id=\"trigger\" class=\"trigger\" data-reason=\"", f);
		html_text(f, in->trig->reason ? in->trig->reason : "");
		fputs("\"><b>Flight recorder dump, fired by:</b> ", f);
		html_text(f, in->trig->what);
		fprintf(f, " <span class=\"facts\">(at %.3f s, marked on every time chart; the dump "
			"holds %.3f s before it to %.3f s after it)</span></div>\n",
			in->trig->t_trigger > in->t_start ? (in->trig->t_trigger - in->t_start) / 1e9 : 0.0,
			in->trig->t_trigger > in->trig->t_from ?
			(in->trig->t_trigger - in->trig->t_from) / 1e9 : 0.0,
			in->trig->t_to > in->trig->t_trigger ?
			(in->trig->t_to - in->trig->t_trigger) / 1e9 : 0.0);
	}
	fputs("</header>\n", f);
}

/* cli_html_header - what --info says, as the page's header (a pass of its own); 0 or -errno */
static int cli_html_header(const struct session_opts *so, char **head, char *attrs, size_t len)
{
	struct recording_info info;
	struct session s;
	size_t hlen = 0;
	FILE *m;
	int ret = session_init(&s, NULL, NULL, so);

	if (!ret)
		ret = recording_info(&s, &info);
	if (!ret && session_signalled(&s)) {
		cli_error("interrupted: no page written");
		ret = -EINTR;
	}
	if (!ret) {
		m = open_memstream(head, &hlen);
		if (!m)
			ret = -ENOMEM;
	}
	if (!ret) {
		cli_html_head(m, &s, &info);
		if (fclose(m))
			ret = -ENOMEM;
		if (info.trig)
			snprintf(attrs, len, "data-trigger=\"%.6f\"",
				 info.trig->t_trigger > info.t_start ?
				 (info.trig->t_trigger - info.t_start) / 1e9 : 0.0);
	}
	session_release(&s);
	return ret;
}

/* cli_html_write - the page into path, whole or not at all; 0 or -errno */
static int cli_html_write(const char *path, const char *attrs, const char *head, const char *body)
{
	struct outfile of;
	int ret = outfile_open(&of, path, 0644);

	if (!ret) {
		ret = html_page_write(of.f, "iotap report", attrs, head, body);
		if (ret)
			outfile_abort(&of);
		else
			ret = outfile_commit(&of);
	}
	return ret;
}

/*
 * The tools below and above the block layer whose reports the page shows as they print
 * them, when the recording holds their events: run in the same pass, as the tools.
 */
static const struct cli_html_layer {
	const char *tool, *title;
	const char *arg;		/* an option it takes here, or NULL */
} cli_html_layers[] = {
	{ "nvmelatency", "Below the block layer: NVMe commands (nvmelatency)", NULL },
	{ "scsilatency", "Below the block layer: SCSI commands (scsilatency)", NULL },
	{ "scsiresult", "Below the block layer: SCSI results (scsiresult)", NULL },
	{ "fileio", "Above the block layer: reads and writes per file (fileio)", "-C" },
	{ "iostackbreakdown", "Above the block layer: syscall time by layer (iostackbreakdown)", NULL },
};
#define CLI_HTML_LAYERS (sizeof(cli_html_layers) / sizeof(cli_html_layers[0]))

/* One of them over the session: its parameters and where its report goes. */
struct cli_html_run {
	const struct tool *tool;
	void *params;
	const char *missing;		/* the first event it needs that the recording lacks */
	char *text;
	size_t len;
	FILE *out;
};

/* cli_html_missing - the first event tool needs that s does not hold, "sys:name"; NULL: none */
static const char *cli_html_missing(struct session *s, const struct tool *tool, char *buf,
				    size_t len)
{
	for (const struct tool_event *e = tool->events; e && e->sys; e++) {
		if (!(e->flags & TOOL_EV_OPTIONAL) && !iotap_event_available(&s->ctx, e->sys, e->name)) {
			snprintf(buf, len, "%s:%s", e->sys, e->name);
			return buf;
		}
	}
	return NULL;
}

/* cli_html_layers_add - each layer tool the recording can feed, over s; 0 or -errno (said) */
static int cli_html_layers_add(struct session *s, struct cli_html_run *run, char (*missing)[160])
{
	for (size_t i = 0; i < CLI_HTML_LAYERS; i++) {
		const struct cli_html_layer *l = &cli_html_layers[i];
		char *argv[] = { (char *)l->tool, (char *)l->arg, NULL };
		struct session_opts so = SESSION_OPTS_DEFAULT;
		struct cli_args ca;
		char why[256] = "";
		int ret;

		run[i].tool = tool_find(l->tool);
		if (!run[i].tool)
			return -ENOENT;
		run[i].missing = cli_html_missing(s, run[i].tool, missing[i], sizeof(missing[i]));
		if (run[i].missing)
			continue;
		run[i].params = calloc(1, run[i].tool->params_size ? run[i].tool->params_size : 1);
		run[i].out = open_memstream(&run[i].text, &run[i].len);
		if (!run[i].params || !run[i].out)
			return -ENOMEM;
		ret = opt_parse(&run[i].tool->cmd, l->arg ? 2 : 1, argv, run[i].params, &so, &ca,
				why, sizeof(why));
		if (ret) {
			cli_error("%s: %s", l->tool, why[0] ? why : strerror(-ret));
			return ret;
		}
		if (!session_tool_add(s, run[i].tool, run[i].params, run[i].out))
			return -errno;
	}
	return 0;
}

/* cli_html_layers_write - their sections, after the page's own: the report, or why there is none */
static int cli_html_layers_write(FILE *f, struct cli_html_run *run)
{
	fputs("<section id=\"layers\"><h2>Below and above the block layer</h2>\n", f);
	for (size_t i = 0; i < CLI_HTML_LAYERS; i++) {
		const struct cli_html_layer *l = &cli_html_layers[i];

		fprintf(f, "<div class=\"layer\" data-tool=\"%s\" data-recorded=\"%d\"><h3>%s</h3>\n",
			l->tool, !run[i].missing, l->title);
		if (run[i].missing) {
			fputs("<p class=\"none\">Not in the recording: it holds no ", f);
			html_text(f, run[i].missing);
			fprintf(f, " events (iotap record --tools %s, or --all).</p></div>\n", l->tool);
			continue;
		}
		if (run[i].out && fclose(run[i].out))
			return -ENOMEM;
		run[i].out = NULL;
		if (!run[i].len) {
			fputs("<p class=\"none\">It printed nothing for this recording.</p></div>\n", f);
			continue;
		}
		fputs("<pre>", f);
		html_textn(f, run[i].text, run[i].len);
		fputs("</pre></div>\n", f);
	}
	fputs("</section>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* cli_html_runs_free - what cli_html_layers_add made (after the session released the tools) */
static void cli_html_runs_free(struct cli_html_run *run)
{
	for (size_t i = 0; i < CLI_HTML_LAYERS; i++) {
		if (run[i].out)
			fclose(run[i].out);
		free(run[i].text);
		free(run[i].params);
	}
}

/*
 * cli_report_html - iotap report -i FILE --html OUT: the header from a counting pass as
 * --info makes, the sections from one pass of the analysis and the layer tools, then the page
 */
int cli_report_html(const struct session_opts *so, const char *path)
{
	struct cli_html_run run[CLI_HTML_LAYERS] = { 0 };
	char missing[CLI_HTML_LAYERS][160];
	struct htmlreport_params hp = { 0 };
	char *body = NULL, *head = NULL, attrs[64] = "";
	size_t len = 0;
	struct session s;
	int ret;

	session_signals_install();
	ret = cli_html_header(so, &head, attrs, sizeof(attrs));
	if (ret) {
		free(head);
		return cli_stdout_check(EXIT_TRACE);
	}
	hp.body = open_memstream(&body, &len);
	if (!hp.body) {
		cli_error("out of memory");
		free(head);
		return EXIT_TRACE;
	}
	ret = session_init(&s, &tool_htmlreport, &hp, so);
	if (!ret)
		ret = cli_html_layers_add(&s, run, missing);
	if (!ret)
		ret = session_run(&s, 0, 0, 0);
	/* A page of part of the recording would pass for all of it. */
	if (!ret && session_signalled(&s)) {
		cli_error("interrupted: %s not written", path);
		ret = -EINTR;
	}
	if (!ret)
		ret = cli_html_layers_write(hp.body, run);
	if (fclose(hp.body) && !ret)
		ret = -ENOMEM;
	session_release(&s);
	cli_html_runs_free(run);
	if (!ret) {
		ret = cli_html_write(path, attrs, head, body);
		if (ret)
			cli_error("cannot write %s: %s", path, strerror(-ret));
	}
	free(head);
	free(body);
	return cli_stdout_check(ret ? EXIT_TRACE : 0);
}
