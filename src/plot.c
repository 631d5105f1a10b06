/* plot.c: `compare --plot`: the best points of logs drawn by gnuplot (an SVG or PNG): bandwidth
 * against block shape on one board, best bandwidth and GB/s per watt per kernel across boards.
 * Not here: reading logs or choosing points (compare.c). */
#include "compare.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define usable tb_compare_usable
static bool have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* Text from a log (board and device names, kernel names, the output file name) never reaches
 * gnuplot as code. In the script it stands only inside single-quoted strings, where gnuplot
 * does no substitution and a quote is written twice; in data files, inside double quotes,
 * with double quotes and control characters replaced. */
static void gp_single(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\'')
            fputs("''", f);
        else
            fputc(ch < 0x20 || ch == 0x7f ? ' ' : ch, f);
    }
    fputc('\'', f);
}

static void gp_data_label(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        fputc(ch == '"' ? '\'' : ch < 0x20 || ch == 0x7f ? ' ' : ch, f);
    }
    fputc('"', f);
}

/* Size, then board and device: the order the shared-size pass counts boards in. */
static int by_size_board(const void *a, const void *b)
{
    const struct tb_compare_rec *x = *(const struct tb_compare_rec *const *)a;
    const struct tb_compare_rec *y = *(const struct tb_compare_rec *const *)b;
    if (x->rows != y->rows)
        return x->rows < y->rows ? -1 : 1;
    if (x->cols != y->cols)
        return x->cols < y->cols ? -1 : 1;
    int c = strcmp(x->board, y->board);
    return c ? c : strcmp(x->device, y->device);
}

/* Writes a data table: one row per category, one column per series. */
static void write_table(FILE *f, const char *const *cats, size_t nc, const char *const *series,
                        size_t ns, const double *val)
{
    fprintf(f, "category");
    for (size_t s = 0; s < ns; s++)
        fputc('\t', f), gp_data_label(f, series[s]);
    fputc('\n', f);
    for (size_t c = 0; c < nc; c++) {
        gp_data_label(f, cats[c]);
        for (size_t s = 0; s < ns; s++) {
            double v = val[c * ns + s];
            if (isnan(v))
                fprintf(f, "\t-");
            else
                fprintf(f, "\t%.4f", v);
        }
        fputc('\n', f);
    }
}

/* The index of s among the n names of v, adding it (a copy, into store[]) when new; cap
 * when full. store may be NULL when s outlives the plot (a record's field). */
static size_t intern(const char **v, size_t *n, size_t cap, const char *s, char (*store)[200])
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(v[i], s))
            return i;
    if (*n >= cap)
        return cap;
    if (store) {
        tb_strlcpy(store[*n], s, sizeof(store[*n]));
        s = store[*n];
    }
    v[(*n)++] = s;
    return *n - 1;
}

int tb_compare_plot(const struct tb_compare_recs *all, const char *out)
{
    if (!have_gnuplot()) {
        error("compare: --plot needs gnuplot, which is not installed; install it with: "
              "sudo apt-get install gnuplot-nox (the tables above are complete without it)");
        return -1;
    }
    const char *ext = strrchr(out, '.');
    const char *term = ext && !strcmp(ext, ".png") ? "pngcairo size 1400,1500 background rgb 'white'" :
                       ext && !strcmp(ext, ".svg") ? "svg size 1400,1500 dynamic background rgb 'white'" : NULL;
    if (!term) {
        error("compare: --plot '%s': the file must end in .svg or .png", out);
        return -1;
    }
    char dir[] = "/tmp/tb-plot-XXXXXX";
    if (!mkdtemp(dir)) {
        error("compare: cannot make a temporary directory: %s", strerror(errno));
        return -1;
    }
    /* the largest size of the first board: bandwidth against block shape per kernel */
    const struct tb_compare_rec *first = NULL;
    for (size_t i = 0; i < all->n; i++)
        if (usable(&all->v[i]) && (!first || (double)all->v[i].rows * all->v[i].cols >
                                   (double)first->rows * first->cols))
            first = &all->v[i];
    if (!first) {
        error("compare: nothing to plot");
        rmdir(dir);
        return -1;
    }
    enum { MAXC = 64, MAXS = 32 };
    const char *cats[MAXC], *series[MAXS];
    static char labels[MAXC][200];
    double *val = calloc(MAXC * MAXS, sizeof(double));
    double *bw = calloc(MAXC * MAXS, sizeof(double)), *pw = calloc(MAXC * MAXS, sizeof(double));
    double *packed = calloc(MAXC * MAXS, sizeof(double)), *kept = calloc(MAXC * MAXS, sizeof(double));
    if (!val || !bw || !pw || !packed || !kept) {
        error("compare: out of memory for the plot");
        free(val); free(bw); free(pw); free(packed); free(kept);
        rmdir(dir);
        return -1;
    }
    size_t nc = 0, ns = 0;
    for (size_t i = 0; i < MAXC * MAXS; i++)
        val[i] = NAN;
    for (size_t i = 0; i < all->n; i++) {
        const struct tb_compare_rec *r = &all->v[i];
        if (!usable(r) || r->rows != first->rows || r->cols != first->cols || !r->bx ||
            strcmp(r->board, first->board) || strcmp(r->device, first->device))
            continue;
        char lab[32];
        snprintf(lab, sizeof(lab), "%dx%d", r->bx, r->by);
        size_t c = intern(cats, &nc, MAXC, lab, labels);
        size_t s = intern(series, &ns, MAXS, r->kernel, NULL);
        if (c < MAXC && s < MAXS && (isnan(val[c * MAXS + s]) || r->gbps > val[c * MAXS + s]))
            val[c * MAXS + s] = r->gbps;
    }
    /* keep the 8 fastest kernels: gnuplot cycles 8 colours, and more bars say less */
    enum { SHOWN = 8 };
    if (ns > SHOWN) {
        double bestv[MAXS];
        for (size_t k = 0; k < ns; k++) {
            bestv[k] = -1;
            for (size_t c = 0; c < nc; c++)
                if (!isnan(val[c * MAXS + k]) && val[c * MAXS + k] > bestv[k])
                    bestv[k] = val[c * MAXS + k];
        }
        size_t keep[SHOWN];
        for (size_t pick = 0; pick < SHOWN; pick++) {
            size_t bi = 0;
            for (size_t k = 1; k < ns; k++)
                if (bestv[k] > bestv[bi])
                    bi = k;
            keep[pick] = bi;
            bestv[bi] = -2;
        }
        const char *kser[SHOWN];
        for (size_t i = 0; i < MAXC * MAXS; i++)
            kept[i] = NAN;
        for (size_t k = 0; k < SHOWN; k++) {
            kser[k] = series[keep[k]];
            for (size_t c = 0; c < nc; c++)
                kept[c * MAXS + k] = val[c * MAXS + keep[k]];
        }
        for (size_t k = 0; k < SHOWN; k++)
            series[k] = kser[k];
        memcpy(val, kept, MAXC * MAXS * sizeof(double));
        ns = SHOWN;
    }
    char p1[64], p2[64], p3[64], script[64];
    snprintf(p1, sizeof(p1), "%s/blocks.dat", dir);
    snprintf(p2, sizeof(p2), "%s/boards.dat", dir);
    snprintf(p3, sizeof(p3), "%s/perwatt.dat", dir);
    snprintf(script, sizeof(script), "%s/plot.gp", dir);
    FILE *f = fopen(p1, "w");
    if (f) {
        for (size_t c = 0; c < nc; c++)
            for (size_t s = 0; s < ns; s++)
                packed[c * ns + s] = val[c * MAXS + s];
        write_table(f, cats, nc, series, ns, packed);
        fclose(f);
    }
    size_t ns1 = ns;
    /* best per kernel across boards at the size the most boards measured; among those, one
     * with power figures, then the largest. One sort and one pass: linear in the rows but
     * for the sort (it was cubic: 2 boards x 400 logs took minutes) */
    const struct tb_compare_rec *shared = first;
    int shared_boards = 0;
    bool shared_pw = false;
    size_t nu = 0;
    const struct tb_compare_rec **u = malloc((all->n ? all->n : 1) * sizeof(*u));
    if (!u) {
        error("compare: out of memory for the plot");
        free(val); free(bw); free(pw); free(packed); free(kept);
        rmdir(dir);
        return -1;
    }
    for (size_t i = 0; i < all->n; i++)
        if (usable(&all->v[i]))
            u[nu++] = &all->v[i];
    qsort(u, nu, sizeof(*u), by_size_board);
    for (size_t i = 0; i < nu;) {
        size_t j = i;
        int boards = 0;
        bool has_pw = false;
        for (; j < nu && u[j]->rows == u[i]->rows && u[j]->cols == u[i]->cols; j++) {
            has_pw |= !isnan(u[j]->gbps_per_w);
            boards += j == i || strcmp(u[j]->board, u[j - 1]->board) ||
                      strcmp(u[j]->device, u[j - 1]->device);
        }
        const struct tb_compare_rec *r = u[i];
        bool larger = (double)r->rows * r->cols > (double)shared->rows * shared->cols;
        if (boards > shared_boards ||
            (boards == shared_boards && ((has_pw && !shared_pw) || (has_pw == shared_pw && larger)))) {
            shared = r;
            shared_boards = boards;
            shared_pw = has_pw;
        }
        i = j;
    }
    free(u);
    const char *kern[MAXC], *boards[MAXS];
    static char blabel[MAXS][200];
    size_t nk = 0, nb = 0;
    for (size_t i = 0; i < MAXC * MAXS; i++)
        bw[i] = pw[i] = NAN;
    bool any_pw = false;
    for (size_t i = 0; i < all->n; i++) {
        const struct tb_compare_rec *r = &all->v[i];
        if (!usable(r) || r->rows != shared->rows || r->cols != shared->cols)
            continue;
        char lab[200];
        snprintf(lab, sizeof(lab), "%.60s (%.128s)", r->board, r->device);
        size_t b = intern(boards, &nb, MAXS, lab, blabel);
        size_t k = intern(kern, &nk, MAXC, r->kernel, NULL);
        if (k >= MAXC || b >= MAXS)
            continue;
        if (isnan(bw[k * MAXS + b]) || r->gbps > bw[k * MAXS + b])
            bw[k * MAXS + b] = r->gbps;
        if (!isnan(r->gbps_per_w) && (isnan(pw[k * MAXS + b]) || r->gbps_per_w > pw[k * MAXS + b])) {
            pw[k * MAXS + b] = r->gbps_per_w;
            any_pw = true;
        }
    }
    for (int which = 0; which < 2; which++) {
        double *src = which ? pw : bw;
        for (size_t k = 0; k < nk; k++)
            for (size_t b = 0; b < nb; b++)
                packed[k * nb + b] = src[k * MAXS + b];
        if ((f = fopen(which ? p3 : p2, "w"))) {
            write_table(f, kern, nk, boards, nb, packed);
            fclose(f);
        }
    }
    free(packed);
    free(kept);
    /* boards with no point at the shared size: not in those panels, and said so */
    const size_t nb_shown = nb;
    for (size_t i = 0; i < all->n; i++) {
        const struct tb_compare_rec *r = &all->v[i];
        char lab[200];
        snprintf(lab, sizeof(lab), "%.60s (%.128s)", r->board, r->device);
        size_t before = nb;
        if (usable(r) && intern(boards, &nb, MAXS, lab, blabel) == before && nb > before)
            warning("compare --plot: %s has no point at %ldx%ld: not in the boards panels",
                    lab, shared->rows, shared->cols);
    }
    /* boards an order of magnitude or more apart (a Nano beside an H100): a log axis */
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < MAXC * MAXS; i++)
        if (bw[i] > 0) {
            lo = fmin(lo, bw[i]);
            hi = fmax(hi, bw[i]);
        }
    bool log_axis = hi > 0 && hi / lo >= 20;
    /* drawn under a temporary name, renamed when whole: a failure leaves no partial file */
    char tmp_out[PATH_MAX];
    snprintf(tmp_out, sizeof(tmp_out), "%s.tmp-%ld", out, (long)getpid());
    f = fopen(script, "w");
    if (!f) {
        error("compare: cannot write '%s': %s", script, strerror(errno));
        free(val); free(bw); free(pw);
        return -1;
    }
    char title[600];
    fprintf(f, "set terminal %s\nset output ", term);
    gp_single(f, tmp_out);
    fprintf(f, "\nset datafile missing '-'\n"
            "set style data histograms\nset style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1\nset key outside right top\nset grid ytics\n"
            "set xtics rotate by -35\nset yrange [0:*]\nset termoption noenhanced\n"
            "set multiplot layout %d,1\n", any_pw ? 3 : 2);
    snprintf(title, sizeof(title), "Bandwidth against block shape, %ldx%ld, %s (%s): fastest "
             "kernels", first->rows, first->cols, first->board, first->device);
    fputs("set title ", f);
    gp_single(f, title);
    fprintf(f, "\nset ylabel 'GB/s'\nplot for [i=2:%zu] '%s' using i:xtic(1) title "
            "columnhead(i)\n", ns1 + 1, p1);
    snprintf(title, sizeof(title), "Best bandwidth per kernel across boards, %ldx%ld (%d board%s)",
             shared->rows, shared->cols, shared_boards, shared_boards == 1 ? "" : "s");
    fputs("set title ", f);
    gp_single(f, title);
    fprintf(f, "\n%splot for [i=2:%zu] '%s' using i:xtic(1) title columnhead(i)\n%s",
            log_axis ? "set logscale y\nset yrange [*:*]\nset ylabel 'GB/s (log scale)'\n" : "",
            nb_shown + 1, p2, log_axis ? "unset logscale y\nset yrange [0:*]\n" : "");
    if (any_pw)
        fprintf(f, "set title 'GB/s per watt per kernel across boards, %ldx%ld'\n"
                "set ylabel 'GB/s per W'\nplot for [i=2:%zu] '%s' using i:xtic(1) title "
                "columnhead(i)\n", shared->rows, shared->cols, nb_shown + 1, p3);
    fprintf(f, "unset multiplot\n");
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "gnuplot '%s' 2>&1", script);
    int rc = system(cmd);
    unlink(p1); unlink(p2); unlink(p3); unlink(script); rmdir(dir);
    free(val); free(bw); free(pw);
    if (rc != 0 || rename(tmp_out, out) != 0) {
        int e = errno;
        unlink(tmp_out);
        if (rc != 0)
            error("compare: gnuplot failed (exit %d) drawing '%s'", rc, out);
        else
            error("compare: cannot write '%s': %s", out, strerror(e));
        return -1;
    }
    return 0;
}

