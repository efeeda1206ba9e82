#include "placement.h"
#include "error.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends ranks [first, last] to a list written as ranges: "0-3,8". */
static void add_range(char *text, size_t cap, int first, int last)
{
    size_t at = strlen(text);
    if (at + 24 >= cap) return;
    if (first == last)
        snprintf(text + at, cap - at, "%s%d", at ? "," : "", first);
    else
        snprintf(text + at, cap - at, "%s%d-%d", at ? "," : "", first, last);
}

void placement_gather(MPI_Comm world, struct placement *p)
{
    memset(p, 0, sizeof *p);
    int rank, size, len = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(mine, &len);
    char *all = rank == 0 ? sb_malloc((size_t)size * MPI_MAX_PROCESSOR_NAME, "node names") : NULL;
    MPI_Gather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               world);
    if (rank != 0) return;
    /* nodes in the order of their first rank */
    int *node_of = sb_malloc((size_t)size * sizeof *node_of, "node of each rank");
    int *first = sb_malloc((size_t)size * sizeof *first, "first rank of each node");
    for (int r = 0; r < size; r++) {
        const char *name = all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        int n = 0;
        while (n < p->nodes && strcmp(all + (size_t)first[n] * MPI_MAX_PROCESSOR_NAME, name)) n++;
        if (n == p->nodes) first[p->nodes++] = r;
        node_of[r] = n;
    }
    p->json = cJSON_CreateObject();
    cJSON_AddNumberToObject(p->json, "nodes", p->nodes);
    cJSON *per = cJSON_AddArrayToObject(p->json, "ranks_per_node");
    cJSON *list = cJSON_AddArrayToObject(p->json, "node");
    p->fewest = size;
    size_t at = (size_t)snprintf(p->line, sizeof p->line, "%d node%s (", p->nodes,
                                 p->nodes == 1 ? "" : "s");
    char ranges[4096];
    for (int n = 0; n < p->nodes; n++) {
        int count = 0, from = -1;
        ranges[0] = '\0';
        for (int r = 0; r <= size; r++) {
            bool here = r < size && node_of[r] == n;
            if (here) count++;
            if (here && from < 0) from = r;
            if (!here && from >= 0) {
                add_range(ranges, sizeof ranges, from, r - 1);
                from = -1;
            }
        }
        if (count > p->most) p->most = count;
        if (count < p->fewest) p->fewest = count;
        cJSON_AddItemToArray(per, cJSON_CreateNumber(count));
        cJSON *node = cJSON_CreateObject();
        cJSON_AddStringToObject(node, "name", all + (size_t)first[n] * MPI_MAX_PROCESSOR_NAME);
        cJSON_AddStringToObject(node, "ranks", ranges);
        cJSON_AddItemToArray(list, node);
        if (n < 4 && at < sizeof p->line)
            at += (size_t)snprintf(p->line + at, sizeof p->line - at, "%s%s: %s", n ? ", " : "",
                                   all + (size_t)first[n] * MPI_MAX_PROCESSOR_NAME, ranges);
    }
    if (at < sizeof p->line)
        snprintf(p->line + at, sizeof p->line - at, "%s)", p->nodes > 4 ? ", ..." : "");
    free(node_of);
    free(first);
    free(all);
}

cJSON *placement_to_json(const struct placement *p)
{
    return p->json ? cJSON_Duplicate(p->json, 1) : cJSON_CreateNull();
}

void placement_free(struct placement *p)
{
    cJSON_Delete(p->json);
    p->json = NULL;
}
