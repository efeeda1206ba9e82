#include "config.h"

#include <ini.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int key_count(void)
{
    int n = 0;
    while (config_keys[n].section)
        n++;
    return n;
}

static int key_id(const char *section, const char *name)
{
    for (int i = 0; config_keys[i].section; i++)
        if (!strcmp(config_keys[i].section, section) && !strcmp(config_keys[i].name, name))
            return i;
    return -1;
}

const struct key_spec *key_find(const char *section, const char *name)
{
    int id = key_id(section, name);
    return id < 0 ? NULL : &config_keys[id];
}

static bool section_known(const char *section)
{
    for (int i = 0; config_sections[i]; i++)
        if (!strcmp(config_sections[i], section)) return true;
    return false;
}

bool section_listed(const char *const *sections, const char *section)
{
    if (!sections) return true;
    size_t n = strlen(section);
    for (int i = 0; sections[i]; i++)
        if (!strncmp(sections[i], section, n) && (!sections[i][n] || sections[i][n] == '.'))
            return true;
    return false;
}

bool key_listed(const char *const *sections, const char *section, const char *name)
{
    if (!sections) return true;
    size_t n = strlen(section);
    for (int i = 0; sections[i]; i++)
        if (!strncmp(sections[i], section, n) &&
            (!sections[i][n] || (sections[i][n] == '.' && !strcmp(sections[i] + n + 1, name))))
            return true;
    return false;
}

void config_init(struct config *c)
{
    c->nkeys = key_count();
    c->value = sb_calloc((size_t)c->nkeys, sizeof *c->value, "configuration values");
    c->origin = sb_calloc((size_t)c->nkeys, sizeof *c->origin, "configuration origins");
    c->line = sb_calloc((size_t)c->nkeys, sizeof *c->line, "configuration lines");
    for (int i = 0; i < c->nkeys; i++) {
        c->value[i] = sb_strdup(config_keys[i].fallback);
        c->origin[i] = "default";
    }
    c->file = NULL;
}

void config_free(struct config *c)
{
    for (int i = 0; i < c->nkeys; i++)
        free(c->value[i]);
    free(c->value);
    free(c->origin);
    free(c->line);
    free(c->file);
    c->value = NULL;
    c->origin = NULL;
    c->line = NULL;
    c->file = NULL;
    c->nkeys = 0;
}

/* ---- edit distance and suggestions ------------------------------------ */

int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int *row = sb_malloc((lb + 1) * sizeof *row, "edit distance row");
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diagonal = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int above = row[j];
            int substitute =
                diagonal + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            int best = substitute;
            if (above + 1 < best) best = above + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diagonal = above;
            row[j] = best;
        }
    }
    int d = row[lb];
    free(row);
    return d;
}

const struct key_spec *key_nearest(const char *section, const char *name)
{
    /* In a known section only the key name can be misspelt; otherwise the
     * section may be, and the whole "section.name" is compared. */
    bool known = section_known(section);
    char wanted[256];
    snprintf(wanted, sizeof wanted, "%s.%s", section, name);
    const struct key_spec *best = NULL;
    int best_d = INT_MAX;
    for (int i = 0; config_keys[i].section; i++) {
        const struct key_spec *k = &config_keys[i];
        int d;
        if (known) {
            if (strcmp(k->section, section)) continue;
            d = edit_distance(name, k->name);
        } else {
            char candidate[256];
            snprintf(candidate, sizeof candidate, "%s.%s", k->section, k->name);
            d = edit_distance(wanted, candidate);
        }
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    /* A typo changes about one character in four; more is a different word. */
    int limit = (int)strlen(known ? name : wanted) / 4;
    if (limit < 1) limit = 1;
    return best_d <= limit ? best : NULL;
}

/* "; known keys in [exchange]: module, k, ..." */
static void append_known_keys(char *buf, size_t size, const char *section)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "; keys of [%s]:", section);
    for (int i = 0; config_keys[i].section; i++) {
        if (strcmp(config_keys[i].section, section)) continue;
        len = strlen(buf);
        snprintf(buf + len, size - len, " %s", config_keys[i].name);
    }
}

static void append_known_sections(char *buf, size_t size)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "; known sections:");
    for (int i = 0; config_sections[i]; i++) {
        len = strlen(buf);
        snprintf(buf + len, size - len, " [%s]", config_sections[i]);
    }
}

/* Message for a key that is not declared; `where` is a prefix such as
 * "-s " or "FILE: ". */
static int unknown_key(struct sb_msg *m, const char *where, const char *section, const char *name)
{
    char text[sizeof m->text];
    if (!section_known(section)) {
        snprintf(text, sizeof text, "%s%s.%s: unknown section [%s]", where, section, name, section);
        const struct key_spec *near = key_nearest(section, name);
        if (near) {
            size_t len = strlen(text);
            snprintf(text + len, sizeof text - len, "; did you mean '%s.%s'?", near->section,
                     near->name);
        }
        append_known_sections(text, sizeof text);
        return sb_fail(m, SB_EUSAGE, "%s", text);
    }
    snprintf(text, sizeof text, "%s%s.%s: unknown key", where, section, name);
    const struct key_spec *near = key_nearest(section, name);
    if (near) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, "; did you mean '%s.%s'?", near->section,
                 near->name);
    }
    append_known_keys(text, sizeof text, section);
    return sb_fail(m, SB_EUSAGE, "%s", text);
}

/* ---- value parsing ----------------------------------------------------- */

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

/* Parses one integer at *s, advancing *s; false when there is none. */
static bool parse_ll(const char **s, long long *out)
{
    const char *p = skip_space(*s);
    if (!isdigit((unsigned char)*p) && !((*p == '-' || *p == '+') && isdigit((unsigned char)p[1])))
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (errno == ERANGE) return false;
    *out = v;
    *s = skip_space(end);
    return true;
}

static bool parse_whole_ll(const char *text, long long *out)
{
    const char *p = text;
    return parse_ll(&p, out) && *p == '\0';
}

int parse_int_list(const char *text, long long *out, int max, const char **why)
{
    int n = 0;
    const char *p = skip_space(text);
    if (*p == '\0') {
        *why = "the list is empty";
        return -1;
    }
    for (;;) {
        long long first, last;
        if (!parse_ll(&p, &first)) {
            *why = "expected an integer";
            return -1;
        }
        last = first;
        if (*p == '-') {
            p++;
            if (!parse_ll(&p, &last)) {
                *why = "expected an integer after '-' in a range";
                return -1;
            }
            if (last < first) {
                *why = "a range must go upwards (low-high)";
                return -1;
            }
        }
        /* last >= first: the unsigned difference is exact where the signed one
           overflows (-9e18-9e18) */
        if ((unsigned long long)last - (unsigned long long)first >= (unsigned long long)(max - n)) {
            *why = "the list is too long";
            return -1;
        }
        for (long long v = first; v <= last; v++)
            out[n++] = v;
        if (*p == '\0') return n;
        if (*p != ',') {
            *why = "items must be separated by ','";
            return -1;
        }
        p++;
    }
}

static bool parse_real(const char *text, double *out)
{
    const char *p = skip_space(text);
    if (*p == '\0') return false;
    errno = 0;
    char *end;
    double v = strtod(p, &end);
    if (errno == ERANGE || !isfinite(v)) return false;
    if (*skip_space(end) != '\0') return false;
    *out = v;
    return true;
}

static int parse_bool(const char *text, bool *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(text, yes[i])) {
            *out = true;
            return 1;
        }
        if (!strcasecmp(text, no[i])) {
            *out = false;
            return 1;
        }
    }
    return 0;
}

static bool choice_listed(const char *choices, const char *text)
{
    size_t n = strlen(text);
    const char *p = choices;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, text, n)) return true;
        if (!bar) break;
        p = bar + 1;
    }
    return false;
}

/* Copies item n of the comma-separated list text into buf, blanks trimmed;
 * false past the end. */
static bool list_item(const char *text, int n, char *buf, size_t size)
{
    const char *p = text;
    for (int i = 0; i < n; i++) {
        p = strchr(p, ',');
        if (!p) return false;
        p++;
    }
    p = skip_space(p);
    size_t len = strcspn(p, ",");
    while (len > 0 && isspace((unsigned char)p[len - 1]))
        len--;
    if (len >= size) len = size - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return true;
}

/* Comma-separated reals; returns the count, or -1 when an item is not a
 * number or there are more than max. */
static int parse_real_list(const char *text, double *out, int max)
{
    char item[64];
    int n = 0;
    for (; list_item(text, n, item, sizeof item); n++) {
        double v;
        if (n == max || !parse_real(item, &v)) return -1;
        out[n] = v;
    }
    return n;
}

static bool parse_int3(const char *text, int out[3], long long min, long long max)
{
    const char *p = text;
    for (int d = 0; d < 3; d++) {
        long long v;
        if (!parse_ll(&p, &v) || v < min || v > max) return false;
        out[d] = (int)v;
        if (d < 2) {
            if (*p != ',') return false;
            p++;
        }
    }
    return *p == '\0';
}

static bool parse_dims(const char *text, int dims[3], long long max)
{
    if (!strcasecmp(text, "auto")) {
        dims[0] = dims[1] = dims[2] = 0;
        return true;
    }
    if (!strcasecmp(text, "all")) {
        dims[0] = dims[1] = dims[2] = -1;
        return true;
    }
    const char *p = text;
    for (int d = 0; d < 3; d++) {
        long long v;
        if (!parse_ll(&p, &v) || v < 0 || v > max) return false;
        dims[d] = (int)v;
        if (d < 2) {
            if (*p != ',') return false;
            p++;
        }
    }
    return *p == '\0';
}

int key_validate(const struct key_spec *k, const char *text, struct sb_msg *m)
{
    const char *v = skip_space(text);
    switch (k->type) {
    case KEY_INT: {
        long long x;
        if (!parse_whole_ll(v, &x) || x < k->imin || x > k->imax)
            return sb_fail(m, SB_EUSAGE, "%s.%s = '%s': accepted: an integer in %lld..%lld",
                           k->section, k->name, text, k->imin, k->imax);
        return SB_OK;
    }
    case KEY_REAL: {
        double x;
        if (!parse_real(v, &x) || x < k->rmin || x > k->rmax)
            return sb_fail(m, SB_EUSAGE, "%s.%s = '%s': accepted: a number in %g..%g", k->section,
                           k->name, text, k->rmin, k->rmax);
        return SB_OK;
    }
    case KEY_BOOL: {
        bool b;
        if (!parse_bool(v, &b))
            return sb_fail(m, SB_EUSAGE, "%s.%s = '%s': accepted: 0 or 1 (true/false, yes/no)",
                           k->section, k->name, text);
        return SB_OK;
    }
    case KEY_CHOICE:
        if (!choice_listed(k->choices, v))
            return sb_fail(m, SB_EUSAGE, "%s.%s = '%s': accepted: %s", k->section, k->name, text,
                           k->choices);
        return SB_OK;
    case KEY_TEXT:
        return SB_OK;
    case KEY_CHOICE_LIST: {
        char item[128];
        if (!strcasecmp(v, "all")) return SB_OK;
        for (int i = 0; list_item(v, i, item, sizeof item); i++)
            if (!choice_listed(k->choices, item) || item[0] == '\0')
                return sb_fail(m, SB_EUSAGE,
                               "%s.%s = '%s': '%s' is not one of them; accepted: a list of %s, "
                               "or all",
                               k->section, k->name, text, item, k->choices);
        return SB_OK;
    }
    case KEY_INT_LIST: {
        if (k->choices && !strcasecmp(v, k->choices)) return SB_OK;
        long long *items = sb_malloc(CONFIG_MAX_LIST * sizeof *items, "a list");
        const char *why = "";
        int n = parse_int_list(v, items, CONFIG_MAX_LIST, &why);
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++)
            if (items[i] < k->imin || items[i] > k->imax) bad = i;
        long long bad_value = bad >= 0 ? items[bad] : 0;
        free(items);
        if (n < 0)
            return sb_fail(m, SB_EUSAGE,
                           "%s.%s = '%s': %s; accepted: integers in %lld..%lld as a list "
                           "(10,100,1000) or ranges (1-10)",
                           k->section, k->name, text, why, k->imin, k->imax);
        if (bad >= 0)
            return sb_fail(m, SB_EUSAGE,
                           "%s.%s = '%s': %lld is out of range; accepted: integers in "
                           "%lld..%lld as a list (10,100,1000) or ranges (1-10)",
                           k->section, k->name, text, bad_value, k->imin, k->imax);
        return SB_OK;
    }
    case KEY_INT3: {
        int three[3];
        if (!parse_int3(v, three, k->imin, k->imax))
            return sb_fail(m, SB_EUSAGE,
                           "%s.%s = '%s': accepted: three integers a,b,c in %lld..%lld", k->section,
                           k->name, text, k->imin, k->imax);
        return SB_OK;
    }
    case KEY_REAL_LIST: {
        if (k->choices && !strcasecmp(v, k->choices)) return SB_OK;
        double items[64];
        int n = parse_real_list(v, items, 64);
        bool in_range = n > 0;
        for (int i = 0; i < n; i++)
            in_range = in_range && items[i] >= k->rmin && items[i] <= k->rmax;
        if (!in_range)
            return sb_fail(m, SB_EUSAGE,
                           "%s.%s = '%s': accepted: numbers in %g..%g separated by commas%s%s",
                           k->section, k->name, text, k->rmin, k->rmax, k->choices ? ", or " : "",
                           k->choices ? k->choices : "");
        return SB_OK;
    }
    case KEY_DIMS: {
        int dims[3];
        if (!parse_dims(v, dims, k->imax))
            return sb_fail(m, SB_EUSAGE,
                           "%s.%s = '%s': accepted: 'auto', 'all' or three integers nx,ny,nz in "
                           "0..%lld (0 lets MPI choose that dimension)",
                           k->section, k->name, text, k->imax);
        return SB_OK;
    }
    }
    return sb_fail(m, SB_EUSAGE, "%s.%s: key of unknown type", k->section, k->name);
}

/* Stores a validated value; `origin` must outlive the configuration. */
static int config_set(struct config *c, const char *section, const char *name, const char *value,
                      const char *origin, int line, const char *where, struct sb_msg *m)
{
    int id = key_id(section, name);
    if (id < 0) return unknown_key(m, where, section, name);
    /* once per key in the file, once per key on the command line (-s and
     * options such as --restart; these may override the file: that is what
     * they are for) */
    if (line > 0 && c->line[id] > 0)
        return sb_fail(m, SB_EUSAGE,
                       "%s%s.%s given twice (first at line %d); accepted: one "
                       "value per key",
                       where, section, name, c->line[id]);
    if (line < 0 && c->line[id] < 0) {
        if (!strcmp(c->origin[id], origin))
            return sb_fail(m, SB_EUSAGE, "%s%s.%s given twice; accepted: one %s per key", where,
                           section, name, origin);
        return sb_fail(m, SB_EUSAGE, "%s%s.%s given by %s and by %s; accepted: one of them",
                       where, section, name, c->origin[id], origin);
    }
    struct sb_msg why;
    if (key_validate(&config_keys[id], value, &why) != SB_OK)
        return sb_fail(m, SB_EUSAGE, "%s%s", where, why.text);
    /* Trim surrounding blanks so the stored text is what the getters parse. */
    const char *v = skip_space(value);
    size_t len = strlen(v);
    while (len > 0 && isspace((unsigned char)v[len - 1]))
        len--;
    free(c->value[id]);
    c->value[id] = sb_malloc(len + 1, "a configuration value");
    memcpy(c->value[id], v, len);
    c->value[id][len] = '\0';
    c->origin[id] = origin;
    c->line[id] = line;
    return SB_OK;
}

/* ---- INI files ---------------------------------------------------------- */

struct ini_state {
    struct config *c;
    const char *name;
    int status;
    struct sb_msg msg;
    const int *lines; /* the line of each key, in the order inih hands them over */
    int nlines, calls;
};

/* Whether the section line [.. from q to end has its ']' before any inline
 * comment (';' or '#' after a space), as inih reads it. */
static bool section_closed(const char *q, const char *end)
{
    for (const char *c = q + 1; c < end; c++) {
        if (*c == ']') return true;
        if ((*c == ';' || *c == '#') && isspace((unsigned char)c[-1])) return false;
    }
    return false;
}

/* The line numbers of the key lines (not blank, a comment or a [section]),
 * which inih hands to the handler one by one (continuation lines are off);
 * SB_EUSAGE for a line inih would split (ini_max_line). */
static int scan_lines(const char *text, const char *name, int **lines, int *n, struct sb_msg *m)
{
    int cap = 16, number = 0;
    *n = 0;
    *lines = sb_malloc((size_t)cap * sizeof **lines, "configuration lines");
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        number++;
        if ((int)len > ini_max_line - 3)
            return sb_fail(m, SB_EUSAGE,
                           "%s:%d: longer than %d characters; accepted: shorter "
                           "lines (a list can be given as ranges, e.g. 1-64)",
                           name, number, ini_max_line - 3);
        const char *q = p;
        while (q < p + len && isspace((unsigned char)*q))
            q++;
        if (q < p + len && *q == '[' && !section_closed(q, p + len))
            return sb_fail(m, SB_EUSAGE,
                           "%s:%d: '%.*s' opens a section it does not close; "
                           "accepted: [section]",
                           name, number, (int)(p + len - q), q);
        if (q < p + len && !strchr(";#[", *q)) {
            if (*n == cap)
                *lines = sb_realloc(*lines, (size_t)(cap *= 2) * sizeof **lines, "lines");
            (*lines)[(*n)++] = number;
        }
        p = end ? end + 1 : p + len;
    }
    return SB_OK;
}

static int ini_handler_fn(void *user, const char *section, const char *name, const char *value)
{
    struct ini_state *st = user;
    if (st->status != SB_OK) return 0;
    char where[512];
    snprintf(where, sizeof where, "%s: ", st->name);
    if (section[0] == '\0') {
        st->status = sb_fail(&st->msg, SB_EUSAGE,
                             "%skey '%s' comes before any [section]; every key belongs to a "
                             "section such as [exchange]",
                             where, name);
        return 0;
    }
    int line = st->calls < st->nlines ? st->lines[st->calls] : 1;
    st->calls++;
    st->status = config_set(st->c, section, name, value, st->c->file ? st->c->file : st->name, line,
                            where, &st->msg);
    return st->status == SB_OK;
}

int config_parse_text(struct config *c, const char *text, const char *name, struct sb_msg *m)
{
    struct ini_state st = {.c = c, .name = name, .status = SB_OK};
    int *lines = NULL;
    if (scan_lines(text, name, &lines, &st.nlines, m) != SB_OK) {
        free(lines);
        return SB_EUSAGE;
    }
    st.lines = lines;
    ini_allow_multiline = false; /* an indented line is a key of its own */
    int line = ini_parse_string(text, ini_handler_fn, &st);
    free(lines);
    if (line == 0) return SB_OK;
    if (st.status != SB_OK) {
        /* The message starts with the file name: insert the line number. */
        size_t n = strlen(name);
        return sb_fail(m, SB_EUSAGE, "%s:%d%s", name, line, st.msg.text + n);
    }
    if (line < 0) return sb_fail(m, SB_EUSAGE, "%s: could not be parsed (out of memory)", name);
    return sb_fail(m, SB_EUSAGE,
                   "%s:%d: not a '[section]' header nor a 'key = value' line (comments start "
                   "with ';' or '#')",
                   name, line);
}

int config_override(struct config *c, const char *assignment, struct sb_msg *m)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = strchr(assignment, '.');
    if (!eq || !dot || dot > eq || dot == assignment || dot + 1 == eq)
        return sb_fail(m, SB_EUSAGE, "-s '%s': accepted: section.key=value, e.g. -s exchange.k=1-4",
                       assignment);
    char section[128], name[128];
    size_t slen = (size_t)(dot - assignment), nlen = (size_t)(eq - dot - 1);
    if (slen >= sizeof section || nlen >= sizeof name)
        return sb_fail(m, SB_EUSAGE, "-s '%s': key name too long", assignment);
    memcpy(section, assignment, slen);
    section[slen] = '\0';
    memcpy(name, dot + 1, nlen);
    name[nlen] = '\0';
    return config_set(c, section, name, eq + 1, "-s", -1, "-s ", m);
}

int config_set_option(struct config *c, const char *section, const char *name, const char *value,
                      const char *option, struct sb_msg *m)
{
    char where[64];
    snprintf(where, sizeof where, "%s: ", option);
    return config_set(c, section, name, value, option, -1, where, m);
}

/* ---- getters ------------------------------------------------------------ */

#define TYPE(t) (1u << (t))

/* The key table index of "section.name", whose type must be in `types`. */
static int getter_id(const char *key, unsigned types)
{
    char section[128];
    const char *dot = strchr(key, '.');
    size_t slen = dot ? (size_t)(dot - key) : 0;
    int id = -1;
    if (dot && slen < sizeof section) {
        memcpy(section, key, slen);
        section[slen] = '\0';
        id = key_id(section, dot + 1);
    }
    if (id < 0 || !(types & TYPE(config_keys[id].type))) {
        fprintf(stderr, "shiftbox: internal error: key '%s' %s\n", key,
                id < 0 ? "is not declared in src/keys.c" : "read with the wrong type");
        abort();
    }
    return id;
}

long long cfg_int(const struct config *c, const char *key)
{
    long long v = 0;
    parse_whole_ll(c->value[getter_id(key, TYPE(KEY_INT))], &v);
    return v;
}

double cfg_real(const struct config *c, const char *key)
{
    double v = 0;
    parse_real(c->value[getter_id(key, TYPE(KEY_REAL))], &v);
    return v;
}

bool cfg_bool(const struct config *c, const char *key)
{
    bool v = false;
    parse_bool(c->value[getter_id(key, TYPE(KEY_BOOL))], &v);
    return v;
}

const char *cfg_text(const struct config *c, const char *key)
{
    return c->value[getter_id(key, TYPE(KEY_CHOICE) | TYPE(KEY_TEXT))];
}

int cfg_int_list(const struct config *c, const char *key, long long *out)
{
    if (cfg_all(c, key)) return 0;
    const char *why;
    int n =
        parse_int_list(c->value[getter_id(key, TYPE(KEY_INT_LIST))], out, CONFIG_MAX_LIST, &why);
    return n < 0 ? 0 : n;
}

const char *cfg_raw(const struct config *c, const char *key)
{
    return c->value[getter_id(key, ~0u)];
}

int cfg_real_list(const struct config *c, const char *key, double *out, int max)
{
    int n = parse_real_list(c->value[getter_id(key, TYPE(KEY_REAL_LIST))], out, max);
    return n < 0 ? 0 : n;
}

void cfg_int3(const struct config *c, const char *key, int v[3])
{
    int id = getter_id(key, TYPE(KEY_INT3));
    if (!parse_int3(c->value[id], v, config_keys[id].imin, config_keys[id].imax))
        v[0] = v[1] = v[2] = 0;
}

bool cfg_is_default(const struct config *c, const char *key)
{
    return !strcmp(c->origin[getter_id(key, ~0u)], "default");
}

bool cfg_all(const struct config *c, const char *key)
{
    int id = getter_id(key, TYPE(KEY_INT_LIST) | TYPE(KEY_CHOICE_LIST) | TYPE(KEY_DIMS) |
                                TYPE(KEY_REAL_LIST));
    const char *word = config_keys[id].type == KEY_CHOICE_LIST || config_keys[id].type == KEY_DIMS
                           ? "all"
                           : config_keys[id].choices;
    return word && !strcasecmp(c->value[id], word);
}

bool cfg_choice_item(const struct config *c, const char *key, int n, char *buf, size_t size)
{
    int id = getter_id(key, TYPE(KEY_CHOICE_LIST));
    if (strcasecmp(c->value[id], "all")) return list_item(c->value[id], n, buf, size);
    /* "all": the n-th choice, "auto" (a choice made for the user) aside */
    const char *p = config_keys[id].choices;
    for (int i = 0; p;) {
        size_t len = strcspn(p, "|");
        if (!(len == 4 && !strncmp(p, "auto", 4))) {
            if (i == n) {
                if (len >= size) len = size - 1;
                memcpy(buf, p, len);
                buf[len] = '\0';
                return true;
            }
            i++;
        }
        p = p[len] ? p + len + 1 : NULL;
    }
    return false;
}

void cfg_dims(const struct config *c, const char *key, int dims[3])
{
    int id = getter_id(key, TYPE(KEY_DIMS));
    if (!parse_dims(c->value[id], dims, config_keys[id].imax)) dims[0] = dims[1] = dims[2] = 0;
}

int cfg_one_grid(const struct config *c, const char *one_grid, int dims[3], struct sb_msg *m)
{
    if (cfg_all(c, "decomp.dims"))
        return sb_fail(m, SB_EUSAGE, "decomp.dims = all: %s; accepted: auto or nx,ny,nz",
                       one_grid);
    cfg_dims(c, "decomp.dims", dims);
    return SB_OK;
}

/* ---- keys a command does not read ----------------------------------------- */

/* Whether section.name is in config.ignore (a section, or section.key). */
static bool ignored(const struct config *c, const char *section, const char *name)
{
    const char *list = c->value[key_id("config", "ignore")];
    size_t sl = strlen(section), nl = strlen(name);
    for (const char *p = list; *p;) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        size_t len = strcspn(p, ", \t");
        if ((len == sl && !strncmp(p, section, sl)) ||
            (len == sl + 1 + nl && !strncmp(p, section, sl) && p[sl] == '.' &&
             !strncmp(p + sl + 1, name, nl)))
            return true;
        p += len;
    }
    return false;
}

int config_check_read(const struct config *c, const char *command, const char *const *reads,
                      struct sb_msg *m)
{
    for (int i = 0; i < c->nkeys; i++) {
        const struct key_spec *k = &config_keys[i];
        if (c->line[i] == 0 || key_listed(reads, k->section, k->name) ||
            ignored(c, k->section, k->name))
            continue;
        char where[300], list[600] = "";
        if (c->line[i] > 0)
            snprintf(where, sizeof where, "%s:%d: ", c->origin[i], c->line[i]);
        else
            snprintf(where, sizeof where, "-s ");
        size_t len = 0;
        for (int j = 0; reads[j] && len < sizeof list; j++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s%s%s", j ? ", " : "",
                                    strchr(reads[j], '.') ? "" : "[", reads[j],
                                    strchr(reads[j], '.') ? "" : "]");
        return sb_fail(m, SB_EUSAGE,
                       "%s%s.%s: %s does not read this key, so it would be ignored; %s reads "
                       "%s. A configuration shared by several commands names what the others "
                       "read in config.ignore (e.g. [config] ignore = stencil,exchange.k)",
                       where, k->section, k->name, command, command, list);
    }
    return SB_OK;
}

/* ---- writing ------------------------------------------------------------ */

char *config_ini_text(const struct config *c, const char *const *sections)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return sb_strdup("");
    config_write_ini(c, sections, f);
    fclose(f);
    return text;
}

void config_write_ini(const struct config *c, const char *const *sections, FILE *f)
{
    for (int s = 0; config_sections[s]; s++) {
        const char *section = config_sections[s];
        if (!section_listed(sections, section)) continue;
        fprintf(f, "[%s]\n", section);
        for (int i = 0; i < c->nkeys; i++) {
            if (strcmp(config_keys[i].section, section) ||
                !key_listed(sections, section, config_keys[i].name))
                continue;
            if (strcmp(c->origin[i], "default"))
                fprintf(f, "%-14s = %-20s ; from %s\n", config_keys[i].name, c->value[i],
                        c->origin[i]);
            else
                fprintf(f, "%-14s = %s\n", config_keys[i].name, c->value[i]);
        }
    }
}

static const char *type_name(const struct key_spec *k, char *buf, size_t size)
{
    switch (k->type) {
    case KEY_INT:
        snprintf(buf, size, "integer %lld..%lld", k->imin, k->imax);
        break;
    case KEY_REAL:
        snprintf(buf, size, "number %g..%g", k->rmin, k->rmax);
        break;
    case KEY_BOOL:
        snprintf(buf, size, "0|1");
        break;
    case KEY_CHOICE:
        snprintf(buf, size, "%s", k->choices);
        break;
    case KEY_TEXT:
        snprintf(buf, size, "text");
        break;
    case KEY_INT_LIST:
        snprintf(buf, size, "list of %lld..%lld, ranges a-b%s%s", k->imin, k->imax,
                 k->choices ? ", or " : "", k->choices ? k->choices : "");
        break;
    case KEY_CHOICE_LIST:
        snprintf(buf, size, "list of %s, or all", k->choices);
        break;
    case KEY_DIMS:
        snprintf(buf, size, "auto | all | nx,ny,nz");
        break;
    case KEY_INT3:
        snprintf(buf, size, "a,b,c in %lld..%lld", k->imin, k->imax);
        break;
    case KEY_REAL_LIST:
        snprintf(buf, size, "list of numbers%s%s", k->choices ? ", or " : "",
                 k->choices ? k->choices : "");
        break;
    }
    return buf;
}

void config_write_help(const char *const *sections, FILE *f)
{
    for (int s = 0; config_sections[s]; s++) {
        const char *section = config_sections[s];
        if (!section_listed(sections, section)) continue;
        fprintf(f, "\n  [%s]\n", section);
        for (int i = 0; config_keys[i].section; i++) {
            const struct key_spec *k = &config_keys[i];
            if (strcmp(k->section, section) || !key_listed(sections, section, k->name)) continue;
            char type[128], key[128];
            snprintf(key, sizeof key, "%s.%s", k->section, k->name);
            fprintf(f, "    %-24s default %-14s (%s)\n", key, k->fallback,
                    type_name(k, type, sizeof type));
            fprintf(f, "    %-24s %s\n", "", k->help);
        }
    }
}
