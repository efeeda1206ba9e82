/* What a run leaves behind with --out DIR: summary.json (the resolved
 * configuration, the environment, the results) and CSV files for sweeps.
 * Files are written under a temporary name and renamed when complete, so a
 * crash never leaves half a file where a good one was. */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include "config.h"
#include "placement.h"
#include "stats.h"
#include "timer.h"

#include <cjson/cJSON.h>

#define SHIFTBOX_VERSION "0.1.0"

/* The folders report_prepare_dir made (mkdir succeeded), as prefixes of one
 * path, outermost first; report_unmake_dir removes them again. */
struct report_made_dirs {
    char path[4096];
    int n;
    int end[64]; /* the prefix lengths */
};

/* Creates DIR (and its parents) if needed, recording in `made` (when not
 * NULL) the ones it created.  SB_EUSAGE with a message that begins with
 * `label` (the option or key that named it) when it cannot be a writable
 * directory. */
int report_prepare_dir(const char *dir, const char *label, struct report_made_dirs *made,
                       struct sb_msg *m);

/* Removes the folders `made` records, innermost first, each only while
 * empty (rmdir): never one that existed before, whatever '..' or '//' the
 * path held.  Then records none. */
void report_unmake_dir(struct report_made_dirs *made);

/* Writes text to DIR/NAME atomically.  SB_ERUNTIME on I/O failure. */
int report_write_text(const char *dir, const char *name, const char *text, size_t len);
int report_write_json(const char *dir, const char *name, const cJSON *root);
/* Writes root to DIR/NAME and frees it. */
int report_finish_json(const char *dir, const char *name, cJSON *root);

/* A text file built in memory (fprintf to .f), then written atomically. */
struct report_text {
    char *text;
    size_t len;
    FILE *f;
};
int report_text_open(struct report_text *t);
/* Writes DIR/NAME and frees the text (also when dir is NULL: then it only frees). */
int report_text_commit(struct report_text *t, const char *dir, const char *name);

/* The configuration of the given sections as typed JSON. */
cJSON *report_config(const struct config *c, const char *const *sections);

/* MPI library, ranks, host, timer, GPU, compiler, date. */
cJSON *report_environment(int nranks, const struct timer_calibration *cal,
                          const struct placement *where);

/* min, median, mean, max, variance, stddev, cv, std_error, rse, n. */
cJSON *report_stats(const struct stats *s);

/* The start of a summary: version, command, config, environment. */
cJSON *report_summary_begin(const char *command, const struct config *c,
                            const char *const *sections, int nranks,
                            const struct timer_calibration *cal, const struct placement *where);

#endif
