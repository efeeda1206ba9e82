/* SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), the mixer behind
 * ShiftBox's payload patterns, digests and random streams: a stream adds
 * SPLITMIX_GAMMA to its state and returns splitmix_mix of it, a bijection
 * of 64-bit words.  Inline, so that loops over many words vectorise. */
#ifndef SB_SPLITMIX_H
#define SB_SPLITMIX_H

#include <stdint.h>

#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ull /* 2^64 / golden ratio */

/* The finaliser alone. */
static inline uint64_t splitmix_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The value a stream whose state was x gives next. */
static inline uint64_t splitmix64(uint64_t x)
{
    return splitmix_mix(x + SPLITMIX_GAMMA);
}

#endif
