#include "trajectory.h"
#include "../log.h"
#include "../report.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One particle on its way to the rank that writes its id's row. */
struct row {
    int64_t id;
    double x[3], v[3], f[3];
};

/* The first id of rank r's block: ceil(N r / P), so that the owner of id
 * i is floor(i P / N). */
static hsize_t block_first(long long n, int r, int p)
{
    return (hsize_t)((n * (long long)r + p - 1) / p);
}

static int owner(int64_t id, long long n, int p)
{
    return (int)((long long)id * p / n);
}

/* The element NAME with a series `value` of `item` extents whose step and
 * time are position's (hard links; H5MD 1.1 allows it for elements sampled
 * together and asks it of the box). */
static int linked_element(struct md_trajectory *t, hid_t position, hid_t loc, const char *name,
                          int rank, const hsize_t *item, hsize_t chunk, const char *unit,
                          hid_t *value)
{
    hid_t element = -1;
    int rc = h5_group(&t->file, loc, name, &element);
    if (rc == SB_OK &&
        H5Lcreate_hard(position, "step", element, "step", H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = h5_error(&t->file, "a hard link to position/step");
    if (rc == SB_OK &&
        H5Lcreate_hard(position, "time", element, "time", H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = h5_error(&t->file, "a hard link to position/time");
    if (rc == SB_OK)
        rc = h5_series(&t->file, element, "value", H5T_NATIVE_DOUBLE, rank, item, chunk, value);
    if (rc == SB_OK && unit) rc = h5_attr_vltext(&t->file, *value, "unit", unit);
    h5_close_group(element);
    return rc;
}

/* The file's structure, no frames yet. */
static int create_layout(struct md_trajectory *t, const struct md_state_info *info)
{
    static const char *const periodic[3] = {"periodic", "periodic", "periodic"};
    const int64_t three = 3;
    const hsize_t vec[2] = {(hsize_t)t->natoms, 3}, box[2] = {3, 3};
    const hsize_t share = (hsize_t)(t->natoms / info->topo->nranks + 1);
    const hsize_t chunk = share < 4096 ? 4096 : share > 65536 ? 65536 : share;
    hid_t particles = -1, group = -1, position = -1, boxg = -1;
    struct h5_file *f = &t->file;
    int rc = md_write_h5md_header(f, t->units);
    if (rc == SB_OK) rc = h5_group(f, f->id, "particles", &particles);
    if (rc == SB_OK) rc = h5_group(f, particles, "trajectory", &group);
    if (rc == SB_OK) rc = h5_group(f, group, "position", &position);
    if (rc == SB_OK) rc = h5_series(f, position, "step", H5T_NATIVE_INT64, 1, NULL, 1024, &t->step);
    if (rc == SB_OK)
        rc = h5_series(f, position, "time", H5T_NATIVE_DOUBLE, 1, NULL, 1024, &t->time);
    if (rc == SB_OK && t->units) rc = h5_attr_vltext(f, t->time, "unit", md_time_unit);
    if (rc == SB_OK)
        rc = h5_series(f, position, "value", H5T_NATIVE_DOUBLE, 3, vec, chunk, &t->position);
    if (rc == SB_OK && t->units) rc = h5_attr_vltext(f, t->position, "unit", md_length_unit);
    if (rc == SB_OK) rc = h5_group(f, group, "box", &boxg);
    if (rc == SB_OK) rc = h5_attr_ints(f, boxg, "dimension", 0, &three);
    if (rc == SB_OK) rc = h5_attr_texts(f, boxg, "boundary", 3, periodic);
    if (rc == SB_OK)
        rc = linked_element(t, position, boxg, "edges", 3, box, 3, t->units ? md_length_unit : NULL,
                            &t->edges);
    if (rc == SB_OK && t->velocities)
        rc = linked_element(t, position, group, "velocity", 3, vec, chunk,
                            t->units ? md_velocity_unit : NULL, &t->velocity);
    if (rc == SB_OK && t->forces)
        rc = linked_element(t, position, group, "force", 3, vec, chunk,
                            t->units ? md_force_unit : NULL, &t->force);
    h5_close_group(boxg);
    h5_close_group(position);
    h5_close_group(group);
    h5_close_group(particles);
    return rc;
}

int md_trajectory_open(struct md_trajectory *t, const struct config *cfg, const char *out_dir,
                       const struct md_state_info *info, long long natoms, struct sb_msg *m)
{
    memset(t, 0, sizeof *t);
    t->position = t->velocity = t->force = t->step = t->time = t->edges = -1;
    t->file.id = -1;
    t->every = cfg_int(cfg, "trajectory.every");
    if (t->every == 0) return SB_OK;
    t->velocities = cfg_bool(cfg, "trajectory.velocities");
    t->forces = cfg_bool(cfg, "trajectory.forces");
    t->units = info->units;
    t->natoms = natoms;
    const struct topology *topo = info->topo;
    t->first = block_first(natoms, topo->rank, topo->nranks);
    t->count = block_first(natoms, topo->rank + 1, topo->nranks) - t->first;
    const char *name = cfg_text(cfg, "trajectory.file");
    int len = name[0] == '/' || !out_dir
                  ? snprintf(t->path, sizeof t->path, "%s", name)
                  : snprintf(t->path, sizeof t->path, "%s/%s", out_dir, name);
    if (len >= (int)sizeof t->path)
        return sb_fail(m, SB_EUSAGE, "trajectory.file: longer than %zu characters",
                       sizeof t->path - 1);
    /* nothing is overwritten: an existing file is the user's to move */
    int exists = 0, folder = 1; /* folder: the one that will hold it is there and writable */
    struct stat st;
    if (topo->rank == 0) {
        exists = stat(t->path, &st) == 0;
        char dir[sizeof t->path];
        snprintf(dir, sizeof dir, "%s", t->path);
        char *slash = strrchr(dir, '/');
        if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
        folder = stat(slash ? dir : ".", &st) == 0 && S_ISDIR(st.st_mode) &&
                 access(slash ? dir : ".", W_OK | X_OK) == 0;
    }
    int seen[2] = {exists, folder};
    CHECK_MPI(MPI_Bcast(seen, 2, MPI_INT, 0, topo->comm));
    if (seen[0])
        return sb_fail(m, SB_EUSAGE,
                       "trajectory.file = %s: the file exists; accepted: a file that does not "
                       "exist yet (move the old one, or set trajectory.file)",
                       t->path);
    if (!seen[1])
        return sb_fail(m, SB_EUSAGE,
                       "trajectory.file = %s: its folder does not exist, is not a folder or is "
                       "not writable; accepted: a new file in a writable folder",
                       t->path);
    int rc = h5_create(&t->file, t->path, topo->comm, &t->msg);
    if (rc == SB_OK) rc = create_layout(t, info);
    if (rc != SB_OK) return sb_fail(m, rc, "%s", t->msg.text);
    log_info("trajectory: %s, a frame every %ld steps (positions%s%s)", t->path, t->every,
             t->velocities ? ", velocities" : "", t->forces ? ", forces" : "");
    return SB_OK;
}

bool md_trajectory_due(const struct md_trajectory *t, long step, long first_step)
{
    return t->every > 0 && (step == first_step || step % t->every == 0);
}

/* Sends every particle to the owner of its id; `rows` receives this
 * rank's block, ordered by id. */
static int gather_block(struct md_trajectory *t, const struct md_state_info *info,
                        const struct particles *p, struct row *rows)
{
    const struct topology *topo = info->topo;
    const int np = topo->nranks;
    int n = topo->member == 0 ? p->n : 0; /* the leaders hold the particles */
    double *x = md_global_positions(p, info->geo);
    int *sendcounts = calloc((size_t)np, sizeof *sendcounts);
    int *recvcounts = calloc((size_t)np, sizeof *recvcounts);
    int *sdispls = calloc((size_t)np + 1, sizeof *sdispls);
    int *rdispls = calloc((size_t)np + 1, sizeof *rdispls);
    int *at = calloc((size_t)np, sizeof *at);
    struct row *out = malloc(((size_t)n + 1) * sizeof *out);
    struct row *in = malloc((t->count + 1) * sizeof *in);
    int rc = sendcounts && recvcounts && sdispls && rdispls && at && out && in
                 ? SB_OK
                 : sb_fail(&t->msg, SB_ERUNTIME, "trajectory %s: out of memory", t->path);
    /* every rank that gets here reaches each exchange, agreeing first, so
       none waits alone (one that failed before goes on to end the job) */
    int failed = rc;
    MPI_Allreduce(&rc, &failed, 1, MPI_INT, MPI_MAX, topo->comm);
    if (failed != SB_OK) rc = SB_ERUNTIME; /* the rank that failed keeps its message */
    for (int i = 0; rc == SB_OK && i < n; i++)
        sendcounts[owner(p->id[i], t->natoms, np)] += (int)sizeof(struct row);
    if (rc == SB_OK &&
        MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, topo->comm) != MPI_SUCCESS)
        rc = sb_fail(&t->msg, SB_ERUNTIME, "trajectory %s: MPI_Alltoall failed", t->path);
    for (int r = 0; rc == SB_OK && r < np; r++) {
        sdispls[r + 1] = sdispls[r] + sendcounts[r];
        rdispls[r + 1] = rdispls[r] + recvcounts[r];
        at[r] = sdispls[r] / (int)sizeof(struct row);
    }
    for (int i = 0; rc == SB_OK && i < n; i++) {
        struct row *o = &out[at[owner(p->id[i], t->natoms, np)]++];
        o->id = p->id[i];
        for (int d = 0; d < 3; d++) {
            o->x[d] = x[3 * i + d];
            o->v[d] = p->v[3 * i + d];
            o->f[d] = p->f[3 * i + d];
        }
    }
    if (rc == SB_OK && (hsize_t)rdispls[np] != t->count * sizeof(struct row))
        rc = sb_fail(&t->msg, SB_ERUNTIME,
                     "trajectory %s: rank %d would receive %zu particles for its %llu ids", t->path,
                     topo->rank, (size_t)rdispls[np] / sizeof(struct row),
                     (unsigned long long)t->count);
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, topo->comm);
    if (worst == SB_OK && MPI_Alltoallv(out, sendcounts, sdispls, MPI_BYTE, in, recvcounts, rdispls,
                                        MPI_BYTE, topo->comm) != MPI_SUCCESS)
        worst = sb_fail(&t->msg, SB_ERUNTIME, "trajectory %s: MPI_Alltoallv failed", t->path);
    for (hsize_t i = 0; worst == SB_OK && i < t->count; i++) {
        hsize_t row = (hsize_t)in[i].id - t->first;
        if (in[i].id < 0 || row >= t->count) {
            worst = sb_fail(&t->msg, SB_ERUNTIME, "trajectory %s: id %lld is not rank %d's",
                            t->path, (long long)in[i].id, topo->rank);
            break;
        }
        rows[row] = in[i];
    }
    free(x);
    free(sendcounts);
    free(recvcounts);
    free(sdispls);
    free(rdispls);
    free(at);
    free(out);
    free(in);
    if (rc != SB_OK) return rc;
    return worst == SB_OK ? SB_OK : worst;
}

/* One of the vectors of the block as [count][3] doubles. */
static void column(const struct row *rows, hsize_t count, size_t offset, double *out)
{
    for (hsize_t i = 0; i < count; i++)
        memcpy(out + 3 * i, (const char *)&rows[i] + offset, 3 * sizeof(double));
}

int md_trajectory_append(struct md_trajectory *t, const struct md_state_info *info,
                         const struct particles *p, long step, struct sb_msg *m)
{
    double started = MPI_Wtime();
    struct row *rows = malloc((t->count + 1) * sizeof *rows);
    double *vec = malloc(3 * (t->count + 1) * sizeof *vec);
    if (!rows || !vec) {
        free(rows);
        free(vec);
        return sb_fail(m, SB_ERUNTIME, "trajectory %s: out of memory for a frame", t->path);
    }
    int rc = gather_block(t, info, p, rows);
    const bool zero = info->topo->rank == 0;
    const int64_t step64 = step;
    const double time = (double)step * info->prm->dt;
    double edges[3][3] = {{0}};
    for (int d = 0; d < 3; d++)
        edges[d][d] = info->geo->length[d];
    struct h5_file *f = &t->file;
    const hsize_t k = t->frames;
    if (rc == SB_OK)
        rc = h5_append_frame(f, t->step, "position/step", H5T_NATIVE_INT64, k, 0, zero, &step64);
    if (rc == SB_OK)
        rc = h5_append_frame(f, t->time, "position/time", H5T_NATIVE_DOUBLE, k, 0, zero, &time);
    if (rc == SB_OK)
        rc = h5_append_frame(f, t->edges, "box/edges/value", H5T_NATIVE_DOUBLE, k, 0, zero ? 3 : 0,
                             edges);
    if (rc == SB_OK) column(rows, t->count, offsetof(struct row, x), vec);
    if (rc == SB_OK)
        rc = h5_append_frame(f, t->position, "position/value", H5T_NATIVE_DOUBLE, k, t->first,
                             t->count, vec);
    if (rc == SB_OK && t->velocities) {
        column(rows, t->count, offsetof(struct row, v), vec);
        rc = h5_append_frame(f, t->velocity, "velocity/value", H5T_NATIVE_DOUBLE, k, t->first,
                             t->count, vec);
    }
    if (rc == SB_OK && t->forces) {
        column(rows, t->count, offsetof(struct row, f), vec);
        rc = h5_append_frame(f, t->force, "force/value", H5T_NATIVE_DOUBLE, k, t->first, t->count,
                             vec);
    }
    if (rc == SB_OK && H5Fflush(f->id, H5F_SCOPE_LOCAL) < 0) rc = h5_error(f, "flushing the frame");
    free(rows);
    free(vec);
    if (rc != SB_OK) return sb_fail(m, SB_ERUNTIME, "%s", t->msg.text);
    t->frames++;
    t->seconds += MPI_Wtime() - started;
    t->bytes = (double)t->natoms * 8 * 3 * (1 + t->velocities + t->forces);
    return SB_OK;
}

int md_trajectory_close(struct md_trajectory *t, struct sb_msg *m)
{
    if (t->file.id < 0) return SB_OK;
    hid_t sets[6] = {t->position, t->velocity, t->force, t->step, t->time, t->edges};
    for (int i = 0; i < 6; i++)
        if (sets[i] >= 0) H5Dclose(sets[i]);
    int rc = h5_close(&t->file);
    t->file.id = -1;
    if (rc != SB_OK) return sb_fail(m, rc, "%s", t->msg.text);
    return SB_OK;
}
