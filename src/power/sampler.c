/* sampler.c: the side thread that reads a power source every interval_ms, on absolute
 * CLOCK_MONOTONIC deadlines (no drift), into its feed (feed.c: the ring allocated before it
 * starts, what the thread says of the source; readers read the feed, not this file). The
 * loop allocates nothing and writes no files. A source that fails is reported once, then
 * left alone.
 * Readings the board cannot draw (below 0, above board.max_power_w) are dropped and
 * counted; a source that delivers nothing for twice its interval is said once per silence.
 * The EMC clock is read from sysfs (emc.h) for sources that do not report it. */
#include "power/power.h"
#include "power/feed.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jetson/emc.h"
#include "jetson/throttle.h"
#include "lib/clock.h"
#include "lib/util.h"

struct tb_sampler {
    const struct tb_power_ops *ops;
    void *state;
    struct tb_feed *feed;       /* the readings and what is said of them (feed.h) */
    int asked_ms;               /* the poll asked for */
    double slowest_ms;          /* the longest a reading took */
    int slow_run;               /* readings in a row longer than the poll */
    double slow_min_ms;         /* the quickest of them */
    pthread_t thread;
    atomic_int stop;
    int64_t start_ns;           /* the feed's first "last heard" */
    double max_mw;              /* 0: no ceiling */
    double cpu_ms;
    char why[256];              /* the source's, the thread's only */
    char conditions[256];
    double max_clock_mhz;
    char emc_path[4096];        /* the EMC clock's sysfs file (emc.h); "" when none */
};

/* The EMC clock from sysfs where the source gave none (every source but tegrastats): one
 * bounded read; a file that stops reading is said once and left. */
static void sample_emc(struct tb_sampler *s, struct tb_power_sample *smp)
{
    if (!s->emc_path[0] || !isnan(smp->emc_clock_mhz))
        return;
    char why[sizeof(s->emc_path) + 160];
    smp->emc_clock_mhz = (float)tb_emc_read_mhz(s->emc_path, why, sizeof(why));
    if (isnan(smp->emc_clock_mhz)) {
        warning("EMC clock: %s; later rows carry none", why);
        s->emc_path[0] = '\0';
    }
}

/* Readings that took longer than the poll, SLOW_IN_A_ROW in a row (on the sampler's
 * clock: JetPack 5's INA3221 driver waits for a conversion on every read, 100-430 ms; one
 * reading a busy machine held up is not a slow sensor): the poll lengthened to the whole
 * multiple of the one asked that holds the quickest of them with a quarter to spare, said;
 * never shortened again. */
#define SLOW_IN_A_ROW 3
/* ... and longer than this: a short poll (the probe's 5 ms) on a busy CPU is late now and
 * then without its source blocking; the probe counts the readings it got itself */
#define SLOW_READING_MS 20.0
static void adapt_poll(struct tb_sampler *s, double took_ms)
{
    s->slowest_ms = took_ms > s->slowest_ms ? took_ms : s->slowest_ms;
    int now = tb_feed_poll_ms(s->feed);
    if (took_ms <= now || took_ms <= SLOW_READING_MS) {
        s->slow_run = 0;
        return;
    }
    s->slow_min_ms = s->slow_run++ ? fmin(s->slow_min_ms, took_ms) : took_ms;
    if (s->slow_run < SLOW_IN_A_ROW)
        return;
    s->slow_run = 0;
    took_ms = s->slow_min_ms;
    int k = (int)ceil(1.25 * took_ms / s->asked_ms);
    int longer = k * s->asked_ms;
    tb_feed_set_poll_ms(s->feed, longer);
    warning("power source '%s': %d readings in a row took %.0f ms or more, longer than the "
            "%d ms poll: polled every %d ms from now (doc/power.md, \"The INA3221 drivers as "
            "they are\")", s->ops->name, SLOW_IN_A_ROW, took_ms, now, longer);
}

static void *sampler_main(void *arg)
{
    struct tb_sampler *s = arg;
    int64_t next = tb_now_ns();
    struct tb_power_sample smp;
    bool silent = false;   /* in a silence already counted */
    int64_t heard = s->start_ns;
    while (!atomic_load(&s->stop)) {
        tb_power_sample_clear(&smp);
        int64_t took = tb_now_ns();
        int rc = s->ops->sample(s->state, &smp, s->why, sizeof(s->why));
        adapt_poll(s, (double)(tb_now_ns() - took) * 1e-6);
        if (rc == 0)
            sample_emc(s, &smp);
        bool absurd = false;
        for (int i = 0; rc == 0 && i < tb_feed_rails(s->feed)->n; i++)
            if (smp.rail_mw[i] < 0 || (s->max_mw > 0 && smp.rail_mw[i] > s->max_mw)) {
                smp.rail_mw[i] = NAN;   /* never logged as power */
                absurd = true;
            }
        if (absurd)
            tb_feed_drop(s->feed);
        int64_t now = tb_now_ns();
        if (rc == 0) {
            if (!smp.t_ns)
                smp.t_ns = now;
            if (silent)
                note("power source '%s' speaks again", s->ops->name);
            silent = false;
            heard = now;
            tb_feed_put(s->feed, &smp, now);
        } else if (rc == -EAGAIN) {
            int64_t quiet = now - heard;
            int poll = tb_feed_poll_ms(s->feed);
            /* once per silence: when it passes twice the interval */
            if (quiet > 2LL * poll * 1000000LL && !silent) {
                silent = true;
                if (tb_feed_silence(s->feed))
                    warning("power source '%s' delivered nothing for %lld ms (twice its %d ms "
                            "interval); rows measured meanwhile say so", s->ops->name,
                            (long long)(quiet / 1000000), poll);
            }
        } else {
            tb_feed_lose(s->feed, s->why);
            warning("power source '%s' failed: %s; later rows carry no power figures",
                    s->ops->name, s->why);
            break;
        }
        next += (int64_t)tb_feed_poll_ms(s->feed) * 1000000;
        if (next < tb_now_ns())   /* a reading that overran: the next poll from now */
            next = tb_now_ns();
        while (tb_sleep_until_ns(next) == -EINTR && !atomic_load(&s->stop))
            ;
    }
    tb_clock_leave();
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        s->cpu_ms = (double)cpu.tv_sec * 1e3 + (double)cpu.tv_nsec * 1e-6;
    return NULL;
}

/* What the source says of itself once open, before the thread starts (no concurrent
 * calls into it): its conditions, its device, its cadence, the feed's first word on them. */
static void ask_source(struct tb_sampler *s)
{
    const struct tb_power_ops *ops = s->ops;
    s->max_clock_mhz = NAN;
    if (ops->describe)
        ops->describe(s->state, s->conditions, sizeof(s->conditions), &s->max_clock_mhz);
    struct tb_power_device d = *tb_feed_device(s->feed);
    if (ops->identify)
        ops->identify(s->state, &d);
    tb_feed_set_device(s->feed, &d);
    struct tb_power_cadence c = *tb_feed_cadence(s->feed);
    if (ops->cadence)
        ops->cadence(s->state, &c);
    tb_feed_set_cadence(s->feed, &c);
}

static void sampler_free(struct tb_sampler *s)
{
    tb_feed_free(s->feed);
    free(s->state);
    free(s);
}

int tb_sampler_start(struct tb_sampler **out, const struct tb_power_ops *ops,
                     const struct tb_power_cfg *pc, int interval_ms, size_t capacity,
                     char *why, size_t n)
{
    struct tb_sampler *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    s->ops = ops;
    s->asked_ms = interval_ms > 0 ? interval_ms : 1;
    s->max_mw = pc->max_power_w > 0 ? pc->max_power_w * 1000.0 : 0;
    if (!(s->state = calloc(1, ops->state_size ? ops->state_size : 1))) {
        free(s);
        return -ENOMEM;
    }
    struct tb_power_rails rails;
    memset(&rails, 0, sizeof(rails));
    /* silence is timed from before the open, as it was before the feed (#59): a source
     * whose open took long and that then says nothing has been silent all that while */
    s->start_ns = tb_now_ns();
    int rc = ops->open(s->state, pc, &rails, why, n);
    if (rc) {
        sampler_free(s);
        return rc;
    }
    if (!(s->feed = tb_feed_new(capacity, &rails, ops->name, interval_ms, s->start_ns))) {
        ops->close(s->state);
        sampler_free(s);
        return -ENOMEM;
    }
    tb_emc_find(tb_sys_root(pc->sysfs_root), s->emc_path, sizeof(s->emc_path));
    ask_source(s);
    tb_clock_join();   /* left by the thread as it ends */
    if ((rc = pthread_create(&s->thread, NULL, sampler_main, s))) {
        tb_clock_leave();
        snprintf(why, n, "cannot start the sampler thread: %s", strerror(rc));
        ops->close(s->state);
        sampler_free(s);
        return -rc;
    }
    *out = s;
    return 0;
}

struct tb_feed *tb_sampler_feed(struct tb_sampler *s) { return s->feed; }

/* The feed's reads under the sampler's names, for the readers that hold the sampler (cmd/,
 * measure/, tests): power.h says why there are two names. */
struct tb_power_sample *tb_sampler_window(struct tb_sampler *s, int64_t t0_ns, int64_t t1_ns,
                                          int64_t margin_ns, size_t *n)
{
    return tb_feed_window(s->feed, t0_ns, t1_ns, margin_ns, n);
}
const struct tb_power_rails *tb_sampler_rails(const struct tb_sampler *s)
{
    return tb_feed_rails(s->feed);
}
const struct tb_power_cadence *tb_sampler_cadence(const struct tb_sampler *s)
{
    return tb_feed_cadence(s->feed);
}
void tb_sampler_set_cadence(struct tb_sampler *s, const struct tb_power_cadence *c)
{
    tb_feed_set_cadence(s->feed, c);
}
bool tb_sampler_failed(const struct tb_sampler *s) { return tb_feed_lost(s->feed); }
const char *tb_sampler_why(const struct tb_sampler *s) { return tb_feed_lost_why(s->feed); }
const struct tb_power_device *tb_sampler_device(const struct tb_sampler *s)
{
    return tb_feed_device(s->feed);
}
const char *tb_sampler_source(const struct tb_sampler *s) { return s->ops->name; }
void tb_sampler_health(struct tb_sampler *s, struct tb_power_health *h)
{
    tb_feed_health(s->feed, h);
}

int tb_sampler_clock_reasons(struct tb_sampler *s, unsigned long long *mask)
{
    /* the source serialises its own calls: no lock against the sampler thread's reads */
    return s->ops->reasons ? s->ops->reasons(s->state, mask) : -ENOTSUP;
}

void tb_sampler_reidentify(struct tb_sampler *s)
{
    if (!s->ops->identify)
        return;
    struct tb_power_device d = *tb_feed_device(s->feed);
    s->ops->identify(s->state, &d);
    tb_feed_set_device(s->feed, &d);
}

const char *tb_sampler_conditions(const struct tb_sampler *s, double *max_clock_mhz)
{
    *max_clock_mhz = s->max_clock_mhz;
    return s->conditions;
}

double tb_sampler_stop(struct tb_sampler *s, uint64_t *n_samples)
{
    if (!s)
        return 0;
    atomic_store(&s->stop, 1);
    tb_clock_thread_join(s->thread);   /* time moves as the thread sleeps: no grace */
    s->ops->close(s->state);
    double cpu = s->cpu_ms;
    if (n_samples)
        *n_samples = tb_feed_total(s->feed);
    sampler_free(s);
    return cpu;
}
