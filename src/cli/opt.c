// SPDX-License-Identifier: GPL-2.0-or-later
/* opt.c - one option table drives parsing, --help and the man page */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opt.h"
#include "outfile.h"

#define OPT_LONG_BASE 256
/* Shorter intervals only spin (perf stat -I refuses below 10 ms too). */
#define OPT_SECONDS_MIN 0.01
#define OPT_SECONDS_WANT "expected decimal seconds from 0.01 to 1000000000 (e.g. 0.5)"

/* opt_common - the session options a tool or command takes */
static const struct opt *opt_common(const struct cmd_spec *cmd)
{
	return cmd->common ? cmd->common : common_opts;
}

/* opt_is_tool - a tool (an argv[0] alias too), not a command such as record */
static bool opt_is_tool(const struct cmd_spec *cmd)
{
	return cmd->args != TOOL_ARGS_COMMAND && cmd->args != TOOL_ARGS_TOOL;
}

/* opt_count - entries in a table */
static size_t opt_count(const struct opt *o)
{
	size_t n = 0;

	while (o && (o[n].short_name || o[n].long_name))
		n++;
	return n;
}

/*
 * opt_seconds - decimal seconds ("1", "0.5") from OPT_SECONDS_MIN to 1e9 to ns. Only
 * digits and one point: strtod would take 1e-12, 0x10, inf and leading blanks.
 */
int opt_seconds(const char *s, uint64_t *ns)
{
	size_t digits = strspn(s, "0123456789");
	char *end;
	double v;

	if (s[digits] == '.')
		digits += 1 + strspn(s + digits + 1, "0123456789");
	if (!digits || s[digits] || !strcmp(s, "."))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < OPT_SECONDS_MIN || v > 1e9)
		return -EINVAL;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

/* opt_uint - a decimal integer in [min, max] */
static int opt_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || (max && v > max))
		return -ERANGE;
	*out = v;
	return 0;
}

/* opt_dir_check - 0 when path is a directory that can be searched and read, else -errno */
static int opt_dir_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(path, R_OK | X_OK) < 0 ? -errno : 0;
}

/* opt_name - "-d/--disk" as the user would type it, for messages */
static void opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->short_name && o->long_name)
		snprintf(buf, len, "-%c/--%s", o->short_name, o->long_name);
	else if (o->short_name)
		snprintf(buf, len, "-%c", o->short_name);
	else
		snprintf(buf, len, "--%s", o->long_name);
}

/* opt_choices - "a|b|c" */
static void opt_choices(const struct opt *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; o->choices && o->choices[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? "|" : "", o->choices[i]);
}

/* opt_path_check - a file to write or a directory to read, checked now rather than after tracing */
static int opt_path_check(const struct opt *o, const char *arg, const char *name, char *why,
			  size_t whylen)
{
	int ret;

	if (!*arg) {
		snprintf(why, whylen, "%s needs a non-empty value", name);
		return -EINVAL;
	}
	ret = o->type == OPT_OUTFILE ? outfile_check(arg) : opt_dir_check(arg);
	if (ret)
		snprintf(why, whylen, "invalid %s '%s': %s%s", name, arg,
			 o->type == OPT_OUTFILE ? "cannot write it: " : "", strerror(-ret));
	return ret;
}

/* opt_store - convert arg and store it in base per the entry's type */
static int opt_store(const struct opt *o, const char *arg, void *base, char *why, size_t whylen)
{
	char *p = (char *)base + o->offset, name[64], choices[256];
	uint64_t v;

	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case OPT_ALIAS:
	case OPT_REFUSE:
		/* opt_parse resolves aliases and refuses the others before storing. */
		return -EINVAL;
	case OPT_FLAG:
		*(bool *)p = true;
		return 0;
	case OPT_UINT:
		if (opt_uint(arg, o->min, o->max, &v)) {
			if (o->max)
				snprintf(why, whylen, "invalid %s '%s': expected an integer from %" PRIu64 " to %" PRIu64,
					 name, arg, o->min, o->max);
			else
				snprintf(why, whylen, "invalid %s '%s': expected an integer >= %" PRIu64,
					 name, arg, o->min);
			return -EINVAL;
		}
		*(uint64_t *)p = v;
		return 0;
	case OPT_PID:
		if (opt_uint(arg, 1, INT32_MAX, &v)) {
			snprintf(why, whylen, "invalid %s '%s': expected a process ID", name, arg);
			return -EINVAL;
		}
		*(int *)p = (int)v;
		return 0;
	case OPT_STR:
	case OPT_DISK:
		if (!*arg) {
			snprintf(why, whylen, "%s needs a non-empty value", name);
			return -EINVAL;
		}
		*(const char **)p = arg;
		return 0;
	case OPT_OUTFILE:
	case OPT_DIR:
		if (opt_path_check(o, arg, name, why, whylen))
			return -EINVAL;
		*(const char **)p = arg;
		return 0;
	case OPT_CHOICE:
		for (int i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], arg)) {
				*(int *)p = i;
				return 0;
			}
		}
		opt_choices(o, choices, sizeof(choices));
		snprintf(why, whylen, "invalid %s '%s': expected one of %s", name, arg, choices);
		return -EINVAL;
	case OPT_LIST: {
		char *copy, *tok, *save = NULL;
		unsigned int set = 0;
		int ret = 0;

		if (!arg[strspn(arg, ",")]) {
			snprintf(why, whylen, "%s needs a non-empty value", name);
			return -EINVAL;
		}
		copy = strdup(arg);
		if (!copy)
			return -ENOMEM;
		for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
			int i;

			for (i = 0; o->choices[i] && strcmp(o->choices[i], tok); i++)
				;
			if (!o->choices[i]) {
				opt_choices(o, choices, sizeof(choices));
				snprintf(why, whylen, "invalid %s item '%s': expected a list of %s",
					 name, tok, choices);
				ret = -EINVAL;
			}
			set |= 1u << i;
		}
		free(copy);
		/* Given again, the items add up: -T a -T b is -T a,b. */
		if (!ret)
			*(unsigned int *)p |= set;
		return ret;
	}
	}
	return -EINVAL;
}

struct opt_ref {
	const struct opt *o;
	void *base;
	const struct opt_ref *target;	/* OPT_ALIAS: what it spells */
};

/* opt_target - the entry a long name names among refs, or NULL */
static const struct opt_ref *opt_target(const struct opt_ref *refs, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (refs[i].o->long_name && refs[i].o->type != OPT_ALIAS &&
		    !strcmp(refs[i].o->long_name, name))
			return &refs[i];
	return NULL;
}

/*
 * opt_given - a peer's spelling: refused with why, or checked and resolved
 * to the option it spells (*o, *base); 0 or -EINVAL with why set
 */
static int opt_given(const struct opt_ref *ref, const char *arg, const struct opt **o, void **base,
		     char *why, size_t whylen)
{
	char name[64], target[64];

	*o = ref->o;
	*base = ref->base;
	if (ref->o->type != OPT_ALIAS && ref->o->type != OPT_REFUSE)
		return 0;
	opt_name(ref->o, name, sizeof(name));
	if (ref->o->type == OPT_REFUSE) {
		snprintf(why, whylen, "%s is not offered: %s", name, ref->o->help);
		return -EINVAL;
	}
	opt_name(ref->target->o, target, sizeof(target));
	if (ref->o->clash && arg && !strchr(arg, '/')) {
		snprintf(why, whylen, "%s takes a cgroup path, as %s does in libbpf-tools ('%s' is none); "
			 "for a command name, iotap spells it %s %s", name, name, arg, ref->o->clash, arg);
		return -EINVAL;
	}
	*o = ref->target->o;
	*base = ref->target->base;
	return 0;
}

/* An argument rewritten for getopt, and how it was given. */
struct opt_alias_swap {
	char *orig;
	char *longer;
};

/* opt_alias_expand - spell single-dash aliases (-io, -io=r) as long options for getopt */
static int opt_alias_expand(int argc, char **argv, const struct opt_ref *refs, size_t n,
			    struct opt_alias_swap **swaps, size_t *nr)
{
	*swaps = NULL;
	*nr = 0;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		for (size_t k = 0; k < n; k++) {
			const struct opt *o = refs[k].o;
			size_t len = o->long_name ? strlen(o->long_name) : 0;
			char *longer;

			if (!o->dash_alias || !len || argv[i][0] != '-' ||
			    strncmp(argv[i] + 1, o->long_name, len) ||
			    (argv[i][1 + len] && argv[i][1 + len] != '='))
				continue;
			if (!*swaps && !(*swaps = calloc(argc, sizeof(**swaps))))
				return -ENOMEM;
			if (asprintf(&longer, "-%s", argv[i]) < 0)
				return -ENOMEM;
			(*swaps)[*nr].orig = argv[i];
			(*swaps)[(*nr)++].longer = longer;
			argv[i] = longer;
			break;
		}
	}
	return 0;
}

/* opt_alias_restore - put the arguments back as given, wherever getopt moved them */
static void opt_alias_restore(int argc, char **argv, struct opt_alias_swap *swaps, size_t nr)
{
	for (size_t k = 0; k < nr; k++) {
		for (int i = 0; i < argc; i++)
			if (argv[i] == swaps[k].longer)
				argv[i] = swaps[k].orig;
		free(swaps[k].longer);
	}
	free(swaps);
}

/* What getopt_long takes for one command: its entries, as long options and short letters. */
struct opt_getopt {
	struct opt_ref *refs;		/* the tool's entries, then the session's */
	size_t n;
	struct option *lo;		/* val: OPT_LONG_BASE + index in refs; help, version, usage */
	char shortopts[256];
};

/*
 * opt_getopt_build - g from the command's and the session's tables, each alias resolved to
 * the entry it spells; 0, -ENOMEM, or -EINVAL with why set (an alias of no entry). The
 * caller frees g->lo and g->refs, whatever it returns.
 */
static int opt_getopt_build(const struct cmd_spec *cmd, void *params, struct session_opts *so,
			    struct opt_getopt *g, char *why, size_t whylen)
{
	const struct opt *common = opt_common(cmd);
	size_t nt = opt_count(cmd->opts), n = nt + opt_count(common), k = 0;
	/* A command line or a tool's own options follow: stop at the first non-option. */
	bool rest = cmd->args == TOOL_ARGS_COMMAND || cmd->args == TOOL_ARGS_TOOL;
	size_t sl = snprintf(g->shortopts, sizeof(g->shortopts), "%s:hV", rest ? "+" : "");

	g->n = n;
	g->lo = calloc(n + 4, sizeof(*g->lo));
	g->refs = calloc(n, sizeof(*g->refs));
	if (!g->lo || !g->refs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		g->refs[i].o = i < nt ? &cmd->opts[i] : &common[i - nt];
		g->refs[i].base = i < nt ? params : (void *)so;
	}
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = g->refs[i].o;
		bool flag = o->type == OPT_FLAG || o->type == OPT_REFUSE;

		if (o->type == OPT_ALIAS) {
			g->refs[i].target = opt_target(g->refs, n, o->same_as);
			if (!g->refs[i].target) {
				snprintf(why, whylen, "internal error: no option --%s", o->same_as);
				return -EINVAL;
			}
			flag = g->refs[i].target->o->type == OPT_FLAG;
		}
		if (o->short_name && sl + 3 < sizeof(g->shortopts)) {
			g->shortopts[sl++] = o->short_name;
			if (!flag)
				g->shortopts[sl++] = ':';
		}
		if (o->long_name) {
			g->lo[k].name = o->long_name;
			g->lo[k].has_arg = flag ? no_argument : required_argument;
			g->lo[k].val = OPT_LONG_BASE + i;
			k++;
		}
	}
	g->lo[k].name = "help";
	g->lo[k++].val = 'h';
	g->lo[k].name = "version";
	g->lo[k++].val = 'V';
	/* argp's (libbpf-tools'): the synopsis alone. */
	g->lo[k].name = "usage";
	g->lo[k].val = OPT_LONG_BASE + n;
	g->shortopts[sl] = 0;
	return 0;
}

/* opt_getopt_why - why getopt_long refused an argument (c '?': unknown, ':': no value) */
static void opt_getopt_why(const struct opt_getopt *g, int c, char **argv, char *why,
			   size_t whylen)
{
	/* A long option's optopt is its val: OPT_LONG_BASE + index, not a letter. */
	bool is_long = optopt >= OPT_LONG_BASE;
	const char *what = optopt && !is_long ? NULL : argv[optind - 1];
	char shortname[3] = { '-', (char)optopt, 0 };

	if (!what)
		what = shortname;
	if (c == '?' && is_long)
		snprintf(why, whylen, "option '--%s' takes no value",
			 g->refs[optopt - OPT_LONG_BASE].o->long_name);
	else
		snprintf(why, whylen, c == '?' ? "unknown option '%s'; see --help" :
			 "option '%s' needs a value", what);
}

/* opt_take - store the value of the option getopt_long returned as c; 0 or -EINVAL with why */
static int opt_take(const struct opt_getopt *g, int c, const char *arg, char *why, size_t whylen)
{
	const struct opt *o = NULL;
	void *base = NULL;
	int ret = 0;

	if (c >= OPT_LONG_BASE) {
		ret = opt_given(&g->refs[c - OPT_LONG_BASE], arg, &o, &base, why, whylen);
	} else {
		for (size_t i = 0; i < g->n && !o; i++)
			if (g->refs[i].o->short_name == c)
				ret = opt_given(&g->refs[i], arg, &o, &base, why, whylen);
	}
	if (!ret)
		ret = opt_store(o, arg, base, why, whylen);
	return ret;
}

/*
 * opt_scan - store every option of argv, up to its positional arguments (optind then
 * indexes the first); stops early with ca->help, ca->version or ca->usage set when one
 * is asked for. 0, or -EINVAL with why set.
 */
static int opt_scan(const struct opt_getopt *g, int argc, char **argv, struct cli_args *ca,
		    char *why, size_t whylen)
{
	int c, ret;

	/* 0, not 1: glibc then also resets its scanning state and the "+" mode. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, g->shortopts, g->lo, NULL)) != -1) {
		/* -? is argp's help too. */
		if (c == 'h' || (c == '?' && optopt == '?')) {
			ca->help = true;
			return 0;
		}
		if (c == 'V' || c == OPT_LONG_BASE + (int)g->n) {
			ca->version = c == 'V';
			ca->usage = c != 'V';
			return 0;
		}
		if (c == '?' || c == ':') {
			opt_getopt_why(g, c, argv, why, whylen);
			return -EINVAL;
		}
		ret = opt_take(g, c, optarg, why, whylen);
		if (ret)
			return ret;
	}
	return 0;
}

/* opt_positional - the npos arguments after the options (pos) as the command takes them; 0 or -EINVAL */
static int opt_positional(const struct cmd_spec *cmd, int npos, char **pos, struct cli_args *ca,
			  char *why, size_t whylen)
{
	switch (cmd->args) {
	case TOOL_ARGS_NONE:
		if (npos) {
			snprintf(why, whylen, "unexpected argument '%s'", pos[0]);
			return -EINVAL;
		}
		break;
	case TOOL_ARGS_INTERVAL:
		if (npos > 2) {
			snprintf(why, whylen, "unexpected argument '%s': expected [interval [count]]",
				 pos[2]);
			return -EINVAL;
		} else if (npos >= 1 && opt_seconds(pos[0], &ca->interval_ns)) {
			snprintf(why, whylen, "invalid interval '%s': " OPT_SECONDS_WANT, pos[0]);
			return -EINVAL;
		} else if (npos == 2 && opt_uint(pos[1], 1, 0, &ca->count)) {
			snprintf(why, whylen, "invalid count '%s': expected an integer >= 1", pos[1]);
			return -EINVAL;
		} else if (npos == 0) {
			ca->interval_ns = cmd->default_interval * 1000000000ull;
		}
		break;
	case TOOL_ARGS_SPEC:
		if (npos != 1) {
			snprintf(why, whylen, npos ? "unexpected argument '%s': expected one probe" :
				 "missing the probe to trace%s", npos ? pos[1] : "");
			return -EINVAL;
		}
		ca->spec = pos[0];
		break;
	case TOOL_ARGS_COMMAND:
	case TOOL_ARGS_TOOL:
		ca->rest = pos;
		ca->nr_rest = npos;
		break;
	case TOOL_ARGS_DURATION:
		if (npos > 1) {
			snprintf(why, whylen, "unexpected argument '%s': expected [duration]", pos[1]);
			return -EINVAL;
		} else if (npos == 1 && opt_seconds(pos[0], &ca->duration_ns)) {
			snprintf(why, whylen, "invalid duration '%s': " OPT_SECONDS_WANT, pos[0]);
			return -EINVAL;
		}
		break;
	}
	return 0;
}

/* opt_parse - fill params and session options from argv; one message in why on failure */
int opt_parse(const struct cmd_spec *cmd, int argc, char **argv, void *params,
	      struct session_opts *so, struct cli_args *ca, char *why, size_t whylen)
{
	struct opt_getopt g = { 0 };
	struct opt_alias_swap *swaps = NULL;
	size_t nr_swaps = 0;
	int ret;

	ret = opt_getopt_build(cmd, params, so, &g, why, whylen);
	if (ret)
		goto out_free;
	memset(ca, 0, sizeof(*ca));
	ret = opt_alias_expand(argc, argv, g.refs, g.n, &swaps, &nr_swaps);
	if (ret)
		goto out_free;
	ret = opt_scan(&g, argc, argv, ca, why, whylen);
	if (!ret && !ca->help && !ca->version && !ca->usage)
		ret = opt_positional(cmd, argc - optind, argv + optind, ca, why, whylen);
out_free:
	opt_alias_restore(argc, argv, swaps, nr_swaps);
	free(g.lo);
	free(g.refs);
	return ret;
}

/* opt_args_usage - the positional part of the synopsis */
static const char *opt_args_usage(const struct cmd_spec *cmd)
{
	switch (cmd->args) {
	case TOOL_ARGS_INTERVAL:
		return " [interval [count]]";
	case TOOL_ARGS_DURATION:
		return " [duration]";
	case TOOL_ARGS_SPEC:
		return " PROBE";
	case TOOL_ARGS_COMMAND:
		return " [[--] command [arg...]]";
	case TOOL_ARGS_TOOL:
		return " [tool [tool options]]";
	default:
		return "";
	}
}

/* opt_help_table - one help line per option, aligned */
static void opt_help_table(const struct opt *opts, FILE *out)
{
	for (const struct opt *o = opts; o->short_name || o->long_name; o++) {
		char left[64], choices[256] = "";
		int n;

		if (o->short_name && o->long_name)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c", o->short_name);
		else
			n = snprintf(left, sizeof(left), "    --%s", o->long_name);
		if (o->dash_alias)
			n += snprintf(left + n, sizeof(left) - n, ", -%s", o->long_name);
		if (o->arg)
			snprintf(left + n, sizeof(left) - n, " %s", o->arg);
		if (o->type == OPT_CHOICE || o->type == OPT_LIST)
			opt_choices(o, choices, sizeof(choices));
		fprintf(out, "  %-26s %s%s%s%s%s\n", left, o->type == OPT_REFUSE ? "refused: " : "", o->help,
			*choices ? " (" : "", choices, *choices ? ")" : "");
	}
}

/* opt_help - the --help text */
void opt_help(const struct cmd_spec *cmd, FILE *out)
{
	fprintf(out, "usage: iotap %s [options]%s\n\n%s\n", cmd->name, opt_args_usage(cmd),
		cmd->summary);
	if (cmd->args == TOOL_ARGS_INTERVAL) {
		fprintf(out, "\n  interval                   %s every interval seconds",
			cmd->interval_does ? cmd->interval_does : "print and reset");
		if (cmd->default_interval)
			fprintf(out, " (default: %u)", cmd->default_interval);
		fputs("\n  count                      stop after count intervals\n", out);
	} else if (cmd->args == TOOL_ARGS_DURATION)
		fputs("\n  duration                   trace for this many seconds (default: until Ctrl-C)\n",
		      out);
	else if (cmd->args == TOOL_ARGS_COMMAND)
		fputs("\n  command                    run it, trace while it runs, stop when it exits\n", out);
	else if (cmd->args == TOOL_ARGS_TOOL)
		fputs("\n  tool                       the tool to run (iotap list); its options follow it\n",
		      out);
	if (opt_count(cmd->opts)) {
		fputs("\noptions:\n", out);
		opt_help_table(cmd->opts, out);
	}
	fputs("\ncommon options:\n", out);
	opt_help_table(opt_common(cmd), out);
	fputs("  -h, --help                 show this help\n", out);
	fputs("  -V, --version              print the version of iotap\n", out);
	fputs("      --usage                print the synopsis\n", out);
	fprintf(out, "\nSee iotap-%s(8) for details and examples.\n", cmd->name);
}

/* opt_usage_table - a table's options in the synopsis: flags first, as argp's --usage lists them */
static void opt_usage_table(const struct opt *opts, FILE *out)
{
	for (const struct opt *o = opts; o && (o->short_name || o->long_name); o++) {
		if (o->type == OPT_REFUSE)
			continue;
		if (o->short_name)
			fprintf(out, " [-%c%s%s]", o->short_name, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			fprintf(out, " [--%s%s%s]", o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
	}
}

/* opt_usage - the synopsis (--usage) */
void opt_usage(const struct cmd_spec *cmd, FILE *out)
{
	fprintf(out, "usage: iotap %s [-hV]", cmd->name);
	opt_usage_table(cmd->opts, out);
	opt_usage_table(opt_common(cmd), out);
	fprintf(out, "%s\n", opt_args_usage(cmd));
}

/* man_text - write text with roff's special characters escaped */
static void man_text(FILE *out, const char *s)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", out);
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
		bol = *s == '\n';
	}
}

/* opt_man_table - .TP entries for a table */
static void opt_man_table(const struct opt *opts, FILE *out)
{
	for (const struct opt *o = opts; o->short_name || o->long_name; o++) {
		char choices[256] = "";

		fputs(".TP\n", out);
		if (o->short_name)
			fprintf(out, "\\fB\\-%c\\fR%s", o->short_name, o->long_name ? ", " : "");
		if (o->long_name)
			fprintf(out, "\\fB\\-\\-%s\\fR", o->long_name);
		if (o->dash_alias)
			fprintf(out, ", \\fB\\-%s\\fR", o->long_name);
		if (o->arg)
			fprintf(out, " \\fI%s\\fR", o->arg);
		fputc('\n', out);
		if (o->type == OPT_REFUSE)
			fputs("refused: ", out);
		man_text(out, o->help);
		if (o->type == OPT_CHOICE || o->type == OPT_LIST) {
			opt_choices(o, choices, sizeof(choices));
			fputs(" (", out);
			man_text(out, choices);
			fputc(')', out);
		}
		fputs(".\n", out);
	}
}

/* opt_block_tool - a tool that pairs block requests, to which the flush policy applies */
static bool opt_block_tool(const struct tool *tool)
{
	for (const struct tool_event *e = tool ? tool->events : NULL; e && e->sys; e++)
		if (!strcmp(e->sys, "block") && !strcmp(e->name, "block_rq_complete"))
			return true;
	return false;
}

/* opt_man - the man page, section 8, generated from the same table (and a tool's events) */
void opt_man(const struct cmd_spec *cmd, const struct tool *tool, FILE *out)
{
	fprintf(out, ".TH IOTAP-%s 8 \"\" \"iotap " PACKAGE_VERSION "\" \"iotap manual\"\n", cmd->name);
	fprintf(out, ".SH NAME\niotap\\-%s \\- ", cmd->name);
	man_text(out, cmd->summary);
	fprintf(out, "\n.SH SYNOPSIS\n\\fBiotap %s\\fR [\\fIoptions\\fR]", cmd->name);
	man_text(out, opt_args_usage(cmd));
	if (cmd->alias) {
		fprintf(out, "\n.br\n\\fBiotap %s\\fR [\\fIoptions\\fR]", cmd->alias);
		man_text(out, opt_args_usage(cmd));
	}
	if (opt_is_tool(cmd)) {
		fprintf(out, "\n.br\n\\fB%s\\fR [\\fIoptions\\fR]", cmd->name);
		man_text(out, opt_args_usage(cmd));
	}
	fputs("\n.SH DESCRIPTION\n", out);
	man_text(out, cmd->description ? cmd->description : cmd->summary);
	if (opt_is_tool(cmd))
		fputs("\n.PP\nThe same options work live and, with \\fB\\-i\\fR, over a recording made by \\fBiotap record\\fR(8).\n", out);
	else
		fputc('\n', out);
	if (cmd->args == TOOL_ARGS_INTERVAL) {
		fputs(".SH ARGUMENTS\n.TP\n\\fIinterval\\fR\n", out);
		if (cmd->interval_does)
			fprintf(out, "%c%s", toupper((unsigned char)cmd->interval_does[0]),
				cmd->interval_does + 1);
		else
			fputs("Print the output and reset it", out);
		fputs(" every \\fIinterval\\fR seconds (default: ", out);
		if (cmd->default_interval)
			fprintf(out, "%u", cmd->default_interval);
		else
			fputs("once, at Ctrl\\-C", out);
		fputs(").\n.TP\n\\fIcount\\fR\nStop after \\fIcount\\fR intervals.\n", out);
	} else if (cmd->args == TOOL_ARGS_DURATION)
		fputs(".SH ARGUMENTS\n.TP\n\\fIduration\\fR\nTrace for this many seconds (default: until Ctrl\\-C).\n", out);
	else if (cmd->args == TOOL_ARGS_COMMAND)
		fputs(".SH ARGUMENTS\n.TP\n\\fIcommand\\fR [\\fIarg\\fR...]\nRun the command, trace while it runs and stop when it exits. Put \\fB\\-\\-\\fR before it when its arguments start with a dash.\n", out);
	else if (cmd->args == TOOL_ARGS_TOOL)
		fputs(".SH ARGUMENTS\n.TP\n\\fItool\\fR [\\fItool options\\fR]\nThe tool to run over the recording, as listed by \\fBiotap list\\fR, followed by its own options and arguments (see \\fBiotap\\-\\fItool\\fR(8)).\n", out);
	if (opt_count(cmd->opts)) {
		fputs(".SH OPTIONS\n", out);
		opt_man_table(cmd->opts, out);
	}
	fputs(".SH COMMON OPTIONS\n", out);
	opt_man_table(opt_common(cmd), out);
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nShow a summary of the options.\n", out);
	fputs(".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nPrint the version of iotap.\n", out);
	fputs(".TP\n\\fB\\-\\-usage\\fR\nPrint the synopsis.\n", out);
	if (tool && tool->events) {
		fputs(".SH EVENTS\nTracepoints used, when the kernel has them:\n", out);
		for (const struct tool_event *e = tool->events; e->sys; e++)
			fprintf(out, ".br\n\\fB%s:%s\\fR%s%s\n", e->sys, e->name,
				e->flags & TOOL_EV_OPTIONAL ? " (optional)" : "",
				e->flags & TOOL_EV_STACK ? " (with callchains)" : "");
	}
	if (opt_block_tool(tool))
		fputs(".SH FLUSHES\n"
		      "A flush (fsync, O_DSYNC, a journal commit) is a request without data, sector or size. "
		      "\\fBbiosnoop\\fR lists each one (type F) and \\fBbiolatency \\-F\\fR times them under "
		      "flags = Flush; the tools that count data leave them out, and \\fB\\-\\-verbose\\fR "
		      "says how many there were. A flush is credited to the task whose request asked for "
		      "it: the submitter of a data\\-less flush, or of the write that carried PREFLUSH or "
		      "FUA (a journal commit), never to the kernel worker that sends it. Under "
		      "\\fB\\-d\\fR \\fIPARTITION\\fR a flush is shown when a request of that partition "
		      "asked for it, or its data\\-less flush came from a thread that wrote to the "
		      "partition while tracing; one nothing ties to the partition is left out.\n", out);
	if (tool && tool->probes && tool->probes[0].name) {
		fputs(".PP\nProbes made for the run (and recorded) where the kernel can:\n", out);
		for (const struct probe_spec *p = tool->probes; p->name; p++) {
			fprintf(out, ".br\n\\fB%s\\fR: %s%s on ", p->name, p->uprobe ? "uprobe" : "kprobe",
				p->ret ? " (return)" : "");
			man_text(out, p->symbol);
			if (p->uprobe && p->libc) {
				fputs(" in the C library", out);
			} else if (p->uprobe && p->path) {
				fputs(" in ", out);
				man_text(out, p->path);
			}
			fputs(p->fallback ? " (where the one before cannot be made)\n" : "\n", out);
		}
	}
	if (cmd->examples) {
		const char *p = cmd->examples;

		fputs(".SH EXAMPLES\n", out);
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			char line[512];

			snprintf(line, sizeof(line), "%.*s", (int)len, p);
			if (line[0] == ' ') {
				man_text(out, line + 2);
				fputc('\n', out);
			} else if (line[0]) {
				fputs(".TP\n\\fB", out);
				man_text(out, line);
				fputs("\\fR\n", out);
			}
			p += len + (nl ? 1 : 0);
		}
	}
	fputs(".SH EXIT STATUS\n0 on success; 1 on a usage error (one line on stderr); 2 when tracing failed.\n", out);
	fputs(".SH SEE ALSO\n\\fBiotap\\fR(8), \\fBiotap\\-record\\fR(8), \\fBiotap\\-recording\\fR(5), \\fBperf\\fR(1)\n", out);
}
