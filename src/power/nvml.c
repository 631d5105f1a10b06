/* nvml.c: power of desktop GPUs through NVML, loaded with dlopen so that one binary runs
 * where the library is absent (Jetson Nano) or answers NOT_SUPPORTED (Orin): both read
 * as "no reading", never as a failure of the run. Reads power, the total-energy counter
 * where the GPU has one, temperature, SM clock and utilisation. $TB_NVML_LIB overrides
 * the library (tests load a fake one). The device is the run's GPU by PCI bus id, else index 0. */
#include "power.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safeio.h"
#include "throttle.h"
#include "util.h"

/* The few NVML types and constants used, as its ABI defines them. */
typedef int nvml_ret;
typedef void *nvml_dev;
struct nvml_util { unsigned int gpu, memory; };
enum { NVML_OK = 0, NVML_NOT_SUPPORTED = 3, NVML_TEMP_GPU = 0, NVML_CLOCK_SM = 1 };

struct nvml_state {
    void *lib;
    nvml_dev dev;
    bool has_power, has_energy;
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
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);   /* throttle.h; may be NULL */
    const char *(*errstr)(nvml_ret);
};

static const char *lib_name(void)
{
    const char *p = getenv("TB_NVML_LIB");
    return p && *p ? p : "libnvidia-ml.so.1";
}

static const char *nvml_err(struct nvml_state *s, nvml_ret rc)
{
    return s->errstr ? s->errstr(rc) : "NVML error";
}

static void nvml_close(void *st)
{
    struct nvml_state *s = st;
    if (s->lib) {
        if (s->shutdown)
            s->shutdown();
        dlclose(s->lib);
    }
    memset(s, 0, sizeof(*s));
}

/* The GPU: the run's own by its PCI bus id (CUDA and NVML count devices differently, and
 * --device cuda:1 must not measure GPU 0), else NVML's first. */
static int nvml_load(struct nvml_state *s, const char *bus_id, char *why, size_t n)
{
    char refused[160];   /* a FIFO named by $TB_NVML_LIB would block dlopen for ever */
    if (tb_lib_refused(lib_name(), refused, sizeof(refused))) {
        snprintf(why, n, "cannot load %s: %s", lib_name(), refused);
        return -ENOENT;
    }
    s->lib = dlopen(lib_name(), RTLD_NOW | RTLD_LOCAL);
    if (!s->lib) {
        snprintf(why, n, "cannot load %s (no NVIDIA desktop driver here)", lib_name());
        return -ENOENT;
    }
#define SYM(field, name) *(void **)(&s->field) = dlsym(s->lib, name)
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
    SYM(errstr, "nvmlErrorString");
    SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons");   /* R535+ */
    if (!s->reasons)
        SYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
#undef SYM
    if (!s->init || !s->handle || !s->power) {
        snprintf(why, n, "%s lacks nvmlInit_v2 or nvmlDeviceGetPowerUsage", lib_name());
        nvml_close(s);
        return -ENOSYS;
    }
    nvml_ret rc = s->init();
    if (rc != NVML_OK) {
        snprintf(why, n, "nvmlInit: %s", nvml_err(s, rc));
        s->shutdown = NULL;
        nvml_close(s);
        return -EIO;
    }
    bool by_bus = bus_id && bus_id[0] && s->handle_pci;
    rc = by_bus ? s->handle_pci(bus_id, &s->dev) : s->handle(0, &s->dev);
    if (rc != NVML_OK) {
        snprintf(why, n, "NVML device %s: %s", by_bus ? bus_id : "0", nvml_err(s, rc));
        nvml_close(s);
        return -ENODEV;
    }
    unsigned int mw;
    unsigned long long mj;
    s->has_power = s->power(s->dev, &mw) == NVML_OK;
    s->has_energy = s->energy && s->energy(s->dev, &mj) == NVML_OK;
    if (!s->has_power && !s->has_energy) {
        snprintf(why, n, "NVML reports no power on this GPU (NOT_SUPPORTED, as on Jetson)");
        nvml_close(s);
        return -ENOTSUP;
    }
    return 0;
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

static int nvml_sample(void *st, struct tb_power_sample *out, char *why, size_t n)
{
    struct nvml_state *s = st;
    unsigned int v;
    unsigned long long mj;
    struct nvml_util u;
    out->t_ns = tb_now_ns();
    nvml_ret rc = s->power(s->dev, &v);
    if (rc == NVML_OK)
        out->rail_mw[0] = (float)v;
    else if (rc != NVML_NOT_SUPPORTED) {
        snprintf(why, n, "nvmlDeviceGetPowerUsage: %s", nvml_err(s, rc));
        return -EIO;
    }
    if (s->has_energy && s->energy(s->dev, &mj) == NVML_OK)
        out->energy_mj = (double)mj;
    if (s->temp && s->temp(s->dev, NVML_TEMP_GPU, &v) == NVML_OK)
        out->gpu_temp_c = (float)v;
    if (s->clock && s->clock(s->dev, NVML_CLOCK_SM, &v) == NVML_OK)
        out->gpu_clock_mhz = (float)v;
    if (s->util && s->util(s->dev, &u) == NVML_OK)
        out->gpu_load_pct = (float)u.gpu;
    return 0;
}

/* The desktop's run conditions: SM clock now and at most, the enforced power limit, the
 * temperature; the max clock is what `throttled` is judged against. */
static void nvml_describe(void *st, char *line, size_t n, double *max_clock_mhz)
{
    struct nvml_state *s = st;
    unsigned int cur = 0, max = 0, mw = 0, temp = 0;
    bool has_cur = s->clock && s->clock(s->dev, NVML_CLOCK_SM, &cur) == NVML_OK;
    bool has_max = s->max_clock && s->max_clock(s->dev, NVML_CLOCK_SM, &max) == NVML_OK;
    bool has_lim = s->limit && s->limit(s->dev, &mw) == NVML_OK;
    bool has_t = s->temp && s->temp(s->dev, NVML_TEMP_GPU, &temp) == NVML_OK;
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
        snprintf(line + len, n - len, "%s%u C", len ? ", " : "", temp);
}

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
        return;
    }
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
    return s->lib && s->reasons && s->reasons(s->dev, mask) == NVML_OK ? 0 : -ENOTSUP;
}

const struct tb_power_ops tb_power_nvml = {
    .name = "nvml",
    .help = "NVML power and energy (desktop GPUs)",
    .state_size = sizeof(struct nvml_state),
    .probe = nvml_probe,
    .open = nvml_open,
    .sample = nvml_sample,
    .close = nvml_close,
    .describe = nvml_describe,
    .cadence = nvml_cadence,
};
