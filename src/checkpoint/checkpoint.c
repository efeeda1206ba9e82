#include "checkpoint.h"
#include "h5.h"
#include "../log.h"
#include "../report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Rank 0: removes the *.h5md.tmp a killed run left in dir (a checkpoint
 * that was never completed), one line each. */
static void remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        bool stale = (n > 9 && !strcmp(e->d_name + n - 9, ".h5md.tmp")) ||
                     (n > 7 && !strcmp(e->d_name + n - 7, ".h5.tmp")) ||
                     (n > 8 && !strcmp(e->d_name + n - 8, ".xmf.tmp"));
        if (!stale) continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) == 0)
            log_info("checkpoint: removed %s, an unfinished checkpoint of an earlier run", path);
        else
            log_warning("checkpoint: cannot remove %s: %s", path, strerror(errno));
    }
    closedir(d);
}

int checkpoint_plan_init(struct checkpoint_plan *c, const struct config *cfg, const char *out_dir,
                         MPI_Comm comm, struct sb_msg *m)
{
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->every = (long)cfg_int(cfg, "checkpoint.every");
    c->at_end = cfg_bool(cfg, "checkpoint.at_end");
    c->keep = (int)cfg_int(cfg, "checkpoint.keep");
    const char *fault = cfg_text(cfg, "checkpoint.fault");
    c->fault = !strcmp(fault, "abort-during-write")        ? CHECKPOINT_FAULT_ABORT
               : !strcmp(fault, "write-fails-on-one-rank") ? CHECKPOINT_FAULT_WRITE_ONE
                                                           : CHECKPOINT_FAULT_NONE;
    const char *dir = cfg_text(cfg, "checkpoint.dir");
    if (!dir[0]) dir = out_dir ? out_dir : ".";
    if (snprintf(c->dir, sizeof c->dir, "%s", dir) >= (int)sizeof c->dir)
        return sb_fail(m, SB_EUSAGE, "checkpoint.dir: longer than %zu characters",
                       sizeof c->dir - 1);
    if (c->every == 0 && !c->at_end) return SB_OK;
    int rank, rc = SB_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) rc = report_prepare_dir(c->dir, "checkpoint.dir", &c->made, m);
    if (rank == 0 && rc == SB_OK) remove_stale(c->dir);
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
    if (rc != SB_OK && rank != 0) sb_fail(m, rc, "checkpoint.dir '%s': not usable", c->dir);
    return rc;
}

void checkpoint_plan_free(struct checkpoint_plan *c)
{
    free(c->written);
    c->written = NULL;
    c->nwritten = 0;
}

void checkpoint_plan_abandon(struct checkpoint_plan *c)
{
    report_unmake_dir(&c->made); /* only while empty */
}

bool checkpoint_due(const struct checkpoint_plan *c, long step, long last)
{
    return (c->every > 0 && step % c->every == 0) || (c->at_end && step == last);
}

void checkpoint_path(const struct checkpoint_plan *c, const char *kind, long step, char *path,
                     size_t size)
{
    /* md's are H5MD files; the others plain HDF5 (with an XDMF sidecar) */
    snprintf(path, size, "%s/%s-%08ld.%s", c->dir, kind, step, strcmp(kind, "md") ? "h5" : "h5md");
}

enum checkpoint_fault checkpoint_fault_now(const struct checkpoint_plan *c)
{
    return c->count == 1 ? c->fault : CHECKPOINT_FAULT_NONE;
}

int checkpoint_exists(const char *path, const char *key, const char *accepted, struct sb_msg *m)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sb_fail(m, SB_EUSAGE, "%s = %s: %s; accepted: %s", key, path, strerror(errno),
                       accepted);
    if (!S_ISREG(st.st_mode))
        return sb_fail(m, SB_EUSAGE, "%s = %s: not a regular file; accepted: %s", key, path,
                       accepted);
    if (access(path, R_OK) != 0) /* else HDF5 calls it "not an HDF5 file" */
        return sb_fail(m, SB_EUSAGE, "%s = %s: cannot be read: %s; accepted: %s", key, path,
                       strerror(errno), accepted);
    if (!h5_is_hdf5(path))
        return sb_fail(m, SB_EUSAGE, "%s = %s: not an HDF5 file; accepted: %s", key, path,
                       accepted);
    return SB_OK;
}

int checkpoint_room(const struct checkpoint_plan *c, const char *path, double estimate,
                    struct sb_msg *m)
{
    int rank, rc = SB_OK;
    MPI_Comm_rank(c->comm, &rank);
    if (rank == 0) {
        /* the last file's size where there is one: it knows the overheads */
        double need = c->count > 0 ? c->last_bytes : estimate;
        need = need * 1.1 + 1e6;
        struct statvfs fs;
        if (statvfs(c->dir, &fs) != 0)
            rc = sb_fail(m, SB_ERUNTIME, "checkpoint %s: statvfs of %s failed: %s", path, c->dir,
                         strerror(errno));
        else if ((double)fs.f_bavail * (double)fs.f_frsize < need)
            rc = sb_fail(m, SB_ERUNTIME,
                         "checkpoint %s: needs about %.1f MB, %s has %.1f MB free (statvfs); "
                         "nothing was written and the earlier checkpoints are intact",
                         path, need / 1e6, c->dir, (double)fs.f_bavail * (double)fs.f_frsize / 1e6);
    }
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, c->comm));
    return rc; /* rank 0 says why */
}

bool checkpoint_sidecar(const char *path, char *sidecar, size_t size)
{
    size_t n = strlen(path);
    if (n < 3 || strcmp(path + n - 3, ".h5") || n + 2 > size) return false;
    snprintf(sidecar, size, "%.*s.xmf", (int)(n - 3), path);
    return true;
}

/* fsync of a file or directory by name; -1 with errno on failure. */
static int flush_path(const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* Rank 0: flush, rename, flush the directory, then prune. */
static int commit_on_rank0(struct checkpoint_plan *c, const char *path, double *bytes,
                           struct sb_msg *m)
{
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    struct stat st;
    if (flush_path(tmp, O_RDONLY) != 0 || stat(tmp, &st) != 0)
        return sb_fail(m, SB_ERUNTIME, "checkpoint %s: cannot flush to disk: %s", tmp,
                       strerror(errno));
    if (rename(tmp, path) != 0)
        return sb_fail(m, SB_ERUNTIME, "checkpoint %s: cannot rename to %s: %s", tmp, path,
                       strerror(errno));
    if (flush_path(c->dir, O_RDONLY | O_DIRECTORY) != 0)
        return sb_fail(m, SB_ERUNTIME, "checkpoint.dir %s: cannot flush: %s", c->dir,
                       strerror(errno));
    *bytes = (double)st.st_size;
    c->written =
        sb_realloc(c->written, (size_t)(c->nwritten + 1) * sizeof *c->written, "checkpoint names");
    snprintf(c->written[c->nwritten++], PATH_MAX, "%s", path);
    while (c->keep > 0 && c->nwritten > c->keep) { /* the newest is complete: drop the oldest */
        if (unlink(c->written[0]) != 0 && errno != ENOENT)
            log_warning("checkpoint: cannot remove %s: %s", c->written[0], strerror(errno));
        char sidecar[PATH_MAX + 8];
        if (checkpoint_sidecar(c->written[0], sidecar, sizeof sidecar)) unlink(sidecar);
        memmove(c->written, c->written + 1, (size_t)(--c->nwritten) * sizeof *c->written);
    }
    return SB_OK;
}

int checkpoint_commit(struct checkpoint_plan *c, const char *path, double started, struct sb_msg *m)
{
    int rank, rc = SB_OK;
    double bytes = 0.0;
    MPI_Comm_rank(c->comm, &rank);
    if (rank == 0) rc = commit_on_rank0(c, path, &bytes, m);
    CHECK_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, c->comm));
    if (rc != SB_OK) return rc;
    c->count++;
    CHECK_MPI(MPI_Bcast(&bytes, 1, MPI_DOUBLE, 0, c->comm));
    c->last_bytes = bytes;
    double seconds = MPI_Wtime() - started;
    c->seconds += seconds;
    c->bytes += bytes;
    log_info("checkpoint: %s, %.1f MB in %.3f s (%.0f MB/s)", path, bytes / 1e6, seconds,
             seconds > 0 ? bytes / 1e6 / seconds : 0.0);
    return SB_OK;
}
