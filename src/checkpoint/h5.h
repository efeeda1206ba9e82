/* Parallel HDF5 for checkpoints, with every failure turned into one
 * message that names the file, what was being done and HDF5's own reason
 * (for instance "data error detected by Fletcher32 checksum") instead of
 * HDF5's stack dump.
 *
 * Files are written collectively (MPI-IO, collective transfers: the only
 * way parallel HDF5 writes filtered datasets) and read independently, so
 * that a rank that meets a bad chunk fails alone and the others are not
 * left waiting in a collective read.  Metadata use the 1.10 file format,
 * whose object headers carry checksums too.  Every dataset is chunked, with
 * the Fletcher32 filter unless its writer keeps its own digest
 * (row_digest.h: the particle tables of an MD checkpoint). */
#ifndef SB_H5_H
#define SB_H5_H

#include "../error.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

struct h5_file {
    hid_t id;
    hid_t transfer; /* collective when writing, independent when reading */
    const char *path;
    struct sb_msg *m;
};

/* SB_ERUNTIME after filling f->m with "checkpoint PATH: WHAT: reason". */
int h5_error(const struct h5_file *f, const char *what);

#define CHECK_H5(f, call, what)                                                                    \
    do {                                                                                           \
        if ((call) < 0) return h5_error(f, what);                                                  \
    } while (0)

/* Whether path holds an HDF5 file (its signature); any rank alone. */
bool h5_is_hdf5(const char *path);

/* Creates (truncating) or opens read-only; collective over comm. */
int h5_create(struct h5_file *f, const char *path, MPI_Comm comm, struct sb_msg *m);
int h5_open(struct h5_file *f, const char *path, MPI_Comm comm, struct sb_msg *m);
/* Closes the file; SB_ERUNTIME when HDF5 could not flush it. */
int h5_close(struct h5_file *f);

/* Groups: created, or opened (a missing one fails with "no group NAME"). */
int h5_group(struct h5_file *f, hid_t loc, const char *name, hid_t *group);
int h5_open_group(struct h5_file *f, hid_t loc, const char *name, hid_t *group);
void h5_close_group(hid_t group);
/* 1: NAME is there; 0: it is not; -1: HDF5 could not tell (a damaged
 * header): callers that go on to open it fail there, as damage (3). */
int h5_exists(hid_t loc, const char *name);

/* Attributes, written by every rank alike: a variable-length string, an
 * array of them, 64-bit integers and doubles. */
/* Text attributes are fixed-length strings (H5MD 1.1 asks for them), a
 * scalar or n of them; h5_attr_vltext writes a variable-length one (what the
 * H5MD units module asks for its `unit` and `system`).  Both are ASCII unless
 * the text has other bytes (UTF-8 then). */
int h5_attr_text(struct h5_file *f, hid_t loc, const char *name, const char *text);
int h5_attr_texts(struct h5_file *f, hid_t loc, const char *name, int n, const char *const *texts);
int h5_attr_vltext(struct h5_file *f, hid_t loc, const char *name, const char *text);
int h5_attr_ints(struct h5_file *f, hid_t loc, const char *name, int n, const int64_t *v);
int h5_attr_reals(struct h5_file *f, hid_t loc, const char *name, int n, const double *v);
/* Reading them back: exactly n values, or a message naming the attribute. */
int h5_read_attr_ints(struct h5_file *f, hid_t loc, const char *name, int n, int64_t *v);
int h5_read_attr_reals(struct h5_file *f, hid_t loc, const char *name, int n, double *v);
/* A string attribute into a malloc'd buffer the caller frees. */
int h5_read_attr_text(struct h5_file *f, hid_t loc, const char *name, char **text);

/* A 64-bit digest (FNV-1a) of every attribute in the file, names and
 * values, object by object in name order, leaving out the attributes named
 * `skip` (where the digest itself is kept).  HDF5 checksums the datasets'
 * chunks (Fletcher32) and its own metadata, but not attribute values. */
int h5_attributes_digest(struct h5_file *f, const char *skip, uint64_t *digest);

/* A dataset of `rank` dimensions `dims`, chunked along `axis` in blocks of
 * at most `chunk_rows` rows (whole along the others), with Fletcher32 when
 * `fletcher32`.  type is H5T_NATIVE_DOUBLE or H5T_NATIVE_INT64. */
int h5_dataset(struct h5_file *f, hid_t loc, const char *name, hid_t type, int rank,
               const hsize_t *dims, int axis, hsize_t chunk_rows, bool fletcher32, hid_t *dataset);
int h5_open_dataset(struct h5_file *f, hid_t loc, const char *name, hid_t *dataset);
/* The extent of a dataset along axis (its rank must be `rank`). */
int h5_extent(struct h5_file *f, hid_t dataset, const char *name, int rank, int axis,
              hsize_t *rows);

/* A chunked dataset of `dims` with chunks of `chunk` (e.g. one rank's
 * block), Fletcher32.  Collective. */
int h5_block_dataset(struct h5_file *f, hid_t loc, const char *name, hid_t type, int rank,
                     const hsize_t *dims, const hsize_t *chunk, hid_t *dataset);
/* This rank's block [start, start + count) written (collective when the
 * file was created) or read. */
int h5_transfer_block(struct h5_file *f, hid_t dataset, const char *name, hid_t type,
                      const hsize_t *start, const hsize_t *count, void *buf, bool write);

/* A time series: axis 0 counts frames (unlimited, none yet), then `item`
 * (rank - 1 extents); chunks of one frame and at most chunk_rows rows of
 * axis 1 (a series of scalars: chunk_rows frames), Fletcher32, and deflate
 * (level 1) on the rank >= 2 ones.  Collective. */
int h5_series(struct h5_file *f, hid_t loc, const char *name, hid_t type, int rank,
              const hsize_t *item, hsize_t chunk_rows, hid_t *dataset);
/* Grows a series to frame + 1 frames and writes this rank's rows [first,
 * first + count) of axis 1 of that frame (of a series of scalars: count 0
 * or 1 value).  Collective: every rank calls it with the same frame. */
int h5_append_frame(struct h5_file *f, hid_t dataset, const char *name, hid_t type, hsize_t frame,
                    hsize_t first, hsize_t count, const void *buf);

/* Rows [first, first + count) along axis, the other axes whole, from or
 * into buf (count may be 0: the rank still takes part). */
int h5_write_rows(struct h5_file *f, hid_t dataset, const char *name, hid_t type, int axis,
                  hsize_t first, hsize_t count, const void *buf);
int h5_read_rows(struct h5_file *f, hid_t dataset, const char *name, hid_t type, int axis,
                 hsize_t first, hsize_t count, void *buf);

#endif
