/* fake_nvml.c: a stand-in for libnvidia-ml.so.1, loaded by the NVML source through
 * $TB_NVML_LIB in tests. $TB_FAKE_NVML selects its behaviour:
 *   ok (default)  a power reading of 60 W that lags (as an averaged reading does) while the
 *                 energy counter grows at exactly 100 W; 60 C, 1500 MHz
 *   notsup        power and energy NOT_SUPPORTED (as on a Jetson Orin)
 *   initfail      nvmlInit fails (driver not loaded)
 *   dies:N        power reads fail (GPU lost) after N good ones
 *   hang-init     nvmlInit never returns (a wedged driver)
 *   hang:N        power reads never return after N good ones (a GPU that stops answering)
 *   hang-fields   nvmlDeviceGetFieldValues never returns
 * $TB_FAKE_NVML_UUID: what nvmlDeviceGetUUID answers (default one fixed UUID; "notsup":
 * NOT_SUPPORTED); $TB_FAKE_NVML_LIMIT_MW: the enforced power limit in mW (default 700000).
 * $TB_FAKE_NVML_REASONS: the clock-event reasons bitmask nvmlDeviceGetCurrentClocksEventReasons
 * answers (strtoull, e.g. "0x44"; default 0); "notsup" answers NOT_SUPPORTED.
 * $TB_FAKE_NVML_MEM_TEMP: the memory's temperature nvmlDeviceGetFieldValues answers for
 * NVML_FI_DEV_MEMORY_TEMP (82), as a signed int ("45"), or a double where it has a point
 * ("45.5"); unset: that field's own nvmlReturn is NOT_SUPPORTED (a GDDR board), the call
 * itself NVML_SUCCESS as a real driver's. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int nvml_ret;
struct nvml_util { unsigned int gpu, memory; };
/* nvml.h's nvmlFieldValue_t */
struct nvml_field {
    unsigned int field_id, scope_id;
    long long timestamp, latency_us;
    int value_type, ret;
    union { double d; int si; unsigned int ui; unsigned long ul; unsigned long long ull;
            long long sll; unsigned short us; } value;
};
static int calls;

static const char *mode(void)
{
    const char *m = getenv("TB_FAKE_NVML");
    return m ? m : "ok";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Never returns (signals interrupt the wait, and it goes on waiting). */
static void hang(void)
{
    for (;;)
        pause();
}

nvml_ret nvmlInit_v2(void)
{
    if (!strcmp(mode(), "hang-init"))
        hang();
    return strcmp(mode(), "initfail") ? 0 : 9;
}
nvml_ret nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(nvml_ret r) { return r == 3 ? "Not Supported" : r == 15 ? "GPU is lost" : r == 6 ? "Not Found" : "Driver Not Loaded"; }
nvml_ret nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev) { *dev = (void *)1; return i ? 2 : 0; }
/* one GPU, on bus 00000000:19:00.0; any other bus id is NVML_ERROR_NOT_FOUND (6) */
nvml_ret nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
    *dev = (void *)1;
    return strcmp(bus, "00000000:19:00.0") ? 6 : 0;
}

nvml_ret nvmlDeviceGetPowerUsage(void *dev, unsigned int *mw)
{
    if (!strcmp(mode(), "notsup"))
        return 3;
    if (!strncmp(mode(), "dies:", 5) && ++calls > atoi(mode() + 5))
        return 15;
    if (!strncmp(mode(), "hang:", 5) && ++calls > atoi(mode() + 5))
        hang();
    *mw = 60000;
    return 0;
}

nvml_ret nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj)
{
    if (!strcmp(mode(), "notsup"))
        return 3;
    *mj = (unsigned long long)(now_s() * 100000.0);
    return 0;
}

nvml_ret nvmlDeviceGetTemperature(void *dev, int which, unsigned int *c) { *c = 60; return 0; }
nvml_ret nvmlDeviceGetClockInfo(void *dev, int which, unsigned int *mhz) { *mhz = 1500; return 0; }
nvml_ret nvmlDeviceGetMaxClockInfo(void *dev, int which, unsigned int *mhz) { *mhz = 1980; return 0; }
nvml_ret nvmlDeviceGetEnforcedPowerLimit(void *dev, unsigned int *mw)
{
    const char *w = getenv("TB_FAKE_NVML_LIMIT_MW");
    *mw = w ? (unsigned int)strtoul(w, NULL, 10) : 700000;
    return 0;
}

/* nvml.h: "GPU-" and 32 hex digits in 8-4-4-4-12 groups, NUL-terminated within length */
nvml_ret nvmlDeviceGetUUID(void *dev, char *uuid, unsigned int length)
{
    const char *u = getenv("TB_FAKE_NVML_UUID");
    if (u && !strcmp(u, "notsup"))
        return 3;
    u = u ? u : "GPU-8c5b2f3e-1d2a-4f6b-9c7d-0e1f2a3b4c5d";
    if (strlen(u) + 1 > length)
        return 7;   /* NVML_ERROR_INSUFFICIENT_SIZE */
    strcpy(uuid, u);
    return 0;
}
nvml_ret nvmlDeviceGetUtilizationRates(void *dev, struct nvml_util *u) { u->gpu = 97; u->memory = 80; return 0; }

nvml_ret nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *mask)
{
    const char *r = getenv("TB_FAKE_NVML_REASONS");
    if (r && !strcmp(r, "notsup"))
        return 3;
    *mask = r ? strtoull(r, NULL, 0) : 0;
    return 0;
}

nvml_ret nvmlDeviceGetFieldValues(void *dev, int n, struct nvml_field *f)
{
    const char *t = getenv("TB_FAKE_NVML_MEM_TEMP");
    if (!strcmp(mode(), "hang-fields"))
        hang();
    for (int i = 0; i < n; i++) {
        f[i].ret = 3;
        if (f[i].field_id != 82 || !t)
            continue;
        f[i].ret = 0;
        if (strchr(t, '.')) {
            f[i].value_type = 0;
            f[i].value.d = strtod(t, NULL);
        } else {
            f[i].value_type = 5;
            f[i].value.si = atoi(t);
        }
    }
    return 0;
}
