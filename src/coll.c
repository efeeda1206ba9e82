/* The driver's own collectives (src/coll.h). */
#include "coll.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int sb_agree(int rc, struct sb_msg *m, MPI_Comm comm)
{
    int worst = rc;
    CHECK_MPI(MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, comm));
    if (worst == SB_OK) return SB_OK;
    struct sb_msg none = {{0}}, *msg = m ? m : &none;
    int rank, first = INT_MAX;
    CHECK_MPI(MPI_Comm_rank(comm, &rank));
    int mine = rc == worst && msg->text[0] ? rank : INT_MAX;
    CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first == INT_MAX) return worst;
    if (worst == SB_ERUNTIME) { /* each rank prints its own: only the first keeps it */
        if (rank != first) msg->text[0] = '\0';
        return worst;
    }
    CHECK_MPI(sb_bcast(msg->text, (int)sizeof msg->text, MPI_CHAR, first, comm));
    size_t used = strlen(msg->text);
    if (first > 0) /* rank 0 prints it: say whose it is */
        snprintf(msg->text + used, sizeof msg->text - used, " (rank %d)", first);
    return worst;
}
