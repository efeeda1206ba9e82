/* Typed, range-checked configuration from INI files and -s overrides.
 *
 * Every key the program knows is declared once in src/keys.c with its type,
 * default, accepted range and meaning.  A configuration holds one text value
 * per key (its default until a file or an override sets it); values are
 * validated when they are set, so the typed getters below cannot fail on a
 * loaded configuration.  The getters abort on a key that is not declared:
 * that is a programming error, caught by the unit tests. */
#ifndef SB_CONFIG_H
#define SB_CONFIG_H

#include "error.h"

#include <stdbool.h>
#include <stdio.h>

enum key_type {
    KEY_INT,         /* one integer in [imin, imax] */
    KEY_REAL,        /* one real in [rmin, rmax] */
    KEY_BOOL,        /* 0/1, true/false, yes/no, on/off */
    KEY_CHOICE,      /* one of choices "a|b|c" */
    KEY_TEXT,        /* free text (a path, a name) */
    KEY_INT_LIST,    /* integers and ranges "1-10", "10,100,1000", each in [imin, imax];
                        also "all" when choices is "all" */
    KEY_CHOICE_LIST, /* one or more of choices "a|b|c", comma-separated; "all": every one */
    KEY_DIMS,        /* "auto", "all" (every grid) or three integers nx,ny,nz >= 0 (0: chosen
                        by MPI) */
    KEY_INT3,        /* three integers a,b,c, each in [imin, imax] */
    KEY_REAL_LIST,   /* reals "0.1,0.5,0.1", each in [rmin, rmax]; also the word in choices */
};

struct key_spec {
    const char *section;
    const char *name;
    enum key_type type;
    const char *fallback; /* the default, written as it would be in a file */
    long long imin, imax; /* KEY_INT, KEY_INT_LIST elements, KEY_DIMS elements */
    double rmin, rmax;    /* KEY_REAL */
    const char *choices;  /* KEY_CHOICE */
    const char *help;
};

/* The key table (src/keys.c), terminated by an entry with section NULL. */
extern const struct key_spec config_keys[];
/* The section names, in the order help and summaries list them. */
extern const char *const config_sections[];

#define CONFIG_MAX_LIST 4096

struct config {
    int nkeys;
    char **value;        /* one text per key of config_keys */
    const char **origin; /* "default", a file name, "-s" or an option ("--restart") */
    int *line;           /* the file's line that set it; -1: the command line; 0: the default */
    char *file;          /* the configuration file, or NULL */
};

void config_init(struct config *c);
void config_free(struct config *c);

/* Parses INI text (the contents of file `name`) into c.  Returns SB_OK or
 * SB_EUSAGE with a message naming the file, line and key. */
int config_parse_text(struct config *c, const char *text, const char *name, struct sb_msg *m);

/* Applies one override "section.key=value".  Returns SB_OK or SB_EUSAGE. */
int config_override(struct config *c, const char *assignment, struct sb_msg *m);

/* Sets section.name from a command-line option other than -s (e.g.
 * --restart FILE), which the resolved configuration then names as its
 * origin (`option` must outlive c: a string literal).  Returns SB_OK or
 * SB_EUSAGE. */
int config_set_option(struct config *c, const char *section, const char *name, const char *value,
                      const char *option, struct sb_msg *m);

/* Validates `text` as a value of key `spec`; returns SB_OK or SB_EUSAGE with
 * a message naming the key and the accepted values. */
int key_validate(const struct key_spec *spec, const char *text, struct sb_msg *m);

/* Looks a key up by section and name; NULL when unknown. */
const struct key_spec *key_find(const char *section, const char *name);

/* The declared key nearest to "section.name" by edit distance, or NULL when
 * none is close enough to be a plausible typo. */
const struct key_spec *key_nearest(const char *section, const char *name);

/* Edit distance between two strings (Levenshtein), exposed for tests. */
int edit_distance(const char *a, const char *b);

/* Typed getters; `key` is "section.name". */
long long cfg_int(const struct config *c, const char *key);
double cfg_real(const struct config *c, const char *key);
bool cfg_bool(const struct config *c, const char *key);
const char *cfg_text(const struct config *c, const char *key);
/* Expands a KEY_INT_LIST into out (at most CONFIG_MAX_LIST values); returns the count. */
int cfg_int_list(const struct config *c, const char *key, long long *out);
/* KEY_DIMS: fills dims[3] (0 where MPI chooses; all -1 for "all"). */
void cfg_dims(const struct config *c, const char *key, int dims[3]);
/* decomp.dims for a command that runs one grid: the request into dims[3],
 * or SB_EUSAGE for "all", the message saying `one_grid` (e.g. "md runs one
 * grid"). */
int cfg_one_grid(const struct config *c, const char *one_grid, int dims[3], struct sb_msg *m);
/* The text of any key as it was set (for messages). */
const char *cfg_raw(const struct config *c, const char *key);
/* KEY_REAL_LIST: at most max values into out; returns the count (0 for
 * the word in choices). */
int cfg_real_list(const struct config *c, const char *key, double *out, int max);
/* KEY_INT3: fills v[3]. */
void cfg_int3(const struct config *c, const char *key, int v[3]);
/* True when the key still holds its default (no file and no -s set it). */
bool cfg_is_default(const struct config *c, const char *key);
/* True when a KEY_INT_LIST, KEY_CHOICE_LIST or KEY_DIMS key says "all", or
 * a KEY_INT_LIST / KEY_REAL_LIST key says the word of its choices. */
bool cfg_all(const struct config *c, const char *key);
/* KEY_CHOICE_LIST: the n-th item (0-based) of the list, with "all"
 * expanded to every choice, into buf; false past the end. */
bool cfg_choice_item(const struct config *c, const char *key, int n, char *buf, size_t size);

/* Parses an integer list "1-4,8,10-12" into out; returns the count, or -1
 * with a reason in *why.  Exposed for tests. */
int parse_int_list(const char *text, long long *out, int max, const char **why);

/* Writes the keys of the given sections (NULL-terminated list, or all when
 * NULL) as INI text, with the origin of values that are not defaults. */
void config_write_ini(const struct config *c, const char *const *sections, FILE *f);
/* The same as malloc'd text (a checkpoint keeps it); the caller frees it. */
char *config_ini_text(const struct config *c, const char *const *sections);

/* Writes the keys of the given sections with type, default and meaning. */
void config_write_help(const char *const *sections, FILE *f);

/* A command's sections: "section" (every key) or "section.key" (that key).
 * Whether any key of `section` is listed (or sections is NULL); whether
 * section.name is. */
bool section_listed(const char *const *sections, const char *section);
bool key_listed(const char *const *sections, const char *section, const char *name);

/* SB_EUSAGE, naming FILE:LINE or -s and what the command reads, for the
 * first key set (in the file or with -s) that `command` does not read and
 * config.ignore does not name. */
int config_check_read(const struct config *c, const char *command, const char *const *reads,
                      struct sb_msg *m);

#endif
