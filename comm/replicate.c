#include "replicate.h"

#include <string.h>

/* Half of a 32 KiB L1: the part read from the block and the copies written
 * from it share the cache. */
enum { PART = 16 * 1024 };

void replicate(unsigned char *const region[], int nregions, size_t copies, const unsigned char *src,
               size_t len)
{
    for (size_t at = 0; at < len; at += PART) {
        size_t n = len - at < PART ? len - at : PART;
        for (int r = 0; r < nregions; r++)
            for (size_t j = 0; j < copies; j++)
                memcpy(region[r] + j * len + at, src + at, n);
    }
}

void copy_to_places(unsigned char *const place[], int n, const unsigned char *src, size_t len)
{
    if (len > PART) {
        replicate(place, n, 1, src, len);
        return;
    }
    for (int i = 0; i < n; i++)
        memcpy(place[i], src, len);
}
