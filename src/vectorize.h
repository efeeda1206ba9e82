/* SB_WIDE_VECTORS: build a hot loop for AVX-512 (x86-64-v4), AVX2 and any
 * x86-64, the loader picking the one the processor runs (GCC's
 * target_clones: a portable binary with wide vectors where the CPU has
 * them).  Elsewhere (another architecture, another compiler) one build for
 * the compiler's target.  The Makefile passes -ffp-contract=off and GCC
 * reorders no sum without -ffast-math, so every clone gives the same bits. */
#ifndef SB_VECTORIZE_H
#define SB_VECTORIZE_H

#include <stdbool.h>

/* SB_X86_AVX512: hand-written AVX-512 loops can be built here (GCC on
 * x86-64, with target attributes: src/md/neighbor.c, src/md/force.c,
 * gpu/backend_cpu_avx512.c); sb_has_avx512() says at run time whether this
 * processor runs them (AVX-512 F and VL), false where they are not built. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SB_WIDE_VECTORS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define SB_X86_AVX512   1
static inline bool sb_has_avx512(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}
#else
#define SB_WIDE_VECTORS
static inline bool sb_has_avx512(void)
{
    return false;
}
#endif

/* SB_PLAIN_LOOPS: a function whose copy loops stay loops, not calls of
 * memcpy (which the compilers otherwise put in; glibc's switches to stores
 * past the cache at a size of its own: src/cmd_smpcost.c).  GCC and clang;
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
