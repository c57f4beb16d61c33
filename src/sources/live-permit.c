// SPDX-License-Identifier: GPL-2.0-or-later
/* live-permit.c - whether the kernel lets this process trace, asked before anything is set up */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live-local.h"
#include "log.h"
#include "restrict.h"
#include "tfs.h"

/* live_tracefs_readable - whether this process may read tracefs at dir; says why not */
static int live_tracefs_readable(const char *dir)
{
	struct stat st;

	if (!faccessat(AT_FDCWD, dir, R_OK | X_OK, AT_EACCESS))
		return 0;
	if (errno != EACCES || stat(dir, &st)) {
		log_msg(LOG_ERR, "cannot read tracefs at %s: %s", dir, strerror(errno));
		return -errno;
	}
	log_msg(LOG_ERR, "tracefs at %s (mode %04o, owner uid %u, group %u) is closed to uid %u: run as root, or give iotap CAP_DAC_OVERRIDE (with CAP_PERFMON for perf)",
		dir, st.st_mode & 07777, st.st_uid, st.st_gid, geteuid());
	return -EACCES;
}

/* live_perf_permitted - whether perf events are open to this process; said in one line (live-local.h) */
int live_perf_permitted(void)
{
	char why[512];
	int ret = perf_probe();

	if (ret) {
		perf_refusal_explain(ret, why, sizeof(why));
		log_msg(LOG_ERR, "%s", why);
	}
	return ret;
}

/* live_tracefs_permitted - lockdown, then tracefs mounted and readable; said in one line (live-local.h) */
int live_tracefs_permitted(void)
{
	enum lockdown_mode mode;
	const char *dir;
	int ret;

	if (!lockdown_read(&mode) && mode == LOCKDOWN_CONFIDENTIALITY) {
		log_msg(LOG_ERR, "kernel lockdown is '%s': the kernel refuses tracefs to every user, root included, and iotap traces through it; boot with lockdown=integrity or none to trace here (reports of recordings still work)",
			lockdown_name(mode));
		return -EPERM;
	}
	ret = tfs_dir_get(&dir);
	if (ret == -EPERM) {
		log_msg(LOG_ERR, "tracefs is not mounted and this process may not mount it (that needs CAP_SYS_ADMIN); as root: mount -t tracefs nodev /sys/kernel/tracing");
		return ret;
	}
	if (ret) {
		log_msg(LOG_ERR, "tracefs is not mounted and mounting it at /sys/kernel/tracing failed: %s; as root: mount -t tracefs nodev /sys/kernel/tracing",
			strerror(-ret));
		return ret;
	}
	return live_tracefs_readable(dir);
}

/*
 * live_permitted - whether the kernel lets this process trace, asked in the
 * order of what a run needs, before anything is set up (live.h)
 */
int live_permitted(void)
{
	int ret = live_tracefs_permitted();

	return ret ? ret : live_perf_permitted();
}
