#include "report.h"
#include "vectorize.h"
#include "log.h"
#include "../gpu/device.h"

#ifndef SB_SMPI
#include <hdf5.h>
#endif
#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int report_prepare_dir(const char *dir, const char *label, struct report_made_dirs *made,
                       struct sb_msg *m)
{
    char path[4096];
    if (made) made->n = 0;
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path || dir[0] == '\0')
        return sb_fail(m, SB_EUSAGE, "%s '%s': accepted: a directory path", label, dir);
    if (made) memcpy(made->path, path, sizeof path);
    /* mkdir -p: create each missing parent in turn. */
    for (char *p = path + 1;; p++) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(path, 0777) == 0) {
                if (made && made->n < (int)(sizeof made->end / sizeof made->end[0]))
                    made->end[made->n++] = (int)(p - path);
            } else if (errno != EEXIST)
                return sb_fail(m, SB_EUSAGE, "%s '%s': cannot create '%s': %s", label, dir, path,
                               strerror(errno));
            if (!end) *p = '/';
        }
        if (end) break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sb_fail(m, SB_EUSAGE, "%s '%s': exists and is not a directory", label, dir);
    if (access(dir, W_OK) != 0)
        return sb_fail(m, SB_EUSAGE, "%s '%s': not writable: %s", label, dir, strerror(errno));
    /* access() grants root every folder of a writable file system, /proc
     * and /sys included, where no file can be made, and an append-only
     * folder lets files be made but not renamed: do what the run's files
     * will do at its end (report_write_text: a temporary name, renamed) to
     * a file of a unique name, and remove it */
    char probe[4200], moved[4300];
    /* the six X are mkstemp's template, which it replaces with a unique name */
    snprintf(probe, sizeof probe, "%s/.shiftbox-probe.XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0)
        return sb_fail(m, SB_EUSAGE, "%s '%s': cannot create a file there: %s", label, dir,
                       strerror(errno));
    close(fd);
    snprintf(moved, sizeof moved, "%s.renamed", probe);
    if (rename(probe, moved) != 0) {
        int e = errno;
        bool left = unlink(probe) != 0;
        return sb_fail(m, SB_EUSAGE,
                       "%s '%s': cannot rename a file there (every output is "
                       "written under a temporary name, then renamed): %s%s%s",
                       label, dir, strerror(e), left ? "; left behind: " : "", left ? probe : "");
    }
    if (unlink(moved) != 0)
        return sb_fail(m, SB_EUSAGE, "%s '%s': cannot remove a file there: %s; left behind: %s",
                       label, dir, strerror(errno), moved);
    return SB_OK;
}

void report_unmake_dir(struct report_made_dirs *made)
{
    char path[4096];
    for (int i = made->n - 1; i >= 0; i--) {
        memcpy(path, made->path, (size_t)made->end[i]);
        path[made->end[i]] = '\0';
        rmdir(path); /* only while empty */
    }
    made->n = 0;
}

int report_write_text(const char *dir, const char *name, const char *text, size_t len)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp.%ld", dir, name, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return sb_sys_error(tmp, __FILE__, __LINE__);
    size_t written = fwrite(text, 1, len, f);
    int closed = fclose(f);
    if (written != len || closed != 0) {
        int rc = sb_sys_error(tmp, __FILE__, __LINE__);
        unlink(tmp);
        return rc;
    }
    if (rename(tmp, path) != 0) {
        int rc = sb_sys_error(path, __FILE__, __LINE__);
        unlink(tmp);
        return rc;
    }
    return SB_OK;
}

int report_write_json(const char *dir, const char *name, const cJSON *root)
{
    char *text = cJSON_Print(root);
    if (!text) {
        log_rank_error("cannot format %s (out of memory)", name);
        return SB_ERUNTIME;
    }
    size_t len = strlen(text);
    text = sb_realloc(text, len + 2, name);
    text[len++] = '\n';
    text[len] = '\0';
    int rc = report_write_text(dir, name, text, len);
    free(text);
    return rc;
}

int report_finish_json(const char *dir, const char *name, cJSON *root)
{
    int rc = report_write_json(dir, name, root);
    cJSON_Delete(root);
    return rc;
}

int report_text_open(struct report_text *t)
{
    t->text = NULL;
    t->len = 0;
    t->f = open_memstream(&t->text, &t->len);
    return t->f ? SB_OK : sb_sys_error("open_memstream", __FILE__, __LINE__);
}

int report_text_commit(struct report_text *t, const char *dir, const char *name)
{
    int rc = SB_OK;
    if (t->f && fclose(t->f) != 0) rc = sb_sys_error("a report in memory", __FILE__, __LINE__);
    t->f = NULL;
    if (rc == SB_OK && dir) rc = report_write_text(dir, name, t->text, t->len);
    free(t->text);
    t->text = NULL;
    return rc;
}

static cJSON *typed_value(const struct key_spec *k, const struct config *c, const char *key)
{
    switch (k->type) {
    case KEY_INT:
        return cJSON_CreateNumber((double)cfg_int(c, key));
    case KEY_REAL:
        return cJSON_CreateNumber(cfg_real(c, key));
    case KEY_BOOL:
        return cJSON_CreateBool(cfg_bool(c, key));
    case KEY_CHOICE:
    case KEY_TEXT:
        return cJSON_CreateString(cfg_text(c, key));
    case KEY_CHOICE_LIST: {
        cJSON *list = cJSON_CreateArray();
        char item[128];
        for (int i = 0; cfg_choice_item(c, key, i, item, sizeof item); i++)
            cJSON_AddItemToArray(list, cJSON_CreateString(item));
        return list;
    }
    case KEY_INT_LIST: {
        if (cfg_all(c, key)) return cJSON_CreateString(cfg_raw(c, key));
        long long *items = sb_malloc(CONFIG_MAX_LIST * sizeof *items, "a list");
        int n = cfg_int_list(c, key, items);
        cJSON *list = cJSON_CreateArray();
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(list, cJSON_CreateNumber((double)items[i]));
        free(items);
        return list;
    }
    case KEY_INT3: {
        int three[3];
        cfg_int3(c, key, three);
        return cJSON_CreateIntArray(three, 3);
    }
    case KEY_REAL_LIST: {
        if (cfg_all(c, key)) return cJSON_CreateString(cfg_raw(c, key));
        double items[64];
        int n = cfg_real_list(c, key, items, 64);
        return cJSON_CreateDoubleArray(items, n);
    }
    case KEY_DIMS: {
        if (cfg_all(c, key)) return cJSON_CreateString("all");
        int dims[3];
        cfg_dims(c, key, dims);
        return cJSON_CreateIntArray(dims, 3);
    }
    }
    return cJSON_CreateNull();
}

cJSON *report_config(const struct config *c, const char *const *sections)
{
    cJSON *root = cJSON_CreateObject();
    for (int s = 0; config_sections[s]; s++) {
        if (!section_listed(sections, config_sections[s])) continue;
        cJSON *section = cJSON_AddObjectToObject(root, config_sections[s]);
        for (int i = 0; config_keys[i].section; i++) {
            const struct key_spec *k = &config_keys[i];
            if (strcmp(k->section, config_sections[s])) continue;
            char key[256];
            snprintf(key, sizeof key, "%s.%s", k->section, k->name);
            cJSON_AddItemToObject(section, k->name, typed_value(k, c, key));
        }
    }
    return root;
}

cJSON *report_environment(int nranks, const struct timer_calibration *cal,
                          const struct placement *where)
{
    cJSON *env = cJSON_CreateObject();
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, version = 0, subversion = 0;
    MPI_Get_library_version(library, &len);
    library[strcspn(library, "\n")] = '\0';
    MPI_Get_version(&version, &subversion);
    char standard[32];
    snprintf(standard, sizeof standard, "%d.%d", version, subversion);
    cJSON_AddStringToObject(env, "mpi_library", library);
    cJSON_AddStringToObject(env, "mpi_standard", standard);
    cJSON_AddNumberToObject(env, "ranks", nranks);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    cJSON_AddStringToObject(env, "host", host);
    cJSON_AddItemToObject(env, "placement", placement_to_json(where));
    cJSON_AddNumberToObject(env, "timer_resolution_s", cal->resolution);
    cJSON_AddNumberToObject(env, "timer_overhead_s", cal->overhead);
    cJSON_AddNumberToObject(env, "timer_trials", (double)cal->trials);
    char gpu[256];
    gpu_probe(gpu, sizeof gpu);
    cJSON_AddStringToObject(env, "gpu", gpu);
#ifdef SB_SMPI /* the SimGrid build links no HDF5 (Makefile SIMGRID=1) */
    cJSON_AddStringToObject(env, "hdf5", "none (SMPI build)");
#else
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    char hdf5[32];
    snprintf(hdf5, sizeof hdf5, "%u.%u.%u", major, minor, release);
    cJSON_AddStringToObject(env, "hdf5", hdf5);
#endif
    cJSON_AddStringToObject(env, "compiler", __VERSION__);
    static const char *const isa[] = {"portable", "avx2", "avx512"};
    cJSON_AddStringToObject(env, "vector_loops", isa[sb_isa()]);
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(env, "date_utc", date);
    return env;
}

cJSON *report_stats(const struct stats *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", (double)s->n);
    cJSON_AddNumberToObject(o, "min", s->min);
    cJSON_AddNumberToObject(o, "median", s->median);
    cJSON_AddNumberToObject(o, "mean", s->mean);
    cJSON_AddNumberToObject(o, "max", s->max);
    cJSON_AddNumberToObject(o, "variance", s->variance);
    cJSON_AddNumberToObject(o, "stddev", s->stddev);
    cJSON_AddNumberToObject(o, "cv", s->cv);
    cJSON_AddNumberToObject(o, "std_error", s->std_error);
    cJSON_AddNumberToObject(o, "rse", s->rse);
    return o;
}

cJSON *report_summary_begin(const char *command, const struct config *c,
                            const char *const *sections, int nranks,
                            const struct timer_calibration *cal, const struct placement *where)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "shiftbox_version", SHIFTBOX_VERSION);
    cJSON_AddStringToObject(root, "command", command);
    if (c->file)
        cJSON_AddStringToObject(root, "config_file", c->file);
    else
        cJSON_AddNullToObject(root, "config_file");
    cJSON_AddItemToObject(root, "config", report_config(c, sections));
    cJSON_AddItemToObject(root, "environment", report_environment(nranks, cal, where));
    return root;
}
