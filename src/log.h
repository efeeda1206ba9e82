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

/* Progress on one line of stderr, rank 0 only, only when stderr is a
 * terminal, and at most five times a second; progress_done() clears it. */
void log_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_progress_done(void);
bool log_progress_enabled(void);

#endif
