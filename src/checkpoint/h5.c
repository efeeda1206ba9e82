#include "h5.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most specific entry of HDF5's error stack (the walk goes upward from
 * where the error was detected), and the API call it surfaced through. */
struct h5_reason {
    char detail[256];
    char call[64];
};

static herr_t note_reason(unsigned n, const H5E_error2_t *e, void *data)
{
    struct h5_reason *r = data;
    if (n == 0) snprintf(r->detail, sizeof r->detail, "%s", e->desc ? e->desc : "?");
    snprintf(r->call, sizeof r->call, "%s", e->func_name ? e->func_name : "?");
    return 0;
}

int h5_error(const struct h5_file *f, const char *what)
{
    struct h5_reason r = {"no reason given", "?"};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, note_reason, &r);
    H5Eclear2(H5E_DEFAULT);
    return sb_fail(f->m, SB_ERUNTIME, "checkpoint %s: %s: %s (HDF5, in %s)", f->path, what,
                   r.detail, r.call);
}

/* Access through MPI-IO in the 1.10 format, whose metadata (superblock,
 * object headers, link storage, chunk indices) is checksummed throughout.  Writers do metadata
 * collectively; readers alone, so that ranks whose reads fail at different places cannot wait on
 * each other. */
static hid_t file_access(MPI_Comm comm, bool create)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* failures become messages, not dumps */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0 ||
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_LATEST) < 0 ||
        (create &&
         (H5Pset_all_coll_metadata_ops(fapl, 1) < 0 || H5Pset_coll_metadata_write(fapl, 1) < 0))) {
        if (fapl >= 0) H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

static int open_file(struct h5_file *f, const char *path, MPI_Comm comm, bool create,
                     struct sb_msg *m)
{
    *f = (struct h5_file){.id = -1, .transfer = -1, .path = path, .m = m};
    hid_t fapl = file_access(comm, create);
    if (fapl < 0) return h5_error(f, "setting up MPI-IO access");
    f->id = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                   : H5Fopen(path, H5F_ACC_RDONLY, fapl);
    int rc = f->id < 0 ? h5_error(f, create ? "creating the file" : "opening the file") : SB_OK;
    H5Pclose(fapl);
    if (rc != SB_OK) return rc;
    f->transfer = H5Pcreate(H5P_DATASET_XFER);
    if (f->transfer < 0 ||
        H5Pset_dxpl_mpio(f->transfer, create ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT) < 0) {
        rc = h5_error(f, "setting up transfers");
        h5_close(f);
        return rc;
    }
    return SB_OK;
}

bool h5_is_hdf5(const char *path)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
#if H5_VERSION_GE(1, 12, 0)
    htri_t is = H5Fis_accessible(path, H5P_DEFAULT);
#else
    htri_t is = H5Fis_hdf5(path);
#endif
    H5Eclear2(H5E_DEFAULT);
    return is > 0;
}

int h5_create(struct h5_file *f, const char *path, MPI_Comm comm, struct sb_msg *m)
{
    return open_file(f, path, comm, true, m);
}

int h5_open(struct h5_file *f, const char *path, MPI_Comm comm, struct sb_msg *m)
{
    return open_file(f, path, comm, false, m);
}

int h5_close(struct h5_file *f)
{
    int rc = SB_OK;
    if (f->transfer >= 0) H5Pclose(f->transfer);
    if (f->id >= 0 && H5Fclose(f->id) < 0) rc = h5_error(f, "closing the file");
    f->id = f->transfer = -1;
    return rc;
}

/* ---- groups ---------------------------------------------------------------------- */

int h5_group(struct h5_file *f, hid_t loc, const char *name, hid_t *group)
{
    *group = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK_H5(f, *group, name);
    return SB_OK;
}

int h5_exists(hid_t loc, const char *name)
{
    const htri_t found = H5Lexists(loc, name, H5P_DEFAULT);
    return found < 0 ? -1
                     : found > 0; /* -1: unreadable (damaged), which callers open and fail on */
}

int h5_open_group(struct h5_file *f, hid_t loc, const char *name, hid_t *group)
{
    *group = -1;
    if (!h5_exists(loc, name))
        return sb_fail(f->m, SB_ERUNTIME, "checkpoint %s: no group '%s'", f->path, name);
    *group = H5Gopen2(loc, name, H5P_DEFAULT);
    CHECK_H5(f, *group, name);
    return SB_OK;
}

void h5_close_group(hid_t group)
{
    if (group >= 0) H5Gclose(group);
}

/* ---- attributes ------------------------------------------------------------------- */

/* A string type: variable-length, or fixed-length of `size` bytes with the
 * terminating NUL; ASCII unless the text has other bytes (then UTF-8). */
static hid_t text_type(size_t size, bool ascii)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 &&
        (H5Tset_size(t, size ? size : H5T_VARIABLE) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
         H5Tset_cset(t, ascii ? H5T_CSET_ASCII : H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static bool is_ascii(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c > 127) return false;
    return true;
}

/* One attribute of n values (a scalar when n is 0). */
static int write_attr(struct h5_file *f, hid_t loc, const char *name, hid_t type, int n,
                      const void *values)
{
    hsize_t count = (hsize_t)n;
    hid_t space = n > 0 ? H5Screate_simple(1, &count, NULL) : H5Screate(H5S_SCALAR);
    hid_t attr = space < 0 ? -1 : H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t wrote = attr < 0 ? -1 : H5Awrite(attr, type, values);
    int rc = wrote < 0 ? h5_error(f, name) : SB_OK; /* before any call clears the reason */
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int h5_attr_texts(struct h5_file *f, hid_t loc, const char *name, int n, const char *const *texts)
{
    int values = n > 0 ? n : 1;
    size_t size = 1;
    bool ascii = true;
    for (int i = 0; i < values; i++) {
        size_t len = strlen(texts[i]) + 1;
        if (len > size) size = len;
        ascii = ascii && is_ascii(texts[i]);
    }
    char *packed = calloc((size_t)values, size);
    hid_t type = packed ? text_type(size, ascii) : -1;
    for (int i = 0; type >= 0 && i < values; i++)
        memcpy(packed + (size_t)i * size, texts[i], strlen(texts[i]));
    int rc = type < 0 ? h5_error(f, name) : write_attr(f, loc, name, type, n, packed);
    if (type >= 0) H5Tclose(type);
    free(packed);
    return rc;
}

int h5_attr_text(struct h5_file *f, hid_t loc, const char *name, const char *text)
{
    return h5_attr_texts(f, loc, name, 0, &text);
}

int h5_attr_vltext(struct h5_file *f, hid_t loc, const char *name, const char *text)
{
    hid_t type = text_type(0, is_ascii(text));
    int rc = type < 0 ? h5_error(f, name) : write_attr(f, loc, name, type, 0, &text);
    if (type >= 0) H5Tclose(type);
    return rc;
}

int h5_attr_ints(struct h5_file *f, hid_t loc, const char *name, int n, const int64_t *v)
{
    return write_attr(f, loc, name, H5T_NATIVE_INT64, n, v);
}

int h5_attr_reals(struct h5_file *f, hid_t loc, const char *name, int n, const double *v)
{
    return write_attr(f, loc, name, H5T_NATIVE_DOUBLE, n, v);
}

/* Opens attribute `name` of n values (1 for a scalar); a missing one or
 * one of another size is a damaged file (SB_ERUNTIME): callers decide
 * beforehand whether the file is ShiftBox's at all. */
static int open_attr(struct h5_file *f, hid_t loc, const char *name, int n, hid_t *attr)
{
    *attr = -1;
    if (H5Aexists(loc, name) <= 0)
        return sb_fail(f->m, SB_ERUNTIME, "checkpoint %s: no attribute '%s'", f->path, name);
    *attr = H5Aopen(loc, name, H5P_DEFAULT);
    CHECK_H5(f, *attr, name);
    hid_t space = H5Aget_space(*attr);
    hssize_t count = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    if (space >= 0) H5Sclose(space);
    if (count != n) {
        H5Aclose(*attr);
        *attr = -1;
        return sb_fail(f->m, SB_ERUNTIME, "checkpoint %s: attribute '%s' holds %lld values, not %d",
                       f->path, name, (long long)count, n);
    }
    return SB_OK;
}

static int read_attr(struct h5_file *f, hid_t loc, const char *name, hid_t type, int n,
                     void *values)
{
    hid_t attr;
    CHECK(open_attr(f, loc, name, n, &attr));
    int rc = H5Aread(attr, type, values) < 0 ? h5_error(f, name) : SB_OK;
    H5Aclose(attr);
    return rc;
}

int h5_read_attr_ints(struct h5_file *f, hid_t loc, const char *name, int n, int64_t *v)
{
    return read_attr(f, loc, name, H5T_NATIVE_INT64, n, v);
}

int h5_read_attr_reals(struct h5_file *f, hid_t loc, const char *name, int n, double *v)
{
    return read_attr(f, loc, name, H5T_NATIVE_DOUBLE, n, v);
}

int h5_read_attr_text(struct h5_file *f, hid_t loc, const char *name, char **text)
{
    *text = NULL;
    hid_t attr;
    CHECK(open_attr(f, loc, name, 1, &attr));
    hid_t stored = H5Aget_type(attr);
    int rc = stored < 0 || H5Tget_class(stored) != H5T_STRING
                 ? sb_fail(f->m, SB_ERUNTIME, "checkpoint %s: attribute '%s' is not a string",
                           f->path, name)
                 : SB_OK;
    if (rc == SB_OK && H5Tis_variable_str(stored) > 0) {
        char *raw = NULL;
        hid_t mem = H5Tcopy(stored); /* its character set: HDF5 converts none */
        rc = mem < 0 || H5Aread(attr, mem, &raw) < 0 ? h5_error(f, name) : SB_OK;
        if (rc == SB_OK) *text = sb_strdup(raw ? raw : "");
        H5free_memory(raw);
        if (mem >= 0) H5Tclose(mem);
    } else if (rc == SB_OK) {
        size_t size = H5Tget_size(stored);
        char *raw = sb_malloc(size + 1, "a text attribute");
        rc = H5Aread(attr, stored, raw) < 0 ? h5_error(f, name) : SB_OK;
        raw[size] = '\0'; /* null-padded or space-padded texts end here at the latest */
        if (rc == SB_OK)
            *text = raw;
        else
            free(raw);
    }
    if (stored >= 0) H5Tclose(stored);
    H5Aclose(attr);
    return rc;
}

/* ---- datasets ---------------------------------------------------------------------- */

int h5_dataset(struct h5_file *f, hid_t loc, const char *name, hid_t type, int rank,
               const hsize_t *dims, int axis, hsize_t chunk_rows, bool fletcher32, hid_t *dataset)
{
    hsize_t chunk[H5S_MAX_RANK];
    for (int i = 0; i < rank; i++)
        chunk[i] = dims[i] > 0 ? dims[i] : 1;
    if (chunk[axis] > chunk_rows) chunk[axis] = chunk_rows;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    *dataset = -1;
    if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
        (!fletcher32 || H5Pset_fletcher32(dcpl) >= 0) &&
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0)
        *dataset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = *dataset < 0 ? h5_error(f, name) : SB_OK;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int h5_open_dataset(struct h5_file *f, hid_t loc, const char *name, hid_t *dataset)
{
    *dataset = -1;
    if (!h5_exists(loc, name))
        return sb_fail(f->m, SB_ERUNTIME, "checkpoint %s: no dataset '%s'", f->path, name);
    *dataset = H5Dopen2(loc, name, H5P_DEFAULT);
    CHECK_H5(f, *dataset, name);
    return SB_OK;
}

int h5_extent(struct h5_file *f, hid_t dataset, const char *name, int rank, int axis, hsize_t *rows)
{
    hsize_t dims[H5S_MAX_RANK];
    hid_t space = H5Dget_space(dataset);
    int got = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    if (got == rank) H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0) H5Sclose(space);
    if (got != rank)
        return sb_fail(f->m, SB_ERUNTIME, "checkpoint %s: dataset '%s' has %d dimensions, not %d",
                       f->path, name, got, rank);
    *rows = dims[axis];
    return SB_OK;
}

/* The file and memory selections of rows [first, first + count).  The
 * memory space has the shape of the file's selection, so that HDF5 maps it
 * onto chunks block by block instead of element by element. */
static int select_rows(hid_t dataset, int axis, hsize_t first, hsize_t count, hid_t *file,
                       hid_t *memory)
{
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK] = {0};
    *file = H5Dget_space(dataset);
    *memory = -1;
    if (*file < 0) return -1;
    int rank = H5Sget_simple_extent_ndims(*file);
    H5Sget_simple_extent_dims(*file, dims, NULL);
    if (first + count > dims[axis]) return -1;
    hsize_t elements = 1;
    for (int i = 0; i < rank; i++) {
        if (i == axis) {
            start[i] = first;
            dims[i] = count;
        }
        elements *= dims[i];
    }
    if (elements == 0) {
        hsize_t one = 1;
        *memory = H5Screate_simple(1, &one, NULL);
    } else {
        *memory = H5Screate_simple(rank, dims, NULL);
    }
    if (*memory < 0) return -1;
    if (elements == 0) return H5Sselect_none(*file) < 0 || H5Sselect_none(*memory) < 0 ? -1 : 0;
    return H5Sselect_hyperslab(*file, H5S_SELECT_SET, start, NULL, dims, NULL) < 0 ? -1 : 0;
}

static int transfer_rows(struct h5_file *f, hid_t dataset, const char *name, hid_t type, int axis,
                         hsize_t first, hsize_t count, void *buf, bool write)
{
    hid_t file, memory;
    double dummy = 0.0; /* HDF5 wants a buffer even for an empty selection */
    herr_t rc = select_rows(dataset, axis, first, count, &file, &memory);
    if (rc >= 0 && !buf) buf = &dummy;
    if (rc >= 0)
        rc = write ? H5Dwrite(dataset, type, memory, file, f->transfer, buf)
                   : H5Dread(dataset, type, memory, file, f->transfer, buf);
    char what[160];
    snprintf(what, sizeof what, "%s %s", write ? "writing" : "reading", name);
    int status = rc < 0 ? h5_error(f, what) : SB_OK;
    if (memory >= 0) H5Sclose(memory);
    if (file >= 0) H5Sclose(file);
    return status;
}

int h5_block_dataset(struct h5_file *f, hid_t loc, const char *name, hid_t type, int rank,
                     const hsize_t *dims, const hsize_t *chunk, hid_t *dataset)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    *dataset = -1;
    if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
        H5Pset_fletcher32(dcpl) >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0)
        *dataset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = *dataset < 0 ? h5_error(f, name) : SB_OK;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int h5_transfer_block(struct h5_file *f, hid_t dataset, const char *name, hid_t type,
                      const hsize_t *start, const hsize_t *count, void *buf, bool write)
{
    hid_t file = H5Dget_space(dataset);
    int rank = file < 0 ? -1 : H5Sget_simple_extent_ndims(file);
    hsize_t dims[H5S_MAX_RANK], elements = 1;
    herr_t rc = rank < 1 ? -1 : H5Sget_simple_extent_dims(file, dims, NULL);
    for (int i = 0; rc >= 0 && i < rank; i++) {
        if (start[i] + count[i] > dims[i]) rc = -1; /* a block outside: a file of another shape */
        elements *= count[i];
    }
    hid_t memory = rc < 0 ? -1 : H5Screate_simple(rank, count, NULL);
    if (memory < 0) rc = -1;
    if (rc >= 0) rc = H5Sselect_hyperslab(file, H5S_SELECT_SET, start, NULL, count, NULL);
    if (rc >= 0)
        rc = write ? H5Dwrite(dataset, type, memory, file, f->transfer, buf)
                   : H5Dread(dataset, type, memory, file, f->transfer, buf);
    char what[160];
    snprintf(what, sizeof what, "%s %s", write ? "writing" : "reading", name);
    int status = rc < 0 ? h5_error(f, what) : SB_OK;
    (void)elements;
    if (memory >= 0) H5Sclose(memory);
    if (file >= 0) H5Sclose(file);
    return status;
}

int h5_series(struct h5_file *f, hid_t loc, const char *name, hid_t type, int rank,
              const hsize_t *item, hsize_t chunk_rows, hid_t *dataset)
{
    hsize_t dims[H5S_MAX_RANK], most[H5S_MAX_RANK], chunk[H5S_MAX_RANK];
    dims[0] = 0;
    most[0] = H5S_UNLIMITED;
    chunk[0] = 1;
    for (int i = 1; i < rank; i++) {
        dims[i] = most[i] = item[i - 1];
        chunk[i] = item[i - 1] > 0 ? item[i - 1] : 1;
    }
    if (rank > 1 && chunk[1] > chunk_rows) chunk[1] = chunk_rows;
    if (rank == 1) chunk[0] = chunk_rows; /* step and time: many frames a chunk */
    hid_t space = H5Screate_simple(rank, dims, most);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    *dataset = -1;
    if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
        H5Pset_fletcher32(dcpl) >= 0 && (rank == 1 || H5Pset_deflate(dcpl, 1) >= 0) &&
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0)
        *dataset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = *dataset < 0 ? h5_error(f, name) : SB_OK;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int h5_append_frame(struct h5_file *f, hid_t dataset, const char *name, hid_t type, hsize_t frame,
                    hsize_t first, hsize_t count, const void *buf)
{
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK] = {0};
    hid_t file = -1, memory = -1;
    double dummy = 0.0;
    char what[160];
    snprintf(what, sizeof what, "appending frame %llu to %s", (unsigned long long)frame, name);
    hid_t space = H5Dget_space(dataset);
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    herr_t rc = rank < 1 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0) H5Sclose(space);
    dims[0] = frame + 1;
    if (rc >= 0) rc = H5Dset_extent(dataset, dims); /* collective: every rank, same size */
    if (rc >= 0) file = H5Dget_space(dataset);
    /* the frame's rows [first, first + count) of axis 1 (of axis 0 for a
     * series of scalars, whose frame is its row) */
    start[0] = frame;
    dims[0] = 1;
    if (rank > 1) {
        start[1] = first;
        dims[1] = count;
    } else {
        dims[0] = count;
    }
    hsize_t elements = 1;
    for (int i = 0; i < rank; i++)
        elements *= dims[i];
    hsize_t one = 1;
    if (file >= 0)
        memory = elements ? H5Screate_simple(rank, dims, NULL) : H5Screate_simple(1, &one, NULL);
    if (file < 0 || memory < 0)
        rc = -1;
    else if (elements == 0)
        rc = H5Sselect_none(file) < 0 || H5Sselect_none(memory) < 0 ? -1 : 0;
    else
        rc = H5Sselect_hyperslab(file, H5S_SELECT_SET, start, NULL, dims, NULL);
    if (rc >= 0) rc = H5Dwrite(dataset, type, memory, file, f->transfer, buf ? buf : &dummy);
    int status = rc < 0 ? h5_error(f, what) : SB_OK;
    if (memory >= 0) H5Sclose(memory);
    if (file >= 0) H5Sclose(file);
    return status;
}

int h5_write_rows(struct h5_file *f, hid_t dataset, const char *name, hid_t type, int axis,
                  hsize_t first, hsize_t count, const void *buf)
{
    return transfer_rows(f, dataset, name, type, axis, first, count, (void *)buf, true);
}

int h5_read_rows(struct h5_file *f, hid_t dataset, const char *name, hid_t type, int axis,
                 hsize_t first, hsize_t count, void *buf)
{
    return transfer_rows(f, dataset, name, type, axis, first, count, buf, false);
}

/* ---- the digest of every attribute ------------------------------------------------ */

struct digest_walk {
    struct h5_file *f;
    const char *skip; /* the attribute that stores the digest */
    uint64_t h;       /* FNV-1a, 64 bits */
    int rc;
};

static void fold(struct digest_walk *w, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        w->h = (w->h ^ b[i]) * 0x100000001b3ULL;
}

/* One attribute: its name, then its values (a string's characters). */
static herr_t digest_attr(hid_t loc, const char *name, const H5A_info_t *info, void *op)
{
    (void)info;
    struct digest_walk *w = op;
    if (!strcmp(name, w->skip)) return 0;
    fold(w, name, strlen(name) + 1);
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t type = attr < 0 ? -1 : H5Aget_type(attr);
    hid_t space = attr < 0 ? -1 : H5Aget_space(attr);
    hssize_t n = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    herr_t rc = type < 0 || n < 0 ? -1 : 0;
    if (rc == 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
        char **texts = calloc((size_t)n + 1, sizeof *texts);
        hid_t mem = H5Tcopy(type); /* its character set: HDF5 converts none */
        rc = texts && mem >= 0 ? 0 : -1;
        if (rc == 0) rc = H5Aread(attr, mem, texts);
        for (hssize_t i = 0; rc >= 0 && i < n; i++)
            fold(w, texts[i] ? texts[i] : "", texts[i] ? strlen(texts[i]) + 1 : 1);
        if (rc >= 0) H5Dvlen_reclaim(mem, space, H5P_DEFAULT, texts);
        if (mem >= 0) H5Tclose(mem);
        free(texts);
    } else if (rc == 0) {
        hid_t mem = H5Tget_class(type) == H5T_STRING ? H5Tcopy(type)
                                                     : H5Tget_native_type(type, H5T_DIR_ASCEND);
        size_t bytes = mem < 0 ? 0 : H5Tget_size(mem) * (size_t)n;
        unsigned char *buf = malloc(bytes + 1);
        rc = mem < 0 || !buf ? -1 : H5Aread(attr, mem, buf);
        if (rc >= 0) fold(w, buf, bytes);
        free(buf);
        if (mem >= 0) H5Tclose(mem);
    }
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (attr >= 0) H5Aclose(attr);
    if (rc < 0) w->rc = h5_error(w->f, name);
    return rc < 0 ? -1 : 0;
}

/* One object: its path, then its attributes in name order. */
static herr_t digest_object(hid_t root, const char *name, const H5O_info_t *info, void *op)
{
    (void)info;
    struct digest_walk *w = op;
    fold(w, name, strlen(name) + 1);
    hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    if (obj < 0) {
        w->rc = h5_error(w->f, name);
        return -1;
    }
    hsize_t at = 0;
    herr_t rc = H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &at, digest_attr, w);
    H5Oclose(obj);
    if (rc < 0 && w->rc == SB_OK) w->rc = h5_error(w->f, name);
    return rc < 0 ? -1 : 0;
}

int h5_attributes_digest(struct h5_file *f, const char *skip, uint64_t *digest)
{
    struct digest_walk w = {f, skip, 0xcbf29ce484222325ULL, SB_OK};
    herr_t rc = H5Ovisit(f->id, H5_INDEX_NAME, H5_ITER_INC, digest_object, &w);
    if (rc < 0 && w.rc == SB_OK) w.rc = h5_error(f, "visiting the objects");
    *digest = w.h;
    return w.rc;
}
