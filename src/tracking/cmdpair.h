/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_CMDPAIR_H
#define IOTAP_CMDPAIR_H

/*
 * Device commands below the block layer, paired in user space: NVMe from
 * nvme:nvme_setup_cmd to nvme:nvme_complete_rq by controller, queue and
 * command id; SCSI from scsi:scsi_dispatch_cmd_start to its done, timeout or
 * error event by device and driver tag (in dispatch order per device when
 * the kernel does not trace the tag). nvmelatency, scsilatency and the
 * exporter embed one in their state, so all three time the same commands
 * alike. The pair subscribes to the events itself and calls the tool back
 * once per paired command; the tool keeps the histograms.
 */
#include <stdbool.h>
#include <stdint.h>

#include "iotap.h"
#include "nvme.h"
#include "reqtab.h"
#include "scsi.h"

/*
 * A paired NVMe command: c as its completion decoded it, with the opcode and
 * fctype of its setup; ns from setup to completion. Returns 0 or -errno,
 * which stops the session.
 */
typedef int (*cmdpair_nvme_fn)(struct iotap_ctx *ctx, const struct nvme_cmd *c, uint64_t ns);

struct cmdpair_nvme {
	struct nvme_fmt f_setup, f_done;	/* f_setup names the commands */
	struct reqtab *tab;		/* (ctrl_id << 16 | qid, cid & 0xfff) -> cid, opcode, time */
	const char *disk;		/* only this namespace's commands, or NULL */
	cmdpair_nvme_fn done;
	uint64_t setups;		/* setups seen (of this namespace) */
	uint64_t paired;		/* completions handed to done */
	uint64_t paired_by_tag;		/* of those, completions that carried the bare tag */
	uint64_t unmatched;		/* completions whose setup was not seen */
	uint64_t replaced;		/* setups of a command id still in flight */
	bool said_unpaired;		/* cmdpair_nvme_say said that none paired */
};

/*
 * Subscribe to both events (both must exist: the caller asks
 * iotap_event_available first when they are optional) and start pairing.
 * disk, if not NULL, must live as long as np; admin commands, which name no
 * namespace, are then not seen. 0 or -errno (logged). Release with
 * cmdpair_nvme_release, also after a failure.
 */
int cmdpair_nvme_use(struct cmdpair_nvme *np, struct iotap_ctx *ctx, const char *disk,
		  cmdpair_nvme_fn done);

/*
 * Say what was not timed, so that nothing is dropped silently. Whenever it is
 * called, and once per np: that completions came while none paired (at the end,
 * or once there are enough of them to tell), without -v too. At the end
 * (ctx->final): the commands dropped from the table; with -v what was not paired
 * and whether completions were paired by their bare tag.
 */
void cmdpair_nvme_say(struct cmdpair_nvme *np, struct iotap_ctx *ctx);

/* Free what np holds; np may be zeroed or released already. */
void cmdpair_nvme_release(struct cmdpair_nvme *np);

/* How a SCSI command left the host: completed, timed out, or refused by it. */
enum scsi_end { SCSI_END_DONE, SCSI_END_TIMEOUT, SCSI_END_ERROR };

/* A paired SCSI command: c as its end decoded it, with the opcode of its dispatch. */
typedef int (*cmdpair_scsi_fn)(struct iotap_ctx *ctx, const struct scsi_cmd *c, enum scsi_end end,
			    uint64_t ns);

struct cmdpair_scsi {
	struct scsi_fmt f_start, f_done, f_timeout, f_error;	/* f_start names opcodes */
	struct reqtab *tab;		/* (device, lun << 32 | driver tag) -> opcode, time */
	bool has_dev;			/* only host_no:channel:id:lun */
	uint32_t host_no, channel, id, lun;
	cmdpair_scsi_fn done;
	uint64_t dispatched;		/* dispatches seen (of this device) */
	uint64_t paired;		/* endings handed to done */
	uint64_t unmatched;		/* completions whose dispatch was not seen */
	uint64_t replaced;		/* dispatches of a tag still in flight */
	bool said_unpaired;		/* cmdpair_scsi_say said that none paired */
};

/*
 * Subscribe to dispatch and done (both must exist), and to timeout and error
 * where the kernel has them. Set has_dev and the address before to see one
 * device only. 0 or -errno (logged). Release with cmdpair_scsi_release.
 */
int cmdpair_scsi_use(struct cmdpair_scsi *sp, struct iotap_ctx *ctx, cmdpair_scsi_fn done);

/* As cmdpair_nvme_say, for SCSI commands. */
void cmdpair_scsi_say(struct cmdpair_scsi *sp, struct iotap_ctx *ctx);

/* Free what sp holds; sp may be zeroed or released already. */
void cmdpair_scsi_release(struct cmdpair_scsi *sp);

#endif
