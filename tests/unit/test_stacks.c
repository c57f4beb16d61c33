// SPDX-License-Identifier: GPL-2.0-or-later
/* test_stacks.c - callchains made foldable, stack text and folds, the -io option alias */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "opt.h"
#include "session.h"
#include "stacks.h"
#include "testlib.h"

#define K1 0xffffffff81000100ull
#define K2 0xffffffff81000200ull
#define U1 0x401000ull
#define U2 0x402000ull
#define U3 0x403000ull

static const uint64_t chain[] = {
	PERF_CONTEXT_KERNEL, K1, K2, PERF_CONTEXT_USER, U1, U2, U3,
};

/* sample_init - a sample carrying chain as its callchain */
static void sample_init(struct perf_sample *smp)
{
	memset(smp, 0, sizeof(*smp));
	smp->pid = smp->tid = 42;
	smp->ips = chain;
	smp->nr_ips = sizeof(chain) / sizeof(chain[0]);
}

/* test_from_sample - markers dropped, kernel then the user marker, callers minus 1 */
static void test_from_sample(void **state)
{
	/* After the user marker, the process image's key: 0 without a user symbolizer. */
	const uint64_t both[] = { K1, K2, PERF_CONTEXT_USER, 0, U1, U2 - 1, U3 - 1 };
	const uint64_t user[] = { PERF_CONTEXT_USER, 0, U1, U2 - 1, U3 - 1 };
	struct perf_sample smp;
	struct session *s;
	uint64_t ips[16];
	int n;

	s = testlib_session_new(NULL, NULL, 127);
	sample_init(&smp);
	n = stack_from_sample(&s->ctx, &smp, STACK_KERNEL | STACK_USER, ips, 16);
	assert_int_equal(n, 7);
	assert_memory_equal(ips, both, sizeof(both));
	n = stack_from_sample(&s->ctx, &smp, STACK_KERNEL, ips, 16);
	assert_int_equal(n, 2);
	assert_memory_equal(ips, both, 2 * sizeof(ips[0]));
	n = stack_from_sample(&s->ctx, &smp, STACK_USER, ips, 16);
	assert_int_equal(n, 5);
	assert_memory_equal(ips, user, sizeof(user));
	testlib_session_free(s);
}

/* test_max_stack - --max-stack counts frames, kernel first; the buffer bounds it too */
static void test_max_stack(void **state)
{
	struct perf_sample smp;
	struct session *s;
	uint64_t ips[16];

	s = testlib_session_new(NULL, NULL, 3);
	sample_init(&smp);
	assert_int_equal(stack_from_sample(&s->ctx, &smp, STACK_KERNEL | STACK_USER, ips, 16), 5);
	assert_true(ips[2] == PERF_CONTEXT_USER && ips[4] == U1);
	/* Room for 4 ips: 2 frames, the marker and the key. */
	s->opts.max_stack = 127;
	assert_int_equal(stack_from_sample(&s->ctx, &smp, STACK_KERNEL | STACK_USER, ips, 4), 2);
	smp.nr_ips = 0;
	assert_int_equal(stack_from_sample(&s->ctx, &smp, STACK_KERNEL | STACK_USER, ips, 16), 0);
	testlib_session_free(s);
}

/*
 * copy_init - a sample with kernel frames and a copied user stack of three
 * frames: main's frame at the top, then middle's and inner's below it.
 * Stack at SP: [inner locals] [fp1 -> middle frame][ret into middle]
 * [middle locals] [fp2 -> main frame][ret into main] [main's fp: 0][ret 0]
 */
#define SP 0x7ffc0000ull
static uint64_t copy_regs[3];		/* bp, sp, ip: perf register order */
static uint64_t copy_stack[16];

static void copy_init(struct perf_sample *smp)
{
	static const uint64_t kchain[] = { PERF_CONTEXT_KERNEL, K1, K2 };

	memset(copy_stack, 0, sizeof(copy_stack));
	copy_stack[2] = SP + 6 * 8;	/* inner's saved fp: middle's frame */
	copy_stack[3] = U2;		/* return into middle */
	copy_stack[6] = SP + 10 * 8;	/* middle's saved fp: main's frame */
	copy_stack[7] = U3;		/* return into main */
	copy_stack[10] = SP + 10 * 8;	/* a frame pointer that does not climb: the end */
	copy_stack[11] = 0x404000;
	copy_regs[0] = SP + 2 * 8;	/* bp: inner's frame */
	copy_regs[1] = SP;
	copy_regs[2] = U1;		/* ip, in inner */
	memset(smp, 0, sizeof(*smp));
	smp->pid = smp->tid = 42;
	smp->ips = kchain;
	smp->nr_ips = 3;
	smp->regs_abi = PERF_SAMPLE_REGS_ABI_64;
	smp->regs_mask = stack_regs_mask(STACK_CG_FP);
	smp->regs = copy_regs;
	smp->stack = copy_stack;
	smp->stack_size = sizeof(copy_stack);
}

/* record_chain - what a recorder's symbolizer stores of a sample, with the session's --max-stack */
static int record_chain(const struct session *s, const struct perf_sample *smp, uint64_t *ips,
			uint32_t max)
{
	struct symbolizer_opts o = { .max_stack = s->opts.max_stack };
	struct symbolizer *sy = symbolizer_alloc(&o);
	int n;

	assert_non_null(sy);
	n = symbolizer_chain(sy, smp, ips, max);
	symbolizer_free(sy);
	return n;
}

/* test_fp_copy - frame pointers walked within the copy; what a recorder stores of it */
static void test_fp_copy(void **state)
{
	const uint64_t folded[] = { K1, K2, PERF_CONTEXT_USER, 0, U1, U2 - 1, U3 - 1, 0x404000 - 1 };
	const uint64_t stored[] = { PERF_CONTEXT_KERNEL, K1, K2, PERF_CONTEXT_USER, U1, U2, U3,
				    0x404000 };
	struct perf_sample smp;
	struct session *s;
	uint64_t ips[16];

	s = testlib_session_new(NULL, NULL, 127);
	copy_init(&smp);
	assert_int_equal(stack_from_sample(&s->ctx, &smp, STACK_KERNEL | STACK_USER, ips, 16), 8);
	assert_memory_equal(ips, folded, sizeof(folded));
	/* The recorder keeps the kernel's markers and return addresses, as perf callchains have them. */
	assert_int_equal(record_chain(s, &smp, ips, 16), 8);
	assert_memory_equal(ips, stored, sizeof(stored));
	/* Read back as a recorded callchain, it folds as the live walk did. */
	smp.ips = stored;
	smp.nr_ips = 8;
	smp.regs = NULL;
	assert_int_equal(stack_from_sample(&s->ctx, &smp, STACK_KERNEL | STACK_USER, ips, 16), 8);
	assert_memory_equal(ips, folded, sizeof(folded));
	/* --max-stack 3: two kernel frames and one user frame. */
	s->opts.max_stack = 3;
	copy_init(&smp);
	assert_int_equal(record_chain(s, &smp, ips, 16), 5);
	assert_true(ips[3] == PERF_CONTEXT_USER && ips[4] == U1);
	/* A frame pointer outside the copy ends the walk at the sampled ip. */
	s->opts.max_stack = 127;
	copy_init(&smp);
	copy_regs[0] = SP + sizeof(copy_stack);
	assert_int_equal(record_chain(s, &smp, ips, 16), 5);
	assert_int_equal(ips[4], U1);
	/* No registers (not an x86_64 user context): the kernel frames alone. */
	copy_init(&smp);
	smp.regs_abi = PERF_SAMPLE_REGS_ABI_NONE;
	assert_int_equal(record_chain(s, &smp, ips, 16), 3);
	testlib_session_free(s);
}

/* test_text_unknown - without symbols frames print as the addresses sampled */
static void test_text_unknown(void **state)
{
	const uint64_t st[] = { K1, PERF_CONTEXT_USER, 0, U1, U2 - 1 };
	struct session *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	s = testlib_session_new(NULL, NULL, 127);
	assert_int_equal(stack_text(&s->ctx, 42, st, 5, f), 0);
	fclose(f);
	assert_string_equal(buf, "    0xffffffff81000100\n    0x401000\n    0x402000\n");
	free(buf);
	testlib_session_free(s);
}

/* test_fold_roots - roots come first and stacks that name alike merge */
static void test_fold_roots(void **state)
{
	const uint64_t st[] = { K1, PERF_CONTEXT_USER, 0, U1 };
	const char *roots[] = { "sda", "dd" };
	struct fold *fold = fold_alloc();
	struct session *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	s = testlib_session_new(NULL, NULL, 127);
	assert_non_null(fold);
	assert_int_equal(stack_fold_add(&s->ctx, fold, roots, 2, 42, st, 4, 4096), 0);
	assert_int_equal(stack_fold_add(&s->ctx, fold, roots, 2, 43, st, 4, 8192), 0);
	assert_int_equal(fold_write(fold, f, false), 0);
	fclose(f);
	assert_string_equal(buf, "sda;dd;[unknown];[unknown] 12288\n");
	free(buf);
	fold_free(fold);
	testlib_session_free(s);
}

/* opt_offset_ptr - where an option of tool's table stores its value, found by its long name */
static const char *opt_offset_ptr(const struct tool *t, const void *params, const char *name)
{
	for (const struct opt *o = t->opts; o->short_name || o->long_name; o++)
		if (o->long_name && !strcmp(o->long_name, name))
			return (const char *)params + o->offset;
	fail_msg("no option --%s", name);
	return NULL;
}

/* test_dash_alias - iostack's -io parses as --io, argv stays as given */
static void test_dash_alias(void **state)
{
	const struct tool *t = tool_find("iostack");
	char a0[] = "iostack", a1[] = "-K", a2[] = "-io", a3[] = "w", a4[] = "-io=r";
	char *argv[] = { a0, a1, a2, a3, NULL };
	char *argv2[] = { a0, a4, NULL };
	struct session_opts so = { 0 };
	struct cli_args ca;
	char err[256] = "";
	void *params;

	assert_non_null(t);
	params = calloc(1, t->params_size);
	assert_int_equal(opt_parse(&t->cmd, 4, argv, params, &so, &ca, err, sizeof(err)), 0);
	assert_int_equal(*(const int *)opt_offset_ptr(t, params, "io"), 2);
	assert_true(*(const bool *)opt_offset_ptr(t, params, "kernel-stack"));
	assert_ptr_equal(argv[2], a2);
	memset(params, 0, t->params_size);
	assert_int_equal(opt_parse(&t->cmd, 2, argv2, params, &so, &ca, err, sizeof(err)), 0);
	assert_int_equal(*(const int *)opt_offset_ptr(t, params, "io"), 1);
	assert_ptr_equal(argv2[1], a4);
	a3[0] = 'x';
	assert_int_equal(opt_parse(&t->cmd, 4, argv, params, &so, &ca, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "invalid --io 'x': expected one of rw|r|w");
	assert_ptr_equal(argv[2], a2);
	free(params);
}

/* test_call_graph_option - stack tools take --call-graph fp|dwarf and --symfs */
static void test_call_graph_option(void **state)
{
	const struct tool *t = tool_find("biostacks");
	char a0[] = "biostacks", a1[] = "--call-graph", a2[] = "dwarf", a3[] = "--symfs", a4[] = "/";
	char a5[] = "/nonexistent";
	char *argv[] = { a0, a1, a2, a3, a4, NULL };
	struct session_opts so = { 0 };
	struct cli_args ca;
	char err[256] = "";
	void *params;

	assert_non_null(t);
	params = calloc(1, t->params_size);
	assert_int_equal(opt_parse(&t->cmd, 5, argv, params, &so, &ca, err, sizeof(err)), 0);
	assert_int_equal(so.call_graph, STACK_CG_DWARF);
	assert_string_equal(so.symfs, "/");
	/* A directory that is not there is refused when parsed, not ignored. */
	argv[4] = a5;
	assert_int_equal(opt_parse(&t->cmd, 5, argv, params, &so, &ca, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "invalid --symfs '/nonexistent': No such file or directory");
	free(params);
}

/* main - run the stack helper tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_sample),
		cmocka_unit_test(test_max_stack),
		cmocka_unit_test(test_fp_copy),
		cmocka_unit_test(test_text_unknown),
		cmocka_unit_test(test_fold_roots),
		cmocka_unit_test(test_dash_alias),
		cmocka_unit_test(test_call_graph_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
