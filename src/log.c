#include "log.h"
#include "error.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

static int my_rank;
static int progress_shown;

void log_set_rank(int rank)
{
    my_rank = rank;
}

int log_rank(void)
{
    return my_rank;
}

/* One write per line: stderr is unbuffered, and a line written in pieces
 * interleaves with other ranks' lines under mpirun (a rank's prefix once
 * landed on rank 0's stdout line, and a test looking for the whole line
 * missed it). */
static void vprint(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
    char line[4096];
    int at = snprintf(line, sizeof line, "%s", prefix);
    if (at < (int)sizeof line) at += vsnprintf(line + at, sizeof line - (size_t)at, fmt, ap);
    if (at > (int)sizeof line - 2) at = (int)sizeof line - 2;
    line[at++] = '\n';
    fwrite(line, 1, (size_t)at, f);
    fflush(f);
}

void log_info(const char *fmt, ...)
{
    if (my_rank != 0) return;
    va_list ap;
    va_start(ap, fmt);
    vprint(stdout, "", fmt, ap);
    va_end(ap);
}

void log_error(const char *fmt, ...)
{
    if (my_rank != 0) return;
    log_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vprint(stderr, "shiftbox: error: ", fmt, ap);
    va_end(ap);
}

void log_warning(const char *fmt, ...)
{
    if (my_rank != 0) return;
    log_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vprint(stderr, "shiftbox: warning: ", fmt, ap);
    va_end(ap);
}

void log_rank_error(const char *fmt, ...)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "shiftbox: rank %d: ", my_rank);
    va_list ap;
    va_start(ap, fmt);
    vprint(stderr, prefix, fmt, ap);
    va_end(ap);
}

static double progress_every, progress_begin, progress_last;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void log_progress_start(double every)
{
    progress_every = every;
    progress_begin = progress_last = now_seconds();
}

bool log_progress_enabled(void)
{
    return my_rank == 0 && (isatty(STDERR_FILENO) || progress_every > 0);
}

/* "1 h 02 min", "3 min 05 s", "12 s" */
static void format_duration(char *out, size_t cap, double s)
{
    if (s >= 3600)
        snprintf(out, cap, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
    else if (s >= 60)
        snprintf(out, cap, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(out, cap, "%.0f s", s);
}

void log_progress(double done, double total, const char *what, const char *fmt, ...)
{
    if (!log_progress_enabled()) return;
    bool live = isatty(STDERR_FILENO);
    double now = now_seconds();
    if (now - progress_last < (live ? 0.2 : progress_every)) return;
    progress_last = now;
    double elapsed = now - progress_begin, rate = elapsed > 0 ? done / elapsed : 0;
    char left[32] = "unknown";
    if (rate > 0 && total >= done) format_duration(left, sizeof left, (total - done) / rate);
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    char per[32];
    snprintf(per, sizeof per, rate >= 100 ? "%.0f" : "%.3g", rate);
    fprintf(stderr, "%sprogress: %.0f of %.0f %s (%.0f %%), %s %s/s, %s left; %s%s",
            live ? "\r\033[K" : "", done, total, what, total > 0 ? 100.0 * done / total : 0.0,
            per, what, left, detail, live ? "" : "\n");
    fflush(stderr);
    progress_shown = live;
}

void log_progress_done(void)
{
    if (!progress_shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    progress_shown = 0;
}

int sb_fail(struct sb_msg *m, int code, const char *fmt, ...)
{
    if (m) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->text, sizeof m->text, fmt, ap);
        va_end(ap);
    }
    return code;
}

int sb_mpi_error(const char *call, int rc, const char *file, int line)
{
    char text[MPI_MAX_ERROR_STRING] = "unknown MPI error";
    int len = 0;
    MPI_Error_string(rc, text, &len);
    log_rank_error("%s failed: %s (%s:%d)", call, text, file, line);
    return SB_ERUNTIME;
}

int sb_sys_error(const char *what, const char *file, int line)
{
    log_rank_error("%s: %s (%s:%d)", what, strerror(errno), file, line);
    return SB_ERUNTIME;
}

static void out_of_memory(size_t bytes, const char *what)
{
    log_rank_error("out of memory allocating %zu bytes for %s", bytes, what);
    MPI_Abort(MPI_COMM_WORLD, SB_ERUNTIME);
    abort(); /* not reached: MPI_Abort does not return */
}

void *sb_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) out_of_memory(bytes, what);
    return p;
}

void *sb_calloc(size_t count, size_t size, const char *what)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size, what);
    return p;
}

void *sb_realloc(void *old, size_t bytes, const char *what)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p) out_of_memory(bytes, what);
    return p;
}

char *sb_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = sb_malloc(n, "a string");
    memcpy(p, s, n);
    return p;
}

char *sb_read_text(const char *path, const char *label, const char *accepted, size_t *len,
                   struct sb_msg *m)
{
    enum { LIMIT = 1 << 20 };
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        sb_fail(m, SB_EUSAGE, "%s: not a regular file (a FIFO, device or directory); accepted: %s",
                label, accepted);
        return NULL;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        sb_fail(m, SB_EUSAGE, "%s: cannot open: %s; accepted: %s", label, strerror(errno),
                accepted);
        return NULL;
    }
    /* Grown as it fills, so that a small file takes a small buffer (a
     * simulation's shared malloc shares large ones between ranks). */
    size_t cap = 4096, n = 0, got;
    bool too_large = false;
    char *text = sb_malloc(cap + 1, label);
    while (!too_large && (got = fread(text + n, 1, cap - n, f)) > 0) {
        n += got;
        too_large = n > LIMIT;
        if (n == cap) text = sb_realloc(text, (cap *= 2) + 1, label);
    }
    const char *why = ferror(f) ? strerror(errno) : too_large ? "larger than 1 MiB" : NULL;
    fclose(f);
    if (why) {
        sb_fail(m, SB_EUSAGE, "%s: cannot read: %s; accepted: %s", label, why, accepted);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *len = n;
    return text;
}
