/* feed.h: what the sampler reads, apart from the thread that reads it (#59): the ring of
 * readings, whether the source was lost and why, the readings' health (dropped, silences,
 * when the last came), the poll the thread keeps, the sensor's cadence as the run's readers
 * should see it, and the device as last identified. The sampler (sampler.c) makes one at
 * start, fills it from its thread and frees it at stop; a reader takes it once
 * (tb_sampler_feed) and from then on reads through the functions below, never the sampler:
 * the energy meter's plan (energy/plan.c) does so, and is energy's only reader of this
 * header (plan.h declares struct tb_feed alone; scripts/call-seams.txt holds it). Not here: the source, its ops, the
 * thread and its clock (sampler.c).
 *
 * Who may call what, from which thread (the lock discipline of the sampler before it):
 *  - the readings: tb_feed_put from the sampler thread only; tb_feed_window from any
 *    thread; both under the feed's mutex, held for one reading's write or one span's copy;
 *  - lost, health, poll: atomics, written by the sampler thread (tb_feed_lose,
 *    tb_feed_heard, tb_feed_drop, tb_feed_silence, tb_feed_set_poll_ms), read anywhere; the
 *    why is written once, before the flag that says it is there, and never after;
 *  - rails and the source's name: set by tb_feed_new before the thread starts, then read only;
 *  - the cadence and the device: no lock; written by the one thread that runs the night
 *    (the sampler's start, the night's probe, the meter's first idle, a mode step's
 *    identify), read by the same thread; the sampler thread never touches them. */
#ifndef TB_POWER_FEED_H
#define TB_POWER_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "power/power.h"

struct tb_feed;

/* A feed for a ring of capacity readings (1 at least) of rails, from the source named
 * source (kept by pointer: a source's static name). NULL: out of memory. Its cadence period
 * NAN, its limit NAN, its last reading heard_ns: the sampler gives the time before it
 * opened the source, so a source slow to open and then silent is silent from the start. */
struct tb_feed *tb_feed_new(size_t capacity, const struct tb_power_rails *rails,
                            const char *source, int poll_ms, int64_t heard_ns);
void tb_feed_free(struct tb_feed *f);

/* ---- the producer: the sampler thread ---- */
/* One good reading into the ring (the oldest overwritten once full), and its time as the
 * last heard (now_ns). */
void tb_feed_put(struct tb_feed *f, const struct tb_power_sample *smp, int64_t now_ns);
/* A reading dropped as absurd (below 0 or above the ceiling). */
void tb_feed_drop(struct tb_feed *f);
/* A silence began; true for the feed's first (said once on stderr by the thread). */
bool tb_feed_silence(struct tb_feed *f);
/* The source failed for good: why kept (a copy), then the flag set. */
void tb_feed_lose(struct tb_feed *f, const char *why);
/* The poll the thread keeps from now (lengthened for a slow sensor). */
void tb_feed_set_poll_ms(struct tb_feed *f, int poll_ms);
/* Readings put since the start. */
uint64_t tb_feed_total(const struct tb_feed *f);

/* ---- the readers ---- */
/* The readings with t in [t0_ns - margin, t1_ns + margin], copied in time order (malloc; *n
 * of them, NULL when none or out of memory). Holds the lock for the copy only. */
struct tb_power_sample *tb_feed_window(struct tb_feed *f, int64_t t0_ns, int64_t t1_ns,
                                       int64_t margin_ns, size_t *n);
const struct tb_power_rails *tb_feed_rails(const struct tb_feed *f);
const char *tb_feed_source(const struct tb_feed *f);
/* True once the source failed mid-run; why ("" while it has not). */
bool tb_feed_lost(const struct tb_feed *f);
const char *tb_feed_lost_why(const struct tb_feed *f);
/* How trustworthy the readings have been (power.h's struct tb_power_health): absurd
 * readings dropped, silences of twice the poll or more, how long since the last reading,
 * the poll now. */
void tb_feed_health(const struct tb_feed *f, struct tb_power_health *h);
/* The interval the thread polls at now. */
int tb_feed_poll_ms(const struct tb_feed *f);
/* The sensor's cadence: as the source's cadence op gave it at start (period NAN: not
 * known), or as the night settled it since (a probe's model; the period the meter's first
 * idle inferred: energy/plan.c), for every reader of the run. */
const struct tb_power_cadence *tb_feed_cadence(const struct tb_feed *f);
void tb_feed_set_cadence(struct tb_feed *f, const struct tb_power_cadence *c);
/* The device's identity and enforced limit as the source last identified them (id "" and
 * limit NAN where it has none). */
const struct tb_power_device *tb_feed_device(const struct tb_feed *f);
void tb_feed_set_device(struct tb_feed *f, const struct tb_power_device *d);

#endif
