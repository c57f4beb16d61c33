// SPDX-License-Identifier: GPL-2.0-or-later
/* exporter-cmds.c - the exporter's NVMe and SCSI command metrics: paired, labelled, forgotten */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "blkmetrics.h"
#include "cmdpair.h"
#include "exporter-local.h"
#include "shared.h"

/* exporter_on_nvme - a paired NVMe command: by namespace, admin ones by controller */
static int exporter_on_nvme(struct iotap_ctx *ctx, const struct nvme_cmd *c, uint64_t ns)
{
	char dev[32];

	if (c->qid || c->disk[0])
		snprintf(dev, sizeof(dev), "%s", c->disk);
	else
		snprintf(dev, sizeof(dev), "nvme%d", c->ctrl_id);
	return blkmetrics_command(&((struct exporter_state *)ctx->state)->m, false, dev,
				  blkmetrics_nvme_op(c), ns);
}

/* exporter_on_scsi - a completed SCSI command (timeouts and refusals are not timed) */
static int exporter_on_scsi(struct iotap_ctx *ctx, const struct scsi_cmd *c, enum scsi_end end,
			    uint64_t ns)
{
	char dev[32];

	if (end != SCSI_END_DONE)
		return 0;
	snprintf(dev, sizeof(dev), "%u:%u:%u:%u", c->host_no, c->channel, c->id, c->lun);
	return blkmetrics_command(&((struct exporter_state *)ctx->state)->m, true, dev,
				  blkmetrics_scsi_op(c->opcode), ns);
}

/* exporter_cmd_gone - whether a command device has gone from the host */
static bool exporter_cmd_gone(void *arg, bool scsi, bool admin, const char *dev)
{
	return iotap_device_gone(arg, scsi ? IOTAP_DEV_SCSI : admin ? IOTAP_DEV_NVME : IOTAP_DEV_DISK,
				 dev) > 0;
}

/* exporter_cmds_forget - drop the command series of devices that have gone (exporter-local.h) */
void exporter_cmds_forget(struct iotap_ctx *ctx)
{
	struct exporter_state *st = ctx->state;

	blkmetrics_forget_cmds(&st->m, exporter_cmd_gone, ctx);
}

/*
 * exporter_commands - NVMe and SCSI command metrics where the kernel traces them;
 * with --disk, only that NVMe namespace's (exporter-local.h)
 */
int exporter_commands(struct iotap_ctx *ctx)
{
	struct exporter_params *p = ctx->params;
	struct exporter_state *st = ctx->state;
	const char *disk = NULL;
	bool nvme = iotap_event_available(ctx, "nvme", "nvme_setup_cmd") &&
		    iotap_event_available(ctx, "nvme", "nvme_complete_rq");
	bool scsi = iotap_event_available(ctx, "scsi", "scsi_dispatch_cmd_start") &&
		    iotap_event_available(ctx, "scsi", "scsi_dispatch_cmd_done");
	uint32_t dev, whole;
	uint64_t start, nr;
	int ret = 0;

	if (!nvme || !scsi)
		iotap_info(ctx, "no %s%s%s events in this kernel: no such command metrics",
			   nvme ? "" : "nvme:nvme_setup_cmd/nvme_complete_rq",
			   !nvme && !scsi ? " or " : "",
			   scsi ? "" : "scsi:scsi_dispatch_cmd_start/done");
	if (p->disk) {
		/* The command events name NVMe namespaces, never partitions nor SCSI disks. */
		scsi = false;
		if (iotap_disk_resolve(ctx, p->disk, &dev))
			return -ENODEV;
		if (iotap_disk_partition(ctx, dev, &whole, &start, &nr) == 0)
			dev = whole;
		disk = iotap_disk_name(ctx, dev);
		nvme = nvme && !strncmp(disk, "nvme", 4);
	}
	if (nvme)
		ret = cmdpair_nvme_use(&st->nvme, ctx, disk, exporter_on_nvme);
	if (!ret && scsi)
		ret = cmdpair_scsi_use(&st->scsi, ctx, exporter_on_scsi);
	return ret;
}
