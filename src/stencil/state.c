#include "state.h"
#include "../checkpoint/checkpoint.h"
#include "../checkpoint/h5.h"
#include "../coll.h"
#include "../log.h"
#include "../report.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const DIGEST_ATTR = "attributes_digest";

static hid_t real_type(const struct stencil_params *p)
{
    return p->real_bytes == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

/* The field's dataset shape (z, y, x; 2D: y, x), this rank's block in it,
 * and chunks of the largest block (that of rank 0). */
static int field_shape(const struct stencil_run *r, hsize_t *dims, hsize_t *start, hsize_t *count,
                       hsize_t *chunk)
{
    const struct stencil_grid *g = &r->grid;
    int rank = r->p.dim;
    for (int i = 0; i < rank; i++) {
        int a = rank - 1 - i; /* z (or y) first */
        dims[i] = (hsize_t)g->global[a];
        start[i] = (hsize_t)g->origin[a];
        count[i] = (hsize_t)g->n[a];
        chunk[i] = (hsize_t)((g->global[a] + r->dims[a] - 1) / r->dims[a]);
    }
    return rank;
}

static int write_parameters(struct h5_file *f, const struct stencil_run *r, long iteration,
                            const char *config_text)
{
    hid_t parameters = -1;
    const int64_t it = iteration, dim = r->p.dim;
    const int64_t size[3] = {r->grid.global[0], r->grid.global[1], r->grid.global[2]};
    int rc = h5_group(f, f->id, "parameters", &parameters);
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "program", "ShiftBox");
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "version", SHIFTBOX_VERSION);
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "kind", "stencil");
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "iteration", 0, &it);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "dim", 0, &dim);
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, "size", 3, size);
    if (rc == SB_OK)
        rc = h5_attr_text(f, parameters, "precision", r->p.real_bytes == 4 ? "float" : "double");
    if (rc == SB_OK)
        rc = h5_attr_reals(f, parameters, "weights", r->p.dim == 2 ? 5 : 7, r->p.weights);
    if (rc == SB_OK) rc = h5_attr_text(f, parameters, "configuration", config_text);
    uint64_t digest = 0;
    if (rc == SB_OK) rc = h5_attributes_digest(f, DIGEST_ATTR, &digest);
    const int64_t stored = (int64_t)digest;
    if (rc == SB_OK) rc = h5_attr_ints(f, parameters, DIGEST_ATTR, 0, &stored);
    h5_close_group(parameters);
    return rc;
}

/* The XDMF 3 description of NAME.h5's /field beside it, as NAME.xmf
 * (rank 0; written as .tmp and renamed, like the checkpoint). */
static int write_sidecar(const char *path, const struct stencil_run *r, long iteration,
                         struct sb_msg *m)
{
    char xmf[PATH_MAX + 8], tmp[PATH_MAX + 16];
    if (!checkpoint_sidecar(path, xmf, sizeof xmf)) return SB_OK;
    snprintf(tmp, sizeof tmp, "%s.tmp", xmf);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const int *gl = r->grid.global;
    char shape[96];
    if (r->p.dim == 3)
        snprintf(shape, sizeof shape, "%d %d %d", gl[2], gl[1], gl[0]);
    else
        snprintf(shape, sizeof shape, "%d %d", gl[1], gl[0]);
    FILE *x = fopen(tmp, "w");
    if (!x) return sb_fail(m, SB_ERUNTIME, "checkpoint %s: cannot write: %s", tmp, strerror(errno));
    bool three = r->p.dim == 3;
    fprintf(x,
            "<?xml version=\"1.0\" ?>\n"
            "<!-- ShiftBox stencil field at iteration %ld: open this file in ParaView or VisIt "
            "-->\n"
            "<Xdmf Version=\"3.0\">\n"
            " <Domain>\n"
            "  <Grid Name=\"stencil\" GridType=\"Uniform\">\n"
            "   <Time Value=\"%ld\"/>\n"
            "   <Topology TopologyType=\"%s\" Dimensions=\"%s\"/>\n"
            "   <Geometry GeometryType=\"%s\">\n"
            "    <DataItem Dimensions=\"%d\" NumberType=\"Float\" Format=\"XML\">%s</DataItem>\n"
            "    <DataItem Dimensions=\"%d\" NumberType=\"Float\" Format=\"XML\">%s</DataItem>\n"
            "   </Geometry>\n"
            "   <Attribute Name=\"field\" AttributeType=\"Scalar\" Center=\"Node\">\n"
            "    <DataItem Dimensions=\"%s\" NumberType=\"Float\" Precision=\"%d\" "
            "Format=\"HDF\">%s:/field</DataItem>\n"
            "   </Attribute>\n"
            "  </Grid>\n"
            " </Domain>\n"
            "</Xdmf>\n",
            iteration, iteration, three ? "3DCoRectMesh" : "2DCoRectMesh", shape,
            three ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY", three ? 3 : 2, three ? "0 0 0" : "0 0",
            three ? 3 : 2, three ? "1 1 1" : "1 1", shape, r->p.real_bytes, base);
    if (fclose(x) != 0 || rename(tmp, xmf) != 0) {
        unlink(tmp);
        return sb_fail(m, SB_ERUNTIME, "checkpoint %s: cannot write: %s", xmf, strerror(errno));
    }
    return SB_OK;
}

int stencil_state_save(const char *path, struct stencil_run *r, long iteration,
                       const char *config_text, struct sb_msg *m)
{
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    void *own = sb_malloc(stencil_own_count(r) * (size_t)r->p.real_bytes + 1, "own points");
    int rc = sb_agree(stencil_own_points(r, own), m, r->comm);
    hsize_t dims[3], start[3], count[3], chunk[3];
    int rank = field_shape(r, dims, start, count, chunk);
    struct h5_file f;
    if (rc == SB_OK) rc = h5_create(&f, tmp, r->comm, m);
    if (rc == SB_OK) {
        hid_t field = -1;
        rc = h5_block_dataset(&f, f.id, "field", real_type(&r->p), rank, dims, chunk, &field);
        if (rc == SB_OK)
            rc = h5_transfer_block(&f, field, "field", real_type(&r->p), start, count, own, true);
        if (field >= 0) H5Dclose(field);
        if (rc == SB_OK) rc = write_parameters(&f, r, iteration, config_text);
        if (rc == SB_OK) rc = h5_close(&f);
    }
    free(own);
    if (rc != SB_OK) {
        /* as md's checkpoints (src/md/state.c): no closing, no agreeing; the
         * partial file goes and the driver ends the job with exit 3 */
        if (unlink(tmp) == 0 || errno == ENOENT)
            snprintf(m->text + strlen(m->text), sizeof m->text - strlen(m->text),
                     "; %s removed, earlier checkpoints untouched", tmp);
        return SB_ERUNTIME;
    }
    return sb_agree(rc, m, r->comm);
}

int stencil_state_sidecar(const char *path, const struct stencil_run *r, long iteration,
                          struct sb_msg *m)
{
    int rc = r->rank == 0 ? write_sidecar(path, r, iteration, m) : SB_OK;
    return sb_agree(rc, m, r->comm);
}

/* ---- loading ---------------------------------------------------------------------- */

static int refuse(const struct h5_file *f, const char *why)
{
    return sb_fail(f->m, SB_EUSAGE,
                   "checkpoint.restart = %s: %s; accepted: a checkpoint written by shiftbox "
                   "stencil with checkpoint.every or checkpoint.at_end on the same stencil.dim, "
                   "stencil.size, stencil.precision and stencil.weights",
                   f->path, why);
}

static int damaged(const struct h5_file *f, const char *what)
{
    return sb_fail(f->m, SB_ERUNTIME,
                   "checkpoint %s is damaged: %s; restart from an earlier checkpoint", f->path,
                   what);
}

/* The file is ShiftBox's stencil checkpoint, intact, of the field of p. */
static int check_parameters(struct h5_file *f, const struct stencil_params *p, long *iteration)
{
    hid_t parameters = -1;
    char *program = NULL, *kind = NULL, *precision = NULL;
    if (!h5_exists(f->id, "parameters") || !h5_exists(f->id, "field"))
        return refuse(f, "no /parameters or /field");
    int rc = h5_open_group(f, f->id, "parameters", &parameters);
    /* the digest first (as md does): a damaged program or kind is damage (3),
     * not another program's file (2) */
    if (rc == SB_OK && H5Aexists(parameters, DIGEST_ATTR) <= 0)
        rc = refuse(f, "no /parameters attributes_digest: not a ShiftBox stencil checkpoint");
    int64_t stored = 0, dim = 0, size[3] = {0}, it = 0;
    uint64_t digest = 0;
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, DIGEST_ATTR, 1, &stored);
    if (rc == SB_OK) rc = h5_attributes_digest(f, DIGEST_ATTR, &digest);
    if (rc == SB_OK && (uint64_t)stored != digest)
        rc = damaged(f, "its attributes do not match their digest");
    if (rc == SB_OK && (h5_read_attr_text(f, parameters, "program", &program) != SB_OK ||
                        h5_read_attr_text(f, parameters, "kind", &kind) != SB_OK ||
                        strcmp(program, "ShiftBox") || strcmp(kind, "stencil")))
        rc = refuse(f, "not a ShiftBox stencil checkpoint");
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "iteration", 1, &it);
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "dim", 1, &dim);
    if (rc == SB_OK) rc = h5_read_attr_ints(f, parameters, "size", 3, size);
    if (rc == SB_OK) rc = h5_read_attr_text(f, parameters, "precision", &precision);
    double weights[7] = {0};
    int nw = p->dim == 2 ? 5 : 7;
    if (rc == SB_OK && dim != p->dim) rc = refuse(f, "another stencil.dim");
    for (int a = 0; rc == SB_OK && a < 3; a++)
        if (size[a] != (p->dim == 2 && a == 2 ? 1 : p->global[a]))
            rc = refuse(f, "another stencil.size");
    if (rc == SB_OK && strcmp(precision, p->real_bytes == 4 ? "float" : "double"))
        rc = refuse(f, "another stencil.precision");
    if (rc == SB_OK) rc = h5_read_attr_reals(f, parameters, "weights", nw, weights);
    if (rc == SB_OK && memcmp(weights, p->weights, (size_t)nw * sizeof *weights))
        rc = refuse(f, "other stencil.weights");
    if (rc == SB_OK && it < 0) rc = damaged(f, "a negative iteration");
    *iteration = (long)it;
    free(program);
    free(kind);
    free(precision);
    h5_close_group(parameters);
    return rc;
}

static int read_field(struct h5_file *f, struct stencil_run *r)
{
    hsize_t dims[3], start[3], count[3], chunk[3];
    int rank = field_shape(r, dims, start, count, chunk);
    hid_t field = -1;
    int rc = h5_open_dataset(f, f->id, "field", &field);
    hsize_t stored[3] = {0};
    hid_t space = field < 0 ? -1 : H5Dget_space(field);
    int got = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    if (got == rank) H5Sget_simple_extent_dims(space, stored, NULL);
    if (space >= 0) H5Sclose(space);
    if (rc == SB_OK && (got != rank || memcmp(stored, dims, (size_t)rank * sizeof *dims)))
        rc = damaged(f, "/field is not of the stencil.size it records");
    void *own = sb_malloc(stencil_own_count(r) * (size_t)r->p.real_bytes + 1, "own points");
    if (rc == SB_OK)
        rc = h5_transfer_block(f, field, "field", real_type(&r->p), start, count, own, false);
    if (field >= 0) H5Dclose(field);
    if (rc == SB_OK) rc = stencil_set_own_points(r, own);
    free(own);
    return rc;
}

/* Opens PATH collectively and checks its parameters against p; with r,
 * reads the field into it too. */
static int load(const char *path, const struct stencil_params *p, struct stencil_run *r,
                MPI_Comm comm, long *iteration, struct sb_msg *m)
{
    int rank, rc = SB_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        rc = checkpoint_exists(path, "checkpoint.restart",
                               "a checkpoint (.h5) written by shiftbox stencil", m);
    }
    CHECK(sb_agree(rc, m, comm));
    struct h5_file f;
    CHECK(sb_agree(h5_open(&f, path, comm, m), m, comm));
    rc = sb_agree(check_parameters(&f, p, iteration), m, comm);
    if (rc == SB_OK && r) rc = sb_agree(read_field(&f, r), m, comm);
    int closed = h5_close(&f);
    rc = sb_agree(rc != SB_OK ? rc : closed, m, comm);
    long most = *iteration;
    if (rc == SB_OK) MPI_Allreduce(iteration, &most, 1, MPI_LONG, MPI_MAX, comm);
    *iteration = most;
    return rc;
}

int stencil_state_load(const char *path, struct stencil_run *r, long *iteration, struct sb_msg *m)
{
    return load(path, &r->p, r, r->comm, iteration, m);
}

int stencil_state_check(const char *path, const struct stencil_params *p, MPI_Comm comm,
                        long *iteration, struct sb_msg *m)
{
    return load(path, p, NULL, comm, iteration, m);
}
