// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_cgstat.c - cgroups as cgtop and the exporter show them: paths folded
 * to a depth; the container or unit each runtime's paths name, shortened as
 * its own tool shows it; per cgroup and disk, bios and bytes as io.stat counts
 * them (split pieces one more bio, their bytes not again), requests and their
 * stages, dirty pauses, and cgroups past the limit summed into "other" and
 * counted once each; the exporter's series of them, page after page; the
 * pause event decoded from 6.18's format.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <event-parse.h>

#include "cgmetrics.h"
#include "cgname.h"
#include "cgstat.h"
#include "dirty.h"
#include "testlib.h"

#define K618 "6.18.44-fc-v669"
#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* test_fold - a path cut to its first components */
static void test_fold(void **state)
{
	char out[64];

	(void)state;
	cgname_fold("/a/b/c", 2, out, sizeof(out));
	assert_string_equal(out, "/a/b");
	cgname_fold("/a/b/c", 1, out, sizeof(out));
	assert_string_equal(out, "/a");
	cgname_fold("/a/b/c", 3, out, sizeof(out));
	assert_string_equal(out, "/a/b/c");
	cgname_fold("/a/b/c", 9, out, sizeof(out));
	assert_string_equal(out, "/a/b/c");
	cgname_fold("/a/b/c", 0, out, sizeof(out));
	assert_string_equal(out, "/a/b/c");
	cgname_fold("/", 1, out, sizeof(out));
	assert_string_equal(out, "/");
}

/* container - cgname_container of path */
static const char *container(const char *path)
{
	static char out[80];

	cgname_container(path, out, sizeof(out));
	return out;
}

/* test_container - each runtime's paths, as its own tool shortens the id */
static void test_container(void **state)
{
	(void)state;
	assert_string_equal(container("/system.slice/docker-" ID64 ".scope"), "0123456789ab");
	assert_string_equal(container("/docker/" ID64), "0123456789ab");
	assert_string_equal(container("/machine.slice/libpod-" ID64 ".scope/container"),
			    "0123456789ab");
	assert_string_equal(container("/kubepods.slice/kubepods-burstable.slice/"
				      "kubepods-burstable-pod1234.slice/cri-containerd-" ID64 ".scope"),
			    "0123456789abc");
	assert_string_equal(container("/kubepods.slice/kubepods-pod9.slice/crio-" ID64 ".scope"),
			    "0123456789abc");
	assert_string_equal(container("/kubepods/burstable/pod1234/" ID64), "0123456789abc");
	assert_string_equal(container("/machine.slice/machine-web1.scope"), "web1");
	assert_string_equal(container("/system.slice/nginx.service"), "nginx.service");
	/* A service inside a machine is the machine's: its deepest named component wins. */
	assert_string_equal(container("/machine.slice/machine-web1.scope/system.slice/cron.service"),
			    "cron.service");
	/* The runtimes' monitors, a bare id outside any runtime's tree, and plain slices: none. */
	assert_string_equal(container("/machine.slice/libpod-conmon-" ID64 ".scope"), "");
	assert_string_equal(container("/kubepods.slice/crio-conmon-" ID64 ".scope"), "");
	assert_string_equal(container("/" ID64), "");
	assert_string_equal(container("/user.slice/user-1000.slice"), "");
	assert_string_equal(container("/"), "");
	assert_string_equal(container("/system.slice/docker-0123.scope"), "");
}

/* rq_of - a bio or request event of op on dev */
static struct block_rq rq_of(uint32_t dev, uint8_t op, uint32_t nr_sector)
{
	struct block_rq rq = { .dev = dev, .op = op, .nr_sector = nr_sector };

	return rq;
}

/* row_of - the row of cgroup on dev, which must be there */
static const struct cgstat_row *row_of(const struct cgstat *cs, const char *cgroup, uint32_t dev)
{
	struct cgstat_row *const *rows;
	size_t nr;

	rows = cgstat_rows(cs, &nr);
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(rows[i]->cgroup, cgroup) && rows[i]->dev == dev)
			return rows[i];
	fail_msg("no row %s on %u", cgroup, dev);
	return NULL;
}

/* test_counts - io.stat's bios and bytes, requests and their stages, pauses, by row */
static void test_counts(void **state)
{
	struct cgstat *cs = cgstat_create(2, 0, 0);
	struct block_rq w = rq_of(7 << 20, BLOCK_OP_WRITE, 256), r = rq_of(7 << 20, BLOCK_OP_READ, 8);
	struct block_rq f = rq_of(7 << 20, BLOCK_OP_FLUSH, 0);
	struct blk_io io = { .dev = 7 << 20, .op = BLOCK_OP_READ, .bytes = 4096, .t_submit = 1000,
			     .t_queue = 3000, .t_getrq = 3500, .t_start = 3600, .t_issue = 4000,
			     .t_done = 9000, .cgroup = "/slow/inner" };
	const struct cgstat_row *row;

	(void)state;
	assert_non_null(cs);
	/* A write of 128 KiB split in two: two bios, its bytes once. */
	assert_int_equal(cgstat_bio(cs, &w, "/slow/inner", false), 0);
	assert_int_equal(cgstat_bio(cs, &w, "/slow/inner", true), 0);
	assert_int_equal(cgstat_bio(cs, &r, "/slow", false), 0);
	/* A flush moves no data: io.stat counts none. */
	assert_int_equal(cgstat_bio(cs, &f, "/slow", false), 0);
	assert_int_equal(cgstat_request(cs, &io), 0);
	assert_int_equal(cgstat_dirty(cs, 7 << 20, "/slow/x/y", 5000000), 0);
	assert_int_equal(cgstat_bio(cs, &r, "/fast", false), 0);
	assert_int_equal(cgstat_bio(cs, &r, NULL, false), 0);

	row = row_of(cs, "/slow/inner", 7 << 20);
	assert_int_equal(row->ios[CGSTAT_WRITE], 2);
	assert_int_equal(row->bytes[CGSTAT_WRITE], 128 * 1024);
	assert_int_equal(row->reqs[CGSTAT_READ], 1);
	assert_int_equal(row->wait[BLK_WAIT_THROTTLE], 2000);
	assert_int_equal(row->wait[BLK_WAIT_RQOS], 500);
	assert_int_equal(row->wait[BLK_WAIT_QUEUE], 500);
	assert_int_equal(row->wait[BLK_WAIT_DEVICE], 5000);
	/* First event to completion: 8 µs. */
	assert_int_equal(row->lat.count, 1);
	assert_int_equal(row->lat.sum, 8);
	row = row_of(cs, "/slow", 7 << 20);
	assert_int_equal(row->ios[CGSTAT_READ], 1);
	assert_int_equal(row->bytes[CGSTAT_READ], 4096);
	/* Folded at depth 2. */
	assert_int_equal(row_of(cs, "/slow/x", 7 << 20)->dirty_ns, 5000000);
	assert_int_equal(row_of(cs, "?", 7 << 20)->ios[CGSTAT_READ], 1);
	cgstat_reset(cs);
	{
		size_t nr;

		cgstat_rows(cs, &nr);
		assert_int_equal(nr, 0);
	}
	cgstat_free(cs);
}

/* test_other - past the limit new cgroups are "other", each counted once; known ones stay */
static void test_other(void **state)
{
	struct cgstat *cs = cgstat_create(0, 2, 0);
	struct block_rq r = rq_of(8 << 20, BLOCK_OP_READ, 8);

	(void)state;
	assert_non_null(cs);
	assert_int_equal(cgstat_bio(cs, &r, "/a", false), 0);
	assert_int_equal(cgstat_bio(cs, &r, "/b", false), 0);
	assert_int_equal(cgstat_bio(cs, &r, "/c", false), 0);
	assert_int_equal(cgstat_bio(cs, &r, "/d", false), 0);
	assert_int_equal(cgstat_bio(cs, &r, "/c", false), 0);
	assert_int_equal(cgstat_bio(cs, &r, "/a", false), 0);
	assert_int_equal(row_of(cs, "/a", 8 << 20)->ios[CGSTAT_READ], 2);
	assert_int_equal(row_of(cs, "/b", 8 << 20)->ios[CGSTAT_READ], 1);
	assert_int_equal(row_of(cs, CGSTAT_OTHER, 8 << 20)->ios[CGSTAT_READ], 3);
	assert_int_equal(cgstat_folded_other(cs), 2);
	cgstat_free(cs);
}

/* test_buckets - a publisher's table: the latency in log2 buckets, no fine histogram */
static void test_buckets(void **state)
{
	struct cgstat *cs = cgstat_create(0, 0, CGSTAT_BUCKETS);
	struct blk_io io = { .dev = 7 << 20, .op = BLOCK_OP_WRITE, .bytes = 4096, .t_issue = 1000,
			     .t_done = 9000, .cgroup = "/a" };
	const struct cgstat_row *row;

	(void)state;
	assert_non_null(cs);
	assert_int_equal(cgstat_request(cs, &io), 0);
	io.t_done = 1000;
	assert_int_equal(cgstat_request(cs, &io), 0);
	row = row_of(cs, "/a", 7 << 20);
	assert_int_equal(row->reqs[CGSTAT_WRITE], 2);
	assert_int_equal(row->lat_buckets.count, 2);
	assert_int_equal(row->lat_buckets.sum, 8);
	assert_int_equal(row->lat_buckets.slot[hist_log2_slot(8)], 1);
	assert_int_equal(row->lat_buckets.slot[hist_log2_slot(0)], 1);
	assert_int_equal(row->lat.count, 0);
	assert_null(row->lat.fine);
	cgstat_free(cs);
}

/* disk_name - a row's disk label: "loopN" of major 7 */
static const char *disk_name(void *arg, uint32_t dev)
{
	static char name[32];

	(void)arg;
	snprintf(name, sizeof(name), "loop%u", dev & 0xfffff);
	return name;
}

/* page - the text of p */
static char *page(struct prom *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(prom_print(p, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* value - the value of the series line "series N" in text, -1 when absent */
static double value(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *at = text; (at = strstr(at, series)); at += n)
		if ((at == text || at[-1] == '\n') && at[n] == ' ')
			return strtod(at + n + 1, NULL);
	return -1;
}

/* sent - n reads of 4 KiB and their requests by cgroup on loop dev, each 2 ms held by the throttle */
static void sent(struct cgmetrics *cm, const char *cgroup, uint32_t dev, int n)
{
	struct block_rq r = rq_of(7 << 20 | dev, BLOCK_OP_READ, 8);
	struct blk_io io = { .dev = 7 << 20 | dev, .op = BLOCK_OP_READ, .bytes = 4096,
			     .t_submit = 1000000, .t_queue = 3000000, .t_issue = 3100000,
			     .t_done = 3600000, .cgroup = cgroup };

	for (int i = 0; i < n; i++) {
		assert_int_equal(cgstat_bio(cm->cs, &r, cgroup, false), 0);
		assert_int_equal(cgstat_request(cm->cs, &io), 0);
	}
}

/*
 * test_prom_series - the exporter's series: counters that add up page after page, the
 * causes with dirty only where pauses are traced, the container label, and past the limit
 * "other" with the same totals and its cgroups counted once each
 */
static void test_prom_series(void **state)
{
	struct prom *p = prom_alloc(NULL);
	struct cgmetrics cm;
	char *text;

	(void)state;
	assert_non_null(p);
	assert_int_equal(cgmetrics_init(&cm, 2, 2, true), 0);
	sent(&cm, "/slow", 1, 3);
	sent(&cm, "/system.slice/docker-" ID64 ".scope/inner", 1, 1);
	assert_int_equal(cgstat_dirty(cm.cs, 7 << 20 | 1, "/slow", 5000000), 0);
	assert_int_equal(cgmetrics_fold(&cm, p, disk_name, NULL), 0);
	/* The next page: slow again, and two new cgroups past the limit of 2. */
	sent(&cm, "/slow", 1, 2);
	sent(&cm, "/fast", 1, 4);
	sent(&cm, "/fast", 2, 1);
	sent(&cm, "/third/a/b", 1, 5);
	assert_int_equal(cgmetrics_fold(&cm, p, disk_name, NULL), 0);
	text = page(p);
#define CG_SLOW "cgroup=\"/slow\",disk=\"loop1\""
#define CG_DOCKER "cgroup=\"/system.slice/docker-" ID64 ".scope\",container=\"0123456789ab\"," \
	"disk=\"loop1\""
#define CG_OTHER "cgroup=\"other\",disk=\"loop1\""
	assert_true(value(text, "iotap_cgroup_ios_total{" CG_SLOW ",op=\"read\"}") == 5);
	assert_true(value(text, "iotap_cgroup_bytes_total{" CG_SLOW ",op=\"read\"}") == 5 * 4096);
	assert_true(value(text, "iotap_cgroup_ios_total{" CG_SLOW ",op=\"write\"}") == -1);
	/* 2 ms held before the queue, 0.1 ms queued, 0.5 ms on the device: the time from the send. */
	assert_true(value(text, "iotap_cgroup_wait_seconds_total{" CG_SLOW ",cause=\"throttle\"}") ==
		    5 * 0.002);
	assert_true(value(text, "iotap_cgroup_wait_seconds_total{" CG_SLOW ",cause=\"dirty\"}") ==
		    0.005);
	assert_true(value(text, "iotap_cgroup_request_duration_seconds_count{" CG_SLOW "}") == 5);
	assert_true(value(text, "iotap_cgroup_request_duration_seconds_bucket{" CG_SLOW
			  ",le=\"0.002048\"}") == 0);
	assert_true(value(text, "iotap_cgroup_request_duration_seconds_bucket{" CG_SLOW
			  ",le=\"0.004096\"}") == 5);
	/* Folded at depth 2; its container named. */
	assert_true(value(text, "iotap_cgroup_ios_total{" CG_DOCKER ",op=\"read\"}") == 1);
	/* Past the limit: /fast and /third (its folded name) as "other", each counted once. */
	assert_true(value(text, "iotap_cgroup_ios_total{" CG_OTHER ",op=\"read\"}") == 9);
	assert_true(value(text, "iotap_cgroup_ios_total{cgroup=\"other\",disk=\"loop2\",op=\"read\"}") == 1);
	assert_true(value(text, "iotap_cgroup_request_duration_seconds_count{" CG_OTHER "}") == 9);
	assert_true(value(text, "iotap_cgroup_folded_total") == 2);
	assert_null(strstr(text, "/fast"));
	assert_null(strstr(text, "/third"));
	free(text);
	/* A page with nothing new adds nothing. */
	assert_int_equal(cgmetrics_fold(&cm, p, disk_name, NULL), 0);
	text = page(p);
	assert_true(value(text, "iotap_cgroup_folded_total") == 2);
	assert_true(value(text, "iotap_cgroup_ios_total{" CG_SLOW ",op=\"read\"}") == 5);
	free(text);
	cgmetrics_release(&cm);
	cgmetrics_release(&cm);
	prom_free(p);
	/* Without pauses traced, no dirty cause. */
	p = prom_alloc(NULL);
	assert_non_null(p);
	assert_int_equal(cgmetrics_init(&cm, 0, 0, false), 0);
	sent(&cm, "/slow", 1, 1);
	assert_int_equal(cgmetrics_fold(&cm, p, disk_name, NULL), 0);
	text = page(p);
	assert_true(value(text, "iotap_cgroup_wait_seconds_total{" CG_SLOW ",cause=\"device\"}") ==
		    0.0005);
	assert_null(strstr(text, "cause=\"dirty\""));
	free(text);
	cgmetrics_release(&cm);
	prom_free(p);
}

/* test_dirty_decode - balance_dirty_pages as 6.18 lays it out: disk, pause, memory cgroup */
static void test_dirty_decode(void **state)
{
	struct fmt_set fs;
	struct tep_event *ev;
	struct dirty_fmt f;
	struct dirty_pause p;
	uint8_t raw[144] = { 0 };
	int64_t pause = 12;
	uint64_t ino = 4242;

	(void)state;
	testlib_fmt_init(&fs, K618);
	ev = testlib_fmt_add(&fs, K618, "writeback", "balance_dirty_pages");
	assert_int_equal(dirty_fmt_init(&f, ev), 0);
	memcpy(raw + 8, "259:3", 6);
	memcpy(raw + 112, &pause, 8);
	memcpy(raw + 136, &ino, 8);
	assert_int_equal(dirty_pause_decode(&f, raw, sizeof(raw), &p), 0);
	assert_int_equal(p.dev, 259u << 20 | 3);
	assert_int_equal(p.pause_ms, 12);
	assert_int_equal(p.cgroup_ino, 4242);
	/* An NFS mount's bdi names no disk here. */
	memcpy(raw + 8, "0:53\0", 5);
	assert_int_equal(dirty_pause_decode(&f, raw, sizeof(raw), &p), 0);
	assert_int_equal(p.dev, 0);
	assert_int_equal(dirty_pause_decode(&f, raw, 100, &p), -EINVAL);
	fmt_set_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_other),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_prom_series),
		cmocka_unit_test(test_dirty_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
