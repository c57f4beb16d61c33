/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usyms - user-space symbolization and DWARF unwinding, live or offline.
 *
 * The caller feeds what it knows of each process: its executable mappings
 * (from /proc/PID/maps at start, then PERF_RECORD_MMAP2 events, with the
 * build-id when the kernel gives one) and its life (FORK, EXEC, EXIT), then
 * asks for the frames of an instruction pointer. Nothing here needs the
 * process to still exist: a file is found by path, checked against its
 * build-id, and otherwise looked up by build-id under /usr/lib/debug and
 * under the sysroot given to usyms_alloc().
 *
 * Opened files are shared by all processes and kept until usyms_free(), so
 * the strings handed out (frame names, modules) live as long as the usyms.
 * Each file keeps a sorted symbol table and a cache of the addresses it has
 * already resolved. Not thread-safe: use one usyms per thread.
 *
 * Files are found once and mapped whole (no descriptor stays open); a file
 * truncated while mapped raises SIGBUS, as it does for perf. Separate debug
 * files are found through libdwfl (build-id, .gnu_debuglink), which asks
 * debuginfod servers when DEBUGINFOD_URLS is set in the environment.
 *
 * Link with: pkg-config --libs libdw libelf.
 */
#ifndef IOTAP_USYMS_H
#define IOTAP_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest build-id kept; GNU ld writes 20 bytes (SHA-1), as does the kernel. */
#define USYMS_BUILD_ID_MAX	64

/* User stack bytes to request with PERF_SAMPLE_STACK_USER. */
#define USYMS_STACK_USER_SIZE	8192

struct usyms;

struct usym_frame {
	const char *name;	/* function; NULL when unknown */
	const char *module;	/* basename of the mapped file ("[vdso]" and
				 * other special names as given); NULL when the
				 * ip is in no known mapping */
	uint64_t offset;	/* ip minus the function's start. When name is
				 * NULL: the address in the file (its ELF vaddr
				 * when the file was found, else the file offset),
				 * or the ip itself when module is NULL. Inlined
				 * frames carry the offset in the function they
				 * were inlined into. */
	bool inlined;		/* inlined into the next frame */
	const char *file;	/* source file of the position, from DWARF; NULL
				 * when unknown */
	int line;		/* its line, 0 when unknown: where the ip is in
				 * the innermost frame, where the call to the frame
				 * before is in the others */
};

/* One executable mapping, as read from /proc/PID/maps. */
struct usyms_map {
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;		/* file offset of start, in bytes */
	const char *path;	/* without " (deleted)"; "[vdso]" and such kept */
	uint8_t build_id[USYMS_BUILD_ID_MAX];
	uint8_t build_id_len;	/* 0 when unknown */
};

/*
 * usyms_map_fn - called by usyms_maps_foreach() for each mapping.
 * @map: valid only during the call.
 * Return: 0 to go on, anything else stops the walk and is returned.
 */
typedef int (*usyms_map_fn)(void *arg, const struct usyms_map *map);

/*
 * usyms_alloc - create an empty symbolizer.
 * @sysroot: directory holding the recorded machine's files, looked up as
 * <sysroot>/<path>, <sysroot>/.build-id/xx/rest[.debug] and
 * <sysroot>/usr/lib/debug/.build-id/xx/rest[.debug]; NULL for none.
 * Return: the symbolizer or NULL with errno set.
 */
struct usyms *usyms_alloc(const char *sysroot);

/* usyms_free - free a symbolizer and every string it handed out; NULL is accepted. */
void usyms_free(struct usyms *us);

/*
 * usyms_map_add - record a mapping of a process (a PERF_RECORD_MMAP2).
 * @pid: the process (tgid).
 * @start, @len, @pgoff: the mapping; pgoff in bytes.
 * @path: the mapped file, or a name such as "[vdso]" or "//anon".
 * @build_id, @build_id_len: the file's GNU build-id, NULL/0 when unknown.
 * The new mapping replaces whatever it overlaps, as mmap() does. Only
 * executable mappings are worth adding (attr.mmap, not mmap_data).
 * Without a sysroot and with a build-id, the file is opened at once through
 * /proc/PID/root so that files of containers are found while they exist.
 * Return: 0 or -errno.
 */
int usyms_map_add(struct usyms *us, uint32_t pid, uint64_t start, uint64_t len,
		  uint64_t pgoff, const char *path, const uint8_t *build_id,
		  uint8_t build_id_len);

/*
 * usyms_proc_fork - a process was forked (PERF_RECORD_FORK with pid != ppid).
 * The child starts with a copy of the parent's mappings, replacing any it had.
 * Return: 0 or -errno.
 */
int usyms_proc_fork(struct usyms *us, uint32_t ppid, uint32_t pid);

/*
 * usyms_proc_exec - a process called exec (PERF_RECORD_COMM with
 * PERF_RECORD_MISC_COMM_EXEC): its mappings are dropped; MMAP2 events for
 * the new image follow.
 * Return: 0 or -errno.
 */
int usyms_proc_exec(struct usyms *us, uint32_t pid);

/*
 * usyms_proc_exit - a process exited (PERF_RECORD_EXIT with pid == tid).
 * Its unwinding state is freed; its mappings stay so that stacks kept for
 * the end-of-run report still symbolize. They go when the pid is reused
 * (fork, exec, or a mapping added after the exit).
 */
void usyms_proc_exit(struct usyms *us, uint32_t pid);

/*
 * usyms_maps_read - load a live process's executable mappings from
 * /proc/PID/maps, with the build-ids of their files, replacing the ones
 * known for it. Files are opened at once, through /proc/PID/root (or
 * /proc/PID/map_files for deleted files), so they stay usable after the
 * process is gone.
 * Return: 0 or -errno (-ENOENT when the process is gone).
 */
int usyms_maps_read(struct usyms *us, uint32_t pid);

/*
 * usyms_maps_foreach - walk a live process's executable mappings with the
 * build-ids of their files, for a recording to store.
 * Return: 0, -errno, or the first non-zero value fn returned.
 */
int usyms_maps_foreach(uint32_t pid, usyms_map_fn fn, void *arg);

/*
 * usyms_build_id_read - read the GNU build-id note of an ELF file.
 * Return: its length (at most size bytes are copied), 0 when the file has
 * none, or -errno (-ENOEXEC when it is not ELF).
 */
int usyms_build_id_read(const char *path, uint8_t *build_id, size_t size);

/*
 * usyms_lookup - symbolize an instruction pointer of a process.
 * @frames: receives up to max frames, innermost first: the inlined
 * functions (inlined set) when DWARF describes them, then the function the
 * code belongs to. When max is too small the outer inlined frames are
 * dropped; the function itself always comes last.
 * For return addresses (every frame of a callchain but the first) pass
 * ip - 1 so that a call ending its function symbolizes to the caller;
 * usyms_unwind() already does it.
 * Return: the number of frames (at least 1: an unknown frame has name NULL)
 * or -EINVAL.
 */
int usyms_lookup(struct usyms *us, uint32_t pid, uint64_t ip,
		 struct usym_frame *frames, int max);

/*
 * usyms_proc_key - a key for the image a process runs now (non-zero; 0
 * without memory). Stacks are named at the end of a run, and by then the
 * pid may have exec'd or been reused: usyms_key_lookup() with the key names
 * addresses with the mappings of that image, kept for it when they change.
 * The same image gives the same key.
 */
uint32_t usyms_proc_key(struct usyms *us, uint32_t pid);

/* usyms_key_lookup - usyms_lookup() in the process image that key names; -EINVAL alike */
int usyms_key_lookup(struct usyms *us, uint32_t key, uint64_t ip,
		     struct usym_frame *frames, int max);

/*
 * usyms_regs_mask_x86_64 - registers to request in attr.sample_regs_user
 * for usyms_unwind(): the general registers, ip and sp (PERF_REG_X86_*).
 */
uint64_t usyms_regs_mask_x86_64(void);

/*
 * usyms_unwind - unwind a user stack sample of an x86_64 process with its
 * DWARF call frame information (.eh_frame, else .debug_frame, else frame
 * pointers).
 * @pid, @tid: the sampled process and thread.
 * @regs: PERF_SAMPLE_REGS_USER values, one per bit set in regs_mask, in bit
 * order (only for abi PERF_SAMPLE_REGS_ABI_64; skip the sample otherwise).
 * @regs_mask: attr.sample_regs_user; must include IP and SP.
 * @stack, @stack_size: PERF_SAMPLE_STACK_USER data, stack_size being its
 * dyn_size (the bytes actually copied from the user sp upward).
 * @ips: receives the ips, innermost first: the sampled ip, then each
 * caller's return address minus 1 (ready for usyms_lookup()).
 * Return: the number of ips (at least 1 when max >= 1: the sampled ip) or
 * -errno (-EINVAL when IP or SP is missing).
 */
int usyms_unwind(struct usyms *us, uint32_t pid, uint32_t tid,
		 const uint64_t *regs, uint64_t regs_mask, const void *stack,
		 uint64_t stack_size, uint64_t *ips, int max);

#endif /* IOTAP_USYMS_H */
