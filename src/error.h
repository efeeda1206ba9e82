/* Exit codes, error messages and the CHECK_MPI macro shared by every command.
 *
 * Exit codes (DESIGN.md): 0 ok; 1 a verification failed; 2 bad usage or
 * configuration; 3 a runtime failure (MPI, I/O, CUDA, HDF5).  Functions that
 * can fail return one of these codes; code 3 is fatal and the driver aborts
 * the whole job with it, because the other ranks may be blocked in a call
 * that will never complete. */
#ifndef SB_ERROR_H
#define SB_ERROR_H

#include <stddef.h>

enum sb_status {
    SB_OK = 0,
    SB_EVERIFY = 1,
    SB_EUSAGE = 2,
    SB_ERUNTIME = 3,
};

/* A message produced by a pure function (no printing inside), so that the
 * caller decides who prints it and unit tests can read it. */
struct sb_msg {
    char text[1024];
};

/* Formats a message into m (when m is not NULL) and returns code. */
int sb_fail(struct sb_msg *m, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prints "shiftbox: rank R: CALL failed: <MPI error string> (file:line)" and
 * returns SB_ERUNTIME. */
int sb_mpi_error(const char *call, int rc, const char *file, int line);

/* Prints "shiftbox: rank R: WHAT: <strerror(errno)> (file:line)" and returns
 * SB_ERUNTIME. */
int sb_sys_error(const char *what, const char *file, int line);

#define CHECK_MPI(call)                                                                            \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0 /* MPI_SUCCESS */) return sb_mpi_error(#call, rc_, __FILE__, __LINE__);       \
    } while (0)

/* Propagates a non-zero status from a call that returns one. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != SB_OK) return rc_;                                                              \
    } while (0)

/* Allocation that cannot fail silently: on failure prints the size and
 * aborts the job with SB_ERUNTIME. */
void *sb_malloc(size_t bytes, const char *what);
void *sb_calloc(size_t count, size_t size, const char *what);
void *sb_realloc(void *p, size_t bytes, const char *what);
char *sb_strdup(const char *s);

/* Reads a whole text file of at most 1 MiB into a NUL-terminated buffer
 * (the caller frees it) and stores its length in *len.  On failure returns
 * NULL with "LABEL: cannot open/read: why; accepted: ACCEPTED" in m. */
char *sb_read_text(const char *path, const char *label, const char *accepted, size_t *len,
                   struct sb_msg *m);

#endif
