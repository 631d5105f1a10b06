/* history.c: `transpose-bench history LOG...`: for each board, host, device, kernel, size, element
 * type and power mode, the best result of each night (the date in the run_id) in time order,
 * with changes beyond the nights' own noise flagged. The rule (also in the usage text):
 *   a night's baseline is the median of the up to 7 nights before it (at least 3), its band
 *   max(3%, 3 x 1.4826 x MAD / median) of the baseline; a change starts at night i when night
 *   i and night i+1 are both beyond the band on the same side (a change-point that holds for
 *   two nights, never one noisy night), and goes on while nights stay beyond the band it
 *   started from.
 * Exit 1 when the latest night is inside a slowdown.
 * Not here: reading logs (compare.c). */
#include "history.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "stats.h"
#include "util.h"

#define HIST_NIGHTS 7       /* nights in a baseline */
#define HIST_MIN_NIGHTS 3   /* fewer: no verdict */
#define HIST_FLOOR 0.03     /* a band never narrower than 3% */

/* The series a row belongs to: board, host, device, kernel, element type, power mode, size. */
static int by_series(const struct tb_compare_rec *x, const struct tb_compare_rec *y)
{
    int c;
    if ((c = strcmp(x->board, y->board)) || (c = strcmp(x->host, y->host)) ||
        (c = strcmp(x->device, y->device)) ||
        (c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->elem, y->elem)) ||
        (c = strcmp(x->power_mode, y->power_mode)))
        return c;
    if (x->rows != y->rows)
        return x->rows < y->rows ? -1 : 1;
    return (x->cols > y->cols) - (x->cols < y->cols);
}

/* Series, then nights in order, the best of a night first. */
static int by_group_night(const void *a, const void *b)
{
    const struct tb_compare_rec *x = a, *y = b;
    int c;
    if ((c = by_series(x, y)) || (c = strcmp(x->night, y->night)))
        return c;
    return (x->gbps < y->gbps) - (x->gbps > y->gbps);   /* best first */
}

static bool same_series(const struct tb_compare_rec *a, const struct tb_compare_rec *b)
{
    return by_series(a, b) == 0;
}

/* Baseline and band of night i from the nights before it; false when too few. */
static bool baseline(const double *x, size_t i, double *base, double *band)
{
    size_t k = i < HIST_NIGHTS ? i : HIST_NIGHTS;
    if (k < HIST_MIN_NIGHTS)
        return false;
    double v[HIST_NIGHTS], d[HIST_NIGHTS];
    memcpy(v, x + i - k, k * sizeof(*v));
    *base = tb_median(v, k);
    for (size_t j = 0; j < k; j++)
        d[j] = fabs(x[i - k + j] - *base);
    double mad = tb_median(d, k);
    *band = fmax(HIST_FLOOR, 3 * 1.4826 * mad / *base);
    return *base > 0;
}

/* -1 below the band, +1 above, 0 within (or no baseline) */
static int side(double x, double base, double band)
{
    return x < base * (1 - band) ? -1 : x > base * (1 + band) ? 1 : 0;
}

enum hformat { H_TABLE, H_MARKDOWN, H_CSV };

/* One series: prints its nights and keeps them in *out for the page (out->n = 0 when out of
 * memory), returns 1 when its latest night is inside a slowdown. */
static int series(const struct tb_compare_rec *const *n, size_t count, enum hformat f,
                  struct tb_history_series *out)
{
    double *x = malloc(count * sizeof(*x));
    out->night = malloc(count * sizeof(*out->night));
    out->gbps = malloc(3 * count * sizeof(*out->gbps));
    out->flag = malloc(count * sizeof(*out->flag));
    out->n = 0;
    if (!x || !out->night || !out->gbps || !out->flag) {
        free(x);
        return 0;
    }
    out->base = out->gbps + count;
    out->change = out->base + count;
    for (size_t i = 0; i < count; i++)
        x[i] = n[i]->gbps;
    const struct tb_compare_rec *r = n[0];
    *out = (struct tb_history_series){ r->board, r->host, r->device, r->kernel, r->elem,
                                       r->power_mode, r->rows, r->cols, count, out->night,
                                       out->gbps, out->base, out->change, out->flag };
    if (f == H_TABLE)
        printf("\n%s (%s)%s%s, %s, %ldx%ld %s%s%s\n  %-10s %10s %10s %8s  %s\n", r->board,
               r->device, r->host[0] ? " on " : "", r->host, r->kernel, r->rows, r->cols,
               r->elem, r->power_mode[0] ? ", " : "", r->power_mode, "night", "best GB/s",
               "baseline", "change", "");
    int regressed = 0;
    int change = 0;               /* -1 inside a slowdown, +1 inside a speed-up */
    double cbase = NAN, cband = NAN;   /* the baseline and band the change started from */
    for (size_t i = 0; i < count; i++) {
        double base = NAN, band = NAN;
        const char *flag = "";
        bool have = baseline(x, i, &base, &band);
        if (change && side(x[i], cbase, cband) == change) {
            base = cbase;   /* a change goes on: shown against where it started from */
            have = true;
            flag = change < 0 ? "still slower" : "still faster";
        } else if (have) {
            change = 0;
            int s0 = side(x[i], base, band);
            int s1 = i + 1 < count ? side(x[i + 1], base, band) : 0;
            if (s0 && s0 == s1) {
                flag = s0 < 0 ? "SLOWER from here" : "faster from here";
                change = s0;
                cbase = base;
                cband = band;
            } else if (s0 && i + 1 < count) {
                flag = "one night off (noise)";
            } else if (s0) {
                flag = s0 < 0 ? "lower (one night: not yet a change)" : "higher (one night)";
            }
        } else {
            change = 0;
        }
        if (i + 1 == count)
            regressed = change < 0;   /* the latest night is inside a slowdown */
        out->night[i] = n[i]->night;
        out->gbps[i] = x[i];
        out->base[i] = have ? base : NAN;
        out->change[i] = have ? (x[i] / base - 1) * 100 : NAN;
        tb_strlcpy(out->flag[i], flag, sizeof(out->flag[i]));
        char b[32] = "-", c[32] = "-";
        if (have) {
            snprintf(b, sizeof(b), "%.1f", base);
            snprintf(c, sizeof(c), "%+.1f%%", (x[i] / base - 1) * 100);
        }
        if (f == H_CSV)
            printf("%s,\"%s\",\"%s\",%s,%ld,%ld,%s,\"%s\",%s,%.2f,%s,%s,%s\n", r->board,
                   r->host, r->device, r->kernel, r->rows, r->cols, r->elem, r->power_mode,
                   n[i]->night, x[i], have ? b : "", have ? c : "", flag);
        else if (f == H_MARKDOWN)
            printf("| %s | %s | %s | %ldx%ld | %s | %s | %s | %.1f | %s | %s | %s |\n", r->board,
                   r->host, r->kernel, r->rows, r->cols, r->elem,
                   r->power_mode[0] ? r->power_mode : "-", n[i]->night, x[i], b, c, flag);
        else
            printf("  %-10s %10.1f %10s %8s  %s\n", n[i]->night, x[i], b, c, flag);
    }
    free(x);
    return regressed;
}

static const char usage[] =
    "usage: transpose-bench history LOG... [--format table|markdown|csv] [--html FILE.html]\n"
    "                                      [--plot FILE.svg|.png]\n"
    "\n"
    "  For each board, host, device, kernel, size, element type and power mode: the best GB/s of\n"
    "  each night (the UTC date of the run), in time order. A night's baseline is the median of\n"
    "  the up to 7 nights before it (3 at least); its band is max(3%, 3 x 1.4826 x MAD /\n"
    "  median). A change starts where two nights in a row fall beyond the band on the same\n"
    "  side, and lasts while nights stay beyond the band it started from; one night alone is\n"
    "  noise. Exit 1 when the latest night is inside a slowdown. --html writes one\n"
    "  self-contained page: per kernel, size and element type a chart of the nights with a\n"
    "  line per board, and the table with its flags. --plot draws those charts with gnuplot.\n";

int tb_history_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return TB_EXIT_OK;
        }
    static const struct option opts[] = { { "format", required_argument, NULL, 'f' },
                                           { "html", required_argument, NULL, 'H' },
                                           { "plot", required_argument, NULL, 'p' },
                                           { NULL, 0, NULL, 0 } };
    enum hformat f = H_TABLE;
    const char *html_file = NULL, *plot_file = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (opt == 'H')
            html_file = optarg;
        else if (opt == 'p')
            plot_file = optarg;
        else if (opt == 'f' && !strcmp(optarg, "table"))
            f = H_TABLE;
        else if (opt == 'f' && !strcmp(optarg, "markdown"))
            f = H_MARKDOWN;
        else if (opt == 'f' && !strcmp(optarg, "csv"))
            f = H_CSV;
        else {
            fputs(usage, stderr);
            return TB_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fputs(usage, stderr);
        return TB_EXIT_USAGE;
    }
    struct tb_compare_recs all = { 0 };
    int problems = 0;
    for (int i = optind; i < argc; i++)
        tb_compare_read(argv[i], &all, &problems);
    size_t k = 0;
    for (size_t i = 0; i < all.n; i++)   /* the rows with a night and a measurement */
        if (tb_compare_usable(&all.v[i]) && all.v[i].night[0])
            all.v[k++] = all.v[i];
    if (k == 0) {
        error("history: no measured row with a night in the logs given");
        free(all.v);
        return TB_EXIT_USAGE;
    }
    qsort(all.v, k, sizeof(*all.v), by_group_night);
    const struct tb_compare_rec **best = malloc(k * sizeof(*best));
    struct tb_history_series *hs = calloc(k, sizeof(*hs));
    size_t nhs = 0;
    if (!best || !hs) {
        free(best);
        free(hs);
        free(all.v);
        return TB_EXIT_FAIL;
    }
    if (f == H_CSV)
        printf("board,host,device,kernel,rows,cols,elem,power_mode,night,gbps,baseline_gbps,"
               "change_pct,flag\n");
    else if (f == H_MARKDOWN)
        printf("| board | host | kernel | size | element | power mode | night | best GB/s | "
               "baseline | change | flag |\n|---|---|---|---|---|---|---|---:|---:|---:|---|\n");
    int regressions = 0;
    for (size_t i = 0; i < k;) {
        size_t n = 0, j = i;
        for (; j < k && same_series(&all.v[i], &all.v[j]); j++)
            if (n == 0 || strcmp(best[n - 1]->night, all.v[j].night))
                best[n++] = &all.v[j];   /* the first of a night is its best */
        regressions += series(best, n, f, &hs[nhs++]);
        i = j;
    }
    if (f != H_CSV)
        printf("\n%d series regressed on the latest night\n", regressions);
    int code = regressions ? TB_EXIT_FAIL : TB_EXIT_OK;
    if (html_file && tb_report_history(hs, nhs, regressions, html_file) < 0)
        code = TB_EXIT_FAIL;
    else if (html_file && f != H_CSV)
        printf("page: %s\n", html_file);
    if (plot_file && tb_report_history_plot(hs, nhs, plot_file) < 0)
        code = TB_EXIT_FAIL;
    else if (plot_file && f != H_CSV)
        printf("plot: %s\n", plot_file);
    for (size_t i = 0; i < nhs; i++) {
        free(hs[i].night);
        free(hs[i].gbps);
        free(hs[i].flag);
    }
    free(hs);
    free(best);
    free(all.v);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        error("history: cannot write the output: %s", strerror(errno));
        return TB_EXIT_FAIL;
    }
    return code;
}
