/* The command line: shiftbox COMMAND [-c FILE] [-s section.key=value ...] [--out DIR]
 * [--restart FILE]. */
#ifndef SB_ARGS_H
#define SB_ARGS_H

#include "error.h"

#include <stdbool.h>

#define ARGS_MAX_OVERRIDES 256

struct args {
    const char *command;
    const char *config_file;
    const char *overrides[ARGS_MAX_OVERRIDES];
    int noverrides;
    const char *out_dir;
    const char *restart; /* --restart FILE: checkpoint.restart */
    bool help;
    bool version;
};

/* Parses argv (without consuming it).  SB_EUSAGE with a message on error. */
int parse_args(int argc, char **argv, struct args *a, struct sb_msg *m);

#endif
