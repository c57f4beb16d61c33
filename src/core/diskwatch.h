/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_DISKWATCH_H
#define IOTAP_DISKWATCH_H

/*
 * The disk watch: a live session's whole disks, looked at once a second (the
 * host's device_gone). A disk that was there and goes away (a loop device
 * detached, a SCSI disk deleted, a dm table removed) is said in one line with
 * its name, once each time it goes; the tracing goes on for the others. The
 * session owns it; the live source adds it, whose host can tell.
 */
struct session;

/* diskwatch_add - watch s's disks from its start on (once, however often called): 0, or -ENOMEM */
int diskwatch_add(struct session *s);

#endif
