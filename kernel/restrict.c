// SPDX-License-Identifier: GPL-2.0-or-later
/* restrict.c - what the kernel lets this process trace: lockdown, perf_event_paranoid, capabilities */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "restrict.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

static const char *const lockdown_names[] = {
	[LOCKDOWN_NONE] = "none",
	[LOCKDOWN_INTEGRITY] = "integrity",
	[LOCKDOWN_CONFIDENTIALITY] = "confidentiality",
};

/*
 * lockdown_parse - the mode in the kernel's lockdown file, which lists the
 * modes with the current one in brackets ("none [integrity] confidentiality");
 * -EINVAL without one, -ENOTSUP for a mode this iotap does not know
 */
int lockdown_parse(const char *text, enum lockdown_mode *mode)
{
	const char *open = strchr(text, '['), *close;
	size_t len;

	if (!open)
		return -EINVAL;
	close = strchr(++open, ']');
	if (!close || close == open)
		return -EINVAL;
	len = close - open;
	for (size_t i = 0; i < sizeof(lockdown_names) / sizeof(lockdown_names[0]); i++) {
		if (strlen(lockdown_names[i]) == len && !strncmp(open, lockdown_names[i], len)) {
			*mode = (enum lockdown_mode)i;
			return 0;
		}
	}
	return -ENOTSUP;
}

/* lockdown_name - the kernel's word for mode */
const char *lockdown_name(enum lockdown_mode mode)
{
	return lockdown_names[mode];
}

/* file_read_small - the first bytes of a /proc or /sys file, NUL-terminated; 0 or -errno */
static int file_read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = 0;
	return 0;
}

/*
 * lockdown_read - the kernel's lockdown mode; -ENOENT when it cannot say
 * (no lockdown LSM, or securityfs not mounted: not mounted here, since a
 * diagnosis is no reason to change the host's mounts; systemd mounts it)
 */
int lockdown_read(enum lockdown_mode *mode)
{
	char buf[128];
	int ret = file_read_small(LOCKDOWN_FILE, buf, sizeof(buf));

	return ret ? ret : lockdown_parse(buf, mode);
}

/* perf_paranoid_read - kernel.perf_event_paranoid; 0 or -errno */
int perf_paranoid_read(int *level)
{
	char buf[32], *end;
	long v;
	int ret = file_read_small(PERF_PARANOID_FILE, buf, sizeof(buf));

	if (ret)
		return ret;
	v = strtol(buf, &end, 10);
	if (end == buf)
		return -EINVAL;
	*level = (int)v;
	return 0;
}

/* cap_effective - whether cap is in this process's effective set */
bool cap_effective(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

/*
 * perf_probe - open and close what every live run opens first, a dummy
 * event on the whole of one CPU with kernel samples (the side-band), so that
 * a refusal is known before anything is set up; 0 or -errno
 */
int perf_probe(void)
{
	struct perf_event_attr attr;
	int cpu = sched_getcpu(), fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu < 0 ? 0 : cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * perf_refusal_explain - why perf_event_open refused with err, and what to
 * change, in one line. Upstream, level 0 leaves the raw data of
 * tracepoints to CAP_PERFMON (or CAP_SYS_ADMIN), level 1 events on a whole
 * CPU, level 2 kernel samples too; Debian's and Ubuntu's level 3 refuses
 * perf_event_open outright to any process without CAP_SYS_ADMIN.
 */
void perf_refusal_explain(int err, char *buf, size_t size)
{
	bool admin = cap_effective(CAP_SYS_ADMIN), perfmon = cap_effective(CAP_PERFMON);
	int level;

	if (err != -EACCES && err != -EPERM) {
		snprintf(buf, size, "perf_event_open failed: %s", strerror(-err));
		return;
	}
	if (perf_paranoid_read(&level))
		level = 2;
	if (level >= 3 && !admin)
		snprintf(buf, size,
			 "perf_event_open refused: kernel.perf_event_paranoid is %d, where this kernel leaves perf to CAP_SYS_ADMIN (%s), and iotap reads process names and stacks through perf; run as root or with CAP_SYS_ADMIN, or set kernel.perf_event_paranoid=2 and give iotap CAP_PERFMON",
			 level, perfmon ? "CAP_PERFMON is not enough" : "which this process lacks");
	else if (level >= 1 && !admin && !perfmon)
		snprintf(buf, size,
			 "perf_event_open refused: kernel.perf_event_paranoid is %d, where perf events on a whole CPU need CAP_PERFMON or CAP_SYS_ADMIN, which this process lacks; run as root, or give iotap CAP_PERFMON",
			 level);
	else if (level >= 0 && !admin && !perfmon)
		snprintf(buf, size,
			 "perf_event_open refused: kernel.perf_event_paranoid is %d, where the raw data of tracepoints needs CAP_PERFMON or CAP_SYS_ADMIN, which this process lacks; run as root, or give iotap CAP_PERFMON",
			 level);
	else
		snprintf(buf, size,
			 "perf_event_open refused (%s) although kernel.perf_event_paranoid %d lets this process use perf: a security policy (SELinux, AppArmor, seccomp) forbids it here",
			 strerror(-err), level);
}
