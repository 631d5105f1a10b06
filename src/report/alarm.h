/* alarm.h: the nightly regression alarm of one series of nights (one figure: GB/s, the energy
 * ratio to the copy, or J/GB): the night-to-night noise learned from the series itself, and a
 * sustained change flagged by a two-sided CUSUM on standardized, winsorized residuals. Pure:
 * numbers in, changes out; history (history_alarm.c) feeds it a series' nights, alarm-sim
 * (tests/sim/alarm_sim.c) a simulated fleet's. The rule and its operating point: alarm.c and
 * doc/usage.md ("The regression alarm"). Not here: which nights form a series (history.c). */
#ifndef TB_ALARM_H
#define TB_ALARM_H

#include <stdbool.h>
#include <stddef.h>

/* The rule's constants; all in the noise's standard deviations (sd) except where said. */
struct tb_alarm_rule {
    double k;              /* CUSUM reference value: half the shift it is tuned for */
    double h;              /* decision interval: a sum beyond it is a change */
    double clip;           /* each night's residual winsorized at +-clip: one bad night adds
                            * at most clip - k' < h / 2, never a change alone, nor two */
    size_t first_nights;   /* nights of a series before its first night judged */
    size_t warmup;         /* nights since a change began before the next night judged */
    size_t hold;           /* nights both sums stay at 0 before the reference moves on */
    size_t level_nights;   /* the level: the median of up to this many nights before */
    size_t noise_nights;   /* the noise: learned from up to this many differences before */
    double floor_rel;      /* the sd never below this fraction of the level */
};
/* The operating point (alarm.c says why): k 1, h 3.6, clip 3, 10 nights, 5, hold 5, 30, 60,
 * 0.1%. */
extern const struct tb_alarm_rule tb_alarm_rule_default;

/* Each night's state, as history shows it. */
enum tb_alarm_state {
    TB_AN_UNJUDGED = 0,    /* too few nights before it in its segment */
    TB_AN_QUIET,           /* judged, nothing to say */
    TB_AN_OFF,             /* beyond clip sds, a change did not follow: one night off */
    TB_AN_LATEST_OFF,      /* the same on the latest night: not yet a change */
    TB_AN_BEGIN,           /* the first night of a change */
    TB_AN_IN,              /* a later night of that change (until the next one begins) */
};

#define TB_ALARM_MAX 16    /* changes kept per series (the latest; nch_all counts them all) */

struct tb_alarm_change {
    size_t begin, found;   /* its first night, the night the rule flagged it */
    int dir;               /* +1 up, -1 down */
    double before;         /* the level before it (the figure's unit) */
    double change_pct;     /* the nights since it began (to the next change) over before */
    double ci95_pct;       /* half-width of change_pct's 95% interval */
    double sd_rel;         /* the noise learned when it was flagged (fraction) */
};

struct tb_alarm {
    size_t n;              /* nights scanned */
    size_t nch, nch_all;   /* changes kept, changes found */
    struct tb_alarm_change ch[TB_ALARM_MAX];
    size_t judged;         /* nights judged */
    double sd_rel;         /* the latest noise learned (fraction); NAN none */
};

/* Scans x[0..n) (each > 0 and finite: the caller leaves out nights without the figure) in
 * time order. level and night (either may be NULL, else n each) get each night's level it
 * was judged against (inside a change: the level before the change; NAN unjudged) and its
 * state. 0, or -1 out of memory (a said nothing, a->n 0). */
int tb_alarm_scan(const double *x, size_t n, const struct tb_alarm_rule *r, struct tb_alarm *a,
                  double *level, unsigned char *night);

/* The latest change, or NULL. */
const struct tb_alarm_change *tb_alarm_latest(const struct tb_alarm *a);

#endif
