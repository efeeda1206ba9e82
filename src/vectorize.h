/* SB_WIDE_VECTORS: build a hot loop for AVX-512 (x86-64-v4), AVX2 and any
 * x86-64, the loader picking the one the processor runs (GCC's
 * target_clones: a portable binary with wide vectors where the CPU has
 * them).  Elsewhere (another architecture, another compiler) one build for
 * the compiler's target.  The Makefile passes -ffp-contract=off and GCC
 * reorders no sum without -ffast-math, so every clone gives the same bits. */
#ifndef SB_VECTORIZE_H
#define SB_VECTORIZE_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SB_WIDE_VECTORS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define SB_WIDE_VECTORS
#endif

#endif
