#include "args.h"

#include <string.h>

/* Matches "-x VALUE", "--long VALUE" and "--long=VALUE"; advances *i. */
static int option_value(int argc, char **argv, int *i, const char *brief, const char *full,
                        const char **value, struct sb_msg *m)
{
    const char *arg = argv[*i];
    size_t flen = strlen(full);
    if (!strncmp(arg, full, flen) && arg[flen] == '=') {
        *value = arg + flen + 1;
        return 1;
    }
    if (strcmp(arg, brief) && strcmp(arg, full)) return 0;
    if (*i + 1 >= argc) {
        sb_fail(m, SB_EUSAGE, "%s needs a value", arg);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int parse_args(int argc, char **argv, struct args *a, struct sb_msg *m)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int got;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            a->help = true;
        } else if (!strcmp(arg, "-V") || !strcmp(arg, "--version")) {
            a->version = true;
        } else if ((got = option_value(argc, argv, &i, "-c", "--config", &value, m)) != 0) {
            if (got < 0) return SB_EUSAGE;
            if (a->config_file)
                return sb_fail(m, SB_EUSAGE, "-c given twice ('%s' and '%s'); accepted: one file",
                               a->config_file, value);
            a->config_file = value;
        } else if ((got = option_value(argc, argv, &i, "-s", "--set", &value, m)) != 0) {
            if (got < 0) return SB_EUSAGE;
            if (a->noverrides == ARGS_MAX_OVERRIDES)
                return sb_fail(m, SB_EUSAGE, "more than %d -s overrides", ARGS_MAX_OVERRIDES);
            a->overrides[a->noverrides++] = value;
        } else if ((got = option_value(argc, argv, &i, "-o", "--out", &value, m)) != 0) {
            if (got < 0) return SB_EUSAGE;
            if (a->out_dir)
                return sb_fail(m, SB_EUSAGE, "--out given twice ('%s' and '%s'); accepted: one "
                               "directory", a->out_dir, value);
            a->out_dir = value;
        } else if ((got = option_value(argc, argv, &i, "--restart", "--restart", &value, m)) != 0) {
            if (got < 0) return SB_EUSAGE;
            if (a->restart)
                return sb_fail(m, SB_EUSAGE, "--restart given twice ('%s' and '%s'); accepted: "
                               "one checkpoint", a->restart, value);
            a->restart = value;
        } else if (arg[0] == '-') {
            return sb_fail(m, SB_EUSAGE,
                           "unknown option '%s'; accepted: -c FILE, -s section.key=value, "
                           "--out DIR, --restart FILE, --help, --version",
                           arg);
        } else if (!a->command) {
            a->command = arg;
        } else {
            return sb_fail(m, SB_EUSAGE,
                           "unexpected argument '%s' after command '%s' (keys are set with -s "
                           "section.key=value)",
                           arg, a->command);
        }
    }
    return SB_OK;
}
