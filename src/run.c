/* run.c: see run.h. The steps, in order, each a short function (fio's backend.c is the
 * model): pick_device, load_config, take_lock, open_log, the GPU-unusable ending or
 * conditions and power, sweep, finish. Configuration problems end the run before the
 * lock and the log (exit 2, nothing measured); from the log on, every ending, a GPU that
 * cannot be used included, is written as the log's end line, so a night pulled back from
 * a board shows a bad night as plainly as a good one. */
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "board.h"
#include "conditions.h"
#include "csvlog.h"
#include "lock.h"
#include "power/power.h"
#include "retention.h"
#include "runner.h"
#include "sweep.h"
#include "tune.h"
#include "util.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

struct run {
    struct tb_run_opts *o;
    struct tb_config *cfg;
    const struct tb_backend *be;
    int index;
    bool opened;                    /* be->open succeeded: close at the end */
    struct tb_device_info dev;
    char gpu_why[1024];             /* why the GPU cannot be used; "" when it can */
    bool gpu_failed;                /* ... and the run must fail for it */
    bool gpu_absent;                /* no NVIDIA driver here at all (auto may use the CPU) */
    char sweep_path[PATH_MAX], board_path[PATH_MAX], board_why[512], variant[256];
    struct tb_point *pts;
    size_t npts;
    struct tb_lock *lock;
    char host[128];
    struct tb_csvlog *log;
    char log_path[PATH_MAX];
    struct tb_conditions cond;
    char power_mode[80];
    struct tb_sampler *sampler;
    const struct tb_power_ops *pops;
    struct tb_run_result res;
    bool have_res;
};

/* ---- 1. the device ---------------------------------------------------------------- */

/* Chooses the backend and opens it. A GPU that cannot be used is not an error yet: the
 * board file decides (load_config) whether the run may go on on the CPU. */
static int pick_device(struct run *r)
{
    int probe_rc = 0;
    if (tb_backend_select(r->o->device, &r->be, &r->index, r->gpu_why, sizeof(r->gpu_why),
                          &probe_rc) < 0) {
        error("--device '%s': expected auto, cpu, cuda or cuda:N", r->o->device);
        return -1;
    }
    bool asked_gpu = strcmp(r->o->device, "cpu") && strcmp(r->o->device, "auto");
    r->gpu_absent = probe_rc == -ENOENT;
    if (asked_gpu && r->be->probe(r->index, r->gpu_why, sizeof(r->gpu_why)) != 0) {
        r->gpu_failed = true;
        r->be = &tb_backend_cpu;   /* for the configuration checks; nothing runs */
        r->index = 0;
    }
    char why[1024];
    if (r->be->open(r->index, &r->dev, why, sizeof(why)) != 0) {
        if (r->be->id == TB_BACKEND_CPU) {
            error("cannot open the cpu backend: %s", why);
            return -1;
        }
        snprintf(r->gpu_why, sizeof(r->gpu_why), "%s", why);
        r->gpu_failed = true;
        r->be = &tb_backend_cpu;
        r->index = 0;
        if (r->be->open(0, &r->dev, why, sizeof(why)) != 0)
            return -1;
    }
    r->opened = true;
    return 0;
}

/* ---- 2. board and configuration ---------------------------------------------------- */

static int pick_board(struct run *r)
{
    const char *gpu = r->be->id == TB_BACKEND_CUDA ? r->dev.name : "";   /* "": no GPU used */
    if (tb_board_pick(r->cfg, r->o->board_file, gpu, r->board_path, sizeof(r->board_path),
                      r->board_why, sizeof(r->board_why)) < 0) {
        tb_diag_add(r->o->diag, "cannot find a board file: %s (give one with -b)", r->board_why);
        return -1;
    }
    if (!r->o->quiet && !r->o->board_file)
        note("board file '%s': %s", r->board_path, r->board_why);
    return 0;
}

static int load_config(struct run *r)
{
    tb_data_file("conf", r->o->sweep_file ? r->o->sweep_file : "default.cfg", r->sweep_path,
                 sizeof(r->sweep_path));
    if (r->o->diag->n == 0 && pick_board(r) == 0) {
        tb_config_load(r->cfg, r->sweep_path, r->board_path, r->o->diag);
        if (r->o->diag->n == 0 && tb_board_variant(r->cfg, r->variant, sizeof(r->variant)) &&
            !r->o->quiet)
            note("board: %s", r->variant);
        if (!r->gpu_failed)
            tb_config_check_device(r->cfg, r->be, &r->dev, r->o->diag);
        if (r->o->diag->n == 0)
            tb_sweep_expand(&r->cfg->sweep, r->gpu_failed ? TB_BACKEND_CUDA : r->be->id,
                            &r->pts, &r->npts, r->o->diag);
    }
    if (r->o->diag->n) {
        tb_diag_print(r->o->diag);
        return -1;
    }
    /* --device auto fell back to the CPU: fine on a machine with no GPU, a failure on a
     * board whose file says it has one, or where an NVIDIA driver is installed */
    bool fell_back = !strcmp(r->o->device, "auto") && r->be->id == TB_BACKEND_CPU;
    if (fell_back && (r->cfg->board.has_gpu || !r->gpu_absent))
        r->gpu_failed = true;
    else if (fell_back && !r->o->quiet)
        note("no usable GPU (%s): running on the CPU backend", r->gpu_why);
    return 0;
}

/* ---- 3. lock and log ---------------------------------------------------------------- */

static int take_lock(struct run *r)
{
    const char *dir = r->cfg->sweep.out_dir;
    struct stat st;
    if (stat(dir, &st) < 0 && mkdir(dir, 0755) < 0) {
        error("cannot create log directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    int rc = tb_lock_acquire(NULL, &r->lock);
    return rc == TB_LOCK_HELD ? 1 : rc == TB_LOCK_BAD ? 2 : rc < 0 ? -1 : 0;
}

static void meta_config_line(void *ctx, const char *path, const char *value)
{
    tb_csvlog_meta(ctx, "config", "%s = %s;", path, value);
}

static void meta_condition(void *ctx, const char *key, const char *value)
{
    tb_csvlog_meta(ctx, key, "%s", value);
}

static int open_log(struct run *r)
{
    gethostname(r->host, sizeof(r->host) - 1);
    r->host[sizeof(r->host) - 1] = '\0';
    tb_log_name_part(r->host);
    const char *dir = r->cfg->sweep.out_dir;
    tb_csvlog_recover(dir, r->host, r->cfg->board.name);
    if (tb_csvlog_open(&r->log, dir, r->host, r->cfg->board.name, r->cfg->sweep.gzip_level) < 0)
        return -1;
    struct tb_csvlog *log = r->log;
    tb_csvlog_preamble(log, TB_VERSION " (git " TB_GIT_REV ")");
    tb_csvlog_meta(log, "host", "%s", r->host);
    tb_csvlog_meta(log, "sweep_file", "%s (fnv1a64 %016llx)", r->sweep_path,
                   (unsigned long long)tb_hash_file(r->sweep_path));
    tb_csvlog_meta(log, "board_file", "%s (fnv1a64 %016llx), %s", r->board_path,
                   (unsigned long long)tb_hash_file(r->board_path), r->board_why);
    tb_csvlog_meta(log, "board", "%s, peak %.1f GB/s%s", r->cfg->board.name,
                   r->cfg->board.peak_gbps, r->cfg->board.has_gpu ? ", has a GPU" : "");
    if (r->variant[0])
        tb_csvlog_meta(log, "board_variant", "%s", r->variant);
    tb_csvlog_meta(log, "kernel_images", "%s", tb_cuda_images());
    if (r->gpu_failed) {
        tb_csvlog_meta(log, "backend", "none");
        tb_csvlog_meta(log, "gpu", "unusable: %s", r->gpu_why);
    } else {
        tb_csvlog_meta(log, "backend", "%s", r->be->name);
        tb_csvlog_meta(log, "device", "%s", r->dev.name);
    }
    if (!r->gpu_failed && r->be->id == TB_BACKEND_CUDA)
        tb_csvlog_meta(log, "cuda_device", "index %d, compute capability %d.%d, %d SMs, L2 %zu "
                       "bytes, memory %zu bytes, driver's CUDA %s, PCI %s, runs %s",
                       r->dev.index, r->dev.cc_major, r->dev.cc_minor, r->dev.sm_count,
                       r->dev.l2_bytes, r->dev.mem_bytes, r->dev.driver_version,
                       r->dev.pci_bus_id, r->dev.image);
    else if (!r->gpu_failed)
        tb_csvlog_meta(log, "cpu_device", "%d cores, last-level cache %zu bytes, memory %zu bytes",
                       r->dev.sm_count, r->dev.l2_bytes, r->dev.mem_bytes);
    tb_conditions_read(&r->cond);
    tb_conditions_mode(&r->cond, r->power_mode, sizeof(r->power_mode));
    tb_conditions_each(&r->cond, meta_condition, log);
    return 0;
}

/* The board has a GPU and it cannot be used: a log that says so, and a failure. */
static void end_gpu_unusable(struct run *r)
{
    tb_config_dump(r->cfg, meta_config_line, r->log);
    char how[1200];
    snprintf(how, sizeof(how), "failed: the GPU cannot be used (%s)", r->gpu_why);
    tb_strlcpy(r->log_path, tb_csvlog_path(r->log), sizeof(r->log_path));
    int rc = tb_csvlog_close(r->log, how);
    r->log = NULL;
    error("%s: the GPU cannot be used: %s%s", strcmp(r->o->device, "auto") ? r->o->device
          : r->cfg->board.name, r->gpu_why,
          strcmp(r->o->device, "auto") ? "" : " (--device cpu runs on the CPU on purpose)");
    if (rc == 0)
        note("log: %s", r->log_path);
}

/* ---- 4. power ------------------------------------------------------------------------ */

/* A source that cannot start is a warning, never the end of the run. */
static void start_power(struct run *r)
{
    struct tb_power_cfg pc = r->cfg->board.power;
    tb_strlcpy(pc.pci_bus_id, r->dev.pci_bus_id, sizeof(pc.pci_bus_id));   /* NVML: this GPU */
    char why[512];
    r->pops = tb_power_pick(pc.source, &pc, why, sizeof(why));
    if (!r->pops || r->pops == &tb_power_none)
        return;
    size_t cap = (size_t)(3600000 / pc.interval_ms) + 64;
    if (cap > 1 << 20)
        cap = 1 << 20;
    if (tb_sampler_start(&r->sampler, r->pops, &pc, pc.interval_ms, cap, why, sizeof(why))) {
        warning("power source '%s' cannot start: %s; the log will have no power figures",
                r->pops->name, why);
        tb_csvlog_meta(r->log, "power", "source '%s' cannot start: %s", r->pops->name, why);
        r->sampler = NULL;
    } else {
        if (!r->o->quiet)
            note("power source '%s', every %d ms", r->pops->name, pc.interval_ms);
        double max_mhz;
        const char *line = tb_sampler_conditions(r->sampler, &max_mhz);
        if (line[0])
            tb_csvlog_meta(r->log, "gpu_conditions", "%s (from %s)", line, r->pops->name);
        if (isnan(r->cond.gpu_max_mhz))
            r->cond.gpu_max_mhz = max_mhz;   /* a desktop: NVML's max SM clock */
    }
}

/* ---- 5. sweep ------------------------------------------------------------------------ */

static void sweep(struct run *r)
{
    tb_csvlog_meta(r->log, "power_source", "%s", r->sampler ? r->pops->name : "none");
    tb_config_dump(r->cfg, meta_config_line, r->log);
    tb_csvlog_header(r->log);
    install_signals();
    struct tb_run_ctx ctx = {
        .cfg = r->cfg, .be = r->be, .dev = &r->dev, .log = r->log, .sampler = r->sampler,
        .run_id = tb_csvlog_run_id(r->log), .host = r->host, .stop = &stop_signal,
        .progress = !r->o->quiet && isatty(STDERR_FILENO),
        .seed = (unsigned long long)tb_now_ns(),
        .deadline_ns = r->o->tune ? tb_now_ns() + (int64_t)(r->cfg->sweep.tune_seconds * 1e9) : 0,
        .power_mode = r->power_mode,
        .max_clock_mhz = r->cond.gpu_max_mhz,
    };
    tb_run_sweep(&ctx, r->pts, r->npts, &r->res);
    r->have_res = true;
}

/* ---- 6. finish ------------------------------------------------------------------------ */

/* One tuned file per board and element type (the best block of a kernel differs by type):
 * conf/tuned-<board>-<element>.cfg, where `run -c` takes it with its sweep.element. */
static int write_tuned(struct run *r)
{
    char out[PATH_MAX], confdir[PATH_MAX], board[TB_STR];
    tb_strlcpy(board, r->cfg->board.name, sizeof(board));
    tb_log_name_part(board);
    if (r->o->tune_out)
        tb_strlcpy(out, r->o->tune_out, sizeof(out));
    else if (tb_data_dir("conf", confdir, sizeof(confdir)) == 0 && access(confdir, W_OK) == 0)
        snprintf(out, sizeof(out), "%.*s/tuned-%s-%s.cfg", PATH_MAX / 2, confdir, board,
                 r->cfg->sweep.element);
    else
        snprintf(out, sizeof(out), "%.*s/tuned-%s-%s.cfg", PATH_MAX / 2, r->cfg->sweep.out_dir,
                 board, r->cfg->sweep.element);
    size_t runnable = tb_sweep_count_runnable(r->pts, r->npts);
    size_t measured = runnable >= r->res.not_run ? runnable - r->res.not_run : 0;
    int tuned = tb_tune_write(out, r->cfg, &r->res, r->dev.name, r->log_path, measured, runnable);
    if (tuned > 0)
        note("tune: measured %zu of %zu candidate points (%.0f%%) within %.0f s; best blocks "
             "of %d kernel/size pairs in '%s'", measured, runnable,
             runnable ? 100.0 * (double)measured / (double)runnable : 0.0,
             r->cfg->sweep.tune_seconds, tuned, out);
    return tuned;
}

static enum tb_run_outcome finish(struct run *r)
{
    struct tb_run_result *res = &r->res;
    if (r->sampler) {
        struct tb_sampler_health h;
        tb_sampler_health(r->sampler, &h);
        tb_csvlog_meta(r->log, "sensor", "%llu reading(s) outside 0..%.0f W dropped, %llu "
                       "silence(s) of twice the interval or more", h.dropped,
                       r->cfg->board.power.max_power_w, h.silences);
    }
    uint64_t nsamp = 0;
    double sampler_cpu = tb_sampler_stop(r->sampler, &nsamp);
    if (r->sampler)
        tb_csvlog_meta(r->log, "sampler", "%llu samples, thread CPU time %.1f ms",
                       (unsigned long long)nsamp, sampler_cpu);
    char how[160];
    if (stop_signal)
        snprintf(how, sizeof(how), "interrupted by %s", strsignal(stop_signal));
    else if (res->aborted)
        snprintf(how, sizeof(how), "aborted, device lost");
    else if (res->log_failed)
        snprintf(how, sizeof(how), "failed: the log could not be written");
    else if (res->not_run)
        snprintf(how, sizeof(how), "tune time budget spent, %zu points not run", res->not_run);
    else if (res->failed || res->verify_failed)
        snprintf(how, sizeof(how), "complete, %zu points failed, %zu failed verification",
                 res->failed, res->verify_failed);
    else
        snprintf(how, sizeof(how), "complete");
    tb_strlcpy(r->log_path, tb_csvlog_path(r->log), sizeof(r->log_path));
    int crc = tb_csvlog_close(r->log, how);
    r->log = NULL;
    if (crc == 0)
        tb_retention_apply(r->cfg->sweep.out_dir, r->host, r->cfg->board.name,
                           r->cfg->sweep.keep_logs, r->cfg->sweep.keep_days, r->log_path);
    int tuned = r->o->tune && crc == 0 ? write_tuned(r) : 0;
    if (!r->o->quiet) {
        tb_run_print_summary(res, stdout, r->sampler != NULL);
        if (r->sampler && !isnan(res->idle_w))
            printf("\nidle power %.2f W (%s)\n", res->idle_w, r->pops->name);
        printf("\n%zu ok, %zu failed, %zu verification failures, %zu skipped\n", res->ok,
               res->failed, res->verify_failed, res->skipped);
        if (crc == 0)
            printf("log: %s\n", r->log_path);
    }
    if (stop_signal)
        note("interrupted by %s: the log holds every completed row", strsignal(stop_signal));
    bool ok = crc == 0 && !res->log_failed && !res->aborted && !stop_signal &&
              res->failed == 0 && res->verify_failed == 0 && (!r->o->tune || tuned > 0);
    return ok ? TB_RUN_OK : TB_RUN_FAILED;
}

enum tb_run_outcome tb_run(struct tb_run_opts *o)
{
    struct run r = { .o = o, .cfg = o->cfg };
    enum tb_run_outcome out = TB_RUN_USAGE;
    if (pick_device(&r) < 0) {
        out = r.be ? TB_RUN_FAILED : TB_RUN_USAGE;
        goto done;
    }
    if (load_config(&r) < 0)
        goto done;                           /* exit 2: nothing measured, no log */
    out = TB_RUN_FAILED;
    int lk = take_lock(&r);
    if (lk) {
        out = lk == 1 ? TB_RUN_LOCKED : lk == 2 ? TB_RUN_USAGE : TB_RUN_FAILED;
        goto done;
    }
    if (open_log(&r) == 0) {
        if (r.gpu_failed) {
            end_gpu_unusable(&r);
        } else {
            start_power(&r);
            sweep(&r);
            out = finish(&r);
        }
    }
    tb_lock_release(r.lock);
done:
    if (r.have_res)
        tb_run_result_free(&r.res);
    free(r.pts);
    if (r.opened)
        r.be->close();
    return out;
}
