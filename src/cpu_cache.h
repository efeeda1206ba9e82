/* The caches of the CPU a rank runs on, as sysfs describes cpu0's (the C
 * library's sysconf where sysfs has none: some virtual machines).  sysfs
 * gives what this machine sees, where CPUID, which sysconf reads, may
 * report the whole host's last level (256 MiB of L3 on a 2-core VM with
 * 32 MiB in sysfs). */
#ifndef SB_CPU_CACHE_H
#define SB_CPU_CACHE_H

struct cpu_caches {
    long line;       /* bytes of a cache line; 0: unknown */
    long l2;         /* bytes of the level-2 cache; 0: unknown */
    long llc;        /* bytes of the last level; 0: unknown */
    int llc_level;   /* its level; negative: read from sysconf, not sysfs */
    int llc_sharing; /* the CPUs that share it (1 where unknown) */
};

void cpu_caches_read(struct cpu_caches *c);

/* This CPU's caches, read once (cpu_caches_read) on the first call; from
 * the main thread. */
const struct cpu_caches *cpu_caches(void);

/* How many CPUs a sysfs list such as "0-3,8,10-11" names; 1 where it names
 * none or cannot be read. */
int cpu_list_count(const char *list);

/* The cache one rank of a full node may count on: its level-2 cache and
 * its share of a last level above it (a last-level L2: its share); from
 * sysconf only the L2, as CPUID may describe the host's whole L3; 0 where
 * nothing is known.  (The stencil's calibration and stencil.stores=auto
 * keep sysconf's last level on purpose: glibc's memcpy decides by it.) */
long cpu_cache_per_rank(const struct cpu_caches *c);

#endif
