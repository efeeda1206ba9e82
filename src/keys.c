/* Every configuration key ShiftBox knows: section, name, type, default,
 * accepted values and meaning.  `shiftbox --help` prints this table, the
 * pages of docs/commands/ show it (tools/keys_doc.py writes their tables from
 * --help, and a test checks they agree), and the
 * getters in config.h read it.  Add a key here and nowhere else. */
#include "config.h"

#include <float.h>

#define NO_INT  0, 0
#define NO_REAL 0.0, 0.0

const char *const config_sections[] = {
    "run",   "decomp",  "exchange", "md",  "checkpoint", "model",    "pingpong", "stats",
    "timer", "stencil", "smpcost",  "smp", "trajectory", "progress", "config",   NULL};

const struct key_spec config_keys[] = {
    /* [config] ---------------------------------------------------------- */
    {"config", "ignore", KEY_TEXT, "", NO_INT, NO_REAL, NULL,
     "sections or section.key items, comma-separated, that a command which does not read them "
     "passes over (a file shared by several commands); any other key a command does not read "
     "is an error"},

    /* [run] ------------------------------------------------------------- */
    {"run", "seed", KEY_INT, "20231", 0, 4611686018427387903LL, NO_REAL, NULL,
     "seed of the payload patterns; a run depends on nothing else that is random"},

    /* [decomp] ---------------------------------------------------------- */
    {"decomp", "dims", KEY_DIMS, "auto", 0, 1 << 20, NO_REAL, NULL,
     "periodic grid of boxes nx,ny,nz (e.g. 8,1,1 for a row); 0 or auto: MPI_Dims_create "
     "chooses; all (exchange only): every grid the box count factors into"},

    /* [exchange] -------------------------------------------------------- */
    {"exchange", "module", KEY_CHOICE_LIST, "shift", NO_INT, NO_REAL,
     "shift|shift-isend|teamshift|direct|auto",
     "exchange modules (comm/), compared side by side on the same boxes: shift (MPI_Ssend), "
     "shift-isend (both directions in flight), teamshift (c ranks per box), direct (every "
     "partner at once); auto: the smallest prediction of model.hockney (Team Shift only past "
     "model.auto_margin; equal ones to direct); all: every module but auto"},
    {"exchange", "baseline", KEY_CHOICE_LIST, "none", NO_INT, NO_REAL,
     "none|baseline-p2p|baseline-neighbor|baseline-staged|baseline-ssend",
     "hand-written exchanges (comm/baseline.c) run beside the modules on the same boxes, "
     "interleaved and verified alike, to measure the modules against; not modules (no model, "
     "never chosen by auto), uniform payloads only: baseline-p2p (MPI_Isend/Irecv, one message "
     "per distinct peer), baseline-neighbor (MPI_Neighbor_alltoallv), baseline-staged "
     "(LAMMPS-style MPI_Sendrecv, x then y then z), baseline-ssend (a reference, not a best: "
     "baseline-p2p's messages as MPI_Ssend/MPI_Recv pairs, the rendezvous the Shift pays); all: "
     "the four"},
    {"exchange", "k", KEY_INT_LIST, "1-4", 1, 64, NO_REAL, NULL,
     "layers of neighbour boxes: each box receives the (2k+1)^3 boxes within k (sweep list)"},
    {"exchange", "bytes", KEY_INT_LIST, "10,1000,10000", 0, 1 << 30, NO_REAL, NULL,
     "payload bytes per box, m1 of seed 000 (sweep list; varied: the mean size)"},
    {"exchange", "phases", KEY_CHOICE, "xyz", NO_INT, NO_REAL, "xyz|xy|x|y|z|xz|yz",
     "dimensions exchanged, in order x, y, z; x alone is seed 000's 1D row experiment"},
    {"exchange", "payload", KEY_CHOICE_LIST, "uniform", NO_INT, NO_REAL, "uniform|varied",
     "uniform: every box sends exchange.bytes; varied: sizes differ per box and repetition, "
     "some 0 (a list runs both)"},
    {"exchange", "team_size", KEY_INT_LIST, "1", 1, 1 << 20, NO_REAL, "all",
     "c: ranks per box (sweep list, or all: every divisor of the rank count); the run has "
     "ranks/c boxes; teamshift uses every member, the other modules the team leaders"},
    {"exchange", "team_deliver", KEY_CHOICE, "leader", NO_INT, NO_REAL, "leader|all",
     "teamshift: the slots end at the team leader, or at every member"},
    {"exchange", "repetitions", KEY_INT, "100", 1, 10000000, NO_REAL, NULL,
     "timed exchanges per sweep point, each verified"},
    {"exchange", "warmup", KEY_INT, "20", 0, 1000000, NO_REAL, NULL,
     "untimed (but verified) exchanges before the timed ones; Open MPI's fast shared-memory "
     "paths appear after 16 sends"},
    {"exchange", "batch", KEY_INT, "1", 1, 1000000, NO_REAL, NULL,
     "exchanges per timed sample, back to back after one barrier, the time divided by their "
     "number (as IMB's Exchange benchmark times), so that the barrier's uneven release weighs "
     "little; 1: each exchange timed alone and verified; B > 1: the payload of a batch is "
     "filled once and the slots of its last exchange are verified byte for byte"},
    {"exchange", "interleave", KEY_INT, "10", 0, 10000000, NO_REAL, NULL,
     "N: the points of one grid (every k, size, payload and module) take turns, N exchanges "
     "each, so that drift of the machine hits them alike; 0: each point in one go; each turn "
     "starts with one untimed (verified) exchange of its point, as a simulation's exchange "
     "follows the one before"},
    {"exchange", "slot_hashes", KEY_BOOL, "0", NO_INT, NO_REAL, NULL,
     "with --out: write slot-hashes.csv, a 64-bit hash of every slot of every box after each "
     "point's last exchange"},
    {"exchange", "verify", KEY_BOOL, "1", NO_INT, NO_REAL, NULL,
     "1: check every byte of every slot after every exchange, and the slots' hashes across "
     "modules; 0: timings only (simulations whose shared malloc lets payloads alias), "
     "recorded in summary.json as verification: off"},
    {"exchange", "inject_fault", KEY_INT, "-1", -1, 1 << 30, NO_REAL, NULL,
     "-1: off; R: after each exchange flip one byte of one slot on rank R (the run must then "
     "exit 1)"},
    {"exchange", "inject_module", KEY_CHOICE_LIST, "all", NO_INT, NO_REAL,
     "shift|shift-isend|teamshift|direct|baseline-p2p|baseline-neighbor|baseline-staged|"
     "baseline-ssend",
     "the modules (and baselines) whose slots inject_fault corrupts"},
    {"exchange", "inject_into", KEY_CHOICE, "slots", NO_INT, NO_REAL, "slots|hashes",
     "slots: before the byte check (which must catch it); hashes: after it, before the last "
     "exchange's slots are hashed (the comparison across modules must catch it)"},
    {"exchange", "inject_drop", KEY_INT, "-1", -1, 1 << 30, NO_REAL, NULL,
     "-1: off; N: every rank skips exchange N of each point of the modules in "
     "exchange.inject_module (counted from 0 in the order they run: warm-ups, each turn's "
     "untimed one, timed ones; a timed batch counts once), so the slots keep the bytes of the "
     "exchange before it (the run must then exit 1); uniform payloads of 1 byte or more"},

    /* [md] -------------------------------------------------------------- */
    {"md", "cells", KEY_INT3, "20,20,20", 1, 4096, NO_REAL, NULL,
     "FCC unit cells nx,ny,nz of the global box (4 atoms each); 20,20,20 is 32 000 atoms"},
    {"md", "density", KEY_REAL, "0.8442", NO_INT, 1e-3, 10.0, NULL,
     "number density in reduced units (the LJ benchmark of miniMD and LAMMPS)"},
    {"md", "temperature", KEY_REAL, "1.44", NO_INT, 0.0, 1e3, NULL,
     "initial temperature in reduced units"},
    {"md", "cutoff", KEY_REAL, "2.5", NO_INT, 0.5, 100.0, NULL, "Lennard-Jones cut-off"},
    {"md", "skin", KEY_REAL, "0.3", NO_INT, 0.0, 10.0, NULL,
     "neighbour-list skin: lists and ghosts reach cut-off + skin"},
    {"md", "dt", KEY_REAL, "0.005", NO_INT, 1e-6, 0.1, NULL, "time step (velocity Verlet)"},
    {"md", "steps", KEY_INT, "100", 0, 100000000, NO_REAL, NULL, "time steps to run"},
    {"md", "reneighbor", KEY_INT, "20", 1, 1000000, NO_REAL, NULL,
     "rebuild neighbour lists (and migrate, and choose ghosts anew) every N steps, or sooner "
     "when a particle moved half the skin"},
    {"md", "reneighbor_check", KEY_INT, "1", 0, 1000000, NO_REAL, NULL,
     "every N steps check whether a particle moved half the skin, and rebuild at once if one "
     "did (one MPI_Allreduce per check); 1: every step, the exact trigger; 0: never, rebuild "
     "only every md.reneighbor steps (LAMMPS' and miniMD's 'check no'); builds whose particles "
     "had moved further are counted as dangerous"},
    {"md", "thermo", KEY_INT, "10", 0, 100000000, NO_REAL, NULL,
     "print thermodynamics every N steps (0: first and last only)"},
    {"md", "k", KEY_INT, "0", 0, 64, NO_REAL, NULL,
     "layers of neighbour boxes; 0: ceil((cut-off + skin) / smallest box edge); a smaller "
     "value is refused"},
    {"md", "ghost_filter", KEY_CHOICE, "slab", NO_INT, NO_REAL, "slab|none",
     "slab: each hop carries only the particles within cut-off + skin of the boxes that still "
     "need them; none: whole boxes (seed 000's payload)"},
    {"md", "drift_bound", KEY_REAL, "0", NO_INT, 0.0, 1e6, NULL,
     "largest |(E_end - E_0) / E_0| of the conserved energy that passes (exit 1 above it); 0: "
     "derived from md.dt, md.steps and the atom count (docs/commands/md.md, \"Energy drift\")"},
    {"md", "inject_force_scale", KEY_REAL, "1", NO_INT, 0.5, 2.0, NULL,
     "1: off; S: every force scaled by S, a dynamics bug the energy drift must catch (exit 1)"},
    {"md", "inject_jump", KEY_INT, "-1", -1, 4611686018427387903LL, NO_REAL, NULL,
     "-1: off; ID: give particle ID a velocity that carries it 2.5 boxes in one step (the run "
     "must stop with exit 3 naming it)"},

    /* [checkpoint] ------------------------------------------------------ */
    /* [trajectory] ------------------------------------------------------ */
    {"trajectory", "every", KEY_INT, "0", 0, 100000000, NO_REAL, NULL,
     "md: append a frame to the trajectory file at the first step and every N steps "
     "(0: no trajectory)"},
    {"trajectory", "file", KEY_TEXT, "trajectory.h5md", NO_INT, NO_REAL, NULL,
     "the trajectory's H5MD file, relative to --out DIR (else the working directory); it must "
     "not exist yet"},
    {"trajectory", "velocities", KEY_BOOL, "1", NO_INT, NO_REAL, NULL,
     "1: velocities in every frame too"},
    {"trajectory", "forces", KEY_BOOL, "0", NO_INT, NO_REAL, NULL, "1: forces in every frame too"},
    {"checkpoint", "every", KEY_INT, "0", 0, 100000000, NO_REAL, NULL,
     "md: a checkpoint after every N steps; stencil: of the field after every N iterations "
     "(one point of the sweep); 0: none on a schedule"},
    {"checkpoint", "at_end", KEY_BOOL, "0", NO_INT, NO_REAL, NULL,
     "1: write a checkpoint after the last step too"},
    {"checkpoint", "dir", KEY_TEXT, "", NO_INT, NO_REAL, NULL,
     "where checkpoints go, as md-STEP.h5md (empty: --out DIR, else the working directory); "
     "created if missing"},
    {"checkpoint", "keep", KEY_INT, "2", 0, 1000000, NO_REAL, NULL,
     "how many of this run's checkpoints to keep, the oldest removed only once a newer one is "
     "complete (0: all)"},
    {"checkpoint", "restart", KEY_TEXT, "", NO_INT, NO_REAL, NULL,
     "a checkpoint to continue from (also --restart FILE): bit for bit on the same rank count, "
     "grid and team size, redistributed on others"},
    {"checkpoint", "units", KEY_CHOICE, "reduced", NO_INT, NO_REAL, "reduced|none",
     "reduced: the Lennard-Jones numbers labelled with the H5MD units nm and ps (the mapping "
     "sigma = 1 nm, tau = 1 ps, which MDAnalysis reads); none: no unit attributes and no "
     "units module"},
    {"checkpoint", "fault", KEY_CHOICE, "none", NO_INT, NO_REAL,
     "none|abort-during-write|write-fails-on-one-rank",
     "abort-during-write: abort the job halfway through the run's second checkpoint (the "
     "first is then complete and must survive); write-fails-on-one-rank: the last rank alone "
     "fails a write of that checkpoint, as on a full disk (the job must end with exit 3, not "
     "hang)"},

    /* [pingpong] -------------------------------------------------------- */
    {"pingpong", "source", KEY_INT, "0", 0, 1 << 30, NO_REAL, NULL,
     "the rank that starts every ping-pong and times it"},
    {"pingpong", "dest", KEY_INT, "1", 0, 1 << 30, NO_REAL, NULL, "the rank that answers"},
    {"pingpong", "bytes", KEY_INT_LIST, "0,10,100,1000,10000,100000", 0, 1 << 30, NO_REAL, NULL,
     "message sizes (seed 000 Table 1's by default)"},
    {"pingpong", "mode", KEY_CHOICE, "ssend", NO_INT, NO_REAL, "ssend|send",
     "ssend: MPI_Ssend, the rendezvous the Shift uses; send: MPI_Send"},
    {"pingpong", "npp", KEY_INT, "0", 0, 100000000, NO_REAL, NULL,
     "ping-pongs per timed loop; 0: chosen per size so that a loop spans res_npp timer "
     "resolutions (seed 002 sec. 3.3)"},
    {"pingpong", "res_npp", KEY_REAL, "50", NO_INT, 1.0, 1e9, NULL,
     "how many timer resolutions a timed loop should span"},
    {"pingpong", "loop_seconds", KEY_REAL, "2e-5", NO_INT, 0.0, 10.0, NULL,
     "a timed loop also lasts at least this long, so that the hand-shake before it (after "
     "which the partner may already be sending) weighs little: with a fine timer, seed 002's "
     "res_npp rule alone gives one ping-pong per loop"},
    {"pingpong", "trials", KEY_INT, "2000", 1, 100000000, NO_REAL, NULL,
     "timed loops per size, at most"},
    {"pingpong", "max_seconds", KEY_REAL, "20", NO_INT, 0.01, 1e6, NULL,
     "stop the timed loops after this long (all sizes together)"},
    {"pingpong", "warmup", KEY_INT, "100", 0, 100000000, NO_REAL, NULL,
     "untimed ping-pongs per size first"},
    {"pingpong", "copy_bytes", KEY_INT_LIST, "auto", 0, 1 << 30, NO_REAL, "auto",
     "sizes of the memcpy timed on both ranks at once (copies inside a rank: rings of one, "
     "slots filled from one message); auto: the message sizes, then 10x, 100x and 1000x the "
     "largest, up to 256 MiB, so that copies that stream from memory are measured too"},
    {"pingpong", "burst", KEY_INT, "8", 2, 1024, NO_REAL, NULL,
     "messages each way at once in the burst pattern, whose time less the duplex time gives "
     "the gap each further message in flight adds (docs/MODEL.md)"},
    {"pingpong", "background", KEY_BOOL, "0", NO_INT, NO_REAL, NULL,
     "1: the other ranks exchange 1 MiB messages in pairs meanwhile (seed 000 sec. 6.2.2)"},
    {"pingpong", "histogram_bins", KEY_INT, "20", 1, 10000, NO_REAL, NULL,
     "bins of each size's histogram, over [min, cut_coef x median)"},
    {"pingpong", "inject_fault", KEY_CHOICE, "none", NO_INT, NO_REAL,
     "none|one_way|duplex|start|round",
     "test: flip one byte of every checked message of that pattern (one_way: the one-way "
     "and MPI_Send loops) before it is compared (the run must then exit 1 with verified: "
     "false)"},

    /* [model] ----------------------------------------------------------- */
    {"model", "hockney", KEY_TEXT, "", NO_INT, NO_REAL, NULL,
     "hockney.json from shiftbox pingpong --out DIR: enables predictions (model, exchange, "
     "module auto)"},
    {"model", "smp", KEY_TEXT, "", NO_INT, NO_REAL, NULL,
     "summary.json of shiftbox smpcost --out DIR: copies inside a rank (rings of one, Team "
     "Shift's repacking) costed by seed 003's good family instead of the Hockney beta"},
    {"model", "rendezvous", KEY_BOOL, "1", NO_INT, NO_REAL, NULL,
     "a rank cannot send and receive at once (MPI_Ssend): the Shift's hops take one message "
     "time per ring colour (seed 000 Eq. 3), the exchange's first hop two of them the round "
     "pattern r(m)"},
    {"model", "auto_margin", KEY_REAL, "0.1", NO_INT, 0.0, 1.0, NULL,
     "exchange.module = auto takes Team Shift only where every other module's prediction "
     "exceeds its own by more than this fraction (its model, with a team's collectives, is "
     "the least sure: docs/MODEL.md); 0: the smallest prediction"},
    {"model", "torus", KEY_INT_LIST, "none", 1, 1 << 16, NO_REAL, "none",
     "A,B,C: the hosts form a 3D torus as SimGrid's TorusZone lays them out (rank r on host r, "
     "first dimension fastest; configs/platforms/torus-*.xml), and messages to boxes more than "
     "a hop away share its links and the ports they pass (docs/MODEL.md); none: no contention "
     "beyond a rank's port"},
    {"model", "dims", KEY_INT3, "4,4,4", 1, 1 << 20, NO_REAL, NULL,
     "shiftbox model: the grid of boxes to predict for"},

    /* [progress] -------------------------------------------------------- */
    {"progress", "every", KEY_REAL, "10", NO_INT, 0.0, 86400.0, NULL,
     "seconds between progress lines (work done, rate, time left) when stderr is not a "
     "terminal (mpirun, batch logs); 0: none.  On a terminal a live line instead"},

    /* [stats] ----------------------------------------------------------- */
    {"stats", "cut_coef", KEY_REAL, "2", NO_INT, 1.0, DBL_MAX, NULL,
     "filtered statistics drop times above cut_coef x median (seed 002 sec. 3.4)"},
    {"stats", "statistic", KEY_CHOICE, "mean", NO_INT, NO_REAL, "mean|median|min|lowest20",
     "the statistic of repeated times that the models are made from and compared with, the "
     "same everywhere: pingpong's curves (alpha, beta, ...) and exchange's prediction errors; "
     "mean is seed 000's; lowest20: the mean of the smallest 20 % (seed 000 sec. 6.2.3)"},

    /* [timer] ----------------------------------------------------------- */
    {"timer", "samples", KEY_INT, "1048576", 1, 1LL << 30, NO_REAL, NULL,
     "pairs of MPI_Wtime calls that measure the timer's resolution and overhead at start "
     "(seed 002 sec. 2 used 2^24 = 16777216); a simulated run (tools/smpi-run.sh) needs few"},

    /* [stencil] --------------------------------------------------------- */
    {"stencil", "dim", KEY_INT, "2", 2, 3, NO_REAL, NULL,
     "2: 5-point stencil on a 2D grid; 3: 7-point stencil on a 3D grid"},
    {"stencil", "size", KEY_INT_LIST, "auto", 1, 1 << 24, NO_REAL, "auto",
     "global grid points nx,ny(,nz); a missing last value repeats the one before; auto: "
     "4096,4096 (2D) or 256,256,256 (3D)"},
    {"stencil", "depth", KEY_INT_LIST, "4", 1, 4096, NO_REAL, NULL,
     "halo depths d to run (exchange every d iterations); a list is a sweep"},
    {"stencil", "iterations", KEY_INT, "100", 1, 100000000, NO_REAL, NULL,
     "stencil iterations (sweeps) per point of the sweep"},
    {"stencil", "exchange", KEY_CHOICE_LIST, "sync", NO_INT, NO_REAL, "sync|async",
     "sync: axis by axis, corners forwarded (seed 004 Fig. 2.7); async: all 8/26 neighbours "
     "at once (Fig. 2.8); a list is a sweep"},
    {"stencil", "sweep", KEY_CHOICE, "shrink", NO_INT, NO_REAL, "shrink|full",
     "shrink: sweep j after an exchange computes the own points and d - 1 - j halo layers, "
     "what the later sweeps still read; full: every sweep computes the whole halo-extended "
     "subdomain but its outermost layer (seed 004 sec. 3.2.1, 3.4.1), points whose inputs are "
     "stale included, which no own point then reads; the own points are the same bits either "
     "way"},
    {"stencil", "stores", KEY_CHOICE, "auto", NO_INT, NO_REAL, "auto|cached|streaming",
     "CPU, plain sweeps: streaming: non-temporal stores past the cache (8 lines of a plane side "
     "by side in 2D, one line at a time in 3D; AVX-512 or AVX2 with a GCC build, elsewhere "
     "cached; gpu/backend_cpu_simd.c), so that a sweep moves what a copy moves; cached: ordinary "
     "stores; auto: streaming where the two fields of this node's ranks exceed an eighth of the "
     "last-level cache (the crossover measured on one VM); the same bits either way"},
    {"stencil", "blocking", KEY_CHOICE, "none", NO_INT, NO_REAL, "none|temporal",
     "none: the d sweeps between two exchanges one after the other, each a pass over the "
     "field; temporal: all d in one pass, tile by tile in the cache (CPU: "
     "gpu/backend_cpu_temporal.c; CUDA: tiles in shared memory in 2D, in the L2 cache in 3D, "
     "stencil.cuda_blocking, gpu/backend_cuda.cu; bit-identical)"},
    {"stencil", "tile", KEY_INT, "0", 0, 1 << 24, NO_REAL, NULL,
     "stencil.blocking = temporal: the tile's width (CPU: 3D y lines, 2D x points; CUDA with "
     "tiles in the L2: 3D z planes, 2D y rows; shared-memory tiles have a fixed size); 0: auto "
     "(CPU: tuned before each point, the fastest of tiles whose n + 2 planes in both fields fill "
     "half of half the L2, the L2, twice that ... up to the L2 and the rank's share of the last "
     "level from sysfs, each timed on one exchange and batch of the run's shape, "
     "src/stencil/tune.c; where one tile spans the box, that one untimed; CUDA: tile + "
     "n + 1 planes of both fields fill half the L2; n: the sweeps done together, d, or d - 1 with "
     "overlap)"},
    {"stencil", "overlap", KEY_INT_LIST, "0", 0, 1, NO_REAL, NULL,
     "1: compute the interior while the halo travels, then the outer frame (seed 004 "
     "Listing 10); 0,1 runs both"},
    {"stencil", "backend", KEY_CHOICE, "auto", NO_INT, NO_REAL, "auto|cuda|cpu",
     "auto: CUDA when a GPU is usable, else the CPU (saying so); cuda: exit 2 without a GPU"},
    {"stencil", "precision", KEY_CHOICE, "float", NO_INT, NO_REAL, "float|double",
     "the field's floating-point type"},
    {"stencil", "weights", KEY_REAL_LIST, "auto", NO_INT, -1e6, 1e6, "auto",
     "stencil weights in seed 004 Listing 2's order: 2D (y-1),(x-1),centre,(x+1),(y+1); 3D "
     "(z-1), the 2D five, (z+1); auto: 0.125 around 0.5 (2D), 0.1 around 0.4 (3D)"},
    {"stencil", "pinned", KEY_BOOL, "1", NO_INT, NO_REAL, NULL,
     "CUDA: page-locked host buffers for the halo (faster copies)"},
    {"stencil", "cuda_rows", KEY_CHOICE, "auto", NO_INT, NO_REAL, "auto|1|2|4|8",
     "CUDA: rows of points each thread of the sweep kernel computes, its loads all issued "
     "before the first sum (1: seed 004 Listing 2, one point per thread; auto: 32 bytes of a "
     "column, 8 rows in float, 4 in double); the same bits either way"},
    {"stencil", "cuda_blocking", KEY_CHOICE, "auto", NO_INT, NO_REAL, "auto|shared|l2",
     "CUDA, stencil.blocking = temporal: shared: one kernel runs all sweeps of a batch on tiles "
     "in shared memory (2D; 96 x 64 points in float, 64 x 48 in double; batches of more than "
     "16 or 12 sweeps run as l2; a third field of device memory); l2: one kernel per tile and "
     "sweep, the tile's planes in the L2 cache (stencil.tile); auto: shared in 2D, l2 in 3D; "
     "the same bits either way"},
    {"stencil", "cuda_aware", KEY_CHOICE, "auto", NO_INT, NO_REAL, "auto|0|1",
     "CUDA: hand device buffers to MPI; auto: when the MPI library says it can"},
    {"stencil", "threads", KEY_INT, "1", 0, 4096, NO_REAL, NULL,
     "CPU backend: OpenMP threads per rank (0: OpenMP's default)"},
    {"stencil", "warmup", KEY_INT, "0", 0, 100000000, NO_REAL, NULL,
     "untimed iterations before each point (the field is then reset)"},
    {"stencil", "verify", KEY_BOOL, "0", NO_INT, NO_REAL, NULL,
     "compare the final field bit for bit with a single-rank depth-1 run of the same "
     "backend (and, on CUDA, bit for bit with the CPU backend too)"},
    {"stencil", "calibrate", KEY_BOOL, "0", NO_INT, NO_REAL, NULL,
     "measure the memory's copy bandwidth and report the sweep kernel's bandwidth as "
     "a ratio of it, on a field of at least 4 times the cache in front of the memory; "
     "on the CPU also the sweeps of a field held in the L2, against the single-sweep "
     "roofline"},
    {"stencil", "inject_fault", KEY_INT, "-1", -1, 100000000, NO_REAL, NULL,
     "test: after exchange number N (0-based) the last rank corrupts one halo value"},

    /* [smpcost] --------------------------------------------------------- */
    {"smpcost", "reps", KEY_INT, "5", 1, 64, NO_REAL, NULL,
     "repetitions of each superstep (their median is kept); a long one fewer "
     "(smpcost.long_seconds)"},
    {"smpcost", "long_seconds", KEY_REAL, "0.01", NO_INT, 0.0, 1e6, NULL,
     "a superstep of the suites whose first repetition (copy-in plus copy-out, on rank 0) "
     "takes longer than this is repeated 3 times (at most smpcost.reps), not smpcost.reps; "
     "ShiftBox's patterns always smpcost.reps (the median of 3 of so long a superstep moved "
     "little; the bad mode's largest supersteps took 40 of a default run's 125 s in their "
     "fourth and fifth repetitions); 0: every superstep smpcost.reps times"},
    {"smpcost", "per_set", KEY_INT, "10", 1, 20, NO_REAL, NULL,
     "h values taken from each of seed 003's sets H0, H1, H2 (10, as the paper's), scaled from "
     "its 2^19-integer L2 to this machine's cache share per worker"},
    {"smpcost", "line_bytes", KEY_INT, "0", 0, 1 << 20, NO_REAL, NULL,
     "cache-line size; 0: read from sysfs"},
    {"smpcost", "cache_bytes", KEY_INT, "0", 0, 1LL << 40, NO_REAL, NULL,
     "last-level cache, shared by the workers (h values scale with it); 0: read from sysfs"},
    {"smpcost", "bad_bytes", KEY_INT, "1073741824", 1 << 16, 1LL << 40, NO_REAL, NULL,
     "size of the bad-mode array: one integer per line, so bad supersteps reach h = "
     "bad_bytes / line"},
    {"smpcost", "pattern_ints", KEY_INT, "1048576", 1, 1LL << 32, NO_REAL, NULL,
     "integers each worker moves in ShiftBox's copy patterns"},
    {"smpcost", "max_seconds", KEY_REAL, "600", NO_INT, 0.0, 1e6, NULL,
     "time limit of the suites: their time is estimated first (one superstep of each mode) "
     "and a run that would take longer stops at once (exit 2); supersteps past the limit are "
     "skipped (and counted).  The suites' time scales with the last-level cache (2 workers: "
     "1.5 min with 32 MiB, 4 min with 480 MiB on the VMs the defaults were sized on; 1.4-1.5 "
     "min with 32 MiB on the busy AMD EPYC VM of 2026-11-27, 2.4 before "
     "smpcost.long_seconds)"},

    /* [smp] ------------------------------------------------------------- */
    {"smp", "apps", KEY_CHOICE_LIST, "none", NO_INT, NO_REAL, "none|radix|sample|column",
     "seed 003's application check (sec. 5): sort n keys for n over its N0, N1, N2 (scaled like "
     "the suites' h) in BSP supersteps, each placed between the Good and Bad predictions with "
     "Loc and M/G (Tables 9-11 in form; smpcost-apps.csv): radix (Table 9), sample (Table 10), "
     "column (Table 11; n rounded to a multiple of 2p^2); all: the three"},
    {"smp", "fit", KEY_CHOICE, "searched", NO_INT, NO_REAL, "paper|searched",
     "how smpcost fits the cost functions: paper (seed 003 sec. 4.2: plain least squares, the "
     "good family's R0 (h <= the cache share per worker) and R1 fitted apart), or searched "
     "(relative least squares, HrHwM-c's cache split searched in the data; the default: on "
     "this VM the good family's average error was 3-9 % with it, 23-53 % with the paper's, "
     "docs/commands/smpcost.md); "
     "both are printed, this one predicts (patterns, model.smp)"},

    {NULL, NULL, KEY_TEXT, NULL, NO_INT, NO_REAL, NULL, NULL},
};
