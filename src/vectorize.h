/* SB_WIDE_VECTORS: build a hot loop for AVX-512 (x86-64-v4), AVX2 and any
 * x86-64, the loader picking the one the processor runs (GCC's
 * target_clones: a portable binary with wide vectors where the CPU has
 * them).  Elsewhere (another architecture, another compiler) one build for
 * the compiler's target.  The Makefile passes -ffp-contract=off and GCC
 * reorders no sum without -ffast-math, so every clone gives the same bits. */
#ifndef SB_VECTORIZE_H
#define SB_VECTORIZE_H

#include <stdbool.h>

/* SB_X86_AVX512: hand-written AVX-512 loops (src/md/neighbor.c,
 * src/md/force.c, gpu/backend_cpu_simd.c) and AVX2 ones (the list build's
 * scan, src/md/neighbor.c; the stencil's lines, gpu/backend_cpu_simd.c)
 * can be built here (GCC on x86-64, with target attributes); sb_has_avx512() and sb_has_avx2() say at run time
 * whether this processor runs them, false where they are not built. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SB_WIDE_VECTORS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define SB_X86_AVX512   1
static inline bool sb_has_avx512(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}
/* AVX2 without AVX-512 (AMD's Zen 2 and 3, Intel's desktops): the list
 * build's four-lane scan (src/md/neighbor.c) */
static inline bool sb_has_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}
#else
#define SB_WIDE_VECTORS
static inline bool sb_has_avx512(void)
{
    return false;
}
static inline bool sb_has_avx2(void)
{
    return false;
}
#endif

/* The widest hand-written loops a hot path may take: the processor's
 * (sb_isa()), unless a test or a comparison asks for narrower ones. */
enum sb_isa { SB_ISA_PORTABLE, SB_ISA_AVX2, SB_ISA_AVX512 };

static inline enum sb_isa sb_isa(void)
{
    return sb_has_avx512() ? SB_ISA_AVX512 : sb_has_avx2() ? SB_ISA_AVX2 : SB_ISA_PORTABLE;
}

/* The loops to take: the processor's widest, at most `limit`. */
static inline enum sb_isa sb_isa_upto(enum sb_isa limit)
{
    enum sb_isa have = sb_isa();
    return have < limit ? have : limit;
}

/* SB_PLAIN_LOOPS: a function whose copy loops stay loops, not calls of
 * memcpy (which the compilers otherwise put in; glibc's switches to stores
 * past the cache at a size of its own: src/smp/suites.c).  GCC and clang;
 * elsewhere nothing, the loop possibly a memcpy. */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(no_builtin)
#define SB_PLAIN_LOOPS __attribute__((no_builtin("memcpy")))
#endif
#elif defined(__GNUC__) && !defined(__INTEL_COMPILER) && !defined(__NVCOMPILER)
#define SB_PLAIN_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
#ifndef SB_PLAIN_LOOPS
#define SB_PLAIN_LOOPS
#endif

#endif
