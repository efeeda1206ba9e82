/* Messages to the user.  Rank 0 speaks for all ranks about things every rank
 * knows alike (configuration errors, results); a rank speaks for itself about
 * what only it knows (a failed call, a wrong byte). */
#ifndef SB_LOG_H
#define SB_LOG_H

#include <stdbool.h>

void log_set_rank(int rank);
int log_rank(void);

/* stdout, rank 0 only. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* stderr, rank 0 only, prefixed "shiftbox: error: ". */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* stderr, rank 0 only, prefixed "shiftbox: warning: ". */
void log_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* stderr, this rank, prefixed "shiftbox: rank R: ". */
void log_rank_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Progress of a long run on stderr, rank 0 only, never a collective: on a
 * terminal a live line (at most five times a second); otherwise, for
 * mpirun and batch logs, one line every `every` seconds (progress.every;
 * 0: none).  log_progress_start sets the interval and starts the clock the
 * rate and the time left are measured from. */
void log_progress_start(double every);
/* `done` of `total` units named `what` ("exchanges", "steps"), then the rate
 * per second, the time left, and fmt's detail. */
void log_progress(double done, double total, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void log_progress_done(void);
bool log_progress_enabled(void);

#endif
