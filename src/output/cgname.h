/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CGNAME_H
#define IOTAP_CGNAME_H

/*
 * How a cgroup path ("/a/b/c", as iotap_cgroup_of gives it) is shown: folded
 * into its ancestor at a depth, and the container or unit it is, as the
 * tools that made it name it. Pure string work: nothing is looked up.
 */
#include <stddef.h>

/*
 * cgname_fold - path cut to its first depth components into out ("/a/b/c" at 2:
 * "/a/b"; depth 0 or a shallower path: the path itself)
 */
void cgname_fold(const char *path, unsigned int depth, char *out, size_t len);

/*
 * cgname_container - the container or unit of path's deepest component that
 * names one, into out ("" for none), shortened as its own tool shows it:
 * - Docker (docker-ID.scope, or a 64-hex directory under /docker): 12 hex;
 * - Podman (libpod-ID.scope): 12 hex;
 * - containerd's CRI (cri-containerd-ID.scope) and CRI-O (crio-ID.scope), and a
 *   kubelet with the cgroupfs driver (a 64-hex directory under kubepods): 13 hex,
 *   as crictl shows them;
 * - a systemd machine (machine-NAME.scope under machine.slice): NAME;
 * - a systemd service (NAME.service): NAME.service.
 * Runtimes' monitor scopes (libpod-conmon-, crio-conmon-) are not containers.
 */
void cgname_container(const char *path, char *out, size_t len);

#endif
