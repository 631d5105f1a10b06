/* backend_cpu.c: the CPU backend: host memory, clock_gettime timing, a cache flush by
 * streaming over a buffer larger than the last-level cache. It runs everywhere, so the
 * whole pipeline (config to log) runs in tests and CI without a GPU. */
#include "backend.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pattern.h"
#include "safeio.h"
#include "util.h"

static unsigned char *flush_buf;
static size_t flush_bytes;
static const volatile sig_atomic_t *stop_flag;   /* a signal asked the run to stop */

static void cpu_watch(const volatile sig_atomic_t *stop) { stop_flag = stop; }

static int cpu_probe(int index, char *why, size_t n)
{
    if (index != 0) {
        snprintf(why, n, "the cpu backend has one device, 0");
        return -ENODEV;
    }
    return 0;
}

static void cpu_model(char *buf, size_t n)
{
    tb_strlcpy(buf, "cpu", n);
    char path[4096], why[4300];
    tb_root_path(path, sizeof(path), "/proc/cpuinfo");
    /* a bounded read (safeio.h): the model is in the first lines, a FIFO there no hang */
    char *text = malloc(65536);
    if (!text || (tb_safeio_read(path, text, 65536, NULL, 0, 0, why, sizeof(why)) < 0 &&
                  !text[0])) {
        free(text);
        return;
    }
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (colon && (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5))) {
            char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            tb_strlcpy(buf, v, n);
            break;
        }
    }
    free(text);
}

static int cpu_open(int index, struct tb_device_info *info, char *why, size_t n)
{
    memset(info, 0, sizeof(*info));
    cpu_model(info->name, sizeof(info->name));
    info->index = index;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    info->sm_count = cores > 0 ? (int)cores : 1;
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    info->l2_bytes = llc > 0 ? (size_t)llc : 0;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    info->mem_bytes = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : 0;
    info->max_threads_per_block = INT_MAX;
    tb_strlcpy(info->driver_version, "", sizeof(info->driver_version));
    return 0;
}

static void cpu_close(void)
{
    free(flush_buf);
    flush_buf = NULL;
    flush_bytes = 0;
}

static int cpu_alloc(size_t bytes, void **p)
{
    *p = malloc(bytes ? bytes : 1);
    return *p ? 0 : -ENOMEM;
}

static void cpu_free(void *p) { free(p); }

static int cpu_download(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    return 0;
}

static int cpu_fill_bytes(void *dst, int byte, size_t n)
{
    memset(dst, byte, n);
    return 0;
}

static int cpu_fill_pattern(void *dst, size_t count, int elem_size, uint64_t seed)
{
    for (size_t i = 0; i < count; i++) {
        if ((i & 0xFFFFF) == 0 && stop_flag && *stop_flag)
            return -EINTR;
        tb_pattern_store(dst, elem_size, seed, i);
    }
    return 0;
}

static int cpu_launch(const struct tb_kernel *k, struct tb_launch *l)
{
    l->stop = stop_flag;
    return k->launch(l);
}

static int cpu_timed(const struct tb_kernel *k, struct tb_launch *l, double *ms)
{
    l->stop = stop_flag;
    int64_t t0 = tb_now_ns();
    int rc = k->launch(l);
    *ms = (double)(tb_now_ns() - t0) * 1e-6;
    return rc;
}

static int cpu_sync(void) { return 0; }

static int cpu_flush_cache(void)
{
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    size_t want = (llc > 0 ? (size_t)llc : (size_t)32 << 20) * 2;
    if (flush_bytes < want) {
        free(flush_buf);
        flush_buf = malloc(want);
        flush_bytes = flush_buf ? want : 0;
        if (!flush_buf)
            return -ENOMEM;
    }
    /* write every line so that dirty lines of the matrices get evicted too */
    for (size_t i = 0; i < flush_bytes; i += 64)
        flush_buf[i] = (unsigned char)i;
    return 0;
}

static int cpu_sm_clock(double *mhz)
{
    *mhz = NAN;
    return 0;
}

static int cpu_recover(void) { return 0; }
static const char *cpu_errstr(int err) { return strerror(err < 0 ? -err : err); }
static bool cpu_is_oom(int err) { return err == -ENOMEM; }
static bool cpu_is_fatal(int err) { return false; }

const struct tb_backend tb_backend_cpu = {
    .name = "cpu",
    .id = TB_BACKEND_CPU,
    .probe = cpu_probe,
    .open = cpu_open,
    .close = cpu_close,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .download = cpu_download,
    .fill_bytes = cpu_fill_bytes,
    .fill_pattern = cpu_fill_pattern,
    .launch = cpu_launch,
    .timed = cpu_timed,
    .sync = cpu_sync,
    .flush_cache = cpu_flush_cache,
    .sm_clock_mhz = cpu_sm_clock,
    .recover = cpu_recover,
    .errstr = cpu_errstr,
    .is_oom = cpu_is_oom,
    .is_fatal = cpu_is_fatal,
    .watch = cpu_watch,
};
