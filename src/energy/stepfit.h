/* stepfit.h: what a power sensor does to a step of load, fitted from readings polled across
 * idle / load / idle / load / idle (the `probe-power` command): a first-order (exponential)
 * average against a boxcar (moving mean), with a dead time and a refresh period. Pure
 * arithmetic on arrays: no source, no clock, no file but the stored result's.
 * Energy's second door (door.h is the first): the probe command (cmd/probe*.c) enters
 * energy here and nowhere else. Not here: polling the sensor or running the load
 * (src/cmd/probecmd.c). */
#ifndef TB_STEPFIT_H
#define TB_STEPFIT_H

#include <stddef.h>

/* The fit's search range: a response length (tau or window) within (LEN_MIN, LEN_MAX) and a
 * delay within [0, DELAY_MAX). A best fit at an edge of the range is not a fit (the truth
 * lies outside, or the readings hold no step): tb_stepfit refuses it, and a kept result
 * holding a value outside the range is refused as malformed (stepfit_file.c). */
#define TB_STEPFIT_LEN_MIN_MS 0.2
#define TB_STEPFIT_LEN_MAX_MS 5000.0
#define TB_STEPFIT_DELAY_MAX_MS 500.0

/* One rail's own fit (each INA3221 channel averages by itself; the AGX boards sum rails of
 * two chips whose constants differ): model NULL where its readings held no step. */
#define TB_STEPFIT_MAX_RAILS 16
struct tb_stepfit_rail {
    char name[32];
    const char *model;       /* "ema", "boxcar", "point"; NULL: not fitted */
    double tau_ms, delay_ms;
};

/* The spans probe-power lays out, idle / load / idle / load / idle, in units of its span:
 * all but the first and last longer by odd fractions, so that the four edges fall at four
 * different phases of a sensor that refreshes in steps, for any refresh from 100 to 1000 ms.
 * A staircase's window is seen only through the partial means of the refreshes an edge
 * falls in: with spans of 1, 1, 1.37, 1, 1 (edges at two phases, one of them the refresh's
 * own at 1.5 s spans) a block mean of 100 or 500 ms fitted as well as an exponential of a
 * few ms, or a point sensor, with a delay. 5.72 spans in all. */
#define TB_STEPFIT_SPANS { 1, 1.1137, 1.3711, 1.2389, 1 }

struct tb_stepfit {
    const char *model;       /* "ema", "boxcar" or "point" (a static string) */
    double tau_ms;           /* ema: time constant; boxcar: window length; point: 0 */
    double delay_ms;         /* dead time before the reading moves */
    double refresh_ms;       /* shortest interval between changed readings (0: changes every poll) */
    double rms_ema_w, rms_boxcar_w; /* residuals of the two fits */
    char board[128], l4t[64];       /* tb_stepfit_parse: the file's own board and l4t lines
                                     * ("" where it has none) */
    int nrails;                     /* the rails fitted one by one (0: the total alone) */
    struct tb_stepfit_rail rail[TB_STEPFIT_MAX_RAILS];
};

/* t_ms/watts: n polled readings; edge_ms: times the load switched, alternately on and off,
 * starting with on. 0 or -errno, why filled.
 * The ideal input is 0 before the first edge and alternates at each; each model is
 * idle + (load - idle) x response(t - delay), idle and load free (least squares), the
 * response's length and the delay searched. A reading held between refreshes (a staircase)
 * is modelled as the response at the last refresh before the poll. The better residual wins;
 * a response shorter than the median poll interval is a point sensor ("point", tau_ms 0).
 * -EINVAL: too few readings (< 20), times not increasing, a value not finite, fewer than two
 * edges or edges not increasing, the first edge after the last reading; -ERANGE: the load
 * did not move the readings beyond their noise, or the better model's best fit lies at the
 * upper edge of the search range (within 1% of it: no fit). */
int tb_stepfit(const double *t_ms, const double *watts, size_t n, const double *edge_ms,
               size_t n_edges, struct tb_stepfit *out, char *why, size_t whylen);

/* One model alone ("ema" or "boxcar"), the refresh period given (0: continuous): its
 * length (tau or window), delay and rms residual. 0 or -errno (as tb_stepfit's checks). */
int tb_stepfit_model(const double *t_ms, const double *watts, size_t n, const double *edge_ms,
                     size_t n_edges, const char *model, double refresh_ms, double *len_ms,
                     double *delay_ms, double *rms_w, char *why, size_t whylen);

/* The refresh period of readings: 0 when they change at (about) every poll, else the
 * interval between changes, refined over the whole run. */
double tb_stepfit_refresh(const double *t_ms, const double *watts, size_t n);

/* The stored file's first line starts so (not "# transpose-bench", a log's start: an output
 * never replaces a log, lib/outfile.c). */
#define TB_STEPFIT_HEAD "# probe-power result"

/* The result as the stored file's text (libconfig syntax, `key = value;` lines after the
 * TB_STEPFIT_HEAD line, board and release first, the total rail's fit, then each rail's:
 * `railK = "NAME"; railK_model = ...; railK_tau_ms = ...; railK_delay_ms = ...;`, K from 1,
 * railK_model "none" for a rail that held no step). Returns the length, or -ENOSPC when buf
 * is too small. */
int tb_stepfit_format(const struct tb_stepfit *fit, const char *board, const char *l4t,
                      char *buf, size_t n);

/* The stored result at path (a file tb_stepfit_format wrote; read bounded, no link, regular
 * file only): 0 with *out filled, or -errno with why naming the file, line and setting. */
int tb_stepfit_load(const char *path, struct tb_stepfit *out, char *why, size_t whylen);
/* Whether a parsed result was kept for this board and release: its board and l4t lines
 * against board and l4t written as tb_stepfit_format writes them. 0, or -ESTALE with why
 * naming path and the line that differs. */
int tb_stepfit_matches(const struct tb_stepfit *fit, const char *path, const char *board,
                       const char *l4t, char *why, size_t whylen);
/* The same from text already read (buf, NUL-terminated, changed in place), path only
 * naming it in why: for a caller that opened and checked the file itself (a night's,
 * src/cmd/probe_night.c: whose file it is, who may write it). */
int tb_stepfit_parse(const char *path, char *buf, struct tb_stepfit *out, char *why,
                     size_t whylen);

#endif
