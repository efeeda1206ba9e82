/* shiftbox: one binary, one command per run (DESIGN.md "Layout").
 *
 * The driver reads the command line and the configuration (rank 0 reads the
 * file and broadcasts it), builds the rank grid, hands both to the command,
 * and makes every rank exit with the same code: 0 ok, 1 verification failed,
 * 2 bad usage or configuration, 3 runtime failure (the job is aborted). */
#include "args.h"
#include "command.h"
#include "coll.h"
#include "log.h"
#include "report.h"
#include "../gpu/device.h"

#include <mpi.h>
#ifndef SB_SMPI
#include <hdf5.h>
#endif

#include <errno.h>
#if defined(__GLIBC__) && !defined(SB_SMPI) /* SMPI's own malloc macros clash with it */
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SB_SMPI
/* What each command reads: whole sections, or single keys (section.key);
 * any other key set in a file or with -s is refused (config.ignore aside). */
static const char *const md_sections[] = {
    "run",       "decomp",           "exchange.module", "exchange.team_size",
    "md",        "checkpoint",       "trajectory",      "model.hockney",
    "model.smp", "model.rendezvous", "model.torus",     "model.auto_margin",
    "timer",     "progress",         "config",          NULL};
#endif
static const char *const exchange_sections[] = {"run",         "decomp",
                                                "exchange",    "model.hockney",
                                                "model.smp",   "model.rendezvous",
                                                "model.torus", "model.auto_margin",
                                                "stats",       "timer",
                                                "progress",    "config",
                                                NULL};
static const char *const pingpong_sections[] = {"pingpong", "stats",  "timer",
                                                "progress", "config", NULL};
static const char *const model_sections[] = {"exchange.module",
                                             "exchange.k",
                                             "exchange.bytes",
                                             "exchange.phases",
                                             "exchange.team_size",
                                             "exchange.team_deliver",
                                             "model",
                                             "timer",
                                             "config",
                                             NULL};
#ifndef SB_SMPI
static const char *const stencil_sections[] = {"decomp",
                                               "stencil",
                                               "checkpoint.every",
                                               "checkpoint.at_end",
                                               "checkpoint.dir",
                                               "checkpoint.keep",
                                               "checkpoint.restart",
                                               "timer",
                                               "progress",
                                               "config",
                                               NULL};
static const char *const smpcost_sections[] = {"run",      "smpcost", "smp", "timer",
                                               "progress", "config",  NULL};
#endif

static const struct command commands[] = {
#ifndef SB_SMPI
    {"md",
     "the proxy MD workload: Lennard-Jones particles whose ghosts travel through an exchange "
     "module (the miniMD / LAMMPS LJ benchmark)",
     md_sections, cmd_md},
#endif
    {"exchange",
     "sweep modules, grids, team sizes, k and payloads; time, verify every byte, report "
     "statistics",
     exchange_sections, cmd_exchange},
    {"pingpong",
     "measure MPI latency and rates between two ranks (seed 002) and fit the Hockney model: "
     "hockney.json",
     pingpong_sections, cmd_pingpong},
    {"model",
     "predict every module's exchange time from hockney.json (no MPI run needed); the "
     "Team Shift / Shift trade-off points",
     model_sections, cmd_model},
#ifndef SB_SMPI
    {"stencil",
     "the deep-halo stencil (seed 004) in 2D and 3D on the CUDA or CPU backend: segment times, "
     "overlap, and the field verified bit for bit",
     stencil_sections, cmd_stencil},
    {"smpcost",
     "what copies through shared memory cost on this node (seed 003): good and bad supersteps, "
     "cost functions fitted and validated, ShiftBox's copy patterns inside the interval",
     smpcost_sections, cmd_smpcost},
#endif
};
static const int ncommands = (int)(sizeof commands / sizeof commands[0]);

#ifdef SB_SMPI
/* The SimGrid build (Makefile SIMGRID=1) leaves out what SMPI cannot link. */
static const char *const not_in_smpi[][2] = {
    {"md", "its checkpoints need HDF5"},
    {"stencil", "its backends need CUDA or a helper thread per rank"},
    {"smpcost", "it measures one real node's shared memory"},
};

static const char *smpi_excluded(const char *name)
{
    for (size_t i = 0; i < sizeof not_in_smpi / sizeof not_in_smpi[0]; i++)
        if (!strcmp(not_in_smpi[i][0], name)) return not_in_smpi[i][1];
    return NULL;
}
#endif

static const struct command *find_command(const char *name)
{
    for (int i = 0; i < ncommands; i++)
        if (!strcmp(commands[i].name, name)) return &commands[i];
    return NULL;
}

static void print_usage(FILE *f)
{
    fprintf(f,
            "ShiftBox %s: communication for simulations with range-limited interactions\n\n"
            "usage: mpirun -np N shiftbox COMMAND [-c FILE.ini] [-s section.key=value ...] "
            "[--out DIR]\n"
            "       shiftbox COMMAND --help      the keys of one command\n"
            "       shiftbox --version\n\n"
            "commands:\n",
            SHIFTBOX_VERSION);
    for (int i = 0; i < ncommands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\noptions:\n"
            "  -c, --config FILE     read keys from an INI file (see configs/)\n"
            "  -s, --set KEY=VALUE   set one key after the file, e.g. -s exchange.k=1-4\n"
            "  -o, --out DIR         write DIR/summary.json and the command's CSV files\n"
            "      --restart FILE    md, stencil: continue from a checkpoint (checkpoint.restart)\n"
            "  -h, --help            this text; after a command, that command's keys\n"
            "  -V, --version         the version, git revision, and the MPI, HDF5 and CUDA it was\n"
            "                        built with and runs with\n\n"
            "lists and ranges: exchange.k=1-4, exchange.bytes=10,100,1000\n"
            "exit codes: 0 ok, 1 verification failed, 2 bad usage or configuration, "
            "3 runtime failure (MPI, I/O, CUDA, HDF5)\n");
}

static void print_help(const struct command *cmd)
{
    if (log_rank() != 0) return;
    if (!cmd) {
        print_usage(stdout);
        printf("\nkeys (section.key, default, accepted values, meaning):\n");
        config_write_help(NULL, stdout);
        return;
    }
    printf("usage: mpirun -np N shiftbox %s [-c FILE.ini] [-s section.key=value ...] "
           "[--out DIR]\n\n%s\n\nkeys (section.key, default, accepted values, meaning):\n",
           cmd->name, cmd->summary);
    config_write_help(cmd->sections, stdout);
}

/* Rank 0 reads the file; every rank gets its text, or -1 when it failed. */
static long read_config_text(const char *path, char **text, struct sb_msg *m)
{
    long len = -1;
    if (log_rank() == 0) {
        char label[1100];
        snprintf(label, sizeof label, "-c %s", path);
        size_t n;
        *text = sb_read_text(path, label, "the path of an INI file of at most 1 MiB (see configs/)",
                             &n, m);
        if (*text) len = (long)n;
    }
    if (*text && strlen(*text) != (size_t)len) { /* a NUL byte would end the text early */
        int line = 1;
        for (const char *p = *text; *p; p++)
            line += *p == '\n';
        sb_fail(m, SB_EUSAGE, "-c %s:%d: a NUL byte; accepted: a text file", path, line);
        free(*text);
        *text = NULL;
        len = -1;
    }
    sb_bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (len < 0) return -1;
    if (log_rank() != 0) *text = sb_malloc((size_t)len + 1, "the configuration file");
    sb_bcast(*text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    (*text)[len] = '\0';
    return len;
}

static int load_config(struct config *cfg, const struct args *a, const struct command *cmd,
                       struct sb_msg *m)
{
    config_init(cfg);
    if (a->config_file) {
        char *text = NULL;
        if (read_config_text(a->config_file, &text, m) < 0) {
            free(text);
            return SB_EUSAGE;
        }
        cfg->file = sb_strdup(a->config_file);
        int rc = config_parse_text(cfg, text, a->config_file, m);
        free(text);
        CHECK(rc);
    }
    for (int i = 0; i < a->noverrides; i++)
        CHECK(config_override(cfg, a->overrides[i], m));
    CHECK(config_check_read(cfg, cmd->name, cmd->sections, m));
    if (!a->restart) return SB_OK;
    if (!section_listed(cmd->sections, "checkpoint"))
        return sb_fail(m, SB_EUSAGE,
                       "--restart: %s writes no checkpoints; accepted with md and stencil",
                       cmd->name);
    return config_set_option(cfg, "checkpoint", "restart", a->restart, "--restart", m);
}

/* --out DIR is made by rank 0 before the run, so a bad path costs no run;
 * `made` records the folders it made, which a refused run removes again. */
static int prepare_out_dir(const char *dir, struct report_made_dirs *made, struct sb_msg *m)
{
    int rc = SB_OK;
    if (log_rank() == 0) rc = report_prepare_dir(dir, "--out", made, m);
    sb_bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

static void print_start(const struct run_ctx *ctx)
{
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len;
    MPI_Get_library_version(library, &len);
    library[strcspn(library, ",\n")] = '\0';
    log_info("ShiftBox %s %s on %d rank%s (%s); timer resolution %.0f ns, overhead %.0f ns",
             SHIFTBOX_VERSION, ctx->cmd->name, ctx->nranks, ctx->nranks == 1 ? "" : "s", library,
             ctx->timer.resolution * 1e9, ctx->timer.overhead * 1e9);
    if (log_rank() != 0) return;
    log_info("placement: %s", ctx->placement.line);
    printf("# resolved configuration%s%s\n", ctx->cfg->file ? " from " : " (defaults",
           ctx->cfg->file ? ctx->cfg->file : " and the command line)");
    config_write_ini(ctx->cfg, ctx->cmd->sections, stdout);
    fflush(stdout);
}

/* Prints a failure once: rank 0 for what all ranks know, else this rank. */
static void print_failure(int rc, const struct sb_msg *m)
{
    if (!m->text[0]) return;
    if (rc == SB_EUSAGE)
        log_error("%s", m->text);
    else
        log_rank_error("%s", m->text);
}

#ifndef SB_GIT_REVISION
#define SB_GIT_REVISION "unknown"
#endif

/* --version: this build and what it runs with (MPI_Get_library_version may
 * be called before MPI_Init). */
static void print_versions(void)
{
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(library, &len);
    library[strcspn(library, "\n")] = '\0';
    log_info("ShiftBox %s (git %s)", SHIFTBOX_VERSION, SB_GIT_REVISION);
#ifdef OMPI_MAJOR_VERSION
    log_info("  MPI:      built with Open MPI %d.%d.%d (MPI %d.%d); runs with %s",
             OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION, MPI_VERSION,
             MPI_SUBVERSION, library);
#else
    log_info("  MPI:      built with MPI %d.%d; runs with %s", MPI_VERSION, MPI_SUBVERSION,
             library);
#endif
#ifdef SB_SMPI
    log_info("  HDF5:     none (SMPI build)");
#else
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    log_info("  HDF5:     built with %d.%d.%d; runs with %u.%u.%u", H5_VERS_MAJOR, H5_VERS_MINOR,
             H5_VERS_RELEASE, major, minor, release);
#endif
    char gpu[256];
    gpu_probe(gpu, sizeof gpu);
    log_info("  CUDA:     built with %s; devices: %s", gpu_runtime_built(), gpu);
    log_info("  compiler: %s", __VERSION__);
}

/* SIGINT or SIGTERM reaching a rank ends it at once with 128 + the signal
 * (130, 143: what shells report), after one line that says what it left.
 * Nothing is left that looks complete: summary.json and the CSVs appear
 * only when a run ends (written under a temporary name, then renamed), a
 * checkpoint only when every rank has written it (NAME.tmp until then; the
 * next run removes it).  The line names checkpoints only where the run
 * writes them, and says so where this rank's part of the command had ended:
 * mpirun sends the signal to ranks still finishing once one has left with a
 * non-zero code (a failed verification, exit 1); other ranks, rank 0 among
 * them, may still have been writing. */
enum signal_stage { SIGNAL_RUNNING, SIGNAL_WRITES_CHECKPOINTS, SIGNAL_ENDED };
static volatile sig_atomic_t signal_stage = SIGNAL_RUNNING;

static void on_signal(int sig)
{
    static const char *const text[] = {
        [SIGNAL_RUNNING] = "shiftbox: terminated by a signal; no summary written\n",
        [SIGNAL_WRITES_CHECKPOINTS] = "shiftbox: terminated by a signal; no summary written, "
                                      "an unfinished checkpoint stays NAME.tmp\n",
        [SIGNAL_ENDED] = "shiftbox: terminated by a signal after this rank's part of the "
                         "command had ended\n",
    };
    const char *line = text[signal_stage];
    ssize_t ignored = write(STDERR_FILENO, line, strlen(line));
    (void)ignored;
    _exit(128 + sig);
}

static int run(int argc, char **argv)
{
    struct args a;
    struct sb_msg m = {""};
    int rc = parse_args(argc, argv, &a, &m);
    if (rc != SB_OK) {
        print_failure(rc, &m);
        return rc;
    }
    if (a.version) {
        print_versions();
        return SB_OK;
    }
    const struct command *cmd = a.command ? find_command(a.command) : NULL;
#ifdef SB_SMPI
    if (a.command && !cmd && smpi_excluded(a.command)) {
        log_error("'%s' is not in the SMPI build: %s; run it with build/shiftbox", a.command,
                  smpi_excluded(a.command));
        return SB_EUSAGE;
    }
#endif
    char known[256] = ""; /* the commands of this build */
    for (int i = 0; i < ncommands; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 commands[i].name);
    if (a.command && !cmd) {
        /* the nearest name, when it is a typo (about one character in four) */
        const char *near = NULL;
        int best = (int)strlen(a.command) / 4 > 1 ? (int)strlen(a.command) / 4 : 1;
        for (int i = 0; i < ncommands; i++) {
            int d = edit_distance(a.command, commands[i].name);
            if (d <= best) best = d, near = commands[i].name;
        }
        char hint[64] = "";
        if (near) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        log_error("unknown command '%s'%s; accepted: %s (shiftbox --help)", a.command, hint, known);
        return SB_EUSAGE;
    }
    if (a.help || !cmd) {
        print_help(cmd);
        if (!cmd && !a.help) log_error("no command given; accepted: %s (shiftbox --help)", known);
        return a.help ? SB_OK : SB_EUSAGE;
    }

    struct config cfg;
    struct run_ctx ctx = {.cfg = &cfg, .cmd = cmd, .out_dir = a.out_dir, .world = MPI_COMM_WORLD};
    MPI_Comm_size(MPI_COMM_WORLD, &ctx.nranks);
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
    rc = load_config(&cfg, &a, cmd, &m);
    static struct report_made_dirs made; /* rank 0's; none elsewhere */
    if (rc == SB_OK && a.out_dir) rc = prepare_out_dir(a.out_dir, &made, &m);
    if (rc != SB_OK) {
        report_unmake_dir(&made); /* made partway */
        print_failure(rc, &m);
        config_free(&cfg);
        return rc;
    }
    timer_calibrate(&ctx.timer, (long)cfg_int(&cfg, "timer.samples"));
    placement_gather(ctx.world, &ctx.placement);
    log_progress_start(section_listed(cmd->sections, "progress") ? cfg_real(&cfg, "progress.every")
                                                                 : 0.0);
    print_start(&ctx);
    if (section_listed(cmd->sections, "checkpoint") &&
        (cfg_int(&cfg, "checkpoint.every") > 0 || cfg_bool(&cfg, "checkpoint.at_end")))
        signal_stage = SIGNAL_WRITES_CHECKPOINTS;
    rc = cmd->run(&ctx);
    signal_stage = SIGNAL_ENDED;
    placement_free(&ctx.placement);
    /* input refused by the command: the folder made for it goes again
       (rmdir removes it only while it is empty) */
    if (rc == SB_EUSAGE) report_unmake_dir(&made);
    config_free(&cfg);
    return rc;
}

int main(int argc, char **argv)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one line, whichever comes first */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
#if defined(__GLIBC__) && !defined(SB_SMPI)
    /* Blocks above 128 KiB come from mmap and go back to the system when
     * freed.  By default glibc raises this threshold to the largest block
     * freed so far (up to 32 MiB); md's rebuild arrays then came from the
     * heap, whose freed middle stays resident: md's peak at 256k atoms fell
     * from 470 to 431 bytes per atom with the threshold fixed. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
#ifdef OPEN_MPI
    /* Open MPI's own MPI-IO (OMPIO) wrote a 4 M-atom checkpoint at 0.15x
     * dd's rate on 2 ranks, its ROMIO at 0.23x (tools/checkpoint_bench.sh side
     * by side, docs/results/README.md): ROMIO unless the user chose
     * (OMPI_MCA_io set); Open MPI reads it in MPI_Init. */
    setenv("OMPI_MCA_io", "^ompio", 0);
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    log_set_rank(rank);

    int rc = run(argc, argv);
    if (rc == SB_ERUNTIME) MPI_Abort(MPI_COMM_WORLD, SB_ERUNTIME);
    /* Every rank leaves with the same code: the worst any of them saw. */
    int agreed = rc;
    MPI_Allreduce(&rc, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return agreed;
}
