/* run.c: see run.h. The steps, in order, each a short function (fio's backend.c is the
 * model): signal handlers, choose_backend (--device, nothing loaded), load_config (both
 * files, overrides, kernel names where --device names the backend), take_lock, probe_gpu
 * (the driver: cuInit and the device's attributes, no context), settle_config (a board file
 * chosen by the GPU's name, kernel names, the sweep's points, the device's limits), open_log,
 * open_device (context, kernel images), the GPU-unusable ending or conditions and power,
 * sweep (in a mode sweep, run_modes.c's: each power-mode step switched, verified and run,
 * the board restored whatever ends it; a dead run's state restored after open_log), finish
 * (the end line; the summary on stdout is run_summary.c's). Configuration problems end the
 * run before the log (exit 2, nothing measured, no context); from the log on, every ending,
 * a GPU that cannot be used or hangs included, is written as the log's end line, so a night
 * pulled back from a board shows a bad night as plainly as a good one. The lock comes before the driver: a second run never
 * touches the GPU the first is measuring. */
#include "cmd/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/run_modes.h"
#include "cmd/run_summary.h"
#include "measure/backend.h"
#include "measure/board.h"
#include "measure/conditions.h"
#include "measure/identity.h"
#include "log/csvlog.h"
#include "lib/buildclock.h"
#include "lib/lock.h"
#include "measure/point_rules.h"
#include "log/log_meta.h"
#include "cmd/probe_night.h"   /* and power/power.h */
#include "log/retention.h"
#include "measure/runner.h"
#include "lib/safeio.h"
#include "measure/sweep.h"
#include "cmd/tune.h"
#include "lib/stopsig.h"
#include "lib/util.h"
#include "lib/version.h"
#include "lib/watchdog.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* In place before anything else the run does (before the lock, before the log exists): a
 * signal at any moment ends the run with an honest end line. SIGINT, SIGTERM, SIGHUP and
 * every other signal that ends a process by default (lib/stopsig.h) only set the flag; the
 * step that sees it (or the watchdog, when the main thread is inside a driver call that does
 * not return) writes the ending. */
static void install_signals(void)
{
    tb_stopsig_install(on_signal);
}

struct run {
    struct tb_run_opts *o;
    struct tb_config *cfg;
    const struct tb_backend *be;
    void *be_st;                    /* be's instance, made at open_device */
    int index;
    bool opened;                    /* be->open succeeded: close at the end */
    struct tb_device_info dev;
    char gpu_why[1024];             /* why the GPU cannot be used; "" when it can */
    bool gpu_failed;                /* ... and the run must fail for it */
    bool gpu_absent;                /* no NVIDIA driver here at all (auto may use the CPU) */
    char sweep_path[PATH_MAX], board_path[PATH_MAX], board_why[512], variant[256];
    bool config_loaded;             /* both files read: a log can be named and written */
    bool points_failed;             /* the point list could not be allocated */
    struct tb_point *pts;
    size_t npts;
    struct tb_lock *lock;
    char host[128];                 /* gethostname's, as logged (one line of text) */
    char host_id[40];               /* machine-id, "" where the host has none */
    char device_id[96];             /* the device's own identity (device_id), "" none */
    struct tb_csvlog *log;
    bool log_done;                  /* the log was opened and has been closed */
    bool header_written;
    char log_path[PATH_MAX];
    struct tb_conditions cond;
    char power_mode[80];
    struct tb_sampler *sampler;
    const struct tb_power_ops *pops;
    struct tb_runner_result res;
    bool have_res;
    struct tb_run_modes ms;         /* the mode sweep (run_modes.h); no step: none */
};

/* ---- 1. the backend from --device: nothing opened, no driver loaded ----------------- */

static int choose_backend(struct run *r)
{
    if (strcmp(r->o->device, "auto") == 0) {
        r->be = &tb_backend_cuda;   /* the probe (after the lock) decides */
        return 0;
    }
    int rc = 0;
    if (tb_backend_select(r->o->device, &r->be, &r->index, r->gpu_why, sizeof(r->gpu_why),
                          &rc) < 0)
        return error("--device '%s': expected auto, cpu, cuda or cuda:N", r->o->device);
    return 0;
}

/* The backend whose kernels the configuration names: the GPU's even when it failed. */
static enum tb_backend_id config_backend(const struct run *r)
{
    return r->gpu_failed ? TB_BACKEND_CUDA : r->be->id;
}

/* ---- 2. board and configuration files, before the driver ---------------------------- */

/* The board file; gpu: the GPU's name as the driver gives it without a context, or "". */
static int pick_board(struct run *r, const char *gpu)
{
    if (tb_board_pick(r->cfg, r->o->board_file, gpu, r->board_path, sizeof(r->board_path),
                      r->board_why, sizeof(r->board_why)) < 0) {
        tb_diag_add(r->o->diag, "cannot find a board file: %s (give one with -b)", r->board_why);
        return -1;
    }
    return 0;
}

static int load_files(struct run *r)
{
    if (r->o->diag->n == 0) {
        tb_config_load(r->cfg, r->sweep_path, r->board_path, r->o->diag);
        if (r->o->diag->n == 0 && tb_board_variant(r->cfg, r->variant, sizeof(r->variant)) &&
            !r->o->quiet)
            note("board: %s", r->variant);
        /* the kernel names too, in the same pass, where --device names the backend (auto's
         * is known after the probe); whether a built kernel can run waits for the probe */
        if (strcmp(r->o->device, "auto"))
            tb_point_rules_check_names(r->cfg, r->be->id, false, r->o->diag);
    }
    if (r->o->diag->n) {
        tb_diag_print(r->o->diag);
        return -1;
    }
    r->config_loaded = true;
    return 0;
}

static int load_config(struct run *r)
{
    tb_data_file("conf", r->o->sweep_file ? r->o->sweep_file : "default.cfg", r->sweep_path,
                 sizeof(r->sweep_path));
    if (r->o->diag->n == 0)
        pick_board(r, "");   /* "": the GPU is not asked yet (probe_gpu asks, with the lock) */
    return load_files(r);
}

/* ---- 3. lock, then the driver: the GPU probed, named, no context --------------------- */

static int make_log_dir(struct run *r)
{
    const char *dir = r->cfg->sweep.out_dir;
    struct stat st;
    if (stat(dir, &st) < 0 && mkdir(dir, 0755) < 0)
        return error("cannot create log directory '%s': %s", dir, strerror(errno));
    return 0;
}

/* 0 held, 1 another run holds it, 2 a lock file that is not a plain file, -1 an error. */
static int take_lock(struct run *r)
{
    int rc = tb_lock_acquire(NULL, &r->lock);
    return rc == TB_LOCK_HELD ? 1 : rc == TB_LOCK_BAD ? 2 : rc < 0 ? -1 : 0;
}

/* Asks the driver whether the GPU can be used and what it is (no context yet: the watchdog
 * bounds every call, and a hang ends the run with a log that says so). A GPU that cannot
 * be used is not an error yet: the board file decides whether the CPU may stand in. */
static void probe_gpu(struct run *r)
{
    if (r->be->id == TB_BACKEND_CPU)
        return;
    bool asked_gpu = strcmp(r->o->device, "auto") != 0;
    int rc = r->be->probe(r->index, r->gpu_why, sizeof(r->gpu_why));
    if (rc == 0)
        rc = r->be->identify(r->index, &r->dev, r->gpu_why, sizeof(r->gpu_why));
    if (rc == 0)
        return;
    tb_csvlog_clean(r->gpu_why, sizeof(r->gpu_why));   /* the driver's words: one line, on stderr and in the log */
    r->gpu_absent = rc == -ENOENT;
    if (asked_gpu) {
        r->gpu_failed = true;   /* the configuration is still checked for the GPU's kernels */
        return;
    }
    r->be = &tb_backend_cpu;    /* auto: the CPU, if the board file allows (below) */
    /* a board whose file says it has a GPU, or a machine with an NVIDIA driver, falling back
     * to the CPU is a failed night: the GPU is the problem, said once */
    if (r->cfg->board.has_gpu || !r->gpu_absent)
        r->gpu_failed = true;
    else if (!r->o->quiet)
        note("no usable GPU (%s): running on the CPU backend", r->gpu_why);
}

static int open_device(struct run *r);

/* The board file again when the GPU's name picks another (a desktop without -b), then the
 * kernel names for the backend, the points, and the device's limits: every configuration
 * problem is found before the log and before any context. */
static int settle_config(struct run *r)
{
    bool cuda_ok = r->be->id == TB_BACKEND_CUDA && !r->gpu_failed;
    const char *base = strrchr(r->board_path, '/');
    if (cuda_ok && !r->o->board_file && r->dev.name[0] &&
        !strcmp(base ? base + 1 : r->board_path, "generic.cfg")) {
        char first[PATH_MAX];
        tb_strlcpy(first, r->board_path, sizeof(first));
        if (pick_board(r, r->dev.name) < 0) {
            tb_diag_print(r->o->diag);
            return -1;
        }
        if (strcmp(first, r->board_path)) {
            tb_config_reset(r->cfg);
            r->config_loaded = false;
            if (load_files(r) < 0)
                return -1;
        }
    }
    /* a GPU that cannot be used runs nothing: its kernels are not a configuration error,
     * the log's end line says why instead */
    tb_point_rules_check_names(r->cfg, config_backend(r), !r->gpu_failed, r->o->diag);
    if (r->o->diag->n == 0 && !r->gpu_failed &&
        tb_sweep_expand(&r->cfg->sweep, r->be->id, &r->pts, &r->npts, r->o->diag) < 0 &&
        r->o->diag->n == 0)
        r->points_failed = true;   /* out of memory: a failed night with a log, not exit 2 */
    /* the CPU backend opens here (no driver, nothing to hang) for its limits */
    if (r->o->diag->n == 0 && !r->gpu_failed && r->be->id == TB_BACKEND_CPU &&
        open_device(r) < 0)
        return -1;
    if (r->o->diag->n == 0 && !r->gpu_failed)
        tb_point_rules_check_device(r->cfg, &r->dev, r->o->diag);
    tb_run_modes_plan(&r->ms, &r->cfg->sweep, r->o->tune, r->o->diag);
    if (r->o->diag->n) {
        tb_diag_print(r->o->diag);
        return -1;
    }
    if (r->o->tune &&
        tb_tune_check_out(r->cfg, r->o->tune_out, r->sweep_path, r->board_path) < 0)
        return -1;
    if (tb_run_metrics_check(r->cfg->sweep.metrics_file, r->sweep_path, r->board_path) < 0)
        return -1;
    if (!r->o->quiet && !r->o->board_file)
        note("board file '%s': %s", r->board_path, r->board_why);
    return 0;
}

/* ---- 4. the log, before the device opens --------------------------------------------- */

static void meta_config_line(void *ctx, const char *path, const char *value)
{
    tb_csvlog_meta(ctx, TB_META(config), "%s = %s;", path, value);
}

static void meta_condition(void *ctx, const char *key, const char *value)
{
    if (!tb_meta_known(key))   /* log_meta.h lists every key a log may hold */
        warning("log metadata key '%s' is not in log_meta.h's list", key);
    tb_csvlog_meta(ctx, key, "%s", value);
}

/* The host's machine-id (systemd's, else D-Bus's; either may be a link to the other), under
 * TB_ROOT, read by safeio.c's bounded reader (a regular file, no blocking, a deadline): a
 * first line of exactly 32 hex digits. 0, or -1 where there is none. */
static int host_id(char *buf, size_t n)
{
    static const char *const files[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };
    for (size_t i = 0; i < ARRAY_SIZE(files) && n >= 33; i++) {
        char path[PATH_MAX], id[64], why[256];
        tb_root_path(path, sizeof(path), files[i]);
        if (tb_safeio_line(path, id, sizeof(id), TB_SAFEIO_LINK_OK, why, sizeof(why)) < 0)
            continue;
        if (strlen(id) == 32 && strspn(id, "0123456789abcdef") == 32) {
            tb_strlcpy(buf, id, n);
            return 0;
        }
    }
    buf[0] = '\0';
    return -1;
}

/* Names the log and writes what is known before the device opens: identity first (host,
 * machine-id, board: what recovery matches a dead run's file by), then the files. */
static int open_log(struct run *r)
{
    if (gethostname(r->host, sizeof(r->host) - 1) < 0)
        tb_strlcpy(r->host, "unknown", sizeof(r->host));
    r->host[sizeof(r->host) - 1] = '\0';
    tb_csvlog_clean(r->host, sizeof(r->host));   /* as logged; csvlog spells it for the file name */
    host_id(r->host_id, sizeof(r->host_id));
    if (make_log_dir(r) < 0)
        return -1;
    const char *dir = r->cfg->sweep.out_dir;
    tb_csvlog_recover_bounded(dir, r->host, r->cfg->board.name, r->host_id, TB_RECOVER_LIMIT_S, &stop_signal);
    if (tb_csvlog_open(&r->log, dir, r->host, r->cfg->board.name, r->cfg->sweep.gzip_level) < 0)
        return -1;
    struct tb_csvlog *log = r->log;
    tb_csvlog_preamble(log, tb_version_line);
    tb_csvlog_meta(log, TB_META(images_sha256), "%s", tb_images_sha256);
    tb_csvlog_meta(log, TB_META(host), "%s", r->host);
    if (r->host_id[0])
        tb_csvlog_meta(log, TB_META(machine_id), "%s", r->host_id);
    tb_csvlog_meta(log, TB_META(sweep_file), "%s (fnv1a64 %016llx)", r->sweep_path,
                   (unsigned long long)tb_hash_file(r->sweep_path));
    tb_csvlog_meta(log, TB_META(board_file), "%s (fnv1a64 %016llx), %s", r->board_path,
                   (unsigned long long)tb_hash_file(r->board_path), r->board_why);
    tb_csvlog_meta(log, TB_META(board), "%s, peak %.1f GB/s%s", r->cfg->board.name,
                   r->cfg->board.peak_gbps, r->cfg->board.has_gpu ? ", has a GPU" : "");
    if (r->variant[0])
        tb_csvlog_meta(log, TB_META(board_variant), "%s", r->variant);
    char text[1024];
    tb_csvlog_meta(log, TB_META(kernel_images), "%s", tb_backend_cuda.images(text, sizeof(text)));
    if (tb_build_clock_now(text, sizeof(text)))
        tb_csvlog_meta(log, TB_META(clock), "%s", text);   /* a reset clock, said (#58) */
    return 0;
}

/* What the open device adds: backend, device, image, JIT cache, run conditions. */
static void log_device(struct run *r)
{
    struct tb_csvlog *log = r->log;
    if (r->gpu_failed) {
        tb_csvlog_meta(log, TB_META(backend), "none");
        tb_csvlog_meta(log, TB_META(gpu), "unusable: %s", r->gpu_why);
    } else {
        tb_csvlog_meta(log, TB_META(backend), "%s", r->be->name);
        tb_csvlog_meta(log, TB_META(device), "%s", r->dev.name);
    }
    if (!r->gpu_failed && r->be->id == TB_BACKEND_CUDA) {
        char cache[512];
        tb_csvlog_meta(log, TB_META(cuda_device), "index %d, compute capability %d.%d, %d SMs, L2 %zu "
                       "bytes, memory %zu bytes, driver's CUDA %s, PCI %s, runs %s",
                       r->dev.index, r->dev.cc_major, r->dev.cc_minor, r->dev.sm_count,
                       r->dev.l2_bytes, r->dev.mem_bytes, r->dev.driver_version,
                       r->dev.pci_bus_id, r->dev.image);
        tb_csvlog_meta(log, TB_META(kernel_image), "%s", r->dev.image_why);
        tb_csvlog_meta(log, TB_META(jit_cache), "%s", r->be->jit_cache(cache, sizeof(cache)));
        const char *fault = getenv("TB_CUDA_FAULT");
        if (fault && *fault)   /* a test hook (contrib/gpu-lab): a night run with it says so */
            tb_csvlog_meta(log, TB_META(fault_injection), "TB_CUDA_FAULT=%s: kernel '%s' writes "
                           "through a bad pointer on its first launch", fault, fault);
    } else if (!r->gpu_failed)
        tb_csvlog_meta(log, TB_META(cpu_device), "%d cores, last-level cache %zu bytes, memory %zu bytes",
                       r->dev.sm_count, r->dev.l2_bytes, r->dev.mem_bytes);
    tb_conditions_read(&r->cond);
    tb_conditions_mode(&r->cond, r->power_mode, sizeof(r->power_mode));
    tb_conditions_each(&r->cond, meta_condition, log);
}

/* Every ending before the sweep: the configuration and the header (readers take a failed
 * night as they take a good one), then the end line with how. r->log_path gets the name. */
static int end_log(struct run *r, const char *how)
{
    if (!r->header_written) {
        tb_config_dump(r->cfg, meta_config_line, r->log);
        tb_csvlog_header(r->log);   /* every log has its header */
        r->header_written = true;
    }
    tb_strlcpy(r->log_path, tb_csvlog_path(r->log), sizeof(r->log_path));
    int rc = tb_csvlog_close(r->log, how);
    r->log = NULL;
    r->log_done = true;
    return rc;
}

/* The board has a GPU and it cannot be used: a log that says so, and a failure. */
static void end_gpu_unusable(struct run *r)
{
    char how[1200];
    snprintf(how, sizeof(how), "failed: the GPU cannot be used (%s)", r->gpu_why);
    int rc = end_log(r, how);
    error("%s: the GPU cannot be used: %s%s", strcmp(r->o->device, "auto") ? r->o->device
          : r->cfg->board.name, r->gpu_why,
          strcmp(r->o->device, "auto") ? "" : " (--device cpu runs on the CPU on purpose)");
    if (rc == 0)
        note("log: %s", r->log_path);
}

/* A run that ends before its sweep (a signal, no point to run): the log says how. */
static void end_early(struct run *r, const char *how)
{
    int rc = end_log(r, how);
    error("%s", how);
    if (rc == 0)
        note("log: %s", r->log_path);
}

/* The watchdog's ending (watchdog.h): a driver call that did not return in time, or a
 * signal while the main thread was inside one. Runs on the watchdog's thread while the main
 * thread is blocked in the driver, so the log is this thread's alone; a probe that hung
 * before the log existed opens it here, so the night still leaves one. */
static void run_ending(void *ctx, const char *what, int sig)
{
    struct run *r = ctx;
    if (!r->log && !r->log_done && r->config_loaded && r->lock) {
        r->gpu_failed = true;   /* the probe never finished: the GPU was not usable */
        snprintf(r->gpu_why, sizeof(r->gpu_why), "%s%s", sig ? "not probed: " : "", what);
        if (open_log(r) == 0)
            log_device(r);
    }
    if (r->sampler) {
        tb_sampler_stop(r->sampler, NULL);   /* its tegrastats is stopped, not orphaned */
        r->sampler = NULL;
    }
    tb_run_modes_restore(&r->ms, r->log);
    char how[1200];
    if (sig)
        snprintf(how, sizeof(how), "%s", what);
    else if (r->header_written)   /* the sweep had started: the GPU hung in it */
        snprintf(how, sizeof(how), "failed: the GPU hung: %s", what);
    else
        snprintf(how, sizeof(how), "failed: the GPU cannot be used (%s)", what);
    error("%s", how);
    if (r->log) {
        if (end_log(r, how) == 0)
            note("log: %s", r->log_path);
    }
    tb_lock_release(r->lock);
    r->lock = NULL;
}

/* ---- 5. the device: context and kernel images, under the watchdog -------------------- */

/* Opens the backend; a GPU that will not open is the run's failure, and the log says why. */
static int open_device(struct run *r)
{
    char why[1024];
    if (r->gpu_failed || r->opened)
        return 0;
    int rc = -ENOMEM;
    snprintf(why, sizeof(why), "%s", strerror(ENOMEM));
    if (r->be_st || (r->be_st = tb_backend_new(r->be)))
        rc = r->be->open(r->be_st, r->index, &r->dev, why, sizeof(why));
    if (rc != 0) {
        if (r->be->id == TB_BACKEND_CPU)
            return error("cannot open the cpu backend: %s", why);
        snprintf(r->gpu_why, sizeof(r->gpu_why), "%s", why);
        tb_csvlog_clean(r->gpu_why, sizeof(r->gpu_why));
        r->gpu_failed = true;
        return 0;
    }
    r->opened = true;
    return 0;
}

/* ---- 6. power ------------------------------------------------------------------------ */

/* A source that cannot start is a warning, never the end of the run. */
static void start_power(struct run *r)
{
    struct tb_power_cfg pc = r->cfg->board.power;
    tb_strlcpy(pc.pci_bus_id, r->dev.pci_bus_id, sizeof(pc.pci_bus_id));   /* NVML: this GPU */
    char why[512];
    r->pops = tb_power_pick(pc.source, &pc, why, sizeof(why));
    if (!r->pops || (r->pops->flags & TB_POWER_NOTHING))
        return;
    struct tb_probe_night pn = { .cfg = r->cfg, .ops = r->pops, .l4t = r->cond.l4t, .be = r->be,
        .be_st = r->opened ? r->be_st : NULL, .dev = &r->dev, .pts = r->pts, .npts = r->npts,
        .steps = r->ms.nsteps, .tune = r->o->tune, .quiet = r->o->quiet, .stop = &stop_signal };
    tb_probe_night_first(&pn);   /* the board's probe first, where power.probe says */
    size_t cap = (size_t)fmin(3600000.0 / pc.interval_ms + 64, 1 << 20);
    if (tb_sampler_start(&r->sampler, r->pops, &pc, pc.interval_ms, cap, why, sizeof(why))) {
        warning("power source '%s' cannot start: %s; the log will have no power figures",
                r->pops->name, why);
        tb_csvlog_meta(r->log, TB_META(power), "source '%s' cannot start: %s", r->pops->name, why);
        r->sampler = NULL;
    } else {
        tb_probe_night_use(&pn, r->sampler);   /* its result outranks sysfs */
        if (!r->o->quiet)
            note("power source '%s', every %d ms", r->pops->name, pc.interval_ms);
        double max_mhz;
        const char *line = tb_sampler_conditions(r->sampler, &max_mhz);
        if (line[0])
            tb_csvlog_meta(r->log, TB_META(gpu_conditions), "%s (from %s)", line, r->pops->name);
        if (isnan(r->cond.gpu_max_mhz))
            r->cond.gpu_max_mhz = max_mhz;   /* a desktop: NVML's max SM clock */
    }
}

/* ---- 7. sweep ------------------------------------------------------------------------ */

/* The header, then the points: once, or in a mode sweep once per step (run_modes.c's outer
 * loop around the runner's). */
static void sweep(struct run *r)
{
    tb_csvlog_meta(r->log, TB_META(power_source), "%s", r->sampler ? r->pops->name : "none");
    tb_config_dump(r->cfg, meta_config_line, r->log);
    tb_csvlog_header(r->log);
    r->header_written = true;
    struct tb_runner_ctx ctx = {
        .cfg = r->cfg, .be = r->be, .be_st = r->be_st, .dev = &r->dev, .log = r->log,
        .sampler = r->sampler,
        .run_id = tb_csvlog_run_id(r->log), .host = r->host, .host_id = r->host_id,
        .device_id = r->device_id, .stop = &stop_signal,
        .progress = !r->o->quiet && isatty(STDERR_FILENO), .quiet = r->o->quiet,
        .seed = (unsigned long long)tb_now_ns(),
        .deadline_ns = r->o->tune ? tb_now_ns() + (int64_t)(r->cfg->sweep.tune_seconds * 1e9) : 0,
        .power_mode = r->power_mode,
        .max_clock_mhz = r->cond.gpu_max_mhz,
    };
    r->have_res = true;
    if (r->ms.nsteps)
        tb_run_modes_sweep(&r->ms, &ctx, r->pts, r->npts, &r->res);
    else
        tb_runner_sweep(&ctx, r->pts, r->npts, &r->res);
    tb_runner_ctx_end(&ctx);
}

/* ---- 8. finish ------------------------------------------------------------------------ */

/* The tuned sweep file (--out, else one per board and element), by the outputs' rule. */
static int write_tuned(struct run *r)
{
    char out[PATH_MAX];
    tb_tune_path(r->cfg, r->o->tune_out, out, sizeof(out));
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

/* The health of what ran beside the sweep, as metadata before the end line: the power
 * sensor's dropped readings and silences, the kernels' load or JIT time, the sampler's cost.
 * The sampler is stopped here. */
static void log_after_sweep(struct run *r)
{
    if (r->sampler) {
        struct tb_power_health h;
        tb_sampler_health(r->sampler, &h);
        tb_csvlog_meta(r->log, TB_META(sensor), "%llu reading(s) outside 0..%.0f W dropped, %llu "
                       "silence(s) of twice the interval or more", h.dropped,
                       r->cfg->board.power.max_power_w, h.silences);
    }
    if (r->be && r->be->load_stats && !r->gpu_failed) {
        char load[256];
        r->be->load_stats(r->be_st, load, sizeof(load));
        tb_csvlog_meta(r->log, TB_META(kernel_load), "%s", load);
    }
    uint64_t nsamp = 0;
    double sampler_cpu = tb_sampler_stop(r->sampler, &nsamp);
    if (r->sampler)
        tb_csvlog_meta(r->log, TB_META(sampler), "%llu samples, thread CPU time %.1f ms",
                       (unsigned long long)nsamp, sampler_cpu);
}

/* The end line of a sweep that ran: sig, the signal seen (0: none); nothing, no point
 * measured (timed, whatever its verification said): never "complete". */
static void sweep_how(const struct run *r, int sig, bool nothing, char *how, size_t n)
{
    const struct tb_runner_result *res = &r->res;
    if (sig)
        snprintf(how, n, "interrupted by %s", strsignal(sig));
    else if (res->aborted)
        snprintf(how, n, "aborted, device lost (the reset did not recover it), %zu "
                 "points not run", res->not_run);
    else if (res->log_failed)
        snprintf(how, n, "failed: the log could not be written");
    else if (res->not_run)
        snprintf(how, n, "tune time budget spent, %zu points not run", res->not_run);
    else if (nothing)
        snprintf(how, n, "failed: nothing measured (%zu points failed, %zu failed "
                 "verification, %zu skipped)", res->failed, res->verify_failed, res->skipped);
    else if (res->failed || res->verify_failed)
        snprintf(how, n, "complete, %zu points failed, %zu failed verification",
                 res->failed, res->verify_failed);
    else
        snprintf(how, n, "complete");
    tb_run_modes_how(&r->ms, how, n);
}

static enum tb_run_outcome finish(struct run *r)
{
    struct tb_runner_result *res = &r->res;
    log_after_sweep(r);
    /* one reading of the flag: the end line and the exit status say the same, whenever a
     * signal comes (one after the end line is written changes neither) */
    int sig = stop_signal;
    bool nothing = res->ok == 0 && res->verify_failed == 0;   /* never exit 0 */
    char how[400];
    sweep_how(r, sig, nothing, how, sizeof(how));
    int crc = end_log(r, how);
    if (crc == 0)
        tb_retention_apply_bounded(r->cfg->sweep.out_dir, r->host, r->cfg->board.name,
                                   r->cfg->sweep.keep_logs, r->cfg->sweep.keep_days,
                                   r->log_path, TB_RETENTION_LIMIT_S, &stop_signal);
    int tuned = r->o->tune && crc == 0 ? write_tuned(r) : 0;
    bool summary_lost = !r->o->quiet &&
        tb_run_summary(res, r->sampler ? r->pops->name : NULL, r->ms.nsteps > 0,
                       tb_sweep_wants_best(&r->cfg->sweep), crc == 0 ? r->log_path : NULL) < 0;
    const char *why_nothing = tb_run_modes_nothing(&r->ms);
    if (sig)
        note("interrupted by %s: the log holds every completed row", strsignal(sig));
    else if (nothing)
        error("nothing was measured: %s",
              why_nothing ? why_nothing : "see the log's rows for each point's status");
    bool ok = crc == 0 && !summary_lost && !res->log_failed && !res->aborted && !sig &&
              !nothing && res->failed == 0 && res->verify_failed == 0 &&
              !tb_run_modes_failed(&r->ms) && (!r->o->tune || tuned > 0);
    if (tb_run_metrics(r->cfg, r->host, r->dev.name, r->device_id, how, ok, res,
                       crc ? NULL : r->log_path, &stop_signal))
        ok = false;   /* the file asked for was not written: said, exit 1 */
    return ok ? TB_RUN_OK : TB_RUN_FAILED;
}

/* Whether a signal asked the run to end; said once before the log exists. */
static bool stopped(const struct run *r) { return stop_signal != 0; }

static char *signal_how(char *buf, size_t n, const char *where)
{
    snprintf(buf, n, "interrupted by %s %s", strsignal(stop_signal), where);
    return buf;
}

/* The lifecycle: signals, configuration files, lock, driver probe (no context), the rest of
 * the configuration, log, device, power, sweep, finish. From the lock on, every driver call
 * is under the watchdog; from the log on, every ending is the log's end line. */
enum tb_run_outcome tb_run(struct tb_run_opts *o)
{
    struct run r = { .o = o, .cfg = o->cfg, .ms.quiet = o->quiet };
    enum tb_run_outcome out = TB_RUN_USAGE;
    char how[1200];
    install_signals();
    tb_watchdog_set(run_ending, &r, &stop_signal);
    if (choose_backend(&r) < 0 || load_config(&r) < 0)
        goto done;                           /* exit 2: no driver loaded, no lock, no log */
    out = TB_RUN_FAILED;
    if (stopped(&r)) {
        error("%s", signal_how(how, sizeof(how), "before the run started: no log"));
        goto done;
    }
    int lk = take_lock(&r);
    if (lk) {
        out = lk == 1 ? TB_RUN_LOCKED : lk == 2 ? TB_RUN_USAGE : TB_RUN_FAILED;
        goto done;
    }
    probe_gpu(&r);                           /* a hang: the watchdog writes the log */
    if (!stopped(&r) && settle_config(&r) < 0) {
        out = TB_RUN_USAGE;                  /* exit 2: no context made, no log */
        goto unlock;
    }
    if (open_log(&r) < 0)
        goto unlock;
    tb_run_modes_recover(&r.ms, r.log);      /* a dead run's mode put back, in this log */
    if (stopped(&r)) {
        log_device(&r);
        end_early(&r, signal_how(how, sizeof(how), "before the device was opened"));
        goto unlock;
    }
    if (open_device(&r) < 0) {
        end_early(&r, "failed: the CPU backend cannot be opened");
        goto unlock;
    }
    log_device(&r);
    if (r.gpu_failed) {
        end_gpu_unusable(&r);
    } else if (stopped(&r)) {
        end_early(&r, signal_how(how, sizeof(how), "before the sweep started"));
    } else if (r.points_failed) {
        end_early(&r, "failed: no point to run (the sweep's point list could not be allocated: "
                  "out of memory)");
    } else if (r.npts == 0) {
        /* an empty point list (a filter that left nothing) is a failed night, never
         * "complete, 0 rows" */
        end_early(&r, "failed: no point to run (the sweep's point list is empty)");
    } else {
        start_power(&r);   /* then the device's own identity (identity.h), where known */
        if (tb_device_identity(r.sampler, r.device_id, sizeof(r.device_id)) == 0)
            tb_csvlog_meta(r.log, TB_META(device_id), "%s", r.device_id);
        sweep(&r);
        out = finish(&r);
    }
unlock:
    tb_lock_release(r.lock);
    r.lock = NULL;
done:
    if (r.have_res)
        tb_runner_result_free(&r.res);
    free(r.pts);
    tb_run_modes_free(&r.ms);
    if (r.opened)
        r.be->close(r.be_st);                /* still under the watchdog; its ending writes
                                              * no log now (log_done) */
    free(r.be_st);
    tb_watchdog_set(NULL, NULL, NULL);
    return out;
}
