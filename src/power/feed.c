/* feed.c: see feed.h. The readings' store between the sampler thread and its readers: a
 * ring allocated once, a mutex held only to write one reading or copy one span, atomics for
 * what the thread says of the source (lost, dropped, silences, last heard, the poll). It
 * reads no source and runs no thread (sampler.c does). */
#include "power/feed.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/util.h"

struct tb_feed {
    pthread_mutex_t lock;       /* the ring, head, count and total */
    struct tb_power_sample *ring;
    size_t cap, head, count;    /* head: next write; count: valid readings */
    uint64_t total;
    struct tb_power_rails rails;
    const char *source;
    atomic_int poll_ms;         /* the thread's poll, lengthened for a slow sensor */
    atomic_int lost;
    char why[256];              /* written before lost is set, never after */
    atomic_ullong dropped;      /* readings outside [0, the ceiling] */
    atomic_ullong silences;     /* times the source went quiet for 2 polls or more */
    atomic_llong last_ns;       /* when the last good reading came */
    struct tb_power_cadence cadence;
    struct tb_power_device device;
};

struct tb_feed *tb_feed_new(size_t capacity, const struct tb_power_rails *rails,
                            const char *source, int poll_ms, int64_t heard_ns)
{
    struct tb_feed *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->cap = capacity ? capacity : 1;
    if (!(f->ring = calloc(f->cap, sizeof(*f->ring)))) {
        free(f);
        return NULL;
    }
    pthread_mutex_init(&f->lock, NULL);
    f->rails = *rails;
    f->source = source;
    atomic_store(&f->poll_ms, poll_ms);
    atomic_store(&f->last_ns, heard_ns);
    f->cadence.period_ms = NAN;
    f->device.limit_w = NAN;
    return f;
}

void tb_feed_free(struct tb_feed *f)
{
    if (!f)
        return;
    pthread_mutex_destroy(&f->lock);
    free(f->ring);
    free(f);
}

void tb_feed_put(struct tb_feed *f, const struct tb_power_sample *smp, int64_t now_ns)
{
    atomic_store(&f->last_ns, now_ns);
    pthread_mutex_lock(&f->lock);
    f->ring[f->head] = *smp;
    f->head = (f->head + 1) % f->cap;
    if (f->count < f->cap)
        f->count++;
    f->total++;
    pthread_mutex_unlock(&f->lock);
}

void tb_feed_drop(struct tb_feed *f) { atomic_fetch_add(&f->dropped, 1); }
bool tb_feed_silence(struct tb_feed *f) { return atomic_fetch_add(&f->silences, 1) == 0; }

void tb_feed_lose(struct tb_feed *f, const char *why)
{
    if (atomic_load(&f->lost))
        return;   /* the why is never written after the flag */
    tb_strlcpy(f->why, why, sizeof(f->why));
    atomic_store(&f->lost, 1);
}

void tb_feed_set_poll_ms(struct tb_feed *f, int poll_ms) { atomic_store(&f->poll_ms, poll_ms); }

uint64_t tb_feed_total(const struct tb_feed *f)
{
    struct tb_feed *w = (struct tb_feed *)f;   /* the lock, not the feed, changes */
    pthread_mutex_lock(&w->lock);
    uint64_t n = w->total;
    pthread_mutex_unlock(&w->lock);
    return n;
}

static bool in_span(const struct tb_power_sample *p, int64_t t0, int64_t t1, int64_t margin)
{
    return p->t_ns >= t0 - margin && p->t_ns <= t1 + margin;
}

struct tb_power_sample *tb_feed_window(struct tb_feed *f, int64_t t0_ns, int64_t t1_ns,
                                       int64_t margin_ns, size_t *n)
{
    *n = 0;
    pthread_mutex_lock(&f->lock);
    size_t start = (f->head + f->cap - f->count) % f->cap, k = 0;
    for (size_t i = 0; i < f->count; i++)
        k += in_span(&f->ring[(start + i) % f->cap], t0_ns, t1_ns, margin_ns);
    struct tb_power_sample *buf = k ? malloc(k * sizeof(*buf)) : NULL;
    for (size_t i = 0; buf && i < f->count && *n < k; i++) {
        const struct tb_power_sample *p = &f->ring[(start + i) % f->cap];
        if (in_span(p, t0_ns, t1_ns, margin_ns))
            buf[(*n)++] = *p;
    }
    pthread_mutex_unlock(&f->lock);
    return buf;
}

const struct tb_power_rails *tb_feed_rails(const struct tb_feed *f) { return &f->rails; }
const char *tb_feed_source(const struct tb_feed *f) { return f->source; }
bool tb_feed_lost(const struct tb_feed *f) { return atomic_load(&((struct tb_feed *)f)->lost); }
const char *tb_feed_lost_why(const struct tb_feed *f) { return tb_feed_lost(f) ? f->why : ""; }
int tb_feed_poll_ms(const struct tb_feed *f) { return atomic_load(&((struct tb_feed *)f)->poll_ms); }

void tb_feed_health(const struct tb_feed *f, struct tb_power_health *h)
{
    struct tb_feed *w = (struct tb_feed *)f;   /* atomics read, nothing written */
    h->dropped = atomic_load(&w->dropped);
    h->silences = atomic_load(&w->silences);
    h->quiet_ms = (double)(tb_now_ns() - atomic_load(&w->last_ns)) / 1e6;
    h->poll_ms = atomic_load(&w->poll_ms);
}

const struct tb_power_cadence *tb_feed_cadence(const struct tb_feed *f) { return &f->cadence; }
void tb_feed_set_cadence(struct tb_feed *f, const struct tb_power_cadence *c) { f->cadence = *c; }
const struct tb_power_device *tb_feed_device(const struct tb_feed *f) { return &f->device; }
void tb_feed_set_device(struct tb_feed *f, const struct tb_power_device *d) { f->device = *d; }
