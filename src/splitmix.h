/* SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): a bijection of 64-bit
 * words, the mixer behind ShiftBox's payload patterns and digests.  Inline,
 * so that loops over many words vectorise. */
#ifndef SB_SPLITMIX_H
#define SB_SPLITMIX_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

#endif
