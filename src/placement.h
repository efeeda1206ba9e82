/* Where the ranks run: the nodes (MPI_Get_processor_name) and which ranks
 * each holds, for summary.json (environment.placement) and the start line.
 * Team Shift's members and the SMP cost model assume ranks that share a
 * node; docs/CLUSTER.md shows how to ask the batch system for that and how
 * to read what the run got. */
#ifndef SB_PLACEMENT_H
#define SB_PLACEMENT_H

#include <cjson/cJSON.h>
#include <mpi.h>

struct placement {
    int nodes;         /* distinct node names */
    int most, fewest;  /* ranks on the fullest and the emptiest node */
    cJSON *json;       /* rank 0: {"nodes", "ranks_per_node", "node": [{"name", "ranks"}]} */
    char line[256];    /* rank 0: "2 nodes (n001: 0-3, n002: 4-7)", shortened when long */
};

/* Collective over `world`. */
void placement_gather(MPI_Comm world, struct placement *p);
/* A copy of p->json for a summary (null where there is none). */
cJSON *placement_to_json(const struct placement *p);
void placement_free(struct placement *p);

#endif
