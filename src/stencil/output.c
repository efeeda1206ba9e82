/* What a stencil run reports (output.h). */
#include "output.h"
#include "../log.h"
#include "../report.h"

#include <stdio.h>
#include <string.h>

static const char *const csv_header =
    "dim,nx,ny,nz,ranks,backend,precision,depth,exchange,overlap,iterations,execution,pack,"
    "unpack,inner,outer,primary,message,desync,execution_max,gcells_per_s,bytes_per_iteration,"
    "verified,blocking,stores\n";

static const char *verdict_word(int v)
{
    return v < 0 ? "unchecked" : v ? "true" : "false";
}

/* What stencil.tile counts: the CPU tiles the second slowest axis, the
 * CUDA backend the slowest (gpu/backend_cpu_temporal.c, gpu/backend_cuda.cu). */
static const char *tile_unit(const struct stencil_plan *p)
{
    bool cuda = !strcmp(p->ops->name, "cuda");
    if (p->base.dim == 3) return cuda ? "z planes" : "y lines";
    return cuda ? "y rows" : "x points";
}

/* What ran, not what was asked: a backend without temporal blocking runs plain sweeps. */
static const char *blocking_word(const struct stencil_plan *p)
{
    return p->base.temporal && p->ops->sweeps_blocked ? "temporal" : "none";
}

/* Where the CUDA backend's temporal blocking means to keep its tiles, for
 * the header (NULL: not CUDA or no temporal blocking); what each point ran
 * comes from the backend (blocked_where). */
static const char *cuda_tiles_word(const struct stencil_plan *p)
{
    if (strcmp(p->ops->name, "cuda") || strcmp(blocking_word(p), "temporal")) return NULL;
    return cuda_blocking_shared(p->base.dim, p->base.cuda_blocking) ? "shared" : "l2";
}

static void csv_row(FILE *f, const struct stencil_plan *p, int nranks,
                    const struct stencil_point *pt)
{
    const struct stencil_params *b = &p->base;
    fprintf(f, "%d,%d,%d,%d,%d,%s,%s,%d,%s,%d,%ld", b->dim, b->global[0], b->global[1],
            b->global[2], nranks, p->ops->name, b->real_bytes == 4 ? "float" : "double", pt->depth,
            pt->async ? "async" : "sync", pt->overlap, b->iterations);
    /* seed 004 Appendix C reports one time per segment: the mean over ranks. */
    for (int s = 0; s < NSEGMENTS; s++)
        fprintf(f, ",%.6g", pt->seg_mean[s]);
    fprintf(f, ",%.6g,%.6g,%.0f,%s,%s,%s\n", pt->seg_max[SEG_EXECUTION], pt->gcells,
            pt->bytes_per_iteration, verdict_word(pt->verified), blocking_word(p), pt->stores);
}

static cJSON *point_json(const struct stencil_plan *p, const struct stencil_point *pt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "depth", pt->depth);
    cJSON_AddStringToObject(o, "exchange", pt->async ? "async" : "sync");
    cJSON_AddBoolToObject(o, "overlap", pt->overlap);
    cJSON *seg = cJSON_AddObjectToObject(o, "seconds");
    for (int s = 0; s < NSEGMENTS; s++) {
        cJSON *one = cJSON_AddObjectToObject(seg, stencil_segment_names[s]);
        cJSON_AddNumberToObject(one, "min", pt->seg_min[s]);
        cJSON_AddNumberToObject(one, "mean", pt->seg_mean[s]);
        cJSON_AddNumberToObject(one, "max", pt->seg_max[s]);
    }
    cJSON_AddNumberToObject(o, "gcells_per_s", pt->gcells);
    cJSON_AddNumberToObject(o, "bytes_per_iteration", pt->bytes_per_iteration);
    char hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)pt->hash);
    cJSON_AddStringToObject(o, "field_hash", hash);
    cJSON_AddStringToObject(o, "verified", verdict_word(pt->verified));
    cJSON_AddStringToObject(o, "stores", pt->stores);
    if (pt->tiles) cJSON_AddStringToObject(o, "cuda_blocking", pt->tiles);
    if (!strcmp(blocking_word(p), "temporal")) cJSON_AddNumberToObject(o, "tile", pt->tile);
    const struct tile_tuning *tt = &pt->tuning;
    if (tt->count > 0) {
        cJSON *tun = cJSON_AddObjectToObject(o, "tile_tuning");
        cJSON_AddNumberToObject(tun, "batch", tt->batch);
        cJSON_AddNumberToObject(tun, "sweeps", tt->sweeps);
        cJSON_AddNumberToObject(tun, "chosen", tt->tile[tt->chosen]);
        cJSON *timed = cJSON_AddArrayToObject(tun, "timed");
        for (int i = 0; i < tt->count; i++) {
            cJSON *one = cJSON_CreateObject();
            cJSON_AddNumberToObject(one, "tile", tt->tile[i]);
            cJSON_AddNumberToObject(one, "seconds", tt->seconds[i]);
            cJSON_AddItemToArray(timed, one);
        }
    }
    if (pt->verified >= 0)
        cJSON_AddNumberToObject(o, "differing_points", (double)pt->diff.differing);
    if (pt->cpu_agrees >= 0) {
        cJSON_AddBoolToObject(o, "cpu_agrees", pt->cpu_agrees);
        cJSON_AddNumberToObject(o, "cpu_max_relative_difference", pt->cpu.max_rel);
        cJSON_AddNumberToObject(o, "cpu_differing_points", (double)pt->cpu.differing);
    }
    return o;
}

int stencil_write_outputs(const struct run_ctx *ctx, const struct stencil_plan *p,
                          const struct stencil_point *pts, int npts,
                          const struct stencil_calibration *cal, int verdict)
{
    cJSON *root = report_summary_begin("stencil", ctx->cfg, ctx->cmd->sections, ctx->nranks,
                                       &ctx->timer, &ctx->placement);
    cJSON *res = cJSON_AddObjectToObject(root, "results");
    cJSON_AddStringToObject(res, "backend", p->ops->name);
    cJSON_AddStringToObject(res, "device", p->device);
    cJSON_AddBoolToObject(res, "cuda_aware_mpi", p->base.device_buffers);
    cJSON_AddStringToObject(res, "blocking", blocking_word(p));
    if (!strcmp(p->ops->name, "cuda"))
        cJSON_AddNumberToObject(res, "cuda_rows",
                                sweep_rows(p->base.cuda_rows, p->base.real_bytes));
    cJSON_AddItemToObject(res, "rank_grid", cJSON_CreateIntArray(p->dims, 3));
    cJSON_AddItemToObject(res, "weights",
                          cJSON_CreateDoubleArray(p->base.weights, p->base.dim == 2 ? 5 : 7));
    if (p->calibrate) {
        cJSON *c = cJSON_AddObjectToObject(res, "calibration");
        cJSON_AddNumberToObject(c, "copy_gb_per_s", cal->copy_gbs);
        cJSON_AddNumberToObject(c, "sweep_gb_per_s", cal->sweep_gbs);
        cJSON_AddNumberToObject(c, "ratio", cal->ratio);
        cJSON_AddNumberToObject(c, "field_bytes_per_rank", cal->field_bytes);
        cJSON_AddNumberToObject(c, "cache_bytes", cal->cache_bytes);
        if (cal->in_cache_gcells > 0) {
            cJSON_AddNumberToObject(c, "in_cache_gcells_per_s", cal->in_cache_gcells);
            cJSON_AddNumberToObject(c, "in_cache_field_bytes_per_rank", cal->in_cache_field_bytes);
            cJSON_AddNumberToObject(c, "near_cache_bytes", cal->near_cache_bytes);
            cJSON_AddNumberToObject(c, "roofline_gcells_per_s", stencil_roofline_gcells(p, cal));
            cJSON_AddNumberToObject(c, "in_cache_over_roofline",
                                    cal->in_cache_gcells / stencil_roofline_gcells(p, cal));
        }
    }
    cJSON *list = cJSON_AddArrayToObject(res, "points");
    for (int i = 0; i < npts; i++)
        cJSON_AddItemToArray(list, point_json(p, &pts[i]));
    cJSON_AddStringToObject(res, "verified", verdict_word(verdict));
    CHECK(report_finish_json(ctx->out_dir, "summary.json", root));
    struct report_text csv;
    CHECK(report_text_open(&csv));
    fputs(csv_header, csv.f);
    for (int i = 0; i < npts; i++)
        csv_row(csv.f, p, ctx->nranks, &pts[i]);
    return report_text_commit(&csv, ctx->out_dir, "stencil.csv");
}

void stencil_print_point(const struct stencil_plan *p, const struct stencil_point *pt)
{
    double ms[NSEGMENTS];
    for (int i = 0; i < NSEGMENTS; i++)
        ms[i] = 1e3 * pt->seg_mean[i];
    log_info("%4d %-5s %3d %9.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.4f  %s", pt->depth,
             pt->async ? "async" : "sync", pt->overlap, ms[SEG_EXECUTION], ms[SEG_PACK],
             ms[SEG_UNPACK], ms[SEG_INNER], ms[SEG_OUTER], ms[SEG_PRIMARY], ms[SEG_MESSAGE],
             ms[SEG_DESYNC], pt->gcells, verdict_word(pt->verified));
    if (pt->verified == 0)
        log_error("stencil: depth %d %s overlap %d: %zu of %zu points differ from the "
                  "single-rank depth-1 run; first at (%zu,%zu,%zu): %.17g, expected %.17g",
                  pt->depth, pt->async ? "async" : "sync", pt->overlap, pt->diff.differing,
                  pt->diff.points, pt->diff.first[0], pt->diff.first[1], pt->diff.first[2],
                  pt->diff.got, pt->diff.want);
    if (pt->cpu_agrees >= 0)
        log_info("     against the CPU backend: %zu of %zu points differ, largest relative "
                 "difference %.3g (%s)",
                 pt->cpu.differing, pt->cpu.points, pt->cpu.max_rel,
                 pt->cpu_agrees ? "identical" : "DIFFERENT");
    const struct tile_tuning *tt = &pt->tuning;
    if (tt->count > 0) {
        char list[512] = "";
        for (int i = 0, at = 0; i < tt->count && at < (int)sizeof list; i++)
            at += snprintf(list + at, sizeof list - (size_t)at, "%s%d: %.3g", i ? ", " : "",
                           tt->tile[i], 1e3 * tt->seconds[i]);
        log_info("     tile: %d %s, the fastest of %s ms (each an exchange and %d sweeps, %d "
                 "in tiles)",
                 tt->tile[tt->chosen], tile_unit(p), list, tt->batch, tt->sweeps);
    }
}

void stencil_print_header(const struct stencil_plan *p, int nranks)
{
    const struct stencil_params *b = &p->base;
    log_info("\nstencil: %dD %d-point, %d x %d%s%.0d grid on %d rank%s (%d x %d%s%.0d), %s %s, "
             "%ld iterations",
             b->dim, b->dim == 2 ? 5 : 7, b->global[0], b->global[1], b->dim == 3 ? " x " : "",
             b->dim == 3 ? b->global[2] : 0, nranks, nranks == 1 ? "" : "s", p->dims[0], p->dims[1],
             b->dim == 3 ? " x " : "", b->dim == 3 ? p->dims[2] : 0, p->ops->name,
             b->real_bytes == 4 ? "float" : "double", b->iterations);
    const char *regions = b->full_sweeps ? "full" : "shrinking";
    char tiles[256] = "sized to the L2 cache";
    if (p->ops->tile_cache_bytes && !strcmp(blocking_word(p), "temporal"))
        snprintf(tiles, sizeof tiles,
                 "%s%.1f MiB of cache (the rank's L2 and share of the last level)",
                 p->ops->tile_candidates ? "tuned before each point where more than one fits "
                                           "the box, the fastest of tiles sized to half the "
                                           "L2 .. "
                                         : "sized to ",
                 (double)p->ops->tile_cache_bytes() / (1 << 20));
    if (b->tile > 0) snprintf(tiles, sizeof tiles, "of %d %s", b->tile, tile_unit(p));
    const char *cuda_tiles = cuda_tiles_word(p);
    if (cuda_tiles && !strcmp(cuda_tiles, "shared"))
        snprintf(tiles, sizeof tiles,
                 "in shared memory, all sweeps of a batch in one kernel (batches of more than %d: "
                 "in the L2)",
                 cuda_shared_sweeps(b->real_bytes));
    if (b->temporal && !p->ops->sweeps_blocked)
        log_info("stencil.blocking = temporal: the %s backend has no temporal blocking; its "
                 "sweeps run one after the other",
                 p->ops->name);
    if (!strcmp(blocking_word(p), "temporal"))
        log_info("sweeps: %s regions; temporal blocking: the sweeps between two exchanges in one "
                 "pass (from depth 2), tiles %s",
                 regions, tiles);
    else
        log_info("sweeps: %s regions, one pass over the field each", regions);
    if (!strcmp(p->ops->name, "cuda"))
        log_info("CUDA sweep kernel: %d rows per thread (stencil.cuda_rows)",
                 sweep_rows(b->cuda_rows, b->real_bytes));
    log_info("milliseconds, mean over ranks (the segments of seed 004 Appendix C):");
    log_info("%4s %-5s %3s %9s %8s %8s %8s %8s %8s %8s %8s %9s  %s", "Dp", "exch", "ovl", "Ex",
             "Pack", "Unpack", "I.Cal", "O.Cal", "P.Cal", "Mess", "Desyn", "GCells/s", "verified");
}

void stencil_print_calibration(const struct stencil_plan *p, const struct stencil_calibration *cal)
{
    log_info("\ncalibrate: copy %.2f GB/s, sweep %.2f GB/s: ratio %.3f (bytes read + "
             "written; the rank with the lowest ratio; a field of %.0f MB per rank, 4 x "
             "the %.0f MB cache shared by the ranks on it, or more)",
             cal->copy_gbs, cal->sweep_gbs, cal->ratio, cal->field_bytes / 1e6,
             cal->cache_bytes / 1e6);
    if (cal->in_cache_gcells > 0)
        log_info("calibrate: in the cache %.3f GCells/s: %.2f x the single-sweep roofline "
                 "of %.3f GCells/s (the copy's above; sweeps of a field of %.0f KiB per rank, "
                 "the two fields in about half of the %.0f KiB L2, ordinary stores; the "
                 "slowest rank): what temporal blocking's tiles in the L2 can reach with "
                 "these lines",
                 cal->in_cache_gcells, cal->in_cache_gcells / stencil_roofline_gcells(p, cal),
                 stencil_roofline_gcells(p, cal), cal->in_cache_field_bytes / 1024,
                 cal->near_cache_bytes / 1024);
}
