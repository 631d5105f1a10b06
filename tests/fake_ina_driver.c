/* fake_ina_driver.c: the INA3221 hwmon driver and the over-current counter of a fake sysfs
 * tree, inside the test-only executable (build/tests/transpose-bench-hooks), so that they
 * keep the tool's own clock: virtual time under TB_FAKE_CLOCK=1, where a sensor in another
 * process (on the real clock) could not. Started before main when the environment says:
 *   TB_TEST_INA_DRIVER=ROOT          the chip as its datasheet says (TI SBOS576, "Averaging
 *                                    function"): an exponential average of time constant
 *                                    429.6 ms (512 samples, update_interval 430 ms) of a
 *                                    current that takes a new level every 430 ms, 952 and
 *                                    925 mA in turn, each +-2 mA of noise (a fixed
 *                                    sequence: a real sensor's means never repeat exactly,
 *                                    and blocks that all agree to the bit would give an
 *                                    interval of 0); the register written every 25 ms, as
 *                                    a whole mA; an OC event every 430 ms
 *   TB_TEST_INA_DRIVER=ROOT,boxcar   what the tool assumed before: a new mean every 430 ms
 *                                    (those levels), held between
 *   TB_TEST_INA_DRIVER=ROOT,ramp     the current climbs 1% every 430 ms from the run's start
 *                                    (a board warming; it wraps after 200 steps, 86 s),
 *                                    through the average
 *   TB_TEST_INA_DRIVER=ROOT,still    nothing changes (a static sensor)
 *   TB_TEST_INA_DRIVER=ROOT,modes    every 50 ms the watts of the nvpmodel mode the root's
 *                                    status names: its idle watts plus its dynamic watts
 *                                    times how busy the device was over the last 100 ms
 *                                    (the share of it the load spent: tb_clock_spent_ns).
 *                                    15W: 3.0 + 1.0 W, 25W: 3.5 + 2.0, MAXN_SUPER: 4.0 + 3.5
 *   TB_TEST_SLOW_READ_MS=N           every read of an hwmon *_input file blocks N ms first
 *                                    (real time), as JetPack 5's 5.10 driver waits for the
 *                                    conversion-ready flag on each read (OE4T
 *                                    linux-tegra-5.10 drivers/hwmon/ina3221.c,
 *                                    ina3221_wait_for_data): read() of this executable is
 *                                    this file's, in the tool and in its safeio readers
 * Without them, nothing: the executable is the tool. Not for the tool itself (tests only). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"

#define HWMON "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1"
#define OC "sys/class/hwmon/hwmon3/oc3_event_cnt"
#define UPDATE_NS (430 * 1000000LL)
#define TICK_NS (25 * 1000000LL)          /* how often the average's register is written */
#define TAU_MS 429.6                      /* -cycle / ln(1 - 1/512), cycle = 430 ms / 512 */
/* off the sampler's grid of whole milliseconds: an update and a poll never fall on the same
 * virtual nanosecond, where which came first would be a race */
#define PHASE_NS 123457LL

static struct {
    char root[PATH_MAX];
    int ramp, modes, boxcar;
} drv;

/* Written whole: a temporary renamed over the file, so a read never sees half a number. */
static void put(const char *rel, long value)
{
    char path[PATH_MAX + 128], tmp[PATH_MAX + 132], text[32];
    snprintf(path, sizeof(path), "%s/%s", drv.root, rel);
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    int n = snprintf(text, sizeof(text), "%ld\n", value);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) < 0 || rename(tmp, path) < 0)
        fprintf(stderr, "fake_ina_driver: cannot write '%s': %s\n", path, strerror(errno));
}

/* The mode the fake nvpmodel's status names ("pmode:000N ..."), MAXN_SUPER (2) if none. */
static int status_mode(void)
{
    char path[PATH_MAX + 32], buf[64] = "";
    snprintf(path, sizeof(path), "%s/var/lib/nvpmodel/status", drv.root);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    int mode = strlen(buf) > 9 ? atoi(buf + 6) : 2;
    return mode >= 0 && mode < 4 ? mode : 2;
}

/* The ",modes" sensor: a new VDD_IN mean every 50 ms, from the mode and how busy. */
static void *modes_main(void *arg)
{
    static const double idle_w[] = { 3.0, 3.5, 4.0, 2.8 }, dyn_w[] = { 1.0, 2.0, 3.5, 0.6 };
    const int64_t step = 50 * 1000000LL;
    int64_t next = tb_now_ns() + PHASE_NS, last[2] = { -1, -1 };   /* spent 100 ms ago */
    for (int i = 0;; i++) {
        int64_t t = tb_clock_spent_ns();
        double busy = last[i % 2] >= 0 ? (double)(t - last[i % 2]) / (2.0 * (double)step) : 0;
        busy = busy < 0 ? 0 : busy > 1 ? 1 : busy;
        last[i % 2] = t;
        int mode = status_mode();
        double w = idle_w[mode] + dyn_w[mode] * busy;
        put(HWMON "/curr1_input", (long)(w / 5.048 * 1000 + (i % 2 ? 2 : -2)));
        next += step;
        tb_sleep_until_ns(next);
    }
    return NULL;
}

/* The current the chip measures in the i-th 430 ms. */
static double level_ma(int i)
{
    if (drv.ramp)
        return 900 * pow(1.01, i % 200);
    return (i % 2 ? 925 : 952) + (long)(((unsigned)i * 2654435761u) >> 16) % 5 - 2;
}

static void *driver_main(void *arg)
{
    int64_t start = tb_now_ns() + PHASE_NS, next = start;
    long oc = 17;
    double reg = level_ma(0);
    for (int i = 0, step = -1;; next += drv.boxcar ? UPDATE_NS : TICK_NS) {
        i = (int)((next - start) / UPDATE_NS);
        if (drv.boxcar) {
            put(HWMON "/curr1_input", (long)level_ma(i));
        } else {   /* the average over the tick at this level: r -> x + (r - x) e^(-dt/tau) */
            double x = level_ma(i);
            reg = x + (reg - x) * exp(-(double)TICK_NS * 1e-6 / TAU_MS);
            put(HWMON "/curr1_input", lround(reg));
        }
        if (i != step) {
            put(OC, ++oc);
            step = i;
        }
        tb_sleep_until_ns(next);
    }
    return NULL;
}

__attribute__((constructor)) static void fake_ina_driver_start(void)
{
    const char *e = getenv("TB_TEST_INA_DRIVER");
    if (!e || !*e)
        return;
    snprintf(drv.root, sizeof(drv.root), "%s", e);
    char *mode = strrchr(drv.root, ',');
    if (mode)
        *mode++ = '\0';
    if (mode && !strcmp(mode, "still"))
        return;   /* the files stay as the last run left them */
    drv.ramp = mode && !strcmp(mode, "ramp");
    drv.modes = mode && !strcmp(mode, "modes");
    drv.boxcar = mode && !strcmp(mode, "boxcar");
    pthread_t t;
    tb_clock_join();   /* before it starts: no time passes until it sleeps */
    if (pthread_create(&t, NULL, drv.modes ? modes_main : driver_main, NULL) != 0) {
        tb_clock_leave();
        fprintf(stderr, "fake_ina_driver: cannot start\n");
        return;
    }
    pthread_detach(t);
}

/* read(2) as the 5.10 driver makes it for a rail's file: the first read of an open hwmon
 * *_input file waits TB_TEST_SLOW_READ_MS first; any other read is the system's. */
ssize_t read(int fd, void *buf, size_t n)
{
    static long slow_ms = -1;
    if (slow_ms < 0) {
        const char *e = getenv("TB_TEST_SLOW_READ_MS");
        slow_ms = e ? atol(e) : 0;
    }
    char link[64], path[PATH_MAX];
    ssize_t k;
    if (slow_ms > 0 && lseek(fd, 0, SEEK_CUR) == 0 &&
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd) > 0 &&
        (k = readlink(link, path, sizeof(path) - 1)) > 6) {
        path[k] = '\0';
        if (strstr(path, "/hwmon/") && !strcmp(path + k - 6, "_input")) {
            struct timespec ts = { slow_ms / 1000, slow_ms % 1000 * 1000000L };
            while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
        }
    }
    return syscall(SYS_read, fd, buf, n);
}
