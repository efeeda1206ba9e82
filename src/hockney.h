/* The Hockney model of a message (seed 000 sec. 3.1): a message of m bytes
 * costs alpha + beta m.
 *
 * Measured one-way times (half a ping-pong round trip) at a set of sizes
 * give the model two ways: seed 000's "beta per load" (Table 1: at a
 * measured size the time itself, alpha + beta(m) m), and a least-squares
 * line per protocol segment for any other size, the segments split where
 * the data say the protocol changes (the eager limit is found, not
 * assumed).  hockney.json holds both; every command reads it through
 * model.hockney. */
#ifndef SB_HOCKNEY_H
#define SB_HOCKNEY_H

#include "error.h"
#include "smp/copymodel.h"

#include <cjson/cJSON.h>

#define HOCKNEY_MAX_POINTS   256
#define HOCKNEY_MAX_SEGMENTS 2

struct hockney_point {
    double bytes;
    double time; /* one-way, s */
};

struct hockney_segment {
    double from, to; /* sizes it was fitted on, inclusive */
    double alpha;    /* s */
    double beta;     /* s per byte */
    double rms;      /* relative rms residual of the fit */
};

struct hockney {
    int npoints;
    struct hockney_point point[HOCKNEY_MAX_POINTS];
    int nsegments;
    struct hockney_segment segment[HOCKNEY_MAX_SEGMENTS];
    double alpha; /* the 0-byte time when measured, else the first segment's alpha */
    char statistic[16], mode[16], source[256];
    struct smp_copy copy; /* model.smp: copies inside a rank (optional) */
};

/* Fits the segments to h->point (sorted by size, at least 2 points): one
 * line, or, when one line misses by more than 1 % rms, two split between
 * consecutive sizes if that cuts the squared relative residuals at least
 * fourfold.  Residuals are relative, so small
 * and large messages count alike.  Sets h->alpha. */
int hockney_fit(struct hockney *h, struct sb_msg *m);

/* Weighted least squares of t = a + b m with weights 1 / t^2 over points
 * [first, last]; returns the relative rms residual. */
double hockney_line(const struct hockney_point *p, int first, int last, double *a, double *b);

/* The time of one message of m bytes: the measured time at a measured size
 * (seed 000's beta per load), the segment's line elsewhere. */
double hockney_time(const struct hockney *h, double m);

cJSON *hockney_to_json(const struct hockney *h);

/* Reads hockney.json.  SB_EUSAGE with a message naming the file and the
 * problem (missing, not JSON, keys absent or not positive). */
int hockney_load(struct hockney *h, const char *path, struct sb_msg *m);

#endif
