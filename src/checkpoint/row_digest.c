#include "row_digest.h"

#include <string.h>

static const uint64_t ROW_KEY = 0x9e3779b97f4a7c15ULL; /* 2^64 / golden ratio */

/* SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014). */
static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t row_digest(const void *rows, uint64_t first, uint64_t count, size_t words)
{
    const unsigned char *at = rows;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t h = (first + i + 1) * ROW_KEY;
        for (size_t j = 0; j < words; j++, at += sizeof(uint64_t)) {
            uint64_t w;
            memcpy(&w, at, sizeof w);
            h = mix(h ^ w);
        }
        sum += h;
    }
    return sum;
}
