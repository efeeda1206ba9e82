/* The caches of cpu0 from sysfs (src/cpu_cache.h). */
#include "cpu_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long read_long_file(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = 0;
    char unit = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld%c", &v, &unit) < 1) v = 0;
    fclose(f);
    if (unit == 'K') v *= 1024;
    if (unit == 'M') v *= 1024 * 1024;
    return v;
}

int cpu_list_count(const char *list)
{
    int n = 0;
    for (const char *at = list;;) {
        char *end;
        long a = strtol(at, &end, 10), b = a;
        if (end == at || a < 0) break;
        if (*end == '-') {
            const char *from = end + 1;
            b = strtol(from, &end, 10);
            if (end == from || b < a) break;
        }
        n += b - a + 1 < 1 << 20 ? (int)(b - a + 1) : 1 << 20; /* no absurd range overflows */
        if (n >= 1 << 20) break;
        if (*end != ',') break;
        at = end + 1;
    }
    return n > 0 ? n : 1;
}

static int count_cpu_list(const char *path)
{
    char list[4096] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    if (!fgets(list, sizeof list, f)) list[0] = 0;
    fclose(f);
    return cpu_list_count(list);
}

void cpu_caches_read(struct cpu_caches *c)
{
    memset(c, 0, sizeof *c);
    c->llc_sharing = 1;
    for (int i = 0; i < 16; i++) {
        char path[128], type[32] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        long level = read_long_file(path);
        if (level == 0) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%31s", type) != 1) type[0] = 0;
            fclose(f);
        }
        if (!strcmp(type, "Instruction")) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        long size = read_long_file(path);
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
        long line = read_long_file(path);
        if (line > 0 && c->line == 0) c->line = line;
        if (level == 2) c->l2 = size;
        if (level >= c->llc_level) {
            c->llc_level = (int)level;
            c->llc = size;
            snprintf(path, sizeof path,
                     "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
            c->llc_sharing = count_cpu_list(path);
        }
    }
    if (c->line == 0) c->line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (c->l2 == 0 && l2 > 0) c->l2 = l2;
    if (c->llc > 0) return;
    static const int names[] = {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE};
    for (int i = 0; i < 2 && c->llc <= 0; i++) {
        long size = sysconf(names[i]);
        if (size > 0) {
            c->llc = size;
            c->llc_level = -(3 - i); /* negative: from sysconf, not sysfs */
        }
    }
}

long cpu_cache_per_rank(const struct cpu_caches *c)
{
    long share = c->llc_sharing > 1 ? c->llc / c->llc_sharing : c->llc;
    if (c->llc_level < 0) return c->l2;  /* CPUID's L3 may be the whole host's: the L2 only */
    if (c->llc_level <= 2) return share; /* the L2 is the last level, maybe shared */
    return c->l2 + share;
}

const struct cpu_caches *cpu_caches(void)
{
    static struct cpu_caches c;
    static int read;
    if (!read) cpu_caches_read(&c);
    read = 1;
    return &c;
}
