/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_RESTRICT_H
#define IOTAP_RESTRICT_H

/*
 * What the kernel lets this process trace, asked before tracing so that a
 * refusal is told in one line that says what to change: kernel lockdown,
 * kernel.perf_event_paranoid, the process's capabilities. Nothing here
 * changes the system (securityfs is read where it is mounted, never mounted).
 */
#include <stdbool.h>
#include <stddef.h>

#define LOCKDOWN_FILE "/sys/kernel/security/lockdown"
#define PERF_PARANOID_FILE "/proc/sys/kernel/perf_event_paranoid"

enum lockdown_mode {
	LOCKDOWN_NONE,
	LOCKDOWN_INTEGRITY,
	LOCKDOWN_CONFIDENTIALITY,
};

/*
 * lockdown_parse - the mode in a lockdown file's text ("none [integrity] confidentiality"): 0,
 * -EINVAL without one, or -ENOTSUP for a mode this iotap does not know
 */
int lockdown_parse(const char *text, enum lockdown_mode *mode);
/*
 * lockdown_read - the kernel's lockdown mode: 0, -errno reading it (-ENOENT: it cannot say,
 * no lockdown LSM or securityfs not mounted), or lockdown_parse's errors
 */
int lockdown_read(enum lockdown_mode *mode);
/* lockdown_name - the kernel's word for mode */
const char *lockdown_name(enum lockdown_mode mode);
/* perf_paranoid_read - kernel.perf_event_paranoid: 0, or -errno (-EINVAL: not a number) */
int perf_paranoid_read(int *level);
bool cap_effective(int cap);
/*
 * perf_probe - open and close a dummy side-band event on one CPU, as every live run does
 * first: 0, or -errno (the kernel's refusal)
 */
int perf_probe(void);
void perf_refusal_explain(int err, char *buf, size_t size);

#endif
