// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_usyms - user-space symbolization and unwinding on the test itself.
 *
 * The test binary is its own subject: it symbolizes addresses of its own
 * functions live (through /proc/self/maps), offline (one mapping fed by
 * hand, the binary found in a sysroot by build-id) and unwinds a stack it
 * copied of itself. It needs no root and no compiler; it does need its own
 * symbol table (do not strip it) and, for the inline case, -g.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* pthread_getattr_np, gettid, RTLD_DEFAULT */
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usyms.h"

#if defined(__GNUC__) && !defined(__clang__)
#define NOIPA __attribute__((noipa))
#else
#define NOIPA __attribute__((noinline))
#endif

/* A pid no process can have (above PID_MAX_LIMIT). */
#define FAKE_PID 0x7ffffff0u

static volatile int sink;

/* test_marker_fn - a function whose address the tests symbolize */
static NOIPA int test_marker_fn(int x)
{
	sink += x;
	return sink * 3 + x;
}

/* self_exe - the test binary's path and basename */
static const char *self_exe(const char **base)
{
	static char path[PATH_MAX];
	ssize_t n;

	if (!path[0]) {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n < 0)
			return NULL;
		path[n] = '\0';
	}
	if (base)
		*base = strrchr(path, '/') + 1;
	return path;
}

struct find_map {
	uint64_t addr;
	struct usyms_map map;
	char path[PATH_MAX];
	bool found;
};

/* find_map_cb - keep the mapping holding an address */
static int find_map_cb(void *arg, const struct usyms_map *map)
{
	struct find_map *fm = arg;

	if (fm->addr < map->start || fm->addr >= map->start + map->len)
		return 0;
	fm->map = *map;
	snprintf(fm->path, sizeof(fm->path), "%s", map->path);
	fm->map.path = fm->path;
	fm->found = true;
	return 1;
}

/* marker_map - the mapping of this process that holds test_marker_fn */
static void marker_map(struct find_map *fm)
{
	memset(fm, 0, sizeof(*fm));
	fm->addr = (uint64_t)(uintptr_t)test_marker_fn;
	assert_int_equal(usyms_maps_foreach(getpid(), find_map_cb, fm), 1);
	assert_true(fm->found);
}

/* test_build_id_read - the binary's build-id, as the maps walk reports it */
static void test_build_id_read(void **state)
{
	uint8_t id[USYMS_BUILD_ID_MAX];
	struct find_map fm;
	int len;

	(void)state;
	marker_map(&fm);
	len = usyms_build_id_read(self_exe(NULL), id, sizeof(id));
	assert_true(len >= 8);
	assert_int_equal(len, fm.map.build_id_len);
	assert_memory_equal(id, fm.map.build_id, len);
	assert_string_equal(fm.map.path, self_exe(NULL));
	assert_int_equal(usyms_build_id_read("/nonexistent", id, sizeof(id)), -ENOENT);
	assert_int_equal(usyms_build_id_read("/proc/self/status", id, sizeof(id)),
			 -ENOEXEC);
}

/* test_live - symbolize our own function through /proc/self/maps */
static void test_live(void **state)
{
	struct usym_frame frames[8];
	struct usyms *us;
	const char *base;
	int n;

	(void)state;
	self_exe(&base);
	us = usyms_alloc(NULL);
	assert_non_null(us);
	assert_int_equal(usyms_maps_read(us, getpid()), 0);

	n = usyms_lookup(us, getpid(), (uint64_t)(uintptr_t)test_marker_fn + 1,
			 frames, 8);
	assert_int_equal(n, 1);
	assert_string_equal(frames[0].name, "test_marker_fn");
	assert_string_equal(frames[0].module, base);
	assert_int_equal(frames[0].offset, 1);
	assert_false(frames[0].inlined);
	assert_non_null(frames[0].file);
	assert_non_null(strstr(frames[0].file, "test_usyms.c"));
	assert_true(frames[0].line > 0);

	/* a second time comes from the cache, the same */
	n = usyms_lookup(us, getpid(), (uint64_t)(uintptr_t)test_marker_fn + 1,
			 frames, 8);
	assert_int_equal(n, 1);
	assert_string_equal(frames[0].name, "test_marker_fn");

	/* a shared library function (dlsym: &f may be a PLT slot) */
	n = usyms_lookup(us, getpid(), (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "dwfl_begin"),
			 frames, 8);
	assert_true(n >= 1);
	assert_string_equal(frames[n - 1].name, "dwfl_begin");
	assert_int_equal(strncmp(frames[n - 1].module, "libdw", 5), 0);

	/* no mapping there */
	n = usyms_lookup(us, getpid(), 16, frames, 8);
	assert_int_equal(n, 1);
	assert_null(frames[0].name);
	assert_null(frames[0].module);
	assert_int_equal(frames[0].offset, 16);

	/* unknown process */
	n = usyms_lookup(us, FAKE_PID, (uint64_t)(uintptr_t)test_marker_fn, frames, 8);
	assert_int_equal(n, 1);
	assert_null(frames[0].name);

	assert_int_equal(usyms_lookup(us, getpid(), 0, frames, 0), -EINVAL);
	usyms_free(us);
	usyms_free(NULL);
}

#if defined(__x86_64__)
static uint64_t inline_ip;
static int inline_call_line;

enum { HELPER_FIRST_LINE = __LINE__ };
/* inlined_helper - always inlined; records an ip inside its inlined body */
static inline __attribute__((always_inline)) int inlined_helper(int x)
{
	uint64_t ip;

	__asm__ volatile("leaq 0(%%rip), %0" : "=r"(ip));
	inline_ip = ip;
	return x * 7 + sink;
}
enum { HELPER_LAST_LINE = __LINE__ };

/* inline_host - the function inlined_helper is inlined into */
static NOIPA int inline_host(int x)
{
	/* The call's line, on the call's line. */
	inline_call_line = __LINE__; return inlined_helper(x) + 1;
}

/* test_inline - an ip in inlined code gives the inlined frame first */
static void test_inline(void **state)
{
	struct usym_frame frames[8];
	struct usyms *us;
	int n;

	(void)state;
	inline_host(3);
	us = usyms_alloc(NULL);
	assert_non_null(us);
	assert_int_equal(usyms_maps_read(us, getpid()), 0);
	n = usyms_lookup(us, getpid(), inline_ip, frames, 8);
	assert_int_equal(n, 2);
	assert_string_equal(frames[0].name, "inlined_helper");
	assert_true(frames[0].inlined);
	assert_string_equal(frames[1].name, "inline_host");
	assert_false(frames[1].inlined);
	/* the inlined frame where the ip is, the host where it calls the inlined function */
	assert_non_null(frames[0].file);
	assert_non_null(strstr(frames[0].file, "test_usyms.c"));
	assert_in_range(frames[0].line, HELPER_FIRST_LINE, HELPER_LAST_LINE);
	assert_non_null(frames[1].file);
	assert_non_null(strstr(frames[1].file, "test_usyms.c"));
	assert_int_equal(frames[1].line, inline_call_line);

	/* with room for one frame, the real function is the one kept */
	n = usyms_lookup(us, getpid(), inline_ip, frames, 1);
	assert_int_equal(n, 1);
	assert_string_equal(frames[0].name, "inline_host");
	assert_int_equal(frames[0].line, inline_call_line);
	usyms_free(us);
}
#else
/* test_inline - x86_64 only: the inlined ip is taken with inline asm */
static void test_inline(void **state)
{
	(void)state;
	skip();
}
#endif

/* file_copy - copy a file, creating the directories of the destination */
static void file_copy(const char *from, const char *to)
{
	char dir[PATH_MAX], buf[65536], *p;
	int in, out;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s", to);
	for (p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	in = open(from, O_RDONLY);
	assert_true(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, n), n);
	assert_int_equal(n, 0);
	close(in);
	close(out);
}

/* build_id_path - <root>/.build-id/xx/rest of a build-id */
static void build_id_path(char *out, size_t size, const char *root,
			  const uint8_t *id, int len)
{
	int i, n;

	n = snprintf(out, size, "%s/.build-id/%02x/", root, id[0]);
	for (i = 1; i < len; i++)
		n += snprintf(out + n, size - n, "%02x", id[i]);
}

struct offline_frame {
	char name[128];		/* "" when unknown */
	char module[128];
	uint64_t offset;
};

/* offline_lookup - symbolize test_marker_fn from one hand-fed mapping */
static void offline_lookup(const char *sysroot, const struct find_map *fm,
			   const char *path, const uint8_t *id, uint8_t id_len,
			   struct offline_frame *out)
{
	struct usyms *us = usyms_alloc(sysroot);
	struct usym_frame frames[8];
	int n;

	assert_non_null(us);
	assert_int_equal(usyms_map_add(us, FAKE_PID, fm->map.start, fm->map.len,
				       fm->map.pgoff, path, id, id_len), 0);
	n = usyms_lookup(us, FAKE_PID, (uint64_t)(uintptr_t)test_marker_fn + 2,
			 frames, 8);
	assert_true(n >= 1);
	/* the strings die with the usyms */
	snprintf(out->name, sizeof(out->name), "%s",
		 frames[n - 1].name ? frames[n - 1].name : "");
	assert_non_null(frames[n - 1].module);
	snprintf(out->module, sizeof(out->module), "%s", frames[n - 1].module);
	out->offset = frames[n - 1].offset;
	usyms_free(us);
}

/* test_offline - a mapping fed by hand, the binary found by build-id */
static void test_offline(void **state)
{
	char root[] = "/tmp/test_usyms.XXXXXX", dest[PATH_MAX];
	uint8_t wrong_id[20];
	struct offline_frame f;
	struct find_map fm;
	const char *base;

	(void)state;
	self_exe(&base);
	marker_map(&fm);
	assert_true(fm.map.build_id_len > 1);
	assert_non_null(mkdtemp(root));

	/* the binary under its build-id in the sysroot, a wrong path */
	build_id_path(dest, sizeof(dest), root, fm.map.build_id, fm.map.build_id_len);
	file_copy(self_exe(NULL), dest);
	offline_lookup(root, &fm, "/nonexistent/dir/test_usyms", fm.map.build_id,
		       fm.map.build_id_len, &f);
	assert_string_equal(f.name, "test_marker_fn");
	assert_string_equal(f.module, "test_usyms");
	assert_int_equal(f.offset, 2);
	unlink(dest);

	/* the binary at its recorded path inside the sysroot */
	snprintf(dest, sizeof(dest), "%s/opt/app/test_usyms", root);
	file_copy(self_exe(NULL), dest);
	offline_lookup(root, &fm, "/opt/app/test_usyms", fm.map.build_id,
		       fm.map.build_id_len, &f);
	assert_string_equal(f.name, "test_marker_fn");

	/* without a build-id the sysroot copy is taken on trust */
	offline_lookup(root, &fm, "/opt/app/test_usyms", NULL, 0, &f);
	assert_string_equal(f.name, "test_marker_fn");
	unlink(dest);

	/* the file at the path has another build-id: not used */
	memset(wrong_id, 0xab, sizeof(wrong_id));
	offline_lookup(NULL, &fm, self_exe(NULL), wrong_id, sizeof(wrong_id), &f);
	assert_string_equal(f.name, "");
	assert_string_equal(f.module, base);

	/* nothing anywhere: [unknown] (module), offset in the file */
	offline_lookup(root, &fm, "/nonexistent/dir/test_usyms", fm.map.build_id,
		       fm.map.build_id_len, &f);
	assert_string_equal(f.name, "");
	assert_string_equal(f.module, "test_usyms");
	assert_int_equal(f.offset, (uint64_t)(uintptr_t)test_marker_fn + 2 -
				   fm.map.start + fm.map.pgoff);

	/* the right path and build-id, no sysroot: the live file */
	offline_lookup(NULL, &fm, self_exe(NULL), fm.map.build_id,
		       fm.map.build_id_len, &f);
	assert_string_equal(f.name, "test_marker_fn");

	rmdir(dest);
	snprintf(dest, sizeof(dest), "%s/opt/app", root);
	rmdir(dest);
	snprintf(dest, sizeof(dest), "%s/opt", root);
	rmdir(dest);
	build_id_path(dest, sizeof(dest), root, fm.map.build_id, 1);
	*strrchr(dest, '/') = '\0';
	rmdir(dest);
	snprintf(dest, sizeof(dest), "%s/.build-id", root);
	rmdir(dest);
	assert_int_equal(rmdir(root), 0);
}

/* lookup_module - module name of the frame of an ip, NULL if none */
static const char *lookup_module(struct usyms *us, uint32_t pid, uint64_t ip,
				 uint64_t *offset)
{
	struct usym_frame frames[4];
	int n = usyms_lookup(us, pid, ip, frames, 4);

	assert_true(n >= 1);
	if (offset)
		*offset = frames[n - 1].offset;
	return frames[n - 1].module;
}

/* test_maps_overlap - a new mapping cuts the ones it overlaps */
static void test_maps_overlap(void **state)
{
	struct usyms *us = usyms_alloc(NULL);
	uint64_t off;

	(void)state;
	assert_non_null(us);
	assert_int_equal(usyms_map_add(us, 10, 0x10000, 0x40000, 0x1000,
				       "/nonexistent/liba.so", NULL, 0), 0);
	assert_int_equal(usyms_map_add(us, 10, 0x20000, 0x10000, 0,
				       "/nonexistent/libb.so", NULL, 0), 0);
	assert_string_equal(lookup_module(us, 10, 0x18000, &off), "liba.so");
	assert_int_equal(off, 0x9000);
	assert_string_equal(lookup_module(us, 10, 0x20010, &off), "libb.so");
	assert_int_equal(off, 0x10);
	/* the right part of liba keeps its file offsets */
	assert_string_equal(lookup_module(us, 10, 0x40000, &off), "liba.so");
	assert_int_equal(off, 0x31000);
	assert_null(lookup_module(us, 10, 0x50000, NULL));
	/* one covering both */
	assert_int_equal(usyms_map_add(us, 10, 0x8000, 0x50000, 0, "[vdso]", NULL, 0), 0);
	assert_string_equal(lookup_module(us, 10, 0x18000, NULL), "[vdso]");
	assert_string_equal(lookup_module(us, 10, 0x40000, NULL), "[vdso]");

	assert_int_equal(usyms_map_add(us, 10, 0, 0, 0, "x", NULL, 0), -EINVAL);
	assert_int_equal(usyms_map_add(us, 10, 0, 1, 0, NULL, NULL, 0), -EINVAL);
	usyms_free(us);
}

/* test_proc_life - fork copies mappings, exec drops them, exit keeps them */
static void test_proc_life(void **state)
{
	struct usyms *us = usyms_alloc(NULL);

	(void)state;
	assert_non_null(us);
	assert_int_equal(usyms_map_add(us, 20, 0x10000, 0x1000, 0,
				       "/nonexistent/app", NULL, 0), 0);
	assert_int_equal(usyms_proc_fork(us, 20, 21), 0);
	assert_string_equal(lookup_module(us, 21, 0x10010, NULL), "app");
	/* a thread is no new process */
	assert_int_equal(usyms_proc_fork(us, 21, 21), 0);
	assert_string_equal(lookup_module(us, 21, 0x10010, NULL), "app");

	assert_int_equal(usyms_proc_exec(us, 21), 0);
	assert_null(lookup_module(us, 21, 0x10010, NULL));
	assert_string_equal(lookup_module(us, 20, 0x10010, NULL), "app");
	assert_int_equal(usyms_map_add(us, 21, 0x10000, 0x1000, 0,
				       "/nonexistent/other", NULL, 0), 0);
	assert_string_equal(lookup_module(us, 21, 0x10010, NULL), "other");

	/* exited: still symbolized for the report, until the pid comes back */
	usyms_proc_exit(us, 20);
	assert_string_equal(lookup_module(us, 20, 0x10010, NULL), "app");
	assert_int_equal(usyms_map_add(us, 20, 0x30000, 0x1000, 0,
				       "/nonexistent/new", NULL, 0), 0);
	assert_null(lookup_module(us, 20, 0x10010, NULL));
	assert_string_equal(lookup_module(us, 20, 0x30010, NULL), "new");

	/* fork from an unknown parent gives an empty child */
	assert_int_equal(usyms_proc_fork(us, 999, 21), 0);
	assert_null(lookup_module(us, 21, 0x10010, NULL));
	usyms_proc_exit(us, 12345);
	usyms_free(us);
}

/* key_module - the module a key's image maps ip to, NULL if none */
static const char *key_module(struct usyms *us, uint32_t key, uint64_t ip)
{
	struct usym_frame frames[4];
	int n = usyms_key_lookup(us, key, ip, frames, 4);

	assert_true(n >= 1);
	return frames[n - 1].module;
}

/* test_proc_keys - a key keeps naming its image after exec, pid reuse and fork over it */
static void test_proc_keys(void **state)
{
	struct usyms *us = usyms_alloc(NULL);
	uint32_t k1, k2, k3, k4;

	(void)state;
	assert_non_null(us);
	assert_int_equal(usyms_map_add(us, 30, 0x10000, 0x1000, 0, "/nonexistent/before", NULL, 0), 0);
	k1 = usyms_proc_key(us, 30);
	assert_true(k1 != 0);
	assert_int_equal(usyms_proc_key(us, 30), k1);	/* same image, same key */
	/* exec: the pid names the new image, the key the old one */
	assert_int_equal(usyms_proc_exec(us, 30), 0);
	assert_int_equal(usyms_map_add(us, 30, 0x10000, 0x1000, 0, "/nonexistent/after", NULL, 0), 0);
	assert_string_equal(lookup_module(us, 30, 0x10010, NULL), "after");
	assert_string_equal(key_module(us, k1, 0x10010), "before");
	k2 = usyms_proc_key(us, 30);
	assert_true(k2 != 0 && k2 != k1);
	assert_string_equal(key_module(us, k2, 0x10010), "after");
	/* exit, then the pid is reused by a new mapping */
	usyms_proc_exit(us, 30);
	assert_int_equal(usyms_map_add(us, 30, 0x10000, 0x1000, 0, "/nonexistent/reuse", NULL, 0), 0);
	assert_string_equal(key_module(us, k2, 0x10010), "after");
	k3 = usyms_proc_key(us, 30);
	assert_string_equal(key_module(us, k3, 0x10010), "reuse");
	/* a fork into the pid replaces its image too */
	assert_int_equal(usyms_map_add(us, 31, 0x20000, 0x1000, 0, "/nonexistent/parent", NULL, 0), 0);
	assert_int_equal(usyms_proc_fork(us, 31, 30), 0);
	assert_string_equal(key_module(us, k3, 0x10010), "reuse");
	k4 = usyms_proc_key(us, 30);
	assert_string_equal(key_module(us, k4, 0x20010), "parent");
	assert_null(key_module(us, k4, 0x10010));
	/* an image nobody took a key for is simply replaced; unknown keys name nothing */
	assert_int_equal(usyms_proc_exec(us, 31), 0);
	assert_null(key_module(us, 0, 0x20010));
	assert_null(key_module(us, 12345, 0x20010));
	usyms_free(us);
}

#if defined(__x86_64__)
/* The sample usyms_unwind() gets, as perf would give it. */
static struct {
	uint64_t regs[17];	/* AX BX CX DX SI DI BP SP IP R8-R15 */
	uint8_t stack[USYMS_STACK_USER_SIZE];
	uint64_t stack_size;
	uint64_t stack_top;
} snap;

/* stack_copy - copy the stack from sp up, as PERF_SAMPLE_STACK_USER does */
__attribute__((noinline, no_sanitize_address))
static void stack_copy(uint64_t sp)
{
	const volatile uint8_t *src = (const volatile uint8_t *)(uintptr_t)sp;
	uint64_t n = snap.stack_top - sp, i;

	if (n > sizeof(snap.stack))
		n = sizeof(snap.stack);
	for (i = 0; i < n; i++)
		snap.stack[i] = src[i];
	snap.stack_size = n;
}

/* The chain is built without frame pointers so that only the CFI can
 * unwind it; each level keeps a local array to move the stack pointer. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("omit-frame-pointer")
#endif

/* unwind_level3 - innermost: snapshot registers and stack */
static NOIPA int unwind_level3(int x)
{
	volatile int local[24];

	local[x & 7] = x;
	__asm__ volatile(
		"movq %%rax, 0(%0)\n\t"
		"movq %%rbx, 8(%0)\n\t"
		"movq %%rcx, 16(%0)\n\t"
		"movq %%rdx, 24(%0)\n\t"
		"movq %%rsi, 32(%0)\n\t"
		"movq %%rdi, 40(%0)\n\t"
		"movq %%rbp, 48(%0)\n\t"
		"movq %%rsp, 56(%0)\n\t"
		"leaq 0(%%rip), %%rax\n\t"
		"movq %%rax, 64(%0)\n\t"
		"movq %%r8, 72(%0)\n\t"
		"movq %%r9, 80(%0)\n\t"
		"movq %%r10, 88(%0)\n\t"
		"movq %%r11, 96(%0)\n\t"
		"movq %%r12, 104(%0)\n\t"
		"movq %%r13, 112(%0)\n\t"
		"movq %%r14, 120(%0)\n\t"
		"movq %%r15, 128(%0)\n\t"
		: : "r"(snap.regs) : "rax", "memory");
	stack_copy(snap.regs[7]);
	return local[x & 7] + 1;
}

/* unwind_level2 - middle of the chain */
static NOIPA int unwind_level2(int x)
{
	volatile int local[40];

	local[x & 15] = unwind_level3(x * 3);
	return local[x & 15] + 2;
}

/* unwind_level1 - outermost of the chain */
static NOIPA int unwind_level1(int x)
{
	volatile int local[8];

	local[x & 3] = unwind_level2(x ^ 5);
	return local[x & 3] + 3;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* stack_top_get - the upper end of the current thread's stack */
static uint64_t stack_top_get(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	assert_int_equal(pthread_getattr_np(pthread_self(), &attr), 0);
	assert_int_equal(pthread_attr_getstack(&attr, &addr, &size), 0);
	pthread_attr_destroy(&attr);
	return (uint64_t)(uintptr_t)addr + size;
}

/* test_unwind - unwind a stack copied inside a 3-deep chain */
static void test_unwind(void **state)
{
	static const char *const want[] = {
		"unwind_level3", "unwind_level2", "unwind_level1", "test_unwind",
	};
	struct usym_frame frames[8];
	uint64_t ips[64];
	struct usyms *us;
	int n, i, k;

	(void)state;
	assert_int_equal(usyms_regs_mask_x86_64(), 0xff01ff);
	snap.stack_top = stack_top_get();
	unwind_level1(4);
	assert_true(snap.stack_size > 256);

	us = usyms_alloc(NULL);
	assert_non_null(us);
	assert_int_equal(usyms_maps_read(us, getpid()), 0);
	n = usyms_unwind(us, getpid(), gettid(), snap.regs, usyms_regs_mask_x86_64(),
			 snap.stack, snap.stack_size, ips, 64);
	assert_true(n >= 4);
	assert_int_equal(ips[0], snap.regs[8]);
	for (i = 0; i < 4; i++) {
		k = usyms_lookup(us, getpid(), ips[i], frames, 8);
		assert_true(k >= 1);
		assert_non_null(frames[k - 1].name);
		assert_string_equal(frames[k - 1].name, want[i]);
	}

	/* max bounds the output */
	assert_int_equal(usyms_unwind(us, getpid(), gettid(), snap.regs,
				      usyms_regs_mask_x86_64(), snap.stack,
				      snap.stack_size, ips, 2), 2);
	/* without a stack, the sampled ip alone */
	n = usyms_unwind(us, getpid(), gettid(), snap.regs,
			 usyms_regs_mask_x86_64(), NULL, 0, ips, 64);
	assert_true(n >= 1 && n <= 2);
	assert_int_equal(ips[0], snap.regs[8]);
	/* an unknown process: the sampled ip alone */
	assert_int_equal(usyms_unwind(us, FAKE_PID, FAKE_PID, snap.regs,
				      usyms_regs_mask_x86_64(), snap.stack,
				      snap.stack_size, ips, 64), 1);
	/* sp missing from the mask */
	assert_int_equal(usyms_unwind(us, getpid(), gettid(), snap.regs, 0x1ff & ~0x80ULL,
				      snap.stack, snap.stack_size, ips, 64), -EINVAL);
	usyms_free(us);
}
#else
/* test_unwind - x86_64 only: registers are captured with inline asm */
static void test_unwind(void **state)
{
	(void)state;
	skip();
}
#endif

/* main - run the usyms tests */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id_read),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_offline),
		cmocka_unit_test(test_maps_overlap),
		cmocka_unit_test(test_proc_life),
		cmocka_unit_test(test_proc_keys),
		cmocka_unit_test(test_unwind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
