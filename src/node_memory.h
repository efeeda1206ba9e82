/* The memory of this node and of this process, from /proc and the cgroup:
 * what a run may still take before it allocates, and what it took. */
#ifndef SB_NODE_MEMORY_H
#define SB_NODE_MEMORY_H

#include <mpi.h>

struct node_memory {
    double available;    /* MemAvailable of /proc/meminfo, bytes */
    double cgroup_room;  /* the cgroup's limit minus its usage; -1: no limit */
    double room;         /* the smaller of the two */
    int ranks_here;      /* ranks of `comm` on this node */
    double share;        /* room / ranks_here */
};

/* Reads the node's room and divides it among the ranks of comm that share
 * the node (collective over comm). */
void node_memory_room(MPI_Comm comm, struct node_memory *nm);

/* This process's resident memory now (VmRSS) and at its peak (VmHWM), in
 * bytes; 0 where /proc/self/status cannot be read. */
double process_rss(void);
double process_peak_rss(void);

#endif
