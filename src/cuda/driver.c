/* driver.c: libcuda, opened with dlopen when a GPU is first asked for (so that one binary
 * starts where there is no driver, and --version costs nothing), its entry points resolved
 * once, and its errors in words a user can act on. Nothing about devices or images here. */
#include "cuda/driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/safeio.h"
#include "lib/util.h"
#include "lib/watchdog.h"

#define TB_CU_DEFINE(fn, sym, ret, params) ret(*p_##fn) params;
TB_CUDA_DRIVER_API(TB_CU_DEFINE)
#undef TB_CU_DEFINE

static void *libcuda;
static char lib_why[512];   /* why libcuda cannot be used; "" when it can */
static int driver_version;  /* e.g. 12020 */

void tb_cu_version_string(int v, char *buf, size_t n)
{
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

const char *tb_cu_err(CUresult e, char *buf, size_t n)
{
    const char *name = NULL, *str = NULL;
    if (p_cuGetErrorName)
        p_cuGetErrorName(e, &name);
    if (p_cuGetErrorString)
        p_cuGetErrorString(e, &str);
    snprintf(buf, n, "%s (%s)", name ? name : "CUDA error", str ? str : "no description");
    if (!name && !str)
        snprintf(buf, n, "CUDA error %d", e);
    for (char *p = buf; *p; p++)   /* the driver's text is one line of text, whatever it is */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return buf;
}

/* Why the driver cannot be used, as one line of text (a library path or the driver's own
 * words may hold a newline or an escape; neither reaches a log or a terminal raw). */
const char *tb_cu_why(void)
{
    for (char *p = lib_why; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return lib_why;
}
bool tb_cu_present(void) { return libcuda != NULL; }
int tb_cu_driver_version(void) { return driver_version; }

int tb_cu_load(void)
{
    static bool tried;
    if (tried)
        return lib_why[0] ? -1 : 0;
    tried = true;
    const char *name = getenv("TB_CUDA_LIB");
    if (!name || !*name)
        name = "libcuda.so.1";
    char refused[160];
    if (tb_lib_refused(name, refused, sizeof(refused))) {
        snprintf(lib_why, sizeof(lib_why), "cannot load the CUDA driver library '%s': %s", name,
                 refused);
        return -1;
    }
    tb_watch_begin("dlopen", TB_WATCH_CALL);
    libcuda = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    tb_watch_end();
    if (!libcuda) {
        snprintf(lib_why, sizeof(lib_why), "cannot load the CUDA driver library '%s' (%s): the "
                 "NVIDIA driver provides it on a desktop, the board support package (L4T) on a "
                 "Jetson", name, dlerror());
        return -1;
    }
#define RESOLVE(fn, sym, ret, params)                                                      \
    if (!(*(void **)&p_##fn = dlsym(libcuda, sym))) {                                      \
        snprintf(lib_why, sizeof(lib_why), "'%s' has no %s: the driver is older than CUDA " \
                 "10.2, which this tool needs", name, sym);                                \
        return -1;                                                                         \
    }
    TB_CUDA_DRIVER_API(RESOLVE)
#undef RESOLVE
    tb_watch_begin("cuInit", TB_WATCH_CALL);
    p_cuDriverGetVersion(&driver_version);
    CUresult e = p_cuInit(0);
    tb_watch_end();
    if (driver_version < 0 || driver_version > 99990)
        driver_version = 0;   /* garbage: said as 0.0, never a version to pick images by */
    if (e != CUDA_SUCCESS) {
        char v[16], eb[160];
        tb_cu_version_string(driver_version, v, sizeof(v));
        snprintf(lib_why, sizeof(lib_why), "cuInit: %s; driver's CUDA %s%s",
                 tb_cu_err(e, eb, sizeof(eb)), v,
                 e == CUDA_ERROR_NO_DEVICE || e == 999
                     ? " (on a Jetson: is this user in the 'video' group?)"
                 : e == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
                     ? " (the kernel module and libcuda differ: reboot after a driver update)"
                     : "");
        return -1;
    }
    return 0;
}
