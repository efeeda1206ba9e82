#include "state.h"
#include "../checkpoint/checkpoint.h"
#include "../checkpoint/h5.h"
#include "../coll.h"
#include "../checkpoint/row_digest.h"
#include "../log.h"
#include "../report.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

/* Chunks of about one rank's particles, so that each rank checksums and
 * writes its own (parallel HDF5 gives a chunk to the rank that holds most
 * of it), between 4 096 particles and 65 536 (1.5 MB of positions). */
enum { CHUNK_MIN = 4096, CHUNK_MAX = 65536 };

/* Reduced Lennard-Jones units: sigma = epsilon = mass = 1, and the time
 * unit tau = sigma sqrt(mass / epsilon).  H5MD's units module has no symbol
 * for them, and MDAnalysis opens only files whose units it knows, so with
 * checkpoint.units = reduced the numbers stay in sigma and tau and carry the
 * unit strings of the mapping sigma = 1 nm, tau = 1 ps (docs/commands/md.md, "Checkpoint
 * units"). */
static const char *const REDUCED_UNITS =
    "Lennard-Jones reduced units: sigma = epsilon = mass = 1, tau = sigma sqrt(mass/epsilon); "
    "the unit attributes label them sigma = 1 nm, tau = 1 ps";
const char *const md_length_unit = "nm", *const md_time_unit = "ps",
                  *const md_velocity_unit = "nm ps-1", *const md_force_unit = "kJ mol-1 nm-1";
#define LENGTH_UNIT   md_length_unit
#define TIME_UNIT     md_time_unit
#define VELOCITY_UNIT md_velocity_unit

/* The particle group: MDAnalysis finds the atoms of a file opened without a
 * topology under this name. */
#define PARTICLES "particles/trajectory"

/* The /parameters attribute that keeps the digest of every other attribute
 * in the file (h5_attributes_digest): the configuration text, the units,
 * the step, the physics. */
static const char *const DIGEST_ATTR = "attributes_digest";

/* The particle tables, which carry row digests (row_digest.h) instead of
 * HDF5's Fletcher32 (the small datasets keep it): the sums of all rows,
 * in this order, are /parameters/restart's row_digests, and the tables'
 * names its row_digest_of. */
enum row_table { ROWS_POSITION, ROWS_VELOCITY, ROWS_ID, ROWS_IN_BOX, ROWS_AT_BUILD, ROW_TABLES };
static const struct {
    const char *name;
    int words, rank, axis; /* a row's values; the dataset's dimensions, the particles' axis */
} ROW_TABLE[ROW_TABLES] = {
    {PARTICLES "/position/value", 3, 3, 1},
    {PARTICLES "/velocity/value", 3, 3, 1},
    {PARTICLES "/id/value", 1, 2, 1},
    {"parameters/restart/position_in_box", 3, 2, 0},
    {"parameters/restart/position_at_build", 3, 2, 0},
};
static const char *const ROW_DIGESTS_ATTR = "row_digests", *const ROW_DIGESTS_OF = "row_digest_of";

static hid_t row_type(enum row_table t)
{
    return t == ROWS_ID ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

/* This rank's rows among all particles, stored rank after rank, and the
 * rows of a chunk. */
struct rows {
    hsize_t first, count, total, chunk;
};

/* ---- saving ---------------------------------------------------------------------------- */

/* The step and time of an element's one frame: rank 0 writes them. */
static int write_stamp(struct h5_file *f, hid_t element, int rank, long step, double time,
                       const char *time_unit)
{
    const hsize_t one = 1;
    const int64_t step64 = step;
    hid_t s = -1, t = -1;
    int rc = h5_dataset(f, element, "step", H5T_NATIVE_INT64, 1, &one, 0, 1, true, &s);
    if (rc == SB_OK) rc = h5_write_rows(f, s, "step", H5T_NATIVE_INT64, 0, 0, rank == 0, &step64);
    if (rc == SB_OK)
        rc = h5_dataset(f, element, "time", H5T_NATIVE_DOUBLE, 1, &one, 0, 1, true, &t);
    if (rc == SB_OK && time_unit) rc = h5_attr_vltext(f, t, "unit", time_unit);
    if (rc == SB_OK) rc = h5_write_rows(f, t, "time", H5T_NATIVE_DOUBLE, 0, 0, rank == 0, &time);
    if (t >= 0) H5Dclose(t);
    if (s >= 0) H5Dclose(s);
    return rc;
}

/* An H5MD time-dependent element with one frame: value [1][rows][comps]
 * ([1][rows] when comps is 0), this rank's rows taken from data and
 * digested into *digest. */
static int write_element(struct h5_file *f, hid_t loc, const char *name, hid_t type, int comps,
                         const struct rows *r, const void *data, int rank, long step, double time,
                         const char *unit, const char *time_unit, uint64_t *digest)
{
    hid_t element = -1, value = -1;
    const hsize_t dims[3] = {1, r->total, (hsize_t)comps};
    *digest = row_digest(data, r->first, r->count, comps ? (size_t)comps : 1);
    int rc = h5_group(f, loc, name, &element);
    if (rc == SB_OK) rc = write_stamp(f, element, rank, step, time, time_unit);
    if (rc == SB_OK)
        rc = h5_dataset(f, element, "value", type, comps ? 3 : 2, dims, 1, r->chunk, false, &value);
    if (rc == SB_OK && unit) rc = h5_attr_vltext(f, value, "unit", unit);
    if (rc == SB_OK) rc = h5_write_rows(f, value, name, type, 1, r->first, r->count, data);
    if (value >= 0) H5Dclose(value);
    h5_close_group(element);
    return rc;
}

/* A plain dataset [rows][comps] ([rows] when comps is 0): this rank's rows
 * digested into *digest, or with Fletcher32 when digest is NULL. */
static int write_table(struct h5_file *f, hid_t loc, const char *name, hid_t type, int comps,
                       const struct rows *r, const void *data, uint64_t *digest)
{
    hid_t table = -1;
    const hsize_t dims[2] = {r->total, (hsize_t)comps};
    if (digest) *digest = row_digest(data, r->first, r->count, comps ? (size_t)comps : 1);
    int rc = h5_dataset(f, loc, name, type, comps ? 2 : 1, dims, 0, r->chunk, !digest, &table);
    if (rc == SB_OK) rc = h5_write_rows(f, table, name, type, 0, r->first, r->count, data);
    if (table >= 0) H5Dclose(table);
    return rc;
}

/* /h5md (H5MD 1.1 metadata), with the units module when units are written. */
int md_write_h5md_header(struct h5_file *f, bool units)
{
    hid_t h5md = -1, author = -1, creator = -1, modules = -1, module = -1;
    const int64_t module_version[2] = {1, 0};
    const int64_t version[2] = {1, 1};
    const struct passwd *pw = getpwuid(getuid());
    const char *user = getenv("USER");
    if (!(user && user[0]) && pw) user = pw->pw_name;
    int rc = h5_group(f, f->id, "h5md", &h5md);
    if (rc == SB_OK) rc = h5_attr_ints(f, h5md, "version", 2, version);
    if (rc == SB_OK) rc = h5_group(f, h5md, "author", &author);
    if (rc == SB_OK) rc = h5_attr_text(f, author, "name", user && user[0] ? user : "unknown");
    if (rc == SB_OK) rc = h5_group(f, h5md, "creator", &creator);
    if (rc == SB_OK) rc = h5_attr_text(f, creator, "name", "ShiftBox");
    if (rc == SB_OK) rc = h5_attr_text(f, creator, "version", SHIFTBOX_VERSION);
    if (rc == SB_OK && units) rc = h5_group(f, h5md, "modules", &modules);
    if (rc == SB_OK && units) rc = h5_group(f, modules, "units", &module);
    if (rc == SB_OK && units) rc = h5_attr_ints(f, module, "version", 2, module_version);
    if (rc == SB_OK && units) rc = h5_attr_vltext(f, module, "system", "SI");
    h5_close_group(module);
    h5_close_group(modules);
    h5_close_group(creator);
    h5_close_group(author);
    h5_close_group(h5md);
    return rc;
}

/* The box group: 3D, periodic, edges as a diagonal matrix per frame whose
 * step and time are position's, hard-linked (H5MD 1.1, "Simulation box"). */
static int write_box(struct h5_file *f, hid_t all, const struct md_state_info *info, int rank)
{
    static const char *const periodic[3] = {"periodic", "periodic", "periodic"};
    const int64_t three = 3;
    double edges[3][3] = {{0}};
    for (int d = 0; d < 3; d++)
        edges[d][d] = info->geo->length[d];
    const struct rows r = {0, rank == 0 ? 3 : 0, 3, 3};
    hid_t box = -1;
    int rc = h5_group(f, all, "box", &box);
    if (rc == SB_OK) rc = h5_attr_ints(f, box, "dimension", 0, &three);
    if (rc == SB_OK) rc = h5_attr_texts(f, box, "boundary", 3, periodic);
    hid_t element = -1, value = -1;
    const hsize_t dims[3] = {1, 3, 3};
    if (rc == SB_OK) rc = h5_group(f, box, "edges", &element);
    if (rc == SB_OK &&
        H5Lcreate_hard(all, "position/step", element, "step", H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = h5_error(f, "box/edges/step (a hard link to position/step)");
    if (rc == SB_OK &&
        H5Lcreate_hard(all, "position/time", element, "time", H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = h5_error(f, "box/edges/time (a hard link to position/time)");
    if (rc == SB_OK)
        rc = h5_dataset(f, element, "value", H5T_NATIVE_DOUBLE, 3, dims, 1, 3, true, &value);
    if (rc == SB_OK && info->units) rc = h5_attr_vltext(f, value, "unit", LENGTH_UNIT);
    if (rc == SB_OK)
        rc = h5_write_rows(f, value, "edges", H5T_NATIVE_DOUBLE, 1, r.first, r.count, edges);
    if (value >= 0) H5Dclose(value);
    h5_close_group(element);
    h5_close_group(box);
    return rc;
}

/* /parameters: the run, and the physics a restart must share. */
static int write_parameters(struct h5_file *f, hid_t parameters, const struct md_state_info *info,
                            long step, double conserved0)
{
    const struct md_params *prm = info->prm;
    const struct topology *t = info->topo;
    const int64_t step64 = step, seed = (int64_t)prm->seed, ranks = t->nranks, team = t->team_size,
                  atoms = 4LL * prm->cells[0] * prm->cells[1] * prm->cells[2];
    const int64_t dims[3] = {t->dims[0], t->dims[1], t->dims[2]};
    const int64_t cells[3] = {prm->cells[0], prm->cells[1], prm->cells[2]};
    const double time = (double)step * prm->dt;
    int rc = h5_attr_text(f, parameters, "program", "ShiftBox");
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "version", SHIFTBOX_VERSION);
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "kind", "md");
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "step", 0, &step64);
    if (rc == SB_OK) rc = h5_attr_reals(f, parameters, "time", 0, &time);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "seed", 0, &seed);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "ranks", 0, &ranks);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "dims", 3, dims);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "team_size", 0, &team);
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "module", info->module);
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "configuration", info->config_text);
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "units", REDUCED_UNITS);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "atoms", 0, &atoms);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "md.cells", 3, cells);
    if (rc == SB_OK) rc = h5_attr_reals(f, parameters, "md.density", 0, &prm->density);
    if (rc == SB_OK) rc = h5_attr_reals(f, parameters, "md.cutoff", 0, &prm->cutoff);
    if (rc == SB_OK) rc = h5_attr_reals(f, parameters, "md.dt", 0, &prm->dt);
    if (rc == SB_OK) rc = h5_attr_reals(f, parameters, "md.skin", 0, &prm->skin);
    if (rc == SB_OK)
        rc = h5_attr_reals(f, parameters, "conserved_energy_at_step_0", 0, &conserved0);
    return rc;
}

/* The particle tables' digests, all ranks' rows added up, as attributes of
 * /parameters/restart (the attributes' digest covers them). */
static int write_row_digests(struct h5_file *f, hid_t restart, uint64_t sums[ROW_TABLES],
                             MPI_Comm comm)
{
    const char *names[ROW_TABLES];
    int64_t stored[ROW_TABLES];
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, ROW_TABLES, MPI_UINT64_T, MPI_SUM, comm));
    for (int t = 0; t < ROW_TABLES; t++) {
        names[t] = ROW_TABLE[t].name;
        stored[t] = (int64_t)sums[t];
    }
    CHECK(h5_attr_texts(f, restart, ROW_DIGESTS_OF, ROW_TABLES, names));
    return h5_attr_ints(f, restart, ROW_DIGESTS_ATTR, ROW_TABLES, stored);
}

/* /parameters/restart: what continuing bit for bit needs, and the digests
 * of the particle tables (sums holds position's, velocity's and id's of
 * this rank's rows). */
static int write_restart(struct h5_file *f, hid_t parameters, const struct md_state_info *info,
                         const struct particles *p, const struct rows *r, const int64_t *per_rank,
                         uint64_t sums[ROW_TABLES])
{
    const hsize_t nranks = (hsize_t)info->topo->nranks;
    const struct rows ranks = {0, info->topo->rank == 0 ? nranks : 0, nranks, nranks};
    hid_t restart = -1;
    int rc = h5_group(f, parameters, "restart", &restart);
    if (rc == SB_OK)
        rc = h5_attr_text(f, restart, "about",
                          "particles rank after rank; positions relative to the lower corner of "
                          "their rank's box, now and at the last neighbour-list build");
    if (rc == SB_OK)
        rc = write_table(f, restart, "particles_per_rank", H5T_NATIVE_INT64, 0, &ranks, per_rank,
                         NULL);
    if (rc == SB_OK)
        rc = write_table(f, restart, "position_in_box", H5T_NATIVE_DOUBLE, 3, r, p->x,
                         &sums[ROWS_IN_BOX]);
    if (rc == SB_OK)
        rc = write_table(f, restart, "position_at_build", H5T_NATIVE_DOUBLE, 3, r, p->x0,
                         &sums[ROWS_AT_BUILD]);
    if (rc == SB_OK) rc = write_row_digests(f, restart, sums, info->topo->comm);
    h5_close_group(restart);
    return rc;
}

/* Positions in the global box, wrapped into [0, L). */
static double to_global(double corner, double in_box, double length)
{
    double pos = corner + in_box;
    return pos < 0.0 ? pos + length : pos >= length ? pos - length : pos;
}

double *md_global_positions(const struct particles *p, const struct md_geometry *g)
{
    double *x = sb_malloc(3 * (size_t)(p->n > 0 ? p->n : 1) * sizeof *x, "positions");
    for (int i = 0; i < p->n; i++)
        for (int d = 0; d < 3; d++)
            x[3 * i + d] = to_global(g->corner[d], p->x[3 * i + d], g->length[d]);
    return x;
}

static int write_particles(struct h5_file *f, const struct md_state_info *info,
                           const struct particles *p, const struct rows *r, long step,
                           enum checkpoint_fault fault, uint64_t sums[ROW_TABLES], struct sb_msg *m)
{
    const int rank = info->topo->rank;
    const double time = (double)step * info->prm->dt;
    const char *tau = info->units ? TIME_UNIT : NULL;
    double *x = md_global_positions(p, info->geo);
    hid_t particles = -1, all = -1;
    int rc = h5_group(f, f->id, "particles", &particles);
    if (rc == SB_OK) rc = h5_group(f, particles, strchr(PARTICLES, '/') + 1, &all);
    if (rc == SB_OK)
        rc = write_element(f, all, "position", H5T_NATIVE_DOUBLE, 3, r, x, rank, step, time,
                           info->units ? LENGTH_UNIT : NULL, tau, &sums[ROWS_POSITION]);
    if (rc == SB_OK) rc = write_box(f, all, info, rank);
    if (rc == SB_OK && fault == CHECKPOINT_FAULT_WRITE_ONE && rank == info->topo->nranks - 1)
        rc = sb_fail(m, SB_ERUNTIME,
                     "checkpoint %s: writing velocity: No space left on device (HDF5, in "
                     "H5Dwrite; injected by checkpoint.fault = write-fails-on-one-rank)",
                     f->path);
    if (rc == SB_OK && fault == CHECKPOINT_FAULT_ABORT) {
        MPI_Barrier(info->topo->comm);
        log_error("checkpoint.fault = abort-during-write: aborting the job halfway through "
                  "writing %s",
                  f->path);
        MPI_Abort(info->topo->comm, SB_ERUNTIME);
    }
    if (rc == SB_OK)
        rc = write_element(f, all, "velocity", H5T_NATIVE_DOUBLE, 3, r, p->v, rank, step, time,
                           info->units ? VELOCITY_UNIT : NULL, tau, &sums[ROWS_VELOCITY]);
    if (rc == SB_OK)
        rc = write_element(f, all, "id", H5T_NATIVE_INT64, 0, r, p->id, rank, step, time, NULL, tau,
                           &sums[ROWS_ID]);
    h5_close_group(all);
    h5_close_group(particles);
    free(x);
    return rc;
}

/* Every rank's particle count, and this rank's rows. */
static int place_rows(const struct topology *t, int n, struct rows *r, int64_t **per_rank)
{
    int64_t mine = n;
    *per_rank = sb_malloc((size_t)t->nranks * sizeof **per_rank, "particles per rank");
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, *per_rank, 1, MPI_INT64_T, t->comm));
    *r = (struct rows){0, (hsize_t)n, 0, 0};
    for (int i = 0; i < t->nranks; i++) {
        if (i < t->rank) r->first += (hsize_t)(*per_rank)[i];
        r->total += (hsize_t)(*per_rank)[i];
    }
    const hsize_t share = (r->total + (hsize_t)t->nranks - 1) / (hsize_t)t->nranks;
    r->chunk = share < CHUNK_MIN ? CHUNK_MIN : share > CHUNK_MAX ? CHUNK_MAX : share;
    return SB_OK;
}

double md_state_file_estimate(const struct md_state_info *info)
{
    const int *c = info->prm->cells;
    return 4.0 * c[0] * c[1] * c[2] * 13 * 8 + 65536.0;
}

int md_state_save(const char *path, const struct md_state_info *info, const struct particles *p,
                  long step, double conserved0, enum checkpoint_fault fault, struct sb_msg *m)
{
    const struct topology *t = info->topo;
    struct particles none = {0};
    if (t->member != 0) p = &none; /* the leader holds the box's particles */
    struct rows r;
    int64_t *per_rank = NULL;
    int rc = place_rows(t, p->n, &r, &per_rank);
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    struct h5_file f;
    if (rc == SB_OK) rc = h5_create(&f, tmp, t->comm, m);
    if (rc == SB_OK) {
        hid_t parameters = -1;
        uint64_t sums[ROW_TABLES] = {0};
        rc = md_write_h5md_header(&f, info->units);
        if (rc == SB_OK) rc = write_particles(&f, info, p, &r, step, fault, sums, m);
        if (rc == SB_OK) rc = h5_group(&f, f.id, "parameters", &parameters);
        if (rc == SB_OK) rc = write_parameters(&f, parameters, info, step, conserved0);
        if (rc == SB_OK) rc = write_restart(&f, parameters, info, p, &r, per_rank, sums);
        uint64_t digest = 0;
        if (rc == SB_OK) rc = h5_attributes_digest(&f, DIGEST_ATTR, &digest);
        const int64_t stored = (int64_t)digest;
        if (rc == SB_OK) rc = h5_attr_ints(&f, parameters, DIGEST_ATTR, 0, &stored);
        h5_close_group(parameters);
        if (rc == SB_OK) rc = h5_close(&f);
    }
    free(per_rank);
    if (rc != SB_OK) {
        /* A write failed here, maybe not on the other ranks, which may now
         * wait inside a collective HDF5 call (MPI-IO, a metadata flush) that
         * this rank will never join: no closing, no agreeing.  The partial
         * file goes; the driver aborts the job with exit 3 (src/main.c). */
        if (unlink(tmp) == 0 || errno == ENOENT)
            snprintf(m->text + strlen(m->text), sizeof m->text - strlen(m->text),
                     "; %s removed, earlier checkpoints untouched", tmp);
        return SB_ERUNTIME;
    }
    int worst = rc;
    CHECK_MPI(MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, t->comm));
    return worst;
}

/* ---- loading ----------------------------------------------------------------------------- */

static int not_ours(const struct h5_file *f, const char *why)
{
    return sb_fail(f->m, SB_EUSAGE,
                   "checkpoint.restart = %s: not a ShiftBox MD checkpoint (%s); accepted: a file "
                   "written by shiftbox md with checkpoint.every or checkpoint.at_end",
                   f->path, why);
}

/* The shortest decimal that reads back as v: 0.005, not 0.0050000000000000001. */
static void shortest(double v, char *text, size_t size)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, size, "%.*g", digits, v);
        if (strtod(text, NULL) == v) return;
    }
}

static int other_physics(const struct h5_file *f, const char *key, double saved, double here)
{
    char then[32], now[32];
    shortest(saved, then, sizeof then);
    shortest(here, now, sizeof now);
    return sb_fail(f->m, SB_EUSAGE,
                   "checkpoint.restart = %s: %s = %s in the checkpoint but %s in this run; a "
                   "restart continues the same physics: md.cells, md.density, md.cutoff and md.dt "
                   "must match (the rank count, grid, team size and module may differ)",
                   f->path, key, then, now);
}

/* Damage found: exit 3, naming what. */
static int damaged(const struct h5_file *f, const char *what)
{
    return sb_fail(f->m, SB_ERUNTIME,
                   "checkpoint %s is damaged: %s; restart from an earlier checkpoint", f->path,
                   what);
}

/* Whether /h5md/creator names ShiftBox (false also when unreadable). */
static bool created_by_shiftbox(struct h5_file *f)
{
    hid_t creator = -1;
    char *name = NULL;
    bool ours = h5_exists(f->id, "h5md") && h5_exists(f->id, "h5md/creator") &&
                h5_open_group(f, f->id, "h5md/creator", &creator) == SB_OK &&
                h5_read_attr_text(f, creator, "name", &name) == SB_OK && !strcmp(name, "ShiftBox");
    free(name);
    h5_close_group(creator);
    f->m->text[0] = '\0';
    return ours;
}

/* The file is ShiftBox's, intact (the digest of its attributes matches),
 * and holds MD particles.  Another program's HDF5 file is bad input (2);
 * a file that ShiftBox wrote and that does not hold together is damaged
 * (3).  A ShiftBox file without /parameters is its trajectory (a
 * checkpoint gets its name only once complete, /parameters included):
 * bad input too. */
static int check_identity(struct h5_file *f, hid_t *parameters)
{
    if (!h5_exists(f->id, "parameters"))
        return not_ours(f, created_by_shiftbox(f)
                               ? "no /parameters group: a ShiftBox trajectory (trajectory.file)?"
                               : "no /parameters group, no ShiftBox creator");
    CHECK(h5_open_group(f, f->id, "parameters", parameters));
    int64_t stored;
    uint64_t digest;
    CHECK(h5_read_attr_ints(f, *parameters, DIGEST_ATTR, 1, &stored));
    CHECK(h5_attributes_digest(f, DIGEST_ATTR, &digest));
    if ((uint64_t)stored != digest) {
        char why[160];
        snprintf(why, sizeof why,
                 "its attributes (configuration, units, step, physics) do not match their digest "
                 "(/parameters %s %016llx, computed %016llx)",
                 DIGEST_ATTR, (unsigned long long)stored, (unsigned long long)digest);
        return damaged(f, why);
    }
    char *kind = NULL;
    int rc = created_by_shiftbox(f) ? SB_OK : not_ours(f, "its creator is not ShiftBox");
    if (rc == SB_OK) rc = h5_read_attr_text(f, *parameters, "kind", &kind);
    if (rc == SB_OK && strcmp(kind, "md")) rc = not_ours(f, "it holds no MD particles");
    free(kind);
    return rc;
}

static int check_physics(struct h5_file *f, hid_t parameters, const struct md_params *prm)
{
    int64_t cells[3];
    double density, cutoff, dt;
    CHECK(h5_read_attr_ints(f, parameters, "md.cells", 3, cells));
    CHECK(h5_read_attr_reals(f, parameters, "md.density", 1, &density));
    CHECK(h5_read_attr_reals(f, parameters, "md.cutoff", 1, &cutoff));
    CHECK(h5_read_attr_reals(f, parameters, "md.dt", 1, &dt));
    for (int d = 0; d < 3; d++)
        if (cells[d] != prm->cells[d])
            return sb_fail(f->m, SB_EUSAGE,
                           "checkpoint.restart = %s: md.cells = %lld,%lld,%lld in the checkpoint "
                           "but %d,%d,%d in this run; a restart continues the same physics: "
                           "md.cells, md.density, md.cutoff and md.dt must match",
                           f->path, (long long)cells[0], (long long)cells[1], (long long)cells[2],
                           prm->cells[0], prm->cells[1], prm->cells[2]);
    if (density != prm->density) return other_physics(f, "md.density", density, prm->density);
    if (cutoff != prm->cutoff) return other_physics(f, "md.cutoff", cutoff, prm->cutoff);
    if (dt != prm->dt) return other_physics(f, "md.dt", dt, prm->dt);
    return SB_OK;
}

/* /parameters: identity, physics, the step and the decomposition. */
static int read_run(struct h5_file *f, const struct md_state_info *info, struct md_restart *out)
{
    hid_t parameters = -1;
    int64_t step, ranks, dims[3], team, atoms;
    double skin, time;
    char *module = NULL;
    int rc = check_identity(f, &parameters);
    if (rc == SB_OK) rc = check_physics(f, parameters, info->prm);
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "step", 1, &step);
    if (rc == SB_OK) rc = h5_read_attr_reals(f, parameters, "time", 1, &time);
    if (rc == SB_OK && time != (double)step * info->prm->dt)
        rc = damaged(f, "/parameters time is not step x md.dt");
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "ranks", 1, &ranks);
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "dims", 3, dims);
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "team_size", 1, &team);
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "atoms", 1, &atoms);
    if (rc == SB_OK) rc = h5_read_attr_reals(f, parameters, "md.skin", 1, &skin);
    if (rc == SB_OK)
        rc = h5_read_attr_reals(f, parameters, "conserved_energy_at_step_0", 1, &out->conserved0);
    if (rc == SB_OK) rc = h5_read_attr_text(f, parameters, "module", &module);
    h5_close_group(parameters);
    if (rc == SB_OK) {
        const struct topology *t = info->topo;
        out->step = (long)step;
        out->natoms = atoms;
        out->ranks = (int)ranks;
        out->team_size = (int)team;
        snprintf(out->module, sizeof out->module, "%s", module);
        for (int d = 0; d < 3; d++)
            out->dims[d] = (int)dims[d];
        /* The same boxes: each leader takes its box's particles as they were. */
        out->exact = skin == info->prm->skin && out->dims[0] == t->dims[0] &&
                     out->dims[1] == t->dims[1] && out->dims[2] == t->dims[2] &&
                     ranks == (int64_t)t->nboxes * team;
        const int *c = info->prm->cells;
        if (atoms != 4LL * c[0] * c[1] * c[2] || team < 1 || dims[0] < 1 || dims[1] < 1 ||
            dims[2] < 1 || ranks != dims[0] * dims[1] * dims[2] * team)
            rc = damaged(f, "/parameters atoms, ranks, dims and team_size do not agree");
    }
    free(module);
    return rc;
}

/* Opens dataset `name` and checks that it holds `rows` rows along axis. */
static int open_rows(struct h5_file *f, const char *name, int rank, int axis, hsize_t rows,
                     hid_t *dataset)
{
    hsize_t got;
    CHECK(h5_open_dataset(f, f->id, name, dataset));
    CHECK(h5_extent(f, *dataset, name, rank, axis, &got));
    if (got != rows) {
        char why[192];
        snprintf(why, sizeof why, "%s holds %llu rows, not %llu", name, (unsigned long long)got,
                 (unsigned long long)rows);
        return damaged(f, why);
    }
    return SB_OK;
}

/* Rows [first, first + count) of a dataset of `rows` rows into buf. */
static int read_rows(struct h5_file *f, const char *name, hid_t type, int rank, int axis,
                     hsize_t rows, hsize_t first, hsize_t count, void *buf)
{
    hid_t dataset = -1;
    int rc = open_rows(f, name, rank, axis, rows, &dataset);
    if (rc == SB_OK) rc = h5_read_rows(f, dataset, name, type, axis, first, count, buf);
    if (dataset >= 0) H5Dclose(dataset);
    return rc;
}

/* Rows [first, first + count) of a particle table of `rows` rows into buf,
 * their digest added to sums[t]. */
static int read_table(struct h5_file *f, enum row_table t, hsize_t rows, hsize_t first,
                      hsize_t count, void *buf, uint64_t sums[ROW_TABLES])
{
    CHECK(read_rows(f, ROW_TABLE[t].name, row_type(t), ROW_TABLE[t].rank, ROW_TABLE[t].axis, rows,
                    first, count, buf));
    sums[t] += row_digest(buf, first, count, (size_t)ROW_TABLE[t].words);
    return SB_OK;
}

/* The ranks have read every row of the particle tables once between them:
 * their digests (sums, this rank's rows) must add up to the stored ones.
 * Collective; every rank comes to the same answer. */
static int check_row_digests(struct h5_file *f, uint64_t sums[ROW_TABLES], MPI_Comm comm)
{
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, ROW_TABLES, MPI_UINT64_T, MPI_SUM, comm));
    hid_t restart = -1;
    int64_t stored[ROW_TABLES];
    int rc = h5_open_group(f, f->id, "parameters/restart", &restart);
    htri_t has = rc == SB_OK ? H5Aexists(restart, ROW_DIGESTS_ATTR) : 1;
    if (has < 0) rc = h5_error(f, "parameters/restart row_digests");
    if (rc == SB_OK && has == 0)
        rc = sb_fail(f->m, SB_EUSAGE,
                     "checkpoint.restart = %s: no /parameters/restart %s (written by a ShiftBox "
                     "from before checkpoints carried row digests); accepted: a checkpoint "
                     "written by this version",
                     f->path, ROW_DIGESTS_ATTR);
    if (rc == SB_OK) rc = h5_read_attr_ints(f, restart, ROW_DIGESTS_ATTR, ROW_TABLES, stored);
    h5_close_group(restart);
    for (int t = 0; rc == SB_OK && t < ROW_TABLES; t++)
        if ((uint64_t)stored[t] != sums[t]) {
            char why[256];
            snprintf(why, sizeof why,
                     "%s: its rows do not match their digest (/parameters/restart %s[%d] "
                     "%016llx, read %016llx)",
                     ROW_TABLE[t].name, ROW_DIGESTS_ATTR, t, (unsigned long long)stored[t],
                     (unsigned long long)sums[t]);
            rc = damaged(f, why);
        }
    return rc;
}

/* One frame's step and time of an element, and for the box its edges: the
 * checkpoint's step, step x dt, and this run's box. */
static int check_frame(struct h5_file *f, const char *element, const struct md_state_info *info,
                       long step)
{
    char name[128], why[192];
    int64_t saved_step;
    double saved_time;
    snprintf(name, sizeof name, PARTICLES "/%s/step", element);
    CHECK(read_rows(f, name, H5T_NATIVE_INT64, 1, 0, 1, 0, 1, &saved_step));
    snprintf(name, sizeof name, PARTICLES "/%s/time", element);
    CHECK(read_rows(f, name, H5T_NATIVE_DOUBLE, 1, 0, 1, 0, 1, &saved_time));
    if (saved_step != step || saved_time != (double)step * info->prm->dt) {
        snprintf(why, sizeof why, "%s's step %lld and time %.17g are not the checkpoint's %ld",
                 element, (long long)saved_step, saved_time, step);
        return damaged(f, why);
    }
    if (strcmp(element, "box/edges")) return SB_OK;
    double edges[3][3];
    CHECK(read_rows(f, PARTICLES "/box/edges/value", H5T_NATIVE_DOUBLE, 3, 1, 3, 0, 3, edges));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (edges[i][j] != (i == j ? info->geo->length[i] : 0.0))
                return damaged(f, "box/edges is not this run's box");
    return SB_OK;
}

static int check_frames(struct h5_file *f, const struct md_state_info *info, long step)
{
    static const char *const elements[] = {"position", "velocity", "id", "box/edges"};
    for (int i = 0; i < 4; i++)
        CHECK(check_frame(f, elements[i], info, step));
    return SB_OK;
}

/* Rows [first, first + count) of particles/trajectory/position (global)
 * against the same rows of parameters/restart/position_in_box (in_box)
 * placed in the box of the rank that wrote them: the same bits, or the file
 * is damaged. */
static int check_positions(struct h5_file *f, const struct md_state_info *info,
                           const struct md_restart *out, hsize_t first, hsize_t count,
                           const double *global, const double *in_box)
{
    const hsize_t n = (hsize_t)out->natoms, ranks = (hsize_t)out->ranks;
    int64_t *per_rank = sb_malloc(ranks * sizeof *per_rank, "particles per rank");
    int rc = read_rows(f, "parameters/restart/particles_per_rank", H5T_NATIVE_INT64, 1, 0, ranks, 0,
                       ranks, per_rank);
    hsize_t end = 0, total = 0;
    for (hsize_t r = 0; rc == SB_OK && r < ranks; r++)
        total += per_rank[r] < 0 ? n + 1 : (hsize_t)per_rank[r];
    if (rc == SB_OK && total != n)
        rc = damaged(f, "particles_per_rank does not add up to the atoms");
    int writer = -1;
    double corner[3] = {0};
    for (hsize_t i = 0; rc == SB_OK && i < count; i++) {
        while (first + i >= end) { /* the next writer's rows */
            end += (hsize_t)per_rank[++writer];
            int coords[3];
            coords_of_rank(out->dims, writer / out->team_size, coords);
            for (int d = 0; d < 3; d++)
                corner[d] = coords[d] * (info->geo->length[d] / out->dims[d]);
        }
        for (int d = 0; d < 3; d++)
            if (to_global(corner[d], in_box[3 * i + d], info->geo->length[d]) !=
                global[3 * i + d]) {
                char why[160];
                snprintf(why, sizeof why,
                         "particle row %llu: position and position_in_box disagree",
                         (unsigned long long)(first + i));
                rc = damaged(f, why);
                break;
            }
    }
    free(per_rank);
    return rc;
}

/* The same grid of boxes: each leader takes its box's particles, in their
 * order, from the rank that led the box when the file was written. */
static int read_exact(struct h5_file *f, const struct md_state_info *info, struct particles *p,
                      const struct md_restart *out, uint64_t sums[ROW_TABLES])
{
    const struct topology *t = info->topo;
    const hsize_t n = (hsize_t)out->natoms, ranks = (hsize_t)out->ranks;
    const int writer = t->box * out->team_size; /* the box's leader then */
    int64_t *per_rank = sb_malloc(ranks * sizeof *per_rank, "particles per rank");
    int rc = read_rows(f, "parameters/restart/particles_per_rank", H5T_NATIVE_INT64, 1, 0, ranks, 0,
                       ranks, per_rank);
    hsize_t first = 0;
    for (int i = 0; rc == SB_OK && i < writer; i++)
        first += (hsize_t)per_rank[i];
    const int count = rc == SB_OK && t->member == 0 ? (int)per_rank[writer] : 0;
    free(per_rank);
    if (rc != SB_OK) return rc;
    if (count < 0 || first + (hsize_t)count > n)
        return sb_fail(f->m, SB_ERUNTIME,
                       "checkpoint %s: particles_per_rank does not add up to "
                       "the %llu particles",
                       f->path, (unsigned long long)n);
    particles_reserve(p, count);
    p->x0 = sb_realloc(p->x0, 3 * ((size_t)count + 1) * sizeof *p->x0, "positions at the last build");
    const hsize_t rows = (hsize_t)count;
    double *global = sb_malloc(3 * ((size_t)count + 1) * sizeof *global, "positions");
    rc = read_table(f, ROWS_IN_BOX, n, first, rows, p->x, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_AT_BUILD, n, first, rows, p->x0, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_VELOCITY, n, first, rows, p->v, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_ID, n, first, rows, p->id, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_POSITION, n, first, rows, global, sums);
    if (rc == SB_OK) rc = check_positions(f, info, out, first, rows, global, p->x);
    free(global);
    p->n = rc == SB_OK ? count : 0;
    if (count > 0) memset(p->f, 0, 3 * sizeof(double) * (size_t)count);
    return rc;
}

/* A particle read on one rank, on its way to the owner of its box. */
struct arrival {
    double x[3], v[3];
    int64_t id;
};

/* Another decomposition: a block of the H5MD particles, any owner. */
static int read_block(struct h5_file *f, const struct md_state_info *info,
                      const struct md_restart *out, struct arrival **block, int *nblock,
                      uint64_t sums[ROW_TABLES])
{
    const struct topology *t = info->topo;
    const hsize_t n = (hsize_t)out->natoms;
    const hsize_t first = n * (hsize_t)t->rank / (hsize_t)t->nranks;
    const hsize_t count = n * (hsize_t)(t->rank + 1) / (hsize_t)t->nranks - first;
    double *x = sb_malloc(3 * (count + 1) * sizeof *x, "positions read");
    double *v = sb_malloc(3 * (count + 1) * sizeof *v, "velocities read");
    int64_t *id = sb_malloc((count + 1) * sizeof *id, "ids read");
    /* the restart positions only to check them: every row of the file is read */
    double *in_box = sb_malloc(3 * (count + 1) * sizeof *in_box, "positions in box");
    double *at_build = sb_malloc(3 * (count + 1) * sizeof *at_build, "positions at build");
    int rc = read_table(f, ROWS_POSITION, n, first, count, x, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_VELOCITY, n, first, count, v, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_ID, n, first, count, id, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_IN_BOX, n, first, count, in_box, sums);
    if (rc == SB_OK) rc = read_table(f, ROWS_AT_BUILD, n, first, count, at_build, sums);
    if (rc == SB_OK) rc = check_positions(f, info, out, first, count, x, in_box);
    free(in_box);
    free(at_build);
    *block = sb_malloc((count + 1) * sizeof **block, "particles read");
    for (hsize_t i = 0; rc == SB_OK && i < count; i++) {
        memcpy((*block)[i].x, x + 3 * i, sizeof(*block)[i].x);
        memcpy((*block)[i].v, v + 3 * i, sizeof(*block)[i].v);
        (*block)[i].id = id[i];
    }
    *nblock = (int)count;
    free(x);
    free(v);
    free(id);
    return rc;
}

/* The leader of the box that holds position x (in the global box). */
static int owner_of(const double x[3], const struct md_geometry *g, const struct topology *t)
{
    int coords[3];
    for (int d = 0; d < 3; d++) {
        double pos = x[d] - floor(x[d] / g->length[d]) * g->length[d];
        coords[d] = md_box_of(pos, g->edge[d], t->dims[d]);
    }
    return rank_of_coords(t->dims, coords) * t->team_size;
}

/* Sends every particle of the block to its owner, which stores it in the
 * frame of its box. */
static int send_to_owners(struct arrival *block, int nblock, const struct md_state_info *info,
                          struct particles *p, struct sb_msg *m)
{
    const struct topology *t = info->topo;
    int *to = sb_malloc((size_t)(nblock + 1) * sizeof *to, "owners");
    int *counts = sb_calloc(4 * (size_t)t->nranks, sizeof *counts, "exchange counts");
    int *send_at = counts + t->nranks, *recv_counts = counts + 2 * t->nranks,
        *recv_at = counts + 3 * t->nranks;
    for (int i = 0; i < nblock; i++) {
        to[i] = owner_of(block[i].x, info->geo, t);
        counts[to[i]]++;
    }
    struct arrival *sorted = sb_malloc((size_t)(nblock + 1) * sizeof *sorted, "particles sent");
    long long at = 0;
    for (int r = 0; r < t->nranks; r++) {
        send_at[r] = (int)at;
        at += counts[r];
    }
    for (int i = 0; i < nblock; i++)
        sorted[send_at[to[i]]++] = block[i];
    int rc = MPI_Alltoall(counts, 1, MPI_INT, recv_counts, 1, MPI_INT, t->comm);
    if (rc != MPI_SUCCESS) rc = sb_mpi_error("MPI_Alltoall", rc, __FILE__, __LINE__);
    long long incoming = 0;
    for (int r = 0; r < t->nranks; r++) {
        recv_at[r] = (int)incoming;
        incoming += recv_counts[r];
        send_at[r] -= counts[r];
    }
    /* A rank that cannot take part stops every rank before the exchange,
     * so that none waits in it alone (sb_agree, in the caller, then keeps
     * that rank's message). */
    const int mine = incoming > INT_MAX / 2 || (long long)nblock > INT_MAX / 2;
    int stop = mine || rc != SB_OK, any = stop;
    int mpi = MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, t->comm);
    if (rc == SB_OK && mpi != MPI_SUCCESS)
        rc = sb_mpi_error("MPI_Allreduce", mpi, __FILE__, __LINE__);
    if (rc == SB_OK && any) {
        rc = mine ? sb_fail(m, SB_ERUNTIME,
                            "restart: %lld particles for one rank are too many for one "
                            "MPI_Alltoallv; accepted: more ranks",
                            incoming)
                  : SB_ERUNTIME;
    } else if (rc == SB_OK) {
        MPI_Datatype particle;
        MPI_Type_contiguous((int)sizeof(struct arrival), MPI_BYTE, &particle);
        MPI_Type_commit(&particle);
        particles_reserve(p, (int)incoming);
        struct arrival *got = sb_malloc((size_t)(incoming + 1) * sizeof *got, "particles received");
        rc = MPI_Alltoallv(sorted, counts, send_at, particle, got, recv_counts, recv_at, particle,
                           t->comm);
        MPI_Type_free(&particle);
        for (long long i = 0; rc == MPI_SUCCESS && i < incoming; i++) {
            for (int d = 0; d < 3; d++) {
                double pos =
                    got[i].x[d] - floor(got[i].x[d] / info->geo->length[d]) * info->geo->length[d];
                p->x[3 * i + d] = pos - info->geo->corner[d];
                p->v[3 * i + d] = got[i].v[d];
                p->f[3 * i + d] = 0.0;
            }
            p->id[i] = got[i].id;
        }
        p->n = rc == MPI_SUCCESS ? (int)incoming : 0;
        free(got);
        if (rc != MPI_SUCCESS) rc = sb_mpi_error("MPI_Alltoallv", rc, __FILE__, __LINE__);
    }
    free(sorted);
    free(counts);
    free(to);
    return rc;
}

/* Every particle arrived once: the count, and ids in [0, N) adding up. */
static int check_particles(const struct particles *p, const struct md_restart *out,
                           const struct topology *t, const char *path, struct sb_msg *m)
{
    uint64_t sums[2] = {(uint64_t)p->n, 0}; /* the id sum, modulo 2^64 */
    int bad = 0;
    for (int i = 0; i < p->n; i++) {
        sums[1] += (uint64_t)p->id[i];
        bad |= p->id[i] < 0 || p->id[i] >= out->natoms;
    }
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_UINT64_T, MPI_SUM, t->comm));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, t->comm));
    uint64_t n = (uint64_t)out->natoms;
    uint64_t expected = n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
    if (sums[0] != n || sums[1] != expected || bad)
        return sb_fail(m, SB_ERUNTIME,
                       "checkpoint %s: the particles read are not ids 0..%llu once each (%llu "
                       "particles, id sum %llu, expected %llu)",
                       path, (unsigned long long)(n - 1), (unsigned long long)sums[0],
                       (unsigned long long)sums[1], (unsigned long long)expected);
    return SB_OK;
}

/* The file exists and is HDF5: asked of rank 0, told to all. */
static int check_file(const char *path, MPI_Comm comm, struct sb_msg *m)
{
    int rank, rc = SB_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        rc = checkpoint_exists(path, "checkpoint.restart",
                               "a checkpoint (.h5md) written by shiftbox md with "
                               "checkpoint.every or checkpoint.at_end",
                               m);
    }
    return sb_agree(rc, m, comm);
}

static int load_particles(struct h5_file *f, const struct md_state_info *info, struct particles *p,
                          struct md_restart *out)
{
    const MPI_Comm comm = info->topo->comm;
    int rc = sb_agree(read_run(f, info, out), f->m, comm);
    if (rc == SB_OK) rc = sb_agree(check_frames(f, info, out->step), f->m, comm);
    if (rc != SB_OK) return rc;
    uint64_t sums[ROW_TABLES] = {0};
    if (out->exact) {
        rc = sb_agree(read_exact(f, info, p, out, sums), f->m, comm);
        return rc == SB_OK ? sb_agree(check_row_digests(f, sums, comm), f->m, comm) : rc;
    }
    struct arrival *block = NULL;
    int nblock = 0;
    rc = sb_agree(read_block(f, info, out, &block, &nblock, sums), f->m, comm);
    if (rc == SB_OK) rc = sb_agree(check_row_digests(f, sums, comm), f->m, comm);
    if (rc == SB_OK) rc = sb_agree(send_to_owners(block, nblock, info, p, f->m), f->m, comm);
    free(block);
    return rc;
}

int md_state_load(const char *path, const struct md_state_info *info, struct particles *p,
                  struct md_restart *out, struct sb_msg *m)
{
    const struct topology *t = info->topo;
    memset(out, 0, sizeof *out);
    double started = MPI_Wtime();
    CHECK(check_file(path, t->comm, m));
    struct h5_file f;
    int rc = sb_agree(h5_open(&f, path, t->comm, m), m, t->comm);
    if (rc != SB_OK) return rc;
    rc = load_particles(&f, info, p, out);
    int closed = h5_close(&f);
    rc = sb_agree(rc != SB_OK ? rc : closed, m, t->comm);
    if (rc != SB_OK) return rc;
    CHECK(check_particles(p, out, t, path, m));
    struct stat st;
    out->bytes = stat(path, &st) == 0 ? (double)st.st_size : 0.0;
    double seconds = MPI_Wtime() - started;
    CHECK_MPI(MPI_Allreduce(&seconds, &out->seconds, 1, MPI_DOUBLE, MPI_MAX, t->comm));
    return SB_OK;
}
