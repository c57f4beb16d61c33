// SPDX-License-Identifier: GPL-2.0-or-later
/* registry.c - the table of tools: dispatch, help, man pages and argv[0] aliases */
#include <string.h>

#include "iotap.h"

extern const struct tool tool_biolatency;
extern const struct tool tool_bitesize;
extern const struct tool tool_seeksize;
extern const struct tool tool_biopattern;
extern const struct tool tool_iosched;
extern const struct tool tool_biostages;
extern const struct tool tool_probe;
extern const struct tool tool_biosnoop;
extern const struct tool tool_biotop;
extern const struct tool tool_cgtop;
extern const struct tool tool_biostacks;
extern const struct tool tool_iostack;
extern const struct tool tool_bioerr;
extern const struct tool tool_nvmelatency;
extern const struct tool tool_scsilatency;
extern const struct tool tool_scsiresult;
extern const struct tool tool_mdflush;
extern const struct tool tool_fileio;
extern const struct tool tool_iostackbreakdown;
extern const struct tool tool_exporter;
extern const struct tool tool_iouring;

const struct tool *const iotap_tools[] = {
	&tool_biolatency,
	&tool_bitesize,
	&tool_seeksize,
	&tool_biopattern,
	&tool_iosched,
	&tool_biostages,
	&tool_probe,
	&tool_biosnoop,
	&tool_biotop,
	&tool_cgtop,
	&tool_biostacks,
	&tool_iostack,
	&tool_bioerr,
	&tool_nvmelatency,
	&tool_scsilatency,
	&tool_scsiresult,
	&tool_mdflush,
	&tool_fileio,
	&tool_iostackbreakdown,
	&tool_exporter,
	&tool_iouring,
	NULL
};

/* tool_find - the tool called name, or NULL */
const struct tool *tool_find(const char *name)
{
	for (const struct tool *const *t = iotap_tools; *t; t++)
		if (!strcmp((*t)->name, name) || ((*t)->alias && !strcmp((*t)->alias, name)))
			return *t;
	return NULL;
}
