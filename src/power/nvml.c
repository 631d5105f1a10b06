/* nvml.c: power of desktop GPUs through NVML, loaded with dlopen so that one binary runs
 * where the library is absent (Jetson Nano) or answers NOT_SUPPORTED (Orin): both read
 * as "no reading", never as a failure of the run. Reads power, the total-energy counter
 * where the GPU has one, temperature (the memory's too on HBM boards), SM clock and
 * utilisation. $TB_NVML_LIB overrides the library (tests load a fake one). The device is
 * the run's GPU by PCI bus id, else index 0.
 * Every NVML call (dlopen and nvmlInit included) runs on the source's own thread under a
 * deadline: an NVML that hangs costs that thread, never the caller; the source is then
 * abandoned with the reason and the run goes on without power. Not a general timer. */
#include "power/nvml.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/safeio.h"
#include "jetson/throttle.h"
#include "lib/util.h"
#include "lib/watchdog.h"

/* The few NVML types and constants used, as its ABI defines them. */
typedef int nvml_ret;
typedef void *nvml_dev;
struct nvml_util { unsigned int gpu, memory; };
enum { NVML_OK = 0, NVML_NOT_SUPPORTED = 3, NVML_TEMP_GPU = 0, NVML_CLOCK_SM = 1 };

/* One field of nvmlDeviceGetFieldValues, laid out as nvml.h's nvmlFieldValue_t (fieldId,
 * scopeId, timestamp, latencyUsec, nvmlValueType_t valueType, nvmlReturn_t nvmlReturn,
 * nvmlValue_t value: the same in every nvml.h since R384; scopeId was "unused" before):
 * 40 bytes on LP64. valueType: 0 double, 1 unsigned int, 2 unsigned long, 3 unsigned long
 * long, 4 signed long long, 5 signed int, 6 unsigned short. */
struct nvml_field {
    unsigned int field_id, scope_id;
    long long timestamp, latency_us;
    int value_type;
    nvml_ret ret;                     /* this field's own answer: NOT_SUPPORTED on GDDR */
    union {
        double d;
        int si;
        unsigned int ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
        unsigned short us;
    } value;
};
_Static_assert(sizeof(struct nvml_field) == 40 || sizeof(long) != 8,
               "struct nvml_field must match nvml.h's nvmlFieldValue_t");
enum { NVML_FI_DEV_MEMORY_TEMP = 82 };
/* The memory's temperature is read at most this often and carried between reads: it moves
 * over seconds, and one more ioctl on every 20 ms reading would load the sampler for a
 * figure the blocks (half a second and more) take once at their end. */
#define NVML_MEM_TEMP_EVERY_NS 250000000LL

/* The library and its entry points: touched only by the worker thread. */
struct nvml_lib {
    void *lib;
    nvml_dev dev;
    bool has_power, has_energy;
    bool has_mem_temp;                /* the field answered at load (HBM boards) */
    float mem_temp_c;                 /* its last reading, carried; NAN: none */
    int64_t mem_temp_ns;              /* when it was read (tb_now_ns) */
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    nvml_ret (*handle)(unsigned int, nvml_dev *);
    nvml_ret (*handle_pci)(const char *, nvml_dev *);
    nvml_ret (*power)(nvml_dev, unsigned int *);
    nvml_ret (*energy)(nvml_dev, unsigned long long *);
    nvml_ret (*temp)(nvml_dev, int, unsigned int *);
    nvml_ret (*clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*util)(nvml_dev, struct nvml_util *);
    nvml_ret (*max_clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*limit)(nvml_dev, unsigned int *);
    nvml_ret (*uuid)(nvml_dev, char *, unsigned int);   /* may be NULL */
    char uuid_text[96];               /* read at load; "" none */
    double limit_w;                   /* the enforced power limit at load; NAN none */
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);   /* throttle.h; may be NULL */
    nvml_ret (*fields)(nvml_dev, int, struct nvml_field *);   /* R384+; may be NULL */
    const char *(*errstr)(nvml_ret);
};

enum nvml_job { JOB_LOAD, JOB_SAMPLE, JOB_DESCRIBE, JOB_REASONS, JOB_CLOSE };

/* The worker: one thread that makes every NVML call, one job at a time. It writes only
 * here (never into a caller's memory), so a caller that gave up on it may return; the
 * block is freed by whichever of the source and the thread lets go last. */
struct nvml_worker {
    pthread_mutex_t mu;
    pthread_cond_t cv;               /* CLOCK_MONOTONIC */
    int refs;                        /* the source's and the thread's */
    enum { W_IDLE, W_POSTED, W_DONE } phase;
    bool quit;                       /* the source let go: the thread ends after its job */
    bool lost;                       /* a call outlived its deadline: the source is abandoned */
    char lost_why[256];
    const char *call;                /* the NVML call in progress (a literal), for lost_why */
    enum nvml_job job;
    char bus_id[32];                 /* JOB_LOAD's input */
    int rc;                          /* the job's result, and its words */
    char why[256];
    struct tb_power_sample smp;      /* JOB_SAMPLE */
    char line[256];                  /* JOB_DESCRIBE */
    double max_clock_mhz;
    unsigned long long mask;         /* JOB_REASONS */
    struct nvml_lib l;
};

/* The source's state (the core's): the worker, and what open learnt. */
struct nvml_state {
    struct nvml_worker *w;
    bool has_power, has_energy;
    struct tb_power_device device;   /* what load read of the GPU itself */
};

static const char *lib_name(void)
{
    const char *p = getenv("TB_NVML_LIB");
    return p && *p ? p : "libnvidia-ml.so.1";
}

/* ---- on the worker thread: the NVML calls themselves ------------------------------- */

/* Names the call about to be made (lost_why says which one hung). */
static void at(struct nvml_worker *w, const char *call)
{
    pthread_mutex_lock(&w->mu);
    w->call = call;
    pthread_mutex_unlock(&w->mu);
}

static const char *nvml_err(struct nvml_lib *l, nvml_ret rc)
{
    return l->errstr ? l->errstr(rc) : "NVML error";
}

static void lib_close(struct nvml_worker *w)
{
    struct nvml_lib *l = &w->l;
    if (l->lib) {
        if (l->shutdown) {
            at(w, "nvmlShutdown");
            l->shutdown();
        }
        at(w, "dlclose");
        dlclose(l->lib);
    }
    memset(l, 0, sizeof(*l));
}

/* A field's value by its type; NAN where the field did not answer (never 0). */
static double field_value(const struct nvml_field *f)
{
    if (f->ret != NVML_OK)
        return NAN;
    switch (f->value_type) {
    case 0: return f->value.d;
    case 1: return (double)f->value.ui;
    case 2: return (double)f->value.ul;
    case 3: return (double)f->value.ull;
    case 4: return (double)f->value.sll;
    case 5: return (double)f->value.si;
    case 6: return (double)f->value.us;
    default: return NAN;
    }
}

/* A temperature NVML gives, or NAN where no working part could be at it: a driver's or a
 * field's garbage (-300 C, 1e9, INT_MIN from a signed field) is dropped as absurd, never
 * logged as fact. The bounds are wider than any part is specified for: -55 C is the
 * coldest grade of semiconductor parts (the military range of MIL-PRF-38535, -55 to
 * +125 C) and 150 C the highest junction limit silicon parts are commonly given. */
#define NVML_TEMP_MIN_C (-55.0)
#define NVML_TEMP_MAX_C 150.0
static double plausible_temp_c(double c)
{
    return c >= NVML_TEMP_MIN_C && c <= NVML_TEMP_MAX_C ? c : NAN;
}

/* The GPU memory's own temperature now (NVML_FI_DEV_MEMORY_TEMP: HBM boards); NAN where
 * the driver lacks the call or the board does not say (GDDR, Jetson: NOT_SUPPORTED), or
 * where the figure is absurd. */
static double read_mem_temp(struct nvml_worker *w)
{
    struct nvml_lib *l = &w->l;
    if (!l->fields)
        return NAN;
    struct nvml_field f;
    memset(&f, 0, sizeof(f));
    f.field_id = NVML_FI_DEV_MEMORY_TEMP;
    at(w, "nvmlDeviceGetFieldValues");
    return l->fields(l->dev, 1, &f) == NVML_OK ? plausible_temp_c(field_value(&f)) : NAN;
}

/* The GPU's UUID (NVML_DEVICE_UUID_V2_BUFFER_SIZE is 96) and its enforced power limit, once:
 * the learner and history key on the one, the meter judges a block capped by the other. */
static void load_identity(struct nvml_worker *w)
{
    struct nvml_lib *l = &w->l;
    char buf[96] = "";
    unsigned int mw = 0;
    at(w, "nvmlDeviceGetUUID");
    if (l->uuid && l->uuid(l->dev, buf, sizeof(buf)) == NVML_OK) {
        size_t k = 0;   /* "GPU-" and hex: anything else from a driver is not kept */
        for (size_t i = 0; i < sizeof(buf) - 1 && buf[i] && k + 1 < sizeof(l->uuid_text); i++)
            if (isalnum((unsigned char)buf[i]) || buf[i] == '-')
                l->uuid_text[k++] = buf[i];
        l->uuid_text[k] = '\0';
    }
    at(w, "nvmlDeviceGetEnforcedPowerLimit");
    l->limit_w = l->limit && l->limit(l->dev, &mw) == NVML_OK && mw > 0 ? mw / 1000.0 : NAN;
}

/* The GPU: the run's own by its PCI bus id (CUDA and NVML count devices differently, and
 * --device cuda:1 must not measure GPU 0), else NVML's first. */
static int lib_load(struct nvml_worker *w, const char *bus_id, char *why, size_t n)
{
    struct nvml_lib *l = &w->l;
    char refused[160];   /* a FIFO named by $TB_NVML_LIB would block dlopen for ever */
    if (tb_lib_refused(lib_name(), refused, sizeof(refused))) {
        snprintf(why, n, "cannot load %s: %s", lib_name(), refused);
        return -ENOENT;
    }
    at(w, "dlopen");
    l->lib = dlopen(lib_name(), RTLD_NOW | RTLD_LOCAL);
    if (!l->lib) {
        snprintf(why, n, "cannot load %s (no NVIDIA desktop driver here)", lib_name());
        return -ENOENT;
    }
#define SYM(field, name) *(void **)(&l->field) = dlsym(l->lib, name)
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
    SYM(handle_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    SYM(power, "nvmlDeviceGetPowerUsage");
    SYM(energy, "nvmlDeviceGetTotalEnergyConsumption");
    SYM(temp, "nvmlDeviceGetTemperature");
    SYM(clock, "nvmlDeviceGetClockInfo");
    SYM(util, "nvmlDeviceGetUtilizationRates");
    SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
    SYM(limit, "nvmlDeviceGetEnforcedPowerLimit");
    SYM(uuid, "nvmlDeviceGetUUID");
    SYM(errstr, "nvmlErrorString");
    SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons");   /* R535+ */
    if (!l->reasons)
        SYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    SYM(fields, "nvmlDeviceGetFieldValues");
#undef SYM
    if (!l->init || !l->handle || !l->power) {
        snprintf(why, n, "%s lacks nvmlInit_v2 or nvmlDeviceGetPowerUsage", lib_name());
        lib_close(w);
        return -ENOSYS;
    }
    at(w, "nvmlInit_v2");
    nvml_ret rc = l->init();
    if (rc != NVML_OK) {
        snprintf(why, n, "nvmlInit: %s", nvml_err(l, rc));
        l->shutdown = NULL;
        lib_close(w);
        return -EIO;
    }
    bool by_bus = bus_id && bus_id[0] && l->handle_pci;
    at(w, by_bus ? "nvmlDeviceGetHandleByPciBusId_v2" : "nvmlDeviceGetHandleByIndex_v2");
    rc = by_bus ? l->handle_pci(bus_id, &l->dev) : l->handle(0, &l->dev);
    if (rc != NVML_OK) {
        snprintf(why, n, "NVML device %s: %s", by_bus ? bus_id : "0", nvml_err(l, rc));
        lib_close(w);
        return -ENODEV;
    }
    unsigned int mw;
    unsigned long long mj;
    at(w, "nvmlDeviceGetPowerUsage");
    l->has_power = l->power(l->dev, &mw) == NVML_OK;
    at(w, "nvmlDeviceGetTotalEnergyConsumption");
    l->has_energy = l->energy && l->energy(l->dev, &mj) == NVML_OK;
    if (!l->has_power && !l->has_energy) {
        snprintf(why, n, "NVML reports no power on this GPU (NOT_SUPPORTED, as on Jetson)");
        lib_close(w);
        return -ENOTSUP;
    }
    load_identity(w);
    /* asked once here: a board that does not say is never asked again */
    l->mem_temp_c = (float)read_mem_temp(w);
    l->mem_temp_ns = tb_now_ns();
    l->has_mem_temp = !isnan(l->mem_temp_c);
    return 0;
}

static int lib_sample(struct nvml_worker *w, struct tb_power_sample *out, char *why, size_t n)
{
    struct nvml_lib *l = &w->l;
    unsigned int v;
    unsigned long long mj;
    struct nvml_util u;
    out->t_ns = tb_now_ns();
    at(w, "nvmlDeviceGetPowerUsage");
    nvml_ret rc = l->power(l->dev, &v);
    if (rc == NVML_OK)
        out->rail_mw[0] = (float)v;
    else if (rc != NVML_NOT_SUPPORTED) {
        snprintf(why, n, "nvmlDeviceGetPowerUsage: %s", nvml_err(l, rc));
        return -EIO;
    }
    at(w, "nvmlDeviceGetTotalEnergyConsumption");
    if (l->has_energy && l->energy(l->dev, &mj) == NVML_OK)
        out->energy_mj = (double)mj;
    at(w, "nvmlDeviceGetTemperature");
    if (l->temp && l->temp(l->dev, NVML_TEMP_GPU, &v) == NVML_OK)
        out->gpu_temp_c = (float)plausible_temp_c((double)v);
    at(w, "nvmlDeviceGetClockInfo");
    if (l->clock && l->clock(l->dev, NVML_CLOCK_SM, &v) == NVML_OK)
        out->gpu_clock_mhz = (float)v;
    at(w, "nvmlDeviceGetUtilizationRates");
    if (l->util && l->util(l->dev, &u) == NVML_OK)
        out->gpu_load_pct = (float)u.gpu;
    if (l->has_mem_temp && out->t_ns - l->mem_temp_ns >= NVML_MEM_TEMP_EVERY_NS) {
        l->mem_temp_c = (float)read_mem_temp(w);   /* a failed read: NAN until the next */
        l->mem_temp_ns = out->t_ns;
    }
    out->mem_temp_c = l->mem_temp_c;
    /* why the clocks are held, with every reading: the meter counts the power cap's share of
     * a block's readings without a call of its own under the load */
    at(w, "nvmlDeviceGetCurrentClocksEventReasons");
    out->has_reasons = l->reasons && l->reasons(l->dev, &out->reasons) == NVML_OK;
    return 0;
}

/* The desktop's run conditions: SM clock now and at most, the enforced power limit, the
 * temperature; the max clock is what `throttled` is judged against. */
static void lib_describe(struct nvml_worker *w, char *line, size_t n, double *max_clock_mhz)
{
    struct nvml_lib *l = &w->l;
    unsigned int cur = 0, max = 0, mw = 0, temp = 0;
    at(w, "nvmlDeviceGetClockInfo");
    bool has_cur = l->clock && l->clock(l->dev, NVML_CLOCK_SM, &cur) == NVML_OK;
    at(w, "nvmlDeviceGetMaxClockInfo");
    bool has_max = l->max_clock && l->max_clock(l->dev, NVML_CLOCK_SM, &max) == NVML_OK;
    at(w, "nvmlDeviceGetEnforcedPowerLimit");
    bool has_lim = l->limit && l->limit(l->dev, &mw) == NVML_OK;
    at(w, "nvmlDeviceGetTemperature");
    bool has_t = l->temp && l->temp(l->dev, NVML_TEMP_GPU, &temp) == NVML_OK;
    double mem_c = l->has_mem_temp ? read_mem_temp(w) : NAN;
    *max_clock_mhz = has_max ? (double)max : NAN;
    size_t len = 0;
    line[0] = '\0';
    if (has_cur)
        len += (size_t)snprintf(line + len, n - len, "SM clock %u MHz", cur);
    if (has_max && len < n)
        len += (size_t)snprintf(line + len, n - len, "%smax %u MHz", len ? ", " : "", max);
    if (has_lim && len < n)
        len += (size_t)snprintf(line + len, n - len, "%spower limit %.0f W", len ? ", " : "",
                                mw / 1000.0);
    if (has_t && len < n)
        len += (size_t)snprintf(line + len, n - len, "%s%u C", len ? ", " : "", temp);
    if (!isnan(mem_c) && len < n)
        snprintf(line + len, n - len, "%smemory %.0f C", len ? ", " : "", mem_c);
}

static void run_job(struct nvml_worker *w)
{
    struct nvml_lib *l = &w->l;
    w->why[0] = '\0';
    switch (w->job) {
    case JOB_LOAD:
        w->rc = lib_load(w, w->bus_id, w->why, sizeof(w->why));
        break;
    case JOB_SAMPLE:
        tb_power_sample_clear(&w->smp);
        w->rc = lib_sample(w, &w->smp, w->why, sizeof(w->why));
        break;
    case JOB_DESCRIBE:
        lib_describe(w, w->line, sizeof(w->line), &w->max_clock_mhz);
        w->rc = 0;
        break;
    case JOB_REASONS:
        at(w, "nvmlDeviceGetCurrentClocksEventReasons");
        w->rc = l->lib && l->reasons && l->reasons(l->dev, &w->mask) == NVML_OK ? 0 : -ENOTSUP;
        break;
    case JOB_CLOSE:
        lib_close(w);
        w->rc = 0;
        break;
    }
    at(w, NULL);
}

static void worker_free(struct nvml_worker *w)
{
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

static void *worker_main(void *arg)
{
    struct nvml_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->phase != W_POSTED && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->phase != W_POSTED)
            break;   /* quit, and nothing left to do */
        pthread_mutex_unlock(&w->mu);
        run_job(w);   /* may never return: then the source has given up on this thread */
        pthread_mutex_lock(&w->mu);
        w->phase = W_DONE;
        pthread_cond_broadcast(&w->cv);
        if (w->quit)
            break;
    }
    bool last = --w->refs == 0;
    pthread_mutex_unlock(&w->mu);
    if (last)
        worker_free(w);
    return NULL;
}

/* ---- on the caller's side: post a job, wait for it within the deadline ------------- */

/* NVML's deadline: TB_DRIVER_TIMEOUT_S when set (the watchdog's knob; tests use 1), else
 * 30 s for loading (dlopen, nvmlInit, the device lookup: seconds on a large machine with
 * persistence mode off) and 5 s for a query (they take milliseconds). */
static double deadline_s(enum nvml_job job)
{
    double cap = job == JOB_LOAD || job == JOB_CLOSE ? 30 : 5;
    double knob = tb_watch_seconds(TB_WATCH_CALL);
    return knob < cap ? knob : cap;
}

static int worker_start(struct nvml_state *s, char *why, size_t n)
{
    struct nvml_worker *w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(why, n, "NVML: %s", strerror(ENOMEM));
        return -ENOMEM;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    w->refs = 2;
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;   /* signals go to the threads that act on them, never to NVML's */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_t t;
    int rc = pthread_create(&t, &ta, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&ta);
    if (rc) {
        snprintf(why, n, "cannot start NVML's thread: %s", strerror(rc));
        worker_free(w);
        return -rc;
    }
    s->w = w;
    return 0;
}

/* Runs job on the worker within its deadline. 0 with w->mu held and the results in w
 * (the caller copies them, then job_done); else -ETIMEDOUT (the source is abandoned, now
 * or before) with why, the lock not held. */
static int job_run(struct nvml_state *s, enum nvml_job job, const char *bus_id, char *why,
                   size_t n)
{
    struct nvml_worker *w = s->w;
    double limit = deadline_s(job);
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    double whole = floor(limit);
    dl.tv_sec += (time_t)whole;
    dl.tv_nsec += (long)((limit - whole) * 1e9);
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mu);
    int rc = 0;
    while (!w->lost && w->phase != W_IDLE && rc == 0)   /* another caller's job first */
        rc = pthread_cond_timedwait(&w->cv, &w->mu, &dl);
    if (!w->lost && rc == 0) {
        w->job = job;
        tb_strlcpy(w->bus_id, bus_id ? bus_id : "", sizeof(w->bus_id));
        w->phase = W_POSTED;
        pthread_cond_broadcast(&w->cv);
        while (w->phase != W_DONE && rc == 0)
            rc = pthread_cond_timedwait(&w->cv, &w->mu, &dl);
    }
    if (!w->lost && rc == 0)
        return 0;
    if (!w->lost) {
        w->lost = true;
        snprintf(w->lost_why, sizeof(w->lost_why), "NVML did not return from %s within "
                 "%.0f s: the source is abandoned (its thread left waiting)",
                 w->call ? w->call : "its last call", limit);
        pthread_cond_broadcast(&w->cv);   /* callers queued behind it give up too */
    }
    tb_strlcpy(why, w->lost_why, n);
    pthread_mutex_unlock(&w->mu);
    return -ETIMEDOUT;
}

static void job_done(struct nvml_worker *w)
{
    w->phase = W_IDLE;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Lets go of the worker: the library shut down and closed on it when it still answers;
 * an abandoned one keeps its library (its thread may be inside it) and frees itself if
 * its call ever returns. */
static void nvml_close(void *st)
{
    struct nvml_state *s = st;
    struct nvml_worker *w = s->w;
    if (!w)
        return;
    char why[256];
    if (job_run(s, JOB_CLOSE, NULL, why, sizeof(why)) == 0)
        job_done(w);
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->cv);
    bool last = --w->refs == 0;
    pthread_mutex_unlock(&w->mu);
    if (last)
        worker_free(w);
    memset(s, 0, sizeof(*s));
}

static int nvml_load(struct nvml_state *s, const char *bus_id, char *why, size_t n)
{
    int rc = worker_start(s, why, n);
    if (rc)
        return rc;
    if ((rc = job_run(s, JOB_LOAD, bus_id, why, n)) == 0) {
        rc = s->w->rc;
        tb_strlcpy(why, s->w->why, n);
        s->has_power = s->w->l.has_power;
        s->has_energy = s->w->l.has_energy;
        tb_strlcpy(s->device.id, s->w->l.uuid_text, sizeof(s->device.id));
        s->device.limit_w = s->w->l.limit_w;
        if (isfinite(s->device.limit_w))
            tb_strlcpy(s->device.limit_how, "NVML enforced power limit",
                       sizeof(s->device.limit_how));
        job_done(s->w);
    }
    if (rc) {
        char keep[512];   /* the load's words, not the close's */
        tb_strlcpy(keep, why, sizeof(keep));
        nvml_close(s);
        tb_strlcpy(why, keep, n);
    }
    return rc;
}

static int nvml_probe(const struct tb_power_cfg *pc, char *why, size_t n)
{
    struct nvml_state s;
    memset(&s, 0, sizeof(s));
    int rc = nvml_load(&s, pc->pci_bus_id, why, n);
    if (rc == 0)
        nvml_close(&s);
    return rc;
}

static int nvml_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                     char *why, size_t n)
{
    struct nvml_state *s = st;
    int rc = nvml_load(s, pc->pci_bus_id, why, n);
    if (rc)
        return rc;
    rails->n = 1;
    tb_strlcpy(rails->name[0], "GPU", TB_RAIL_NAME);
    return 0;
}

/* A reading, or -ETIMEDOUT when NVML hung (the sampler then says the source failed, and
 * why): no allocation here, the worker is made at open. */
static int nvml_sample(void *st, struct tb_power_sample *out, char *why, size_t n)
{
    struct nvml_state *s = st;
    int rc = job_run(s, JOB_SAMPLE, NULL, why, n);
    if (rc)
        return rc;
    struct nvml_worker *w = s->w;
    rc = w->rc;
    if (rc)
        tb_strlcpy(why, w->why, n);
    else
        *out = w->smp;
    job_done(w);
    return rc;
}

static void nvml_describe(void *st, char *line, size_t n, double *max_clock_mhz)
{
    struct nvml_state *s = st;
    char why[256];
    *max_clock_mhz = NAN;
    line[0] = '\0';
    if (job_run(s, JOB_DESCRIBE, NULL, why, sizeof(why)) != 0)
        return;   /* abandoned: the next reading says so */
    tb_strlcpy(line, s->w->line, n);
    *max_clock_mhz = s->w->max_clock_mhz;
    job_done(s->w);
}

/* What NVML's readings are (sensor_model.h). Yang et al., "Accurate and Convenient Energy
 * Measurements for GPUs", SC24: on the A100 and H100 the power behind the counter is
 * sampled 25 ms of every 100 ms. */
static const struct tb_sensor_doc nvml_models[] = {
    { "nvml-energy", TB_SENSOR_COUNTER, 0, 100, 25,
      "nvmlDeviceGetTotalEnergyConsumption: sampled 25 ms of every 100 ms on A100/H100 "
      "(Yang et al., SC24)" },
    { "nvml-power", TB_SENSOR_MEAN, 1000, 0, 0,
      "nvmlDeviceGetPowerUsage: a 1 s mean on Ampere and newer (NVML reference)" },
    { NULL, TB_SENSOR_UNKNOWN, 0, 0, 0, NULL },
};

/* NVML's power reading is a 1 s average on Ampere and newer (not GA100), so sampling it
 * faster repeats one reading; the total-energy counter (Volta and newer) is exact, and
 * its own update period is learnt from the idle readings (the distinct counter values). */
static void nvml_cadence(void *st, struct tb_power_cadence *c)
{
    struct nvml_state *s = st;
    tb_strlcpy(c->scope, "whole card (NVML)", sizeof(c->scope));
    if (s->has_energy) {
        tb_strlcpy(c->how, "energy counter", sizeof(c->how));
        tb_strlcpy(c->detail, "nvmlDeviceGetTotalEnergyConsumption, mJ; update period from "
                   "the idle readings", sizeof(c->detail));
        /* the power behind the counter is sampled 25 ms of every 100 ms on the A100 and
         * H100 (Yang et al., SC24): blocks of whole periods, edges jittered (meter.c) */
        tb_sensor_model_documented(nvml_models, "nvml-energy", TB_POWER_MAX_RAILS, &c->model);
        return;
    }
    tb_sensor_model_documented(nvml_models, "nvml-power", TB_POWER_MAX_RAILS, &c->model);
    c->period_ms = 1000;
    tb_strlcpy(c->how, "documented", sizeof(c->how));
    tb_strlcpy(c->detail, "nvmlDeviceGetPowerUsage: a 1 s average on Ampere and newer",
               sizeof(c->detail));
}

/* throttle.h: why the clocks are held down now (optional: a driver without either call,
 * or a GPU that does not say, is "not known", never a failure). */
int tb_nvml_clock_reasons(void *st, unsigned long long *mask)
{
    struct nvml_state *s = st;
    char why[256];
    if (!s->w || job_run(s, JOB_REASONS, NULL, why, sizeof(why)) != 0)
        return -ENOTSUP;
    int rc = s->w->rc;
    *mask = s->w->mask;
    job_done(s->w);
    return rc;
}

static void nvml_identify(void *st, struct tb_power_device *d)
{
    *d = ((struct nvml_state *)st)->device;
}

const struct tb_power_ops tb_power_nvml = {
    .name = "nvml",
    .help = "NVML power and energy (desktop GPUs)",
    .models = nvml_models,
    .state_size = sizeof(struct nvml_state),
    .probe = nvml_probe,
    .open = nvml_open,
    .sample = nvml_sample,
    .close = nvml_close,
    .describe = nvml_describe,
    .cadence = nvml_cadence,
    .reasons = tb_nvml_clock_reasons,
    .identify = nvml_identify,
};
