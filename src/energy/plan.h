/* plan.h: the sensor's timing, planned once (#59): the sampler's poll, the sensor's cadence
 * and model, its rails and the device's limit, read from the sampler's feed (power/feed.h)
 * when the night's meter is made, the cadence settled by the first idle, and what follows
 * from them (a block's lead-in, length and patience, the idle's and the window's lengths, the
 * budget's cap) worked out once into one value the meter carries and the window reads (fio
 * computes a job's timing before the run the same way; STYLE.md). This file is also energy's
 * only way to the readings: a span's, whether the source was lost, their health, all through
 * the feed. The plan's constructor asks the sampler for its feed, once; nothing of energy/
 * calls the sampler after (scripts/call-seams.txt, checked by make structure-check). Not
 * here: what a span's readings give (window.c), the blocks (meter.c, meter_ema.c). */
#ifndef TB_ENERGY_PLAN_H
#define TB_ENERGY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "power/power.h"

/* The sampler's feed (power/feed.h), which only plan.c reads: energy's other files reach
 * the readings through the functions below, never the feed itself (scripts/call-seams.txt:
 * no function of energy/ outside plan.c takes a tb_feed_* symbol). */
struct tb_feed;

/* The fewest cycles a size runs (power.budget_s never ends it sooner), and the shortest an
 * inverted block is cut to (time constants). */
#define TB_METER_FEWEST_CYCLES 2
#define TB_METER_MIN_BLOCK_TAUS 1
/* An inverted block's lead-in where reads are slow: this many time constants (the swing
 * then e^-5 = 0.7% of itself). */
#define TB_METER_LEAD_TAUS 5

/* The readings of one span, in time order (malloc'd: tb_power_span_free). */
struct tb_power_span {
    struct tb_power_sample *w;
    size_t n;
};

struct tb_energy_plan {
    /* the sampler's feed, taken once by the constructor (the sampler's to free): readings,
     * losses, health, the poll as it is now; the settled cadence given back to it. Opaque
     * here (feed.h is plan.c's alone): read it through tb_energy_plan_read, _lost, _health,
     * _silent */
    struct tb_feed *feed;
    const struct tb_power_cfg *pc;     /* the night's power settings, by pointer */
    /* as the feed had them when the plan was made */
    const char *source;                /* the source's name */
    int poll_ms;                       /* the poll the thread keeps (sampler.c may have
                                        * lengthened power.interval_ms for a slow sensor) */
    struct tb_power_rails rails;
    struct tb_power_cadence cadence;   /* period (raw: NAN not known), how, detail, scope,
                                        * triggered, the model per rail */
    struct tb_power_device device;     /* the enforced limit a block at is capped */
    bool settled;                      /* the period known, by the source or an idle: the
                                        * plan is final (a later idle learns nothing) */
    /* worked out from them */
    bool counter;                      /* the total is an energy counter (NVML) */
    double period_ms;                  /* the sensor's period where known and > 0, else NAN */
    double tau_ms;                     /* the model's longest time constant (0: none) */
    bool inverts;                      /* an exponential average: blocks inverted */
    double read_ms;                    /* how often a new reading can come */
    bool slow_reads;                   /* reads more than tau / 8 apart */
    double lead_ms;                    /* an inverted block's lead-in; NAN not inverted */
    int need_updates;                  /* clean updates a block must hold */
    double block_cap_ms;               /* the longest an inverted block may be */
    double block_ms;                   /* a block's span */
    int64_t patience_ns;               /* how long a block waits for an update */
    int64_t slice_ns;                  /* one load call between two looks at the sensor */
    double window_ms;                  /* a point's power window (min_readings + 1 periods) */
    double settle_ms;                  /* the wait after a window for the reading closing it */
};

/* The plan over a started sampler s and the night's settings pc (kept by pointer): the
 * sampler's feed taken (tb_sampler_feed: energy's one call of the sampler), its poll, rails,
 * cadence and device read once, the rest worked out from them. */
void tb_energy_plan_make(struct tb_energy_plan *p, struct tb_sampler *s,
                         const struct tb_power_cfg *pc);
/* Settles the cadence after the first idle: the poll as the feed has it now, and where the
 * source gave no period, the one the idle's readings show (tb_power_infer_period: the
 * median of its intervals between changed readings; NAN: not told, the plan stays as it
 * is), said as "inferred", given to the feed too (tb_feed_set_cadence: the run's other
 * readers), and the plan worked out again. Returns the period in ms, NAN where not known. */
double tb_energy_plan_learn(struct tb_energy_plan *p, double period_ms, size_t intervals);
/* A mode step began: the device's enforced limit read again from the feed (a limit set per
 * mode, which the run asked the source for again: tb_sampler_reidentify). */
void tb_energy_plan_device(struct tb_energy_plan *p);

/* The readings with t in [t0 - margin, t1 + margin] into sp (sp->w NULL, n 0: none or out
 * of memory): the one way energy fetches readings (tb_feed_window). */
void tb_energy_plan_read(const struct tb_energy_plan *p, int64_t t0, int64_t t1,
                         int64_t margin, struct tb_power_span *sp);
void tb_power_span_free(struct tb_power_span *sp);
/* The source failed mid-run (tb_feed_lost); why it did ("" while it has not). */
bool tb_energy_plan_lost(const struct tb_energy_plan *p);
const char *tb_energy_plan_lost_why(const struct tb_energy_plan *p);
/* The readings' health now (tb_feed_health): dropped, silences, how long since one. */
void tb_energy_plan_health(const struct tb_energy_plan *p, struct tb_power_health *h);
/* True (why filled) when the source has said nothing for longer than twice the polling
 * interval and twice the sensor's period, and 250 ms (poll jitter is not silence). */
bool tb_energy_plan_silent(const struct tb_energy_plan *p, char *why, size_t n);

#endif
