/* compare.c: `transpose-bench compare`. Reads logs (gzip or plain, any board, any tool
 * version: columns are found by name in the header), keeps every readable row, and
 * prints per size the best point of each kernel on each board; with --baseline, marks
 * each point faster, slower or same by a rule that counts both runs' measured spread,
 * and exits 1 when one regressed beyond --threshold. --html and --plot: report.c. */
#include "compare.h"
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "csvlog.h"
#include "util.h"

#define SAME_FLOOR 0.01      /* differences under 1% are "same" whatever the spread */
#define NOISE_SIGMAS 3.0

#define rec tb_compare_rec
#define recs tb_compare_recs

static int recs_push(struct recs *r, const struct rec *x)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        struct rec *v = realloc(r->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = *x;
    return 0;
}

int tb_csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return -1;
        if (*p == '"') {
            char *out = ++p;
            fields[n++] = out;
            for (;;) {
                if (*p == '\0')
                    return -1;   /* unterminated quote */
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            *out = '\0';
            if (*p == ',') {
                p++;
                continue;
            }
            return *p ? -1 : n;
        }
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            return n;
        *comma = '\0';
        p = comma + 1;
    }
}

enum { C_BOARD, C_DEVICE, C_KERNEL, C_ROWS, C_COLS, C_BX, C_BY, C_GBPS, C_PEAK, C_COPY, C_GPW,
       C_SEM, C_STATUS, C_ELEM, C_MODE, C_RUN, C_HOST, C_N };
/* The columns compare reads, in the order of the enum: names of the column table
 * (log_columns.h), checked when this file compiles, so a column renamed there cannot leave
 * the reader looking for a name no log has. */
#define READ_COLUMNS(X) X(board) X(device) X(kernel) X(rows) X(cols) X(block_x) X(block_y) \
    X(gbps) X(frac_peak) X(frac_copy) X(gbps_per_w) X(rel_sem) X(status) X(elem) X(power_mode) \
    X(run_id) X(host)
#define IS_COLUMN(n) _Static_assert(offsetof(struct tb_row, n) < sizeof(struct tb_row), #n);
READ_COLUMNS(IS_COLUMN)
#define COLUMN_NAME(n) #n,
static const char *const wanted[C_N] = { READ_COLUMNS(COLUMN_NAME) };
static const bool required[C_N] = { true, false, true, true, true, false, false, true };

static double num(const char *s)
{
    char *end;
    if (!s || !*s)
        return NAN;
    double v = strtod(s, &end);
    return *end ? NAN : v;
}

/* Reads one log; returns the rows it added, or -1 when the file is not a log at all.
 * Problems are reported naming file and line; readable rows are always kept. */
int tb_compare_read(const char *path, struct recs *out, int *problems)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        error("compare: cannot open '%s': %s", path, strerror(errno ? errno : ENOENT));
        (*problems)++;
        return -1;
    }
    static char line[16384];
    int col[C_N];
    bool have_header = false, ended = false;
    long lineno = 0, added = 0;
    int format = 0;
    char *fields[256];
    int nhead = 0;
    while (gzgets(gz, line, sizeof(line))) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
            error("compare: %s:%ld: line longer than %zu bytes; skipped", path, lineno,
                  sizeof(line));
            (*problems)++;
            int ch;
            while ((ch = gzgetc(gz)) != -1 && ch != '\n')
                ;
            continue;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#') {
            sscanf(line, "# log_format: %d", &format);
            if (!strncmp(line, "# end:", 6))
                ended = true;
            continue;
        }
        if (!line[0])
            continue;
        if (!have_header) {
            nhead = tb_csv_split(line, fields, 256);
            for (int c = 0; c < C_N; c++) {
                col[c] = -1;
                for (int i = 0; i < nhead; i++)
                    if (!strcmp(fields[i], wanted[c]))
                        col[c] = i;
                if (col[c] < 0 && required[c]) {
                    error("compare: %s:%ld: not a transpose-bench log (no '%s' column)", path,
                          lineno, wanted[c]);
                    (*problems)++;
                    gzclose(gz);
                    return -1;
                }
            }
            if (format > TB_LOG_FORMAT)
                warning("compare: %s: log format %d is newer than this tool's %d; reading the "
                        "columns it knows", path, format, TB_LOG_FORMAT);
            have_header = true;
            continue;
        }
        int nf = tb_csv_split(line, fields, 256);
        if (nf != nhead) {
            error("compare: %s:%ld: %d fields where the header has %d; row skipped", path, lineno,
                  nf, nhead);
            (*problems)++;
            continue;
        }
        struct rec r;
        memset(&r, 0, sizeof(r));
#define STR(c, dst) tb_strlcpy(dst, col[c] >= 0 ? fields[col[c]] : "", sizeof(dst))
#define NUM(c) (col[c] >= 0 ? num(fields[col[c]]) : NAN)
        STR(C_BOARD, r.board);
        STR(C_DEVICE, r.device);
        STR(C_KERNEL, r.kernel);
        STR(C_STATUS, r.status);
        STR(C_ELEM, r.elem);
        STR(C_MODE, r.power_mode);
        STR(C_HOST, r.host);
        if (!r.elem[0])
            tb_strlcpy(r.elem, "float", sizeof(r.elem));   /* logs from before element types */
        if (col[C_RUN] >= 0) {   /* the night: the date in the run_id's stamp */
            char name[NAME_MAX + 16];
            time_t t;
            snprintf(name, sizeof(name), "%.200s.csv.gz", fields[col[C_RUN]]);
            struct tm tm;
            char host[64];
            if (tb_log_name_parse(name, host, sizeof(host), NULL, 0, &t) && gmtime_r(&t, &tm)) {
                strftime(r.night, sizeof(r.night), "%Y-%m-%d", &tm);
                if (!r.host[0])   /* a log without the host column: the run_id names it */
                    tb_strlcpy(r.host, host, sizeof(r.host));
            }
        }
        /* range-check before converting: a double out of long's range is undefined (found
         * by fuzz_compare) */
        double rows = NUM(C_ROWS), cols = NUM(C_COLS), bx = NUM(C_BX), by = NUM(C_BY);
        r.rows = rows >= 1 && rows <= 1e13 ? (long)rows : 0;
        r.cols = cols >= 1 && cols <= 1e13 ? (long)cols : 0;
        r.bx = bx >= 0 && bx <= 1e6 ? (int)bx : 0;
        r.by = by >= 0 && by <= 1e6 ? (int)by : 0;
        r.gbps = NUM(C_GBPS);
        r.frac_peak = NUM(C_PEAK);
        r.frac_copy = NUM(C_COPY);
        r.gbps_per_w = NUM(C_GPW);
        r.rel_sem = NUM(C_SEM);
#undef STR
#undef NUM
        if (r.rows <= 0 || r.cols <= 0 || !r.kernel[0]) {
            error("compare: %s:%ld: row without a kernel or size; skipped", path, lineno);
            (*problems)++;
            continue;
        }
        if (recs_push(out, &r) == 0)
            added++;
    }
    int zerr = 0;
    const char *msg = gzerror(gz, &zerr);
    if (zerr != Z_OK && zerr != Z_STREAM_END) {
        error("compare: %s: unreadable after line %ld (%s); using the %ld rows read", path, lineno,
              msg, added);
        (*problems)++;
    } else if (have_header && !ended) {
        warning("compare: %s: no end marker (run interrupted or still running); using its %ld rows",
                path, added);
    }
    gzclose(gz);
    if (!have_header) {
        error("compare: %s: not a transpose-bench log (no header line)", path);
        (*problems)++;
        return -1;
    }
    return (int)added;
}

bool tb_compare_usable(const struct rec *r)
{
    return !isnan(r->gbps) && (!strcmp(r->status, "ok") || !strcmp(r->status, "suspect") ||
                               !r->status[0]);
}

static int by_size_kernel(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    double sx = (double)x->rows * x->cols, sy = (double)y->rows * y->cols;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    if (x->rows != y->rows)
        return x->rows < y->rows ? -1 : 1;
    if (x->cols != y->cols)
        return x->cols < y->cols ? -1 : 1;
    int c = strcmp(x->kernel, y->kernel);
    if (!c)
        c = strcmp(x->board, y->board);
    if (!c)
        c = strcmp(x->device, y->device);
    if (!c)
        c = strcmp(x->elem, y->elem);
    return c ? c : strcmp(x->power_mode, y->power_mode);
}

/* One kernel at one size on one board and device, with one element type in one power
 * mode: a u8 and a double point, or a 5W and a MAXN night, are never merged. The order's
 * key, so that a group is a run of the sorted rows. */
static bool same_group(const struct rec *a, const struct rec *b)
{
    return by_size_kernel(a, b) == 0;
}

/* Best point of each (size, kernel, board, device, element type, power mode) into out;
 * sorts in. */
static size_t best_points(struct recs *in, struct rec *out)
{
    size_t n = 0;
    qsort(in->v, in->n, sizeof(*in->v), by_size_kernel);
    for (size_t i = 0; i < in->n; i++) {
        const struct rec *r = &in->v[i];
        if (!tb_compare_usable(r))
            continue;
        if (n && same_group(&out[n - 1], r)) {
            /* the fastest point, with the best GB/s per W measured for the group (a power
             * run and a bench run of the same board need not share their fastest point) */
            double pw = fmax(out[n - 1].gbps_per_w, r->gbps_per_w);   /* fmax skips NAN */
            if (r->gbps > out[n - 1].gbps)
                out[n - 1] = *r;
            out[n - 1].gbps_per_w = pw;
        } else {
            out[n++] = *r;
        }
    }
    return n;
}

enum format { F_TABLE, F_MARKDOWN, F_CSV };

static void print_best(const struct rec *v, size_t n, enum format f)
{
    if (f == F_CSV)
        printf("rows,cols,kernel,board,device,gbps,block_x,block_y,frac_peak,frac_copy,gbps_per_w,"
               "elem,power_mode\n");
    long lr = -1, lc = -1;
    for (size_t i = 0; i < n; i++) {
        const struct rec *r = &v[i];
        char g[32], p[32], c[32], w[32], blk[32];
        tb_fmt_num(g, sizeof(g), r->gbps, 1);
        tb_fmt_num(p, sizeof(p), r->frac_peak, 3);
        tb_fmt_num(c, sizeof(c), r->frac_copy, 3);
        tb_fmt_num(w, sizeof(w), r->gbps_per_w, 3);
        if (r->bx)
            snprintf(blk, sizeof(blk), "%dx%d", r->bx, r->by);
        else
            snprintf(blk, sizeof(blk), "-");
        if (f == F_CSV) {
            printf("%ld,%ld,%s,%s,\"%s\",%s,%d,%d,%s,%s,%s,%s,\"%s\"\n", r->rows, r->cols,
                   r->kernel, r->board, r->device, isnan(r->gbps) ? "" : g, r->bx, r->by,
                   isnan(r->frac_peak) ? "" : p, isnan(r->frac_copy) ? "" : c,
                   isnan(r->gbps_per_w) ? "" : w, r->elem, r->power_mode);
            continue;
        }
        if (r->rows != lr || r->cols != lc) {
            if (f == F_MARKDOWN)
                printf("\n### %ld x %ld\n\n| kernel | board | element | power mode | device | "
                       "best GB/s | block | of peak | of memcpy | GB/s per W |\n"
                       "|---|---|---|---|---|---:|---|---:|---:|---:|\n", r->rows, r->cols);
            else
                printf("\n%ld x %ld\n  %-16s %-18s %-6s %-10s %-28s %10s %-8s %8s %9s %10s\n",
                       r->rows, r->cols, "kernel", "board", "elem", "mode", "device", "best GB/s",
                       "block", "of peak", "of memcpy", "GB/s per W");
            lr = r->rows;
            lc = r->cols;
        }
        if (f == F_MARKDOWN)
            printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->kernel, r->board,
                   r->elem, r->power_mode[0] ? r->power_mode : "-", r->device, g, blk, p, c, w);
        else
            printf("  %-16s %-18.18s %-6s %-10.10s %-28.28s %10s %-8s %8s %9s %10s\n", r->kernel,
                   r->board, r->elem, r->power_mode[0] ? r->power_mode : "-", r->device, g, blk,
                   p, c, w);
    }
}

/* ---- baseline --------------------------------------------------------------------- */

static bool same_point(const struct rec *a, const struct rec *b)
{
    return same_group(a, b) && a->bx == b->bx && a->by == b->by;
}

/* faster/slower/same: the difference must exceed both 1% and 3 combined standard errors. */
const char *tb_compare_verdict(double base, double now, double sem_base, double sem_now,
                               double *delta)
{
    *delta = now / base - 1.0;
    double sb = isnan(sem_base) ? 0 : sem_base, sn = isnan(sem_now) ? 0 : sem_now;
    double noise = NOISE_SIGMAS * sqrt(sb * sb + sn * sn);
    double bar = noise > SAME_FLOOR ? noise : SAME_FLOOR;
    if (fabs(*delta) <= bar)
        return "same";
    return *delta > 0 ? "faster" : "slower";
}

static int print_baseline(const struct recs *now, const struct recs *base, enum format f,
                          double threshold_pct)
{
    int regressions = 0;
    if (f == F_CSV)
        printf("rows,cols,kernel,board,device,block_x,block_y,base_gbps,gbps,delta_pct,verdict\n");
    else if (f == F_MARKDOWN)
        printf("| size | kernel | board | block | baseline GB/s | GB/s | change | verdict |\n"
               "|---|---|---|---|---:|---:|---:|---|\n");
    else
        printf("  %-12s %-16s %-18s %-8s %12s %10s %8s  %s\n", "size", "kernel", "board", "block",
               "baseline", "GB/s", "change", "verdict");
    size_t matched = 0, other_mode = 0;
    for (size_t i = 0; i < now->n; i++) {
        const struct rec *r = &now->v[i];
        if (!tb_compare_usable(r))
            continue;
        const struct rec *b = NULL;
        bool mode_differs = false;
        for (size_t j = 0; j < base->n; j++) {
            if (!tb_compare_usable(&base->v[j]))
                continue;
            if (same_point(r, &base->v[j]))
                b = &base->v[j];
            else {
                struct rec m = base->v[j];
                tb_strlcpy(m.power_mode, r->power_mode, sizeof(m.power_mode));
                mode_differs |= same_point(r, &m);
            }
        }
        if (!b) {
            other_mode += mode_differs;
            continue;
        }
        matched++;
        double delta;
        const char *v = tb_compare_verdict(b->gbps, r->gbps, b->rel_sem, r->rel_sem, &delta);
        bool regressed = !strcmp(v, "slower") && -delta * 100 > threshold_pct;
        regressions += regressed;
        char size[32], blk[32];
        snprintf(size, sizeof(size), "%ldx%ld", r->rows, r->cols);
        if (r->bx)
            snprintf(blk, sizeof(blk), "%dx%d", r->bx, r->by);
        else
            snprintf(blk, sizeof(blk), "-");
        const char *mark = regressed ? " REGRESSION" : "";
        if (f == F_CSV)
            printf("%ld,%ld,%s,%s,\"%s\",%d,%d,%.2f,%.2f,%.2f,%s%s\n", r->rows, r->cols, r->kernel,
                   r->board, r->device, r->bx, r->by, b->gbps, r->gbps, delta * 100, v,
                   regressed ? "-regression" : "");
        else if (f == F_MARKDOWN)
            printf("| %s | %s | %s | %s | %.1f | %.1f | %+.1f%% | %s%s |\n", size, r->kernel,
                   r->board, blk, b->gbps, r->gbps, delta * 100, v, mark);
        else
            printf("  %-12s %-16s %-18.18s %-8s %12.1f %10.1f %+7.1f%%  %s%s\n", size, r->kernel,
                   r->board, blk, b->gbps, r->gbps, delta * 100, v, mark);
    }
    if (f != F_CSV)
        printf("\n%zu points compared, %d regressed beyond %.1f%%\n", matched, regressions,
               threshold_pct);
    if (other_mode)
        warning("compare: %zu point(s) match the baseline only in another power mode: not "
                "compared (a 5W night is no regression of a MAXN one)", other_mode);
    if (matched == 0) {
        error("compare: no point of the logs matches a point of the baseline (same size, "
              "kernel, board, device, block, element type and power mode): nothing compared");
        return -1;
    }
    return regressions;
}

/* ---- main ------------------------------------------------------------------------- */

static const char usage[] =
    "usage: transpose-bench compare LOG... [--baseline LOG]... [--threshold PERCENT]\n"
    "                               [--format table|markdown|csv] [--plot FILE.svg|.png]\n"
    "                               [--html FILE.html]\n"
    "\n"
    "  Reads logs (.csv.gz or .csv, any boards) and prints, per matrix size, each kernel's\n"
    "  best point per board: GB/s, block shape, fraction of peak, fraction of memcpy, and\n"
    "  the best GB/s per watt measured for it. With --baseline (repeatable), compares the same points instead:\n"
    "  faster / slower / same, where 'same' means within 1% or three combined standard\n"
    "  errors; exits 1 when a point is slower by more than --threshold (default 5%).\n"
    "  --html writes one self-contained page (tables, SVG charts: fraction of memcpy, GB/s\n"
    "  on a log axis, GB/s per W; no network fetches); --plot draws the same charts with\n"
    "  gnuplot (.svg or .png).\n";

int tb_compare_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return TB_EXIT_OK;
        }
    static const struct option opts[] = {
        { "baseline", required_argument, NULL, 'B' }, { "format", required_argument, NULL, 'f' },
        { "plot", required_argument, NULL, 'p' }, { "threshold", required_argument, NULL, 't' },
        { "html", required_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    const char **base = calloc((size_t)argc, sizeof(char *));
    size_t nbase = 0;
    const char *plot_file = NULL, *html_file = NULL;
    enum format f = F_TABLE;
    double threshold = 5;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'B': base[nbase++] = optarg; break;
        case 'p': plot_file = optarg; break;
        case 'H': html_file = optarg; break;
        case 'f':
            if (!strcmp(optarg, "table")) f = F_TABLE;
            else if (!strcmp(optarg, "markdown")) f = F_MARKDOWN;
            else if (!strcmp(optarg, "csv")) f = F_CSV;
            else {
                error("compare: --format '%s': expected table, markdown or csv", optarg);
                free(base);
                return TB_EXIT_USAGE;
            }
            break;
        case 't': {
            char *end;
            threshold = strtod(optarg, &end);
            if (*end || !(threshold >= 0)) {
                error("compare: --threshold '%s': expected a percentage", optarg);
                free(base);
                return TB_EXIT_USAGE;
            }
            break;
        }
        default:
            fputs(usage, stderr);
            free(base);
            return TB_EXIT_USAGE;
        }
    }
    if (html_file && nbase) {
        error("compare: --html draws the best points, not a comparison with --baseline: "
              "give one of them");
        free(base);
        return TB_EXIT_USAGE;
    }
    if (optind >= argc) {
        error("compare: no log given");
        fputs(usage, stderr);
        free(base);
        return TB_EXIT_USAGE;
    }
    struct recs now = { 0 }, old = { 0 };
    int problems = 0;
    for (int i = optind; i < argc; i++)
        tb_compare_read(argv[i], &now, &problems);
    for (size_t i = 0; i < nbase; i++)
        tb_compare_read(base[i], &old, &problems);
    free(base);
    int code = problems ? TB_EXIT_FAIL : TB_EXIT_OK;
    if (now.n == 0) {
        error("compare: no readable rows");
        free(now.v);
        free(old.v);
        return TB_EXIT_FAIL;
    }
    if (nbase) {
        int reg = print_baseline(&now, &old, f, threshold);
        if (reg < 0)
            code = TB_EXIT_USAGE;   /* a nightly gate must not pass on nothing compared */
        else if (reg > 0)
            code = TB_EXIT_FAIL;
    }
    if (!nbase || plot_file) {   /* the best points: the table, the page, the plot */
        struct rec *best = calloc(now.n, sizeof(*best));
        if (!best) {
            error("compare: out of memory for %zu rows", now.n);
            free(now.v);
            free(old.v);
            return TB_EXIT_FAIL;
        }
        size_t nb = best_points(&now, best);   /* the baseline, if any, is done with now */
        if (!nbase)
            print_best(best, nb, f);
        if (html_file && tb_report_compare(best, nb, (size_t)(argc - optind), html_file) < 0)
            code = TB_EXIT_FAIL;
        else if (html_file && f != F_CSV)
            printf("page: %s\n", html_file);
        if (plot_file && tb_report_compare_plot(best, nb, plot_file) < 0)
            code = TB_EXIT_FAIL;
        else if (plot_file && f != F_CSV)
            printf("plot: %s\n", plot_file);
        free(best);
    }
    free(now.v);
    free(old.v);
    /* a table cut short by a full disk must not pass for a whole one */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        error("compare: cannot write the output: %s", strerror(errno));
        code = TB_EXIT_FAIL;
    }
    return code;
}
