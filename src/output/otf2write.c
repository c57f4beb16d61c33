// SPDX-License-Identifier: GPL-2.0-or-later
/* otf2write.c - an OTF2 archive through libotf2: events per location, definitions at the end */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "array.h"
#include "otf2write.h"

/* The archive's name inside its directory: DIR/traces.otf2, DIR/traces.def, DIR/traces/ (lo2s's). */
#define OTF2W_NAME "traces"
#define OTF2W_PARTIAL ".iotap-partial"

/*
 * Event chunks as large as libotf2's file buffer (OTF2_FILE_BUFFER_SIZE, 4 MiB): each goes to
 * its file in one write, past that buffer, whose failed write (a full disk) libotf2 3.0 frees
 * twice. Smaller writes (the last chunk, the definitions) go through it once, at close.
 */
#define OTF2W_CHUNK (4 * 1024 * 1024)

/* The I/O paradigms, by reference: block requests, and the read and write syscalls. */
enum { OTF2W_PARADIGM_BLOCK, OTF2W_PARADIGM_POSIX };
/* The one attribute: the error an operation failed with. */
#define OTF2W_ATTR_ERROR 0

struct otf2w {
	char *dir, *partial;
	bool made_dir;			/* dir did not exist: removed again unless committed */
	bool made_partial;
	bool committed;
	bool on_error;			/* otf2w_on_error is libotf2's, in place of prev_error */
	OTF2_ErrorCallback prev_error;
	OTF2_Archive *ar;
	OTF2_EvtWriter **evt;		/* by location, NULL until its first event */
	size_t cap_evt;
	OTF2_AttributeList *attrs;	/* an event's, emptied by each write */
	struct otf2_defs defs;
	OTF2_GlobalDefWriter *gdw;
	OTF2_StringRef nr_strings;
	OTF2_SystemTreeNodeRef nr_nodes, disks_node;	/* node 0: the machine */
	OTF2_ErrorCode code;		/* the first failure writing definitions */
	char why[256];
};

static OTF2_ErrorCode otf2w_on_error(void *arg, const char *file, uint64_t line,
				     const char *function, OTF2_ErrorCode code, const char *fmt,
				     va_list va) __attribute__((format(printf, 6, 0)));

/* otf2w_on_error - libotf2's error callback: the first message kept for otf2w_why, nothing printed */
static OTF2_ErrorCode otf2w_on_error(void *arg, const char *file, uint64_t line,
				     const char *function, OTF2_ErrorCode code, const char *fmt,
				     va_list va)
{
	struct otf2w *w = arg;
	int n;

	/* The first is the cause ("No space left on device: POSIX: FILE"), the rest its echoes. */
	if (w->why[0])
		return code;
	n = snprintf(w->why, sizeof(w->why), "%s: ", OTF2_Error_GetDescription(code));
	if (n >= 0 && (size_t)n < sizeof(w->why))
		vsnprintf(w->why + n, sizeof(w->why) - n, fmt, va);
	return code;
}

/* otf2w_fail - a libotf2 call returned code: -EIO, its description kept unless the callback said more */
static int otf2w_fail(struct otf2w *w, OTF2_ErrorCode code, const char *what)
{
	if (!w->why[0])
		snprintf(w->why, sizeof(w->why), "%s: %s", what, OTF2_Error_GetDescription(code));
	return -EIO;
}

/* otf2w_pre_flush - a chunk is full: write it out */
static OTF2_FlushType otf2w_pre_flush(void *arg, OTF2_FileType type, OTF2_LocationRef loc,
				      void *caller, bool final)
{
	return OTF2_FLUSH;
}

/* No BufferFlush records (post_flush NULL): the flushes are iotap's, not the traced program's. */
static const OTF2_FlushCallbacks otf2w_flush = { .otf2_pre_flush = otf2w_pre_flush };

/* otf2w_rm - nftw: remove one entry, deepest first */
static int otf2w_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/*
 * otf2w_dir_check - dir absent (0, *exists false) or an empty directory of the caller's
 * (0, true); why said. Not a symbolic link, nor another user's directory: the archive is
 * moved into dir by name, and one that someone else can swap for a link (in /tmp) would
 * take it elsewhere.
 */
static int otf2w_dir_check(const char *dir, bool *exists, char *why, size_t whylen)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int ret = 0, fd;

	*exists = false;
	if (lstat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		return ret;
	}
	*exists = true;
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, whylen, "it is a symbolic link: give the directory itself");
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "it exists and is not a directory");
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, whylen, "it is another user's directory: give a new one, or one of yours");
		return -EPERM;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		ret = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(why, whylen, "it exists and is not empty: give a new or an empty "
				 "directory");
			ret = -EEXIST;
			break;
		}
	closedir(d);
	return ret;
}

/* otf2w_dirs_make - dir when absent, and the partial directory in it; why said */
static int otf2w_dirs_make(struct otf2w *w, char *why, size_t whylen)
{
	bool exists;
	int ret = otf2w_dir_check(w->dir, &exists, why, whylen);

	if (ret)
		return ret;
	if (!exists) {
		if (mkdir(w->dir, 0777)) {
			ret = -errno;
			snprintf(why, whylen, "%s", strerror(errno));
			return ret;
		}
		w->made_dir = true;
	}
	if (mkdir(w->partial, 0777)) {
		ret = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		return ret;
	}
	w->made_partial = true;
	return 0;
}

/* otf2w_archive_open - the archive in the partial directory, its event files open */
static int otf2w_archive_open(struct otf2w *w)
{
	OTF2_ErrorCode code;

	w->ar = OTF2_Archive_Open(w->partial, OTF2W_NAME, OTF2_FILEMODE_WRITE,
				  OTF2W_CHUNK, OTF2W_CHUNK,
				  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!w->ar)
		return otf2w_fail(w, OTF2_ERROR_INVALID, "cannot open the archive");
	code = OTF2_Archive_SetFlushCallbacks(w->ar, &otf2w_flush, w);
	if (code == OTF2_SUCCESS)
		code = OTF2_Archive_SetSerialCollectiveCallbacks(w->ar);
	if (code == OTF2_SUCCESS)
		code = OTF2_Archive_SetCreator(w->ar, "iotap " PACKAGE_VERSION);
	if (code == OTF2_SUCCESS)
		code = OTF2_Archive_OpenEvtFiles(w->ar);
	if (code != OTF2_SUCCESS)
		return otf2w_fail(w, code, "cannot open the archive");
	return 0;
}

/* otf2w_create - a new archive for dir, in dir/.iotap-partial until committed */
int otf2w_create(struct otf2w **out, const char *dir, char *why, size_t whylen)
{
	struct otf2w *w = calloc(1, sizeof(*w));
	size_t len = strlen(dir);
	int ret;

	*out = NULL;
	why[0] = 0;
	if (!w || otf2_defs_init(&w->defs)) {
		free(w);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	while (len > 1 && dir[len - 1] == '/')
		len--;
	w->attrs = OTF2_AttributeList_New();
	w->dir = strndup(dir, len);
	if (w->dir && asprintf(&w->partial, "%s/" OTF2W_PARTIAL, w->dir) < 0)
		w->partial = NULL;
	if (!w->attrs || !w->dir || !w->partial) {
		otf2w_free(w);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	w->prev_error = OTF2_Error_RegisterCallback(otf2w_on_error, w);
	w->on_error = true;
	ret = otf2w_dirs_make(w, why, whylen);
	if (!ret) {
		ret = otf2w_archive_open(w);
		if (ret)
			snprintf(why, whylen, "%s", w->why);
	}
	if (ret) {
		otf2w_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

/* otf2w_close - close what is open of the archive (its writers with it) */
static void otf2w_close(struct otf2w *w)
{
	if (w->ar)
		OTF2_Archive_Close(w->ar);
	w->ar = NULL;
	w->gdw = NULL;
	if (w->evt)
		memset(w->evt, 0, w->cap_evt * sizeof(*w->evt));
}

/* otf2w_free - close, and remove what was not committed */
void otf2w_free(struct otf2w *w)
{
	if (!w)
		return;
	otf2w_close(w);
	if (!w->committed && w->made_partial) {
		nftw(w->partial, otf2w_rm, 16, FTW_DEPTH | FTW_PHYS);
		if (w->made_dir)
			rmdir(w->dir);
	}
	/* Its user data is w: never left behind it. */
	if (w->on_error)
		OTF2_Error_RegisterCallback(w->prev_error, NULL);
	otf2_defs_release(&w->defs);
	if (w->attrs)
		OTF2_AttributeList_Delete(w->attrs);
	free(w->evt);
	free(w->partial);
	free(w->dir);
	free(w);
}

/* otf2w_defs - the definitions the events use */
struct otf2_defs *otf2w_defs(struct otf2w *w)
{
	return &w->defs;
}

/* otf2w_why - what failed last */
const char *otf2w_why(const struct otf2w *w)
{
	return w->why;
}

/* otf2w_evt - the event writer of location loc, opened on its first event; NULL after otf2w_fail */
static OTF2_EvtWriter *otf2w_evt(struct otf2w *w, uint32_t loc)
{
	size_t old = w->cap_evt;

	if (loc >= w->cap_evt) {
		if (array_reserve(&w->evt, &w->cap_evt, (size_t)loc + 1, sizeof(*w->evt), 64)) {
			snprintf(w->why, sizeof(w->why), "out of memory");
			return NULL;
		}
		memset(w->evt + old, 0, (w->cap_evt - old) * sizeof(*w->evt));
	}
	if (!w->evt[loc]) {
		w->evt[loc] = OTF2_Archive_GetEvtWriter(w->ar, loc);
		if (!w->evt[loc])
			otf2w_fail(w, OTF2_ERROR_INVALID, "cannot open a location's event file");
	}
	return w->evt[loc];
}

/* otf2w_begin - IoOperationBegin on loc's writer */
int otf2w_begin(struct otf2w *w, uint32_t loc, uint32_t h, uint64_t t, enum otf2w_mode mode,
		bool nonblocking, uint64_t bytes, uint64_t *id)
{
	OTF2_EvtWriter *evt = otf2w_evt(w, loc);
	OTF2_ErrorCode code;

	if (!evt)
		return -EIO;
	if (otf2_defs_op_open(&w->defs, loc, h, id))
		return -ENOMEM;
	code = OTF2_EvtWriter_IoOperationBegin(evt, NULL, otf2_defs_time(&w->defs, loc, t), h,
					       mode == OTF2W_READ ? OTF2_IO_OPERATION_MODE_READ :
					       OTF2_IO_OPERATION_MODE_WRITE,
					       nonblocking ? OTF2_IO_OPERATION_FLAG_NON_BLOCKING :
					       OTF2_IO_OPERATION_FLAG_NONE, bytes, *id);
	return code == OTF2_SUCCESS ? 0 : otf2w_fail(w, code, "cannot write an event");
}

/* otf2w_issued - IoOperationIssued of open operation id */
int otf2w_issued(struct otf2w *w, uint64_t id, uint64_t t)
{
	const struct otf2_op *op = otf2_defs_op(&w->defs, id);
	OTF2_ErrorCode code;

	if (!op)
		return -ENOENT;
	code = OTF2_EvtWriter_IoOperationIssued(w->evt[op->loc], NULL,
						otf2_defs_time(&w->defs, op->loc, t), op->handle, id);
	return code == OTF2_SUCCESS ? 0 : otf2w_fail(w, code, "cannot write an event");
}

/* otf2w_end - IoOperationComplete (complete) or IoOperationCancelled of id, which then ends */
static int otf2w_end(struct otf2w *w, uint64_t id, uint64_t t, bool complete, uint64_t bytes,
		     int error)
{
	const struct otf2_op *op = otf2_defs_op(&w->defs, id);
	OTF2_AttributeList *attrs = NULL;
	OTF2_EvtWriter *evt;
	OTF2_ErrorCode code;

	if (!op)
		return -ENOENT;
	evt = w->evt[op->loc];
	t = otf2_defs_time(&w->defs, op->loc, t);
	if (error) {
		code = OTF2_AttributeList_AddInt32(w->attrs, OTF2W_ATTR_ERROR, error);
		if (code != OTF2_SUCCESS)
			return otf2w_fail(w, code, "cannot write an event");
		attrs = w->attrs;
	}
	if (complete)
		code = OTF2_EvtWriter_IoOperationComplete(evt, attrs, t, op->handle, bytes, id);
	else
		code = OTF2_EvtWriter_IoOperationCancelled(evt, NULL, t, op->handle, id);
	otf2_defs_op_close(&w->defs, id);
	return code == OTF2_SUCCESS ? 0 : otf2w_fail(w, code, "cannot write an event");
}

/* otf2w_complete - IoOperationComplete of id with the bytes it moved, and its error if it failed */
int otf2w_complete(struct otf2w *w, uint64_t id, uint64_t t, uint64_t bytes, int error)
{
	return otf2w_end(w, id, t, true, bytes, error);
}

/* otf2w_cancel - IoOperationCancelled of id */
int otf2w_cancel(struct otf2w *w, uint64_t id, uint64_t t)
{
	return otf2w_end(w, id, t, false, 0, 0);
}

/* otf2w_str - a String definition of s: its reference (a failure kept in w->code) */
static OTF2_StringRef otf2w_str(struct otf2w *w, const char *s)
{
	OTF2_StringRef ref = w->nr_strings++;
	OTF2_ErrorCode code = OTF2_GlobalDefWriter_WriteString(w->gdw, ref, s);

	if (code != OTF2_SUCCESS && w->code == OTF2_SUCCESS)
		w->code = code;
	return ref;
}

/* otf2w_check - keep the first failure of a definition */
static void otf2w_check(struct otf2w *w, OTF2_ErrorCode code)
{
	if (code != OTF2_SUCCESS && w->code == OTF2_SUCCESS)
		w->code = code;
}

/* otf2w_prop - a string property of the machine's system tree node */
static void otf2w_prop(struct otf2w *w, const char *name, const char *value)
{
	OTF2_AttributeValue v;

	if (!value || !value[0])
		return;
	v.stringRef = otf2w_str(w, value);
	otf2w_check(w, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(w->gdw, 0,
					otf2w_str(w, name), OTF2_TYPE_STRING, v));
}

/* otf2w_node - a SystemTreeNode definition, the next reference */
static OTF2_SystemTreeNodeRef otf2w_node(struct otf2w *w, const char *name, OTF2_StringRef cls,
					 OTF2_SystemTreeNodeRef parent)
{
	OTF2_SystemTreeNodeRef ref = w->nr_nodes++;

	otf2w_check(w, OTF2_GlobalDefWriter_WriteSystemTreeNode(w->gdw, ref, otf2w_str(w, name), cls,
								parent));
	return ref;
}

/*
 * otf2w_defs_machine - the clock, the paradigms and the machine: system tree node 0, with
 * uname's names as properties, and a node for the block devices when there are any
 */
static void otf2w_defs_machine(struct otf2w *w, const struct otf2w_meta *m, uint64_t t0,
			       uint64_t t1)
{
	struct otf2_defs *d = &w->defs;

#if OTF2_VERSION_MAJOR >= 3
	otf2w_check(w, OTF2_GlobalDefWriter_WriteClockProperties(w->gdw, 1000000000, t0, t1 - t0,
			m->have_wall ? (uint64_t)((int64_t)t0 + m->wall_offset) :
			OTF2_UNDEFINED_TIMESTAMP));
#else
	otf2w_check(w, OTF2_GlobalDefWriter_WriteClockProperties(w->gdw, 1000000000, t0, t1 - t0));
#endif
	otf2w_check(w, OTF2_GlobalDefWriter_WriteIoParadigm(w->gdw, OTF2W_PARADIGM_BLOCK,
			otf2w_str(w, "block_io"), otf2w_str(w, "block layer I/O"),
			OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL));
	otf2w_check(w, OTF2_GlobalDefWriter_WriteIoParadigm(w->gdw, OTF2W_PARADIGM_POSIX,
			otf2w_str(w, "POSIX"), otf2w_str(w, "POSIX I/O"),
			OTF2_IO_PARADIGM_CLASS_PARALLEL, OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL));
	otf2w_node(w, m->host[0] ? m->host : "?", otf2w_str(w, "machine"),
		   OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	otf2w_check(w, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(w->gdw, 0,
			OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
	otf2w_check(w, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(w->gdw, 0,
			OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
	otf2w_prop(w, "IOTAP::UNAME::SYSNAME", m->sysname);
	otf2w_prop(w, "IOTAP::UNAME::NODENAME", m->host);
	otf2w_prop(w, "IOTAP::UNAME::RELEASE", m->release);
	otf2w_prop(w, "IOTAP::UNAME::VERSION", m->version);
	otf2w_prop(w, "IOTAP::UNAME::MACHINE", m->arch);
	otf2w_check(w, OTF2_GlobalDefWriter_WriteAttribute(w->gdw, OTF2W_ATTR_ERROR,
			otf2w_str(w, "error"), otf2w_str(w, "the error the operation failed with, -errno"),
			OTF2_TYPE_INT32));
	for (size_t i = 0; i < d->nr_handles; i++)
		if (d->handles[i].kind == OTF2_HANDLE_DISK) {
			w->disks_node = otf2w_node(w, "block devices", otf2w_str(w, "hardware"), 0);
			break;
		}
}

/* otf2w_defs_tasks - a system tree node and a location group per process, a location per thread */
static void otf2w_defs_tasks(struct otf2w *w)
{
	struct otf2_defs *d = &w->defs;
	OTF2_StringRef cls = otf2w_str(w, "process");
	OTF2_SystemTreeNodeRef node;
	char name[64];

	for (size_t i = 0; i < d->nr_procs; i++) {
		const struct otf2_proc *p = &d->procs[i];

		if (p->comm[0])
			snprintf(name, sizeof(name), "%s", p->comm);
		else
			snprintf(name, sizeof(name), "process %u", p->pid);
		node = otf2w_node(w, name, cls, 0);
		snprintf(name + strlen(name), sizeof(name) - strlen(name), " (%u)", p->pid);
#if OTF2_VERSION_MAJOR >= 3
		otf2w_check(w, OTF2_GlobalDefWriter_WriteLocationGroup(w->gdw, i, otf2w_str(w, name),
				OTF2_LOCATION_GROUP_TYPE_PROCESS, node, OTF2_UNDEFINED_LOCATION_GROUP));
#else
		otf2w_check(w, OTF2_GlobalDefWriter_WriteLocationGroup(w->gdw, i, otf2w_str(w, name),
				OTF2_LOCATION_GROUP_TYPE_PROCESS, node));
#endif
	}
	for (size_t i = 0; i < d->nr_locs; i++) {
		snprintf(name, sizeof(name), "thread %u", d->locs[i].tid);
		otf2w_check(w, OTF2_GlobalDefWriter_WriteLocation(w->gdw, i, otf2w_str(w, name),
				OTF2_LOCATION_TYPE_CPU_THREAD, d->locs[i].events, d->locs[i].proc));
	}
}

/*
 * otf2w_defs_handles - per handle a file (a disk's with a system tree node of its own under
 * the block devices, a file's on the machine) and a pre-created I/O handle
 */
static void otf2w_defs_handles(struct otf2w *w)
{
	struct otf2_defs *d = &w->defs;
	OTF2_StringRef cls = otf2w_str(w, "disk");

	for (size_t i = 0; i < d->nr_handles; i++) {
		const struct otf2_handle *h = &d->handles[i];
		OTF2_SystemTreeNodeRef scope = 0;
		OTF2_StringRef name;

		if (h->kind == OTF2_HANDLE_DISK)
			scope = otf2w_node(w, h->name, cls, w->disks_node);
		name = otf2w_str(w, h->name);
		otf2w_check(w, OTF2_GlobalDefWriter_WriteIoRegularFile(w->gdw, i, name, scope));
		otf2w_check(w, OTF2_GlobalDefWriter_WriteIoHandle(w->gdw, i, name, i,
				h->kind == OTF2_HANDLE_DISK ? OTF2W_PARADIGM_BLOCK : OTF2W_PARADIGM_POSIX,
				OTF2_IO_HANDLE_FLAG_PRE_CREATED, OTF2_UNDEFINED_COMM,
				OTF2_UNDEFINED_IO_HANDLE));
		otf2w_check(w, OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(w->gdw, i,
				OTF2_IO_ACCESS_MODE_READ_WRITE, OTF2_IO_STATUS_FLAG_NONE));
	}
}

/* otf2w_cancel_open - the operations still open end at the end of the trace, cancelled */
static int otf2w_cancel_open(struct otf2w *w, uint64_t t_end, uint64_t *cancelled)
{
	int ret;

	*cancelled = 0;
	for (size_t i = 0; i < w->defs.nr_ops && w->defs.nr_open; i++) {
		if (!w->defs.ops[i].open)
			continue;
		ret = otf2w_cancel(w, i, t_end);
		if (ret)
			return ret;
		(*cancelled)++;
	}
	return 0;
}

/* otf2w_evt_close - every location's event writer closed, then the event files */
static int otf2w_evt_close(struct otf2w *w)
{
	OTF2_ErrorCode code = OTF2_SUCCESS;

	for (size_t i = 0; i < w->cap_evt; i++) {
		if (w->evt[i] && code == OTF2_SUCCESS)
			code = OTF2_Archive_CloseEvtWriter(w->ar, w->evt[i]);
		w->evt[i] = NULL;
	}
	if (code == OTF2_SUCCESS)
		code = OTF2_Archive_CloseEvtFiles(w->ar);
	return code == OTF2_SUCCESS ? 0 : otf2w_fail(w, code, "cannot close the event files");
}

/* otf2w_local_defs - an empty local definition file per location: the references are global */
static int otf2w_local_defs(struct otf2w *w)
{
	OTF2_ErrorCode code = OTF2_Archive_OpenDefFiles(w->ar);

	for (size_t i = 0; i < w->defs.nr_locs && code == OTF2_SUCCESS; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->ar, i);

		code = dw ? OTF2_Archive_CloseDefWriter(w->ar, dw) : OTF2_ERROR_INVALID;
	}
	if (code == OTF2_SUCCESS)
		code = OTF2_Archive_CloseDefFiles(w->ar);
	return code == OTF2_SUCCESS ? 0 : otf2w_fail(w, code, "cannot write the local definitions");
}

/* otf2w_finish - cancel what is open, write the definitions, close the archive */
int otf2w_finish(struct otf2w *w, const struct otf2w_meta *m, uint64_t *cancelled)
{
	struct otf2_defs *d = &w->defs;
	uint64_t t0, t1;
	OTF2_ErrorCode code;
	int ret;

	t0 = d->have_time && d->t_first < m->t_start ? d->t_first : m->t_start;
	t1 = m->t_end > t0 ? m->t_end : t0;
	ret = otf2w_cancel_open(w, t1, cancelled);
	if (ret)
		return ret;
	if (d->have_time && d->t_last > t1)
		t1 = d->t_last;
	ret = otf2w_evt_close(w);
	if (!ret)
		ret = otf2w_local_defs(w);
	if (ret)
		return ret;
	if (m->host[0])
		OTF2_Archive_SetMachineName(w->ar, m->host);
	if (m->description && m->description[0])
		OTF2_Archive_SetDescription(w->ar, m->description);
	w->gdw = OTF2_Archive_GetGlobalDefWriter(w->ar);
	if (!w->gdw)
		return otf2w_fail(w, OTF2_ERROR_INVALID, "cannot write the definitions");
	w->code = OTF2_SUCCESS;
	otf2w_defs_machine(w, m, t0, t1);
	otf2w_defs_tasks(w);
	otf2w_defs_handles(w);
	if (w->code != OTF2_SUCCESS)
		return otf2w_fail(w, w->code, "cannot write the definitions");
	code = OTF2_Archive_Close(w->ar);
	w->ar = NULL;
	w->gdw = NULL;
	return code == OTF2_SUCCESS ? 0 : otf2w_fail(w, code, "cannot close the archive");
}

/* otf2w_move - one entry of the partial directory into dir */
static int otf2w_move(struct otf2w *w, const char *name)
{
	char from[4096], to[4096];
	int ret;

	snprintf(from, sizeof(from), "%s/%s", w->partial, name);
	snprintf(to, sizeof(to), "%s/%s", w->dir, name);
	if (!rename(from, to))
		return 0;
	ret = -errno;
	snprintf(w->why, sizeof(w->why), "cannot move %s into place: %s", name, strerror(errno));
	return ret;
}

/* otf2w_commit - the event and definition files into dir, the anchor file last */
int otf2w_commit(struct otf2w *w)
{
	int ret = otf2w_move(w, OTF2W_NAME);

	if (!ret)
		ret = otf2w_move(w, OTF2W_NAME ".def");
	if (!ret)
		ret = otf2w_move(w, OTF2W_NAME ".otf2");
	if (ret) {
		/* What was moved goes with the rest: no part of an archive is left in dir. */
		char path[4096];

		snprintf(path, sizeof(path), "%s/" OTF2W_NAME, w->dir);
		nftw(path, otf2w_rm, 16, FTW_DEPTH | FTW_PHYS);
		snprintf(path, sizeof(path), "%s/" OTF2W_NAME ".def", w->dir);
		remove(path);
		return ret;
	}
	w->committed = true;
	rmdir(w->partial);
	return 0;
}
