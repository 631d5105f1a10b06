/* alarm.c: see alarm.h. The rule, on y = log(x) so that changes are relative:
 *   segment: the nights since the series began, or since its last change began; the first
 *   night judged is the 11th of a series, the 6th of a segment;
 *   level m: the median of up to 30 nights of the segment before the night, or before the
 *   night a rising sum began, held there until both sums have stayed at 0 for 5 nights (a
 *   change under way never moves its own reference, nor does one whose sum dipped to 0 for
 *   a night or two: the step's nights would drag the level after it);
 *   noise s: the sd the night-to-night differences give (up to 60, none across a change's
 *   first night: tb_sd_of_steps_rms, a step's or a bad night's differences cut), or, where
 *   the 30 nights before switch between two states (two_state_spread), 0.75 x the distance
 *   of the states if that is larger; then x t95(df) / 1.96 for the differences' df (a noise
 *   learned from 9 differences is not trusted as one from 60), never below 0.1%. Not the
 *   level's nights' spread (their interquartile range, a max with it until #60's second
 *   pass): it is a third as efficient as the differences, the max of the two is biased up
 *   (alarm-sim at 1% noise: learned over true sd 1.15 median, 1.45 at the 90th percentile,
 *   where the differences alone give 1.05 and 1.29), and it grows with a step's nights in
 *   the window: the missed 3% steps at 1% noise were those;
 *   z = (y - m) / (s sqrt(1 + pi / (2 L))) (a median of L nights has variance pi/2 s^2 / L),
 *   winsorized at +-3;
 *   S+ = max(0, S+ + z - k'), S- = max(0, S- - z - k'), k' = k + sqrt(pi / (2 L)) (the
 *   level's error, alike for every night it judges, would be a drift the sum gathers); a
 *   change where either passes h; it began the night its sum last left 0, and the segment
 *   restarts there.
 * The operating point (Page's CUSUM; Siegmund's approximation of the average run length,
 * ARL(d) = (exp(-2 D b) + 2 D b - 1) / (2 D^2), D = d - k, b = h + 1.166; Montgomery,
 * Introduction to Statistical Quality Control, 9.2): k = 1 (tuned for a shift of 2 sds: a 3%
 * step at 1% noise reads about 2.5 once the level and noise are estimated) and h = 3.6 give
 * about 6,900 nights per side with no change (0.009 false alarms per series-month for both
 * sides when the level and noise are known) and 2.3 nights for a shift of 3 sds (2.5 with
 * k' = 1.23); the winsorizing at 3 sd lets a night far out add 3 - k' <= 1.77 (L is 30 at
 * most), so that two of them (two bad nights in a row, two nights of a two-state series'
 * other state before its states are learned: 3.54 < h, h the least above it) are never a
 * change from a sum at rest and three (a large step's third night: 4.8 or more) always
 * are. Two bad nights in a row were a change at the point before (k 1.25, h 3.25, the clip
 * moving with k': 3.5 > h): 0.02^2 of the nights, 0.012 false alarms per series-month, a
 * third of #60's budget, spent on what is no change. k' and the t factor trade some speed
 * for the estimated level and noise (without k', alarm-sim's false alarms triple).
 * What alarm-sim measured (bad nights, two-state series, estimated level and noise):
 * doc/results/alarm-2026-12-07.md. Not here: which nights form a series, what is shown
 * (history.c, history_alarm.c). */
#include "report/alarm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

const struct tb_alarm_rule tb_alarm_rule_default = {
    .k = 1.0, .h = 3.6, .clip = 3.0, .first_nights = 10, .warmup = 5, .hold = 5,
    .level_nights = 30,
    .noise_nights = 60,
    .floor_rel = 0.001,
};

/* The scan's buffers and running state. */
struct scan {
    const struct tb_alarm_rule *r;
    double *y, *w, *d, *z;     /* log values, work, differences, residuals */
    bool *cut;                 /* cut[i]: y[i] - y[i-1] straddles a change's begin */
    size_t seg;                /* the segment's first night */
    size_t nl;                 /* nights in the latest level */
    size_t *npre;              /* npre[i]: the nights night i's level is the median of */
};

/* The level of night i (log units) from the segment's nights before upto (the night a
 * rising sum began: a change under way never moves its own reference), and the spread of
 * those nights about it: the interquartile range over 1.349 (the noise only where no
 * night-to-night difference is left: noise_of says why not more). */
static double level_of(struct scan *sc, size_t upto, double *sd_res)
{
    size_t lo = upto - sc->seg > sc->r->level_nights ? upto - sc->r->level_nights : sc->seg;
    size_t nl = upto - lo;
    memcpy(sc->w, sc->y + lo, nl * sizeof(double));
    double m = tb_median(sc->w, nl);   /* sorts w */
    double q1 = sc->w[(nl - 1) / 4], q3 = sc->w[nl - 1 - (nl - 1) / 4];
    *sd_res = nl >= 4 ? (q3 - q1) / 1.349 : NAN;
    sc->nl = nl;
    return m;
}

/* The spread of the nights [lo, upto) regardless of changes, where they switch between two
 * states: then 0.75 x the distance between the states' medians, so that a switch reads as
 * 1.33 sd, near the reference value k' (1.23 at 30 nights): the sum gathers little from
 * switches and a change must leave both states behind to alarm. Two states: sorted, the
 * nights have a gap (the widest between neighbours with a tenth of the nights, 3 at least,
 * on either side: a bad night alone is no state; a fifth until #60's second pass left a
 * series with 5 of 30 nights in its other state unlearned, 8 sd away at 0.5% noise) over
 * 1.5 times the sd the differences' median gives (sd_med; normal noise leaves gaps of half
 * an sd among 30 nights), and in time order they cross that gap at least 4 times (twice
 * there and back: a lasting step crosses once, and once more with a bad night after it), or
 * 2 changes were found among them. Else NAN. */
static double two_state_spread(struct scan *sc, const struct tb_alarm *a, size_t lo,
                               size_t upto, double sd_med)
{
    size_t nw = upto - lo, edge = (nw + 9) / 10 > 3 ? (nw + 9) / 10 : 3, cut = 0;
    if (nw < 10 || !(sd_med > 0))
        return NAN;
    double *w = sc->w;
    memcpy(w, sc->y + lo, nw * sizeof(double));
    tb_median(w, nw);   /* sorts */
    for (size_t j = edge; j + edge <= nw; j++)
        if (!cut || w[j] - w[j - 1] > w[cut] - w[cut - 1])
            cut = j;
    if (!cut || w[cut] - w[cut - 1] <= 1.5 * sd_med)
        return NAN;
    double t = (w[cut] + w[cut - 1]) / 2;
    double sep = tb_median(w + cut, nw - cut) - tb_median(w, cut);
    int last = 0, crossings = 0, changes = 0;
    for (size_t j = lo; j < upto; j++) {
        int side = sc->y[j] > t ? 1 : -1;
        crossings += last && side != last;
        last = side;
    }
    for (size_t c = 0; c < a->nch; c++)
        changes += a->ch[c].begin >= lo;
    return crossings >= 4 || changes >= 2 ? 0.75 * sep : NAN;
}

/* The noise at night i (log units, as a fraction): the differences before it (the level's
 * spread sd_res where none), the two states' spread of the 30 nights before it. */
static double noise_of(struct scan *sc, const struct tb_alarm *a, size_t i, size_t upto,
                       double sd_res)
{
    size_t nd = 0, from = i > sc->r->noise_nights ? i - sc->r->noise_nights : 1;
    for (size_t j = from; j < i; j++)
        if (!sc->cut[j])
            sc->d[nd++] = sc->y[j] - sc->y[j - 1];
    double sd = nd ? tb_sd_of_steps_rms(sc->d, nd, 0, NULL) : NAN;
    double sd_med = nd ? tb_sd_of_steps(sc->d, nd) : NAN;   /* reorders d: after the rms */
    if (!(sd > 0))
        sd = sd_res;   /* no difference learned */
    double two = two_state_spread(sc, a, upto > 30 ? upto - 30 : 0, upto, sd_med);
    if (two > sd)
        sd = two;
    if (nd)
        sd *= tb_t95_df(tb_steps_rms_df(nd)) / 1.96;
    return isfinite(sd) && sd > sc->r->floor_rel ? sd : sc->r->floor_rel;
}

/* One change into a (the oldest dropped past TB_ALARM_MAX). */
static void add_change(struct tb_alarm *a, const struct tb_alarm_change *c)
{
    if (a->nch == TB_ALARM_MAX) {
        memmove(a->ch, a->ch + 1, (TB_ALARM_MAX - 1) * sizeof(*a->ch));
        a->nch--;
    }
    a->ch[a->nch++] = *c;
    a->nch_all++;
}

/* The size of change c with its interval: the median of its nights (to the next change, at
 * most 30) against the level before it, each median's variance pi/2 s^2 / n. */
static void size_change(const struct scan *sc, struct tb_alarm_change *c, size_t end,
                        size_t npre)
{
    size_t np = end - c->begin < 30 ? end - c->begin : 30;
    double *w = sc->w;
    memcpy(w, sc->y + c->begin, np * sizeof(double));
    double after = tb_median(w, np), before = log(c->before);
    c->change_pct = (exp(after - before) - 1) * 100;
    double v = M_PI / 2 * c->sd_rel * c->sd_rel * (1.0 / (double)np + 1.0 / (double)npre);
    c->ci95_pct = 1.96 * sqrt(v) * exp(after - before) * 100;
}

/* One judged night: the CUSUM step. Returns +1/-1 when a change is found (its begin in *b).
 * The reference value grows by the level's own error in sds (a median of L nights is off by
 * sqrt(pi / (2 L)) sd, alike for every night it judges: a drift the sum would gather); the
 * clip does not: a night far out adds clip - k' (1.77 at most), two of them less than h,
 * three more (1.44 at least each: a level has 5 nights or more; a large step flagged on its
 * third night). */
static int cusum(struct scan *sc, size_t i, double z, double s[2], size_t bg[2], size_t *b)
{
    const struct tb_alarm_rule *r = sc->r;
    double k = r->k + sqrt(M_PI / (2.0 * (double)sc->nl));
    double zc = z > r->clip ? r->clip : z < -r->clip ? -r->clip : z;
    for (int side = 0; side < 2; side++) {
        if (s[side] == 0)
            bg[side] = i;   /* a rise starts here */
        double v = s[side] + (side ? -zc : zc) - k;
        s[side] = v > 0 ? v : 0;
    }
    for (int side = 0; side < 2; side++)
        if (s[side] > r->h) {
            *b = bg[side];
            return side ? -1 : 1;
        }
    return 0;
}

/* Each night's state from the changes and residuals. */
static void mark_nights(const struct scan *sc, const struct tb_alarm *a, double *level,
                        unsigned char *night)
{
    size_t n = a->n;
    for (size_t i = 0; i < n; i++)
        if (night)
            night[i] = isnan(sc->z[i]) ? TB_AN_UNJUDGED
                       : fabs(sc->z[i]) >= sc->r->clip ? (i + 1 == n ? TB_AN_LATEST_OFF
                                                                      : TB_AN_OFF)
                       : TB_AN_QUIET;
    for (size_t c = 0; c < a->nch; c++) {
        size_t end = c + 1 < a->nch ? a->ch[c + 1].begin : n;
        for (size_t i = a->ch[c].begin; i < end; i++) {
            if (night)
                night[i] = i == a->ch[c].begin ? TB_AN_BEGIN : TB_AN_IN;
            if (level)
                level[i] = a->ch[c].before;
        }
    }
}

static void scan_nights(struct scan *sc, struct tb_alarm *a, double *level)
{
    double s[2] = { 0, 0 };
    size_t bg[2] = { 0, 0 }, held = 0, quiet = 0;   /* held: the reference's night, 0 none */
    double *lv = level ? level : sc->d + a->n;   /* d has room for 2n: n differences, n levels */
    for (size_t i = 0; i < a->n; i++) {
        sc->z[i] = lv[i] = NAN;
        if (i - sc->seg < (a->nch_all ? sc->r->warmup : sc->r->first_nights))
            continue;
        size_t upto = i;   /* the reference stays where a rising sum found it */
        for (int side = 0; side < 2; side++)
            if (s[side] > 0 && bg[side] < upto && bg[side] >= sc->seg + sc->r->warmup / 2 + 1)
                upto = bg[side];
        if (upto < i) {   /* and there until both sums have rested hold nights */
            quiet = 0;
            held = held && held < upto ? held : upto;
        } else if (held && ++quiet >= sc->r->hold) {
            held = 0;
        }
        upto = held ? held : upto;
        double sd_res, m = level_of(sc, upto, &sd_res);
        double sd = noise_of(sc, a, i, upto, sd_res);
        sc->z[i] = (sc->y[i] - m) / (sd * sqrt(1 + M_PI / (2.0 * (double)sc->nl)));
        lv[i] = exp(m);
        sc->npre[i] = sc->nl;
        a->sd_rel = sd;
        a->judged++;
        size_t b;
        int dir = cusum(sc, i, sc->z[i], s, bg, &b);
        if (!dir)
            continue;
        struct tb_alarm_change c = { b, i, dir, lv[b], NAN, NAN, sd };
        add_change(a, &c);
        sc->cut[b] = true;
        sc->seg = b;
        s[0] = s[1] = 0;
        held = 0;
    }
    for (size_t c = 0; c < a->nch; c++) {
        size_t end = c + 1 < a->nch ? a->ch[c + 1].begin : a->n;
        size_change(sc, &a->ch[c], end, sc->npre[a->ch[c].begin]);
    }
}

int tb_alarm_scan(const double *x, size_t n, const struct tb_alarm_rule *r, struct tb_alarm *a,
                  double *level, unsigned char *night)
{
    memset(a, 0, sizeof(*a));
    a->sd_rel = NAN;
    struct scan sc = { .r = r ? r : &tb_alarm_rule_default };
    size_t m = n ? n : 1;
    sc.y = malloc(m * sizeof(double));
    sc.w = malloc(m * sizeof(double));
    sc.d = malloc(2 * m * sizeof(double));
    sc.z = malloc(m * sizeof(double));
    sc.cut = calloc(m, sizeof(bool));
    sc.npre = calloc(m, sizeof(size_t));
    int rc = sc.y && sc.w && sc.d && sc.z && sc.cut && sc.npre ? 0 : -1;
    if (rc == 0) {
        a->n = n;
        for (size_t i = 0; i < n; i++)
            sc.y[i] = log(x[i]);
        scan_nights(&sc, a, level);
        mark_nights(&sc, a, level, night);
    }
    free(sc.y);
    free(sc.w);
    free(sc.d);
    free(sc.z);
    free(sc.cut);
    free(sc.npre);
    return rc;
}

const struct tb_alarm_change *tb_alarm_latest(const struct tb_alarm *a)
{
    return a->nch ? &a->ch[a->nch - 1] : NULL;
}
