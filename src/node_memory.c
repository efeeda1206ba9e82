/* The memory of this node and of this process (node_memory.h). */
#include "node_memory.h"
#include "decomp.h"

#include <stdio.h>
#include <string.h>

/* The value of "NAME: N kB" in a /proc file, in bytes; -1 if absent. */
static double proc_kb(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    double v = -1;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, len) && line[len] == ':') {
            double kb;
            if (sscanf(line + len + 1, "%lf", &kb) == 1) v = kb * 1024.0;
            break;
        }
    fclose(f);
    return v;
}

/* A number of bytes alone in a file ("max" or absent: -1). */
static double file_bytes(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    double v = -1;
    if (fscanf(f, "%lf", &v) != 1) v = -1;
    fclose(f);
    return v;
}

/* The limit of the cgroup this process runs in, less what it uses: cgroup
 * v2 (memory.max, memory.current), else v1; -1 when there is no limit. */
static double cgroup_room(void)
{
    double limit = file_bytes("/sys/fs/cgroup/memory.max");
    double used = file_bytes("/sys/fs/cgroup/memory.current");
    if (limit < 0) {
        limit = file_bytes("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        used = file_bytes("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    }
    if (limit < 0 || limit >= 1e18) return -1; /* v1 says "no limit" with 2^63 */
    return used >= 0 && used < limit ? limit - used : limit;
}

void node_memory_room(MPI_Comm comm, struct node_memory *nm)
{
    nm->available = proc_kb("/proc/meminfo", "MemAvailable");
    nm->cgroup_room = cgroup_room();
    nm->room = nm->available;
    if (nm->cgroup_room >= 0 && (nm->room < 0 || nm->cgroup_room < nm->room))
        nm->room = nm->cgroup_room;
    int me;
    node_place(comm, &me, &nm->ranks_here);
    nm->share = nm->room >= 0 ? nm->room / nm->ranks_here : -1;
}

double process_rss(void)
{
    double v = proc_kb("/proc/self/status", "VmRSS");
    return v > 0 ? v : 0;
}

double process_peak_rss(void)
{
    double v = proc_kb("/proc/self/status", "VmHWM");
    return v > 0 ? v : 0;
}
