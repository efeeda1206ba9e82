/* The message costs the models use, measured by shiftbox pingpong
 * (docs/MODEL.md "The assumptions").
 *
 * The Hockney model of a message (seed 000 sec. 3.1): m bytes cost
 * alpha + beta m, here the one-way time of half a ping-pong round trip.
 * Beside it, measured the same way in the same run:
 *   send    the one-way time with MPI_Send where c(m) uses MPI_Ssend: what
 *           the messages of collectives cost (their algorithms send);
 *   duplex  a message each way at once (MPI_Isend/MPI_Irecv between the
 *           pair), each step sending on what the one before received:
 *           what a step of an exchange that forwards costs where send and
 *           receive overlap;
 *   start   one such step alone, as an exchange starts: a payload just
 *           written, a barrier, a message each way, both ranks' times
 *           (what an exchange that sends only its own payload costs);
 *   round   the Shift's hop on a ring of two as an exchange starts: a
 *           payload just written, a barrier, one rank sends it (the
 *           one-way curve's send) and receives the other's, which receives
 *           first and then sends its own; both ranks' times, two messages;
 *   gap     the time each further message adds when several travel each
 *           way at once (LogGP's g, at each size): 0 where latencies
 *           overlap completely, the whole message time where nothing does;
 *   fan     the same when a rank sends several one way (or receives them):
 *           the spacing of a collective's messages at a tree's node;
 *   copy    a memcpy of m bytes inside a rank.
 * Each is a curve: times at the measured sizes (used as they are: seed
 * 000's "beta per load", Table 1) and one or two fitted lines between and
 * beyond them, split where the protocol changes (the eager limit is found,
 * not assumed); copies join their measured times instead (hockney_copy).
 * hockney.json holds them; every command reads it through model.hockney.
 * A file with the one-way curve only (older runs, or alpha and beta from
 * elsewhere) stands for a full-duplex network whose latencies overlap:
 * send = duplex = one-way, gap = beta m, and copies free (seed 000's model
 * counts messages only); a file without start (before it was measured)
 * takes start = duplex, one without round takes two one-way times. */
#ifndef SB_HOCKNEY_H
#define SB_HOCKNEY_H

#include "error.h"
#include "smp/copymodel.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#define HOCKNEY_MAX_POINTS   256
#define HOCKNEY_MAX_SEGMENTS 2

struct hockney_point {
    double bytes;
    double time; /* s */
};

struct hockney_segment {
    double from, to; /* sizes it was fitted on, inclusive */
    double alpha;    /* s */
    double beta;     /* s per byte */
    double rms;      /* relative rms residual of the fit */
};

/* Time against size. */
struct hockney_curve {
    int npoints; /* 0: not measured */
    struct hockney_point point[HOCKNEY_MAX_POINTS];
    int nsegments;
    struct hockney_segment segment[HOCKNEY_MAX_SEGMENTS];
};

struct hockney {
    struct hockney_curve oneway; /* c(m) = alpha + beta m */
    double alpha;                /* the 0-byte one-way time when measured, else the fit's */
    struct hockney_curve send;   /* one-way with MPI_Send */
    struct hockney_curve duplex; /* x(m): a message each way at once, forwarded */
    struct hockney_curve start;  /* x0(m): the same as an exchange starts */
    struct hockney_curve round;  /* r(m): a Shift hop of two messages as an exchange starts */
    struct hockney_curve gap;    /* g(m): each further message in flight each way */
    struct hockney_curve fan;    /* f(m): each further message one way */
    struct hockney_curve copy;   /* memcpy inside a rank */
    int burst;                   /* messages each way of the burst that measured gap */
    bool smpi;                   /* measured on SimGrid's SMPI: its collective algorithms */
    char statistic[16], mode[16], source[256];
    uint64_t text_hash;  /* of the file's bytes as read (model_load_hockney) */
    struct smp_copy smp; /* model.smp: copies inside a rank (optional) */
    int torus[3];        /* model.torus: the hosts' 3D torus (src/model_net.c); 0: none */
};

/* Fits the segments to c->point (sorted by size, at least 2 points, times
 * >= 0): one line, or, when one line misses by more than 1 % rms, two split
 * between consecutive sizes if that cuts the squared residuals at least
 * fourfold.  Residuals are relative (small and large messages count alike)
 * where no time is 0.  `what` names the curve in messages. */
int hockney_curve_fit(struct hockney_curve *c, const char *what, struct sb_msg *m);

/* Weighted least squares of t = a + b m with weights 1 / t^2 over points
 * [first, last] (plain least squares when a time is 0); returns the
 * relative rms residual. */
double hockney_line(const struct hockney_point *p, int first, int last, double *a, double *b);

/* The curve at m bytes: the measured time at a measured size, the
 * segment's line elsewhere (never below 0). */
double hockney_curve_time(const struct hockney_curve *c, double m);

/* Fits every measured curve and sets h->alpha.  SB_EUSAGE naming the curve. */
int hockney_fit(struct hockney *h, struct sb_msg *m);

/* The one-way time of a message of m bytes: seed 000's c(m). */
double hockney_time(const struct hockney *h, double m);
/* The one-way time with MPI_Send (c(m) without a measurement). */
double hockney_send(const struct hockney *h, double m);
/* One message each way at once: x(m) (the one-way time without a measurement). */
double hockney_duplex(const struct hockney *h, double m);
/* The same as the step that starts an exchange: x0(m) (x(m) without a measurement). */
double hockney_start(const struct hockney *h, double m);
/* The Shift's hop on a ring of two as an exchange starts, two messages:
 * r(m) (2 c(m) without a measurement). */
double hockney_round(const struct hockney *h, double m);
/* What each further message in flight adds: g(m) (beta m without a measurement). */
double hockney_gap(const struct hockney *h, double m);
/* What each further message one way adds: f(m) (half the gap, or beta m,
 * without a measurement). */
double hockney_fan(const struct hockney *h, double m);
/* A copy of m bytes inside a rank (0 without a measurement): the measured
 * times joined on log-log axes, not the fitted lines (they span caches). */
double hockney_copy(const struct hockney *h, double m);

/* The curves beside the one-way one, as hockney.json names them. */
enum { HOCKNEY_MORE = 7 };
extern const char *const hockney_more_names[HOCKNEY_MORE];
/* Curve i of h (as strchr does, the const of h is the caller's to keep). */
struct hockney_curve *hockney_more(const struct hockney *h, int i);

cJSON *hockney_to_json(const struct hockney *h);

/* Reads hockney.json (or a pingpong summary.json holding it).  SB_EUSAGE
 * with a message naming the file and the problem. */
int hockney_load(struct hockney *h, const char *path, struct sb_msg *m);

#endif
