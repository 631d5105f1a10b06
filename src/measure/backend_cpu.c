/* backend_cpu.c: the CPU backend: host memory, clock_gettime timing, a cache flush by
 * streaming over a buffer larger than the last-level cache. It runs everywhere, so the
 * whole pipeline (config to log) runs in tests and CI without a GPU. */
#include "measure/backend.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pattern.h"
#include "lib/safeio.h"
#include "lib/util.h"

/* One instance: its cache-flush buffer and the flag a signal sets to stop it. */
struct cpu_dev {
    unsigned char *flush_buf;
    size_t flush_bytes;
    const volatile sig_atomic_t *stop_flag;   /* a signal asked the run to stop */
    char err[128];                            /* errstr's words */
};

static void cpu_watch(void *st, const volatile sig_atomic_t *stop)
{
    ((struct cpu_dev *)st)->stop_flag = stop;
}

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

/* The CPU as a device: its model, cores, last-level cache and memory (nothing to open). */
static int cpu_identify(int index, struct tb_device_info *info, char *why, size_t n)
{
    memset(info, 0, sizeof(*info));
    if (cpu_probe(index, why, n))
        return -ENODEV;
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

static int cpu_open(void *st, int index, struct tb_device_info *info, char *why, size_t n)
{
    (void)st;
    return cpu_identify(index, info, why, n);
}

static void cpu_close(void *st)
{
    struct cpu_dev *c = st;
    free(c->flush_buf);
    c->flush_buf = NULL;
    c->flush_bytes = 0;
}

static int cpu_alloc(void *st, size_t bytes, void **p)
{
    (void)st;
    *p = malloc(bytes ? bytes : 1);
    return *p ? 0 : -ENOMEM;
}

static void cpu_free(void *st, void *p) { (void)st; free(p); }

static int cpu_download(void *st, void *dst, const void *src, size_t n)
{
    (void)st;
    memcpy(dst, src, n);
    return 0;
}

static int cpu_fill_bytes(void *st, void *dst, int byte, size_t n)
{
    (void)st;
    memset(dst, byte, n);
    return 0;
}

static int cpu_fill_pattern(void *st, void *dst, size_t count, int elem_size, uint64_t seed)
{
    const volatile sig_atomic_t *stop = ((struct cpu_dev *)st)->stop_flag;
    for (size_t i = 0; i < count; i++) {
        if ((i & 0xFFFFF) == 0 && stop && *stop)
            return -EINTR;
        tb_pattern_store(dst, elem_size, seed, i);
    }
    return 0;
}

static int cpu_launch(void *st, const struct tb_kernel *k, struct tb_launch *l)
{
    l->stop = ((struct cpu_dev *)st)->stop_flag;
    return k->launch(l);
}

static int cpu_timed(void *st, const struct tb_kernel *k, struct tb_launch *l, double *ms)
{
    l->stop = ((struct cpu_dev *)st)->stop_flag;
    int64_t t0 = tb_real_now_ns();
    int rc = k->launch(l);
    *ms = (double)(tb_real_now_ns() - t0) * 1e-6;
    return rc;
}

static int cpu_sync(void *st) { (void)st; return 0; }

static int cpu_flush_cache(void *st)
{
    struct cpu_dev *c = st;
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    size_t want = (llc > 0 ? (size_t)llc : (size_t)32 << 20) * 2;
    if (c->flush_bytes < want) {
        free(c->flush_buf);
        c->flush_buf = malloc(want);
        c->flush_bytes = c->flush_buf ? want : 0;
        if (!c->flush_buf)
            return -ENOMEM;
    }
    /* write every line so that dirty lines of the matrices get evicted too */
    for (size_t i = 0; i < c->flush_bytes; i += 64)
        c->flush_buf[i] = (unsigned char)i;
    return 0;
}

static int cpu_sm_clock(void *st, double *mhz)
{
    (void)st;
    *mhz = NAN;
    return 0;
}

static int cpu_recover(void *st) { (void)st; return 0; }

static const char *cpu_errstr(void *st, int err)
{
    struct cpu_dev *c = st;
    /* strerror_r (the GNU one returns its own pointer) into the instance: no shared buffer */
    const char *m = strerror_r(err < 0 ? -err : err, c->err, sizeof(c->err));
    if (m != c->err)
        tb_strlcpy(c->err, m, sizeof(c->err));
    return c->err;
}
static bool cpu_is_oom(int err) { return err == -ENOMEM; }
static bool cpu_is_fatal(int err) { return false; }

const struct tb_backend tb_backend_cpu = {
    .name = "cpu",
    .id = TB_BACKEND_CPU,
    .state_size = sizeof(struct cpu_dev),
    .probe = cpu_probe,
    .identify = cpu_identify,
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
