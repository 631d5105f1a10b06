/* compare_pareto.c: `compare --pareto`, the energy-optimal operating points of each kernel
 * at each size across power modes and clock caps (pareto.c's arithmetic over the rows
 * compare read), as a table and, with --html, a page (report.c). Not here: best points and
 * baselines (compare.c). */
#include "report/compare_pareto.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare_key.h"
#include "report/pareto.h"
#include "report/report.h"
#include "lib/util.h"

#define rec tb_log_rec   /* a row as the log reader gives it */

/* ---- --pareto: energy-optimal operating points across modes and caps --------------- */

static const struct tb_table_col pareto_cols[] = {
    { .name = "rows", .head = "rows", .kind = 'N', .data_only = true },
    { .name = "cols", .head = "cols", .kind = 'N', .data_only = true },
    { .name = "kernel", .head = "kernel", .kind = 'S', .data_only = true },
    { .name = "board", .head = "board", .kind = 'S', .data_only = true },
    { .name = "power_mode", .head = "power mode", .kind = 'S', .width = 16, .cut = true },
    { .name = "gpu_cap_asked_mhz", .head = "GPU cap", .kind = 'N', .dec = 0, .width = 7 },
    { .name = "emc_cap_asked_mhz", .head = "EMC cap", .kind = 'N', .dec = 0, .width = 7 },
    { .name = "block", .head = "block", .kind = 'S', .width = 7 },
    { .name = "gbps", .head = "GB/s", .kind = 'N', .dec = 1, .width = 8, .data_dec = 2 },
    { .name = "gbps_ci95", .head = "+-95%", .kind = 'N', .dec = 1, .width = 6, .data_dec = 3 },
    { .name = "dyn_pj_per_byte", .head = "pJ/B dyn", .kind = 'N', .dec = 1, .width = 8,
      .data_dec = 2 },
    { .name = "dyn_pj_per_byte_ci95", .head = "+-95%", .kind = 'N', .dec = 1, .width = 6,
      .data_dec = 2 },
    { .name = "frac_gbps_of_fastest", .head = "of fastest GB/s", .kind = 'N', .dec = 3,
      .width = 15, .data_dec = 4 },
    { .name = "frac_energy_of_fastest", .head = "of its pJ/B", .kind = 'N', .dec = 3,
      .width = 11, .data_dec = 4 },
    { .name = "front", .head = "front", .kind = 'S', .width = 5 },
    { .name = "knee", .head = "knee", .kind = 'S', .width = 4, .blank = true },
    { .name = "host", .head = "host", .kind = 'S', .data_only = true },
    { .name = "device", .head = "device", .kind = 'S', .data_only = true },
    { .name = "power_note", .head = "power note", .kind = 'S', .data_only = true },
};

/* One kernel at one size on one board, host, device and element: what a front is drawn over
 * (power mode and caps are its axis, not its key). */
static int pareto_group(const struct rec *x, const struct rec *y)
{
    struct rec a = *x, b = *y;
    a.power_mode[0] = b.power_mode[0] = '\0';
    a.gpu_cap_mhz = b.gpu_cap_mhz = a.emc_cap_mhz = b.emc_cap_mhz = NAN;
    return tb_compare_by_key(&a, &b, K_HOST);
}

/* Group, then mode and caps, then the fastest first. */
static int by_operating_point(const void *pa, const void *pb)
{
    const struct rec *x = pa, *y = pb;
    int c;
    if ((c = pareto_group(x, y)) || (c = tb_log_step_cmp(x, y)))
        return c;
    return tb_compare_cmp_num(y->gbps, x->gbps);
}

static bool same_operating_point(const struct rec *x, const struct rec *y)
{
    return !pareto_group(x, y) && !tb_log_step_cmp(x, y);
}

/* An operating point without an energy figure: why, from its rows' power_note. */
static const char *no_figure_why(const struct rec *r)
{
    return r->power_note[0] ? r->power_note
                            : "its rows have no power figures and say no reason (no power source?)";
}

/* The rows of one group's front (every candidate, the front first, the knee marked), then
 * its operating points that have rows but no energy figure (nf of them, in w): for people a
 * line each after the front, "25W (1): no energy figure: <power_note>"; for programs a row
 * each, front "no figure", the reason in power_note. */
static void pareto_rows(struct tb_table *t, const struct rec *c, struct tb_pareto_point *p,
                        size_t n, const struct rec *const *w, size_t nw)
{
    size_t nf = tb_pareto_front(p, n);
    const struct rec *g = n ? &c[0] : w[0];
    char h[300];
    int len = snprintf(h, sizeof(h), "%s %ld x %ld on %s (%s): ", g->kernel, g->rows, g->cols,
                       g->board, g->host);
    if (!n)
        snprintf(h + len, sizeof(h) - (size_t)len, "no front: none of its %zu operating "
                 "point%s has an energy figure", nw, nw == 1 ? "" : "s");
    else if (nw)
        snprintf(h + len, sizeof(h) - (size_t)len, "%zu of %zu operating points on the front; "
                 "%zu without an energy figure", nf, n, nw);
    else
        snprintf(h + len, sizeof(h) - (size_t)len, "%zu of %zu operating points on the front",
                 nf, n);
    tb_table_section(t, h);
    for (size_t i = 0; i < n; i++) {
        const struct rec *r = &c[p[i].src];
        char blk[24];
        tb_compare_block_text(blk, sizeof(blk), r);
        struct tb_cell cells[] = {
            TB_NUM((double)r->rows), TB_NUM((double)r->cols), TB_TEXT(r->kernel),
            TB_TEXT(r->board), TB_TEXT(r->power_mode), TB_NUM(r->gpu_cap_mhz),
            TB_NUM(r->emc_cap_mhz), TB_TEXT(blk), TB_NUM(p[i].y), TB_NUM(p[i].y_ci),
            TB_NUM(p[i].x), TB_NUM(p[i].x_ci), TB_NUM(p[i].frac_y_of_fastest),
            TB_NUM(p[i].frac_x_of_fastest), TB_TEXT(p[i].front ? "yes" : "no"),
            TB_TEXT(p[i].knee ? "knee" : ""), TB_TEXT(r->host), TB_TEXT(r->device),
            TB_TEXT(r->power_note),
        };
        tb_table_row(t, cells);
    }
    bool data = tb_format_is_data(t->doc->f);
    for (size_t i = 0; i < nw; i++) {
        const struct rec *r = w[i];
        if (!data) {   /* a line, never a row of dashes that reads as a point off the front */
            char mode[160], line[400];
            tb_compare_mode_text(mode, sizeof(mode), r);
            snprintf(line, sizeof(line), "%s: no energy figure: %s", mode[0] ? mode : "mode ?",
                     no_figure_why(r));
            tb_table_section(t, line);
            continue;
        }
        char blk[24];
        tb_compare_block_text(blk, sizeof(blk), r);
        struct tb_cell cells[] = {
            TB_NUM((double)r->rows), TB_NUM((double)r->cols), TB_TEXT(r->kernel),
            TB_TEXT(r->board), TB_TEXT(r->power_mode), TB_NUM(r->gpu_cap_mhz),
            TB_NUM(r->emc_cap_mhz), TB_TEXT(blk), TB_NUM(r->gbps),
            TB_NUM(isfinite(r->rel_sem) ? 1.96 * r->rel_sem * r->gbps : NAN), TB_NUM(NAN),
            TB_NUM(NAN), TB_NUM(NAN), TB_NUM(NAN), TB_TEXT("no figure"), TB_TEXT(""),
            TB_TEXT(r->host), TB_TEXT(r->device), TB_TEXT(no_figure_why(r)),
        };
        tb_table_row(t, cells);
    }
}

/* The fronts kept for the page (compare --pareto --html): each group's points, sorted as
 * tb_pareto_front left them, and each point's name (its mode and caps). */
struct page_fronts {
    struct tb_report_front *f;
    size_t n;
};

static void keep_front(struct page_fronts *pf, const struct rec *c,
                       const struct tb_pareto_point *p, size_t n)
{
    struct tb_report_front *f = realloc(pf->f, (pf->n + 1) * sizeof(*f));
    if (!f)
        return;
    pf->f = f;
    struct tb_report_front *fr = &f[pf->n];
    struct tb_pareto_point *pc = malloc((n ? n : 1) * sizeof(*pc));
    char **lab = calloc(n ? n : 1, sizeof(*lab));
    if (!pc || !lab) {
        free(pc);
        free(lab);
        return;
    }
    memcpy(pc, p, n * sizeof(*pc));
    for (size_t i = 0; i < n; i++) {
        const struct rec *r = &c[i];
        char caps[64], blk[24];   /* a cap not asked is left out, never "nan" */
        tb_log_caps_text(caps, sizeof(caps), r->gpu_cap_mhz, r->emc_cap_mhz);
        tb_compare_block_text(blk, sizeof(blk), r);
        size_t len = strlen(r->power_mode) + strlen(caps) + strlen(blk) + 16;
        if ((lab[i] = malloc(len)))   /* a kernel that takes no block: no "block -" */
            snprintf(lab[i], len, "%s%s%s%s%s", r->power_mode[0] ? r->power_mode : "mode ?",
                     caps[0] ? ", " : "", caps, r->bx ? ", block " : "", r->bx ? blk : "");
    }
    snprintf(fr->title, sizeof(fr->title), "%s %ld x %ld %s on %s (%s)", c->kernel, c->rows,
             c->cols, c->elem, c->board, c->host);
    fr->p = pc;
    fr->n = n;
    fr->label = (const char *const *)lab;
    pf->n++;
}

static void free_fronts(struct page_fronts *pf)
{
    for (size_t i = 0; i < pf->n; i++) {
        for (size_t k = 0; k < pf->f[i].n; k++)
            free((void *)pf->f[i].label[k]);
        free((void *)pf->f[i].label);
        free((void *)pf->f[i].p);
    }
    free(pf->f);
}

/* A dynamic energy per byte that can rank a point: a finite cost above 0. One at or below 0
 * (the point drew no more than idle, or less: the idle reading drifted) is kept in the log
 * as a finding but ranks nothing: taken as a cost it became the front's cheapest point. */
static bool dyn_pj_ranks(double pj)
{
    return isfinite(pj) && pj > 0;
}

/* Each operating point of v (sorted here) once into c: its fastest usable row with a
 * figure; else its fastest usable row, with the first reason its rows give for having none
 * (power_note, or a dynamic energy that cannot rank it). Returns how many. */
static size_t operating_points(struct rec *v, size_t n, struct rec *c, bool *fig,
                               size_t *without, size_t *withheld)
{
    size_t nc = 0;
    tb_sort(v, n, sizeof(*v), by_operating_point);
    for (size_t i = 0, k; i < n; i = k) {
        const struct rec *fast = NULL, *best = NULL, *why = NULL, *below = NULL;
        for (k = i; k < n && same_operating_point(&v[i], &v[k]); k++) {
            if (!tb_log_usable(&v[k]))
                continue;
            if (!fast)
                fast = &v[k];
            if (!best && dyn_pj_ranks(v[k].dyn_pj_per_byte))
                best = &v[k];
            if (!below && isfinite(v[k].dyn_pj_per_byte) &&
                !dyn_pj_ranks(v[k].dyn_pj_per_byte))
                below = &v[k];
            if (!why && v[k].power_note[0])
                why = &v[k];
        }
        if (!fast)
            continue;
        fig[nc] = best != NULL;
        c[nc] = best ? *best : *fast;
        if (!best && below)
            snprintf(c[nc].power_note, sizeof(c[nc].power_note), "dynamic energy %.3g pJ/B "
                     "is not above idle: it ranks nothing (the idle reading drifted?)",
                     below->dyn_pj_per_byte);
        else if (!best && why)
            tb_strlcpy(c[nc].power_note, why->power_note, sizeof(c[nc].power_note));
        *without += !best;
        *withheld += !best && (why || below);
        nc++;
    }
    return nc;
}

/* What a compare --pareto without a front says. */
static void no_front_note(struct tb_doc *d, size_t fronts, size_t without, size_t withheld)
{
    if (!fronts && withheld) {
        /* the figures were measured and held back: no power source is missing */
        char msg[300];
        snprintf(msg, sizeof(msg), "no front: no operating point has an energy figure: %zu "
                 "withheld (power_note says why%s)%s", withheld,
                 tb_format_is_data(d->f) ? ", in each row" : ": listed above",
                 without > withheld ? "; the others' rows have no power figures at all" : "");
        if (tb_format_is_data(d->f))
            warning("compare: %s", msg);
        else
            tb_doc_note(d, "%s (doc/power.md)", msg);
    } else if (!fronts) {
        tb_doc_note(d, "no row with a dynamic energy figure (dyn_pj_per_byte): a front needs "
                    "a power source and rows from a mode sweep (doc/power.md)");
    }
}

/* Per kernel and size: each mode and caps' fastest usable point that has an energy figure,
 * and the front of GB/s against dynamic pJ/B over them; the operating points whose rows
 * have no figure (withheld: power.max_rel_ci, a source lost) listed with their reason, never
 * silently left out of a front that would read as if they had not run. With page, the
 * fronts drawn there too. Returns the fronts found (0 with page: the page says none). */
size_t tb_compare_pareto(struct tb_doc *d, struct rec *v, size_t n, const char *page)
{
    struct rec *c = calloc(n ? n : 1, sizeof(*c));   /* each operating point once */
    bool *fig = calloc(n ? n : 1, sizeof(*fig));     /* c[i] has an energy figure */
    struct rec *gc = calloc(n ? n : 1, sizeof(*gc)); /* one group's points with a figure */
    const struct rec **w = calloc(n ? n : 1, sizeof(*w));   /* and those without */
    struct tb_pareto_point *p = calloc(n ? n : 1, sizeof(*p));
    struct page_fronts pf = { NULL, 0 };
    size_t fronts = 0, without = 0, withheld = 0;
    if (!c || !fig || !gc || !w || !p) {
        free(c);
        free(fig);
        free(gc);
        free(w);
        free(p);
        error("compare: out of memory for %zu rows", n);
        return 0;
    }
    size_t nc = operating_points(v, n, c, fig, &without, &withheld);
    struct tb_table t;
    tb_table_begin(&t, d, "pareto", "", pareto_cols, ARRAY_SIZE(pareto_cols));
    for (size_t i = 0, j; i < nc; i = j) {
        size_t np = 0, nw = 0;
        for (j = i; j < nc && !pareto_group(&c[i], &c[j]); j++) {
            if (!fig[j]) {
                w[nw++] = &c[j];
                continue;
            }
            const struct rec *r = &c[j];
            gc[np] = *r;
            p[np] = (struct tb_pareto_point){
                .x = r->dyn_pj_per_byte, .x_ci = r->dyn_pj_per_byte_ci95, .y = r->gbps,
                .src = np,
                /* the median time's standard error as the GB/s interval (1.96 sigma) */
                .y_ci = isfinite(r->rel_sem) ? 1.96 * r->rel_sem * r->gbps : NAN,
            };
            np++;
        }
        pareto_rows(&t, gc, p, np, w, nw);
        if (page && np)
            keep_front(&pf, gc, p, np);
        fronts += np > 0;
    }
    tb_table_end(&t);
    if (page && tb_report_pareto(pf.f, pf.n, page) < 0)
        fronts = 0;
    free_fronts(&pf);
    no_front_note(d, fronts, without, withheld);
    free(c);
    free(fig);
    free(gc);
    free(w);
    free(p);
    return fronts;
}

/* The steps a mode sweep skipped (its "# mode_step: ...: skipped" lines): on no front, so
 * each log's are named, lest a front read as if the mode had never been asked. */
void tb_compare_pareto_skipped(struct tb_doc *d, const struct tb_logset *set)
{
    for (size_t i = 0; i < set->nlogs; i++) {
        const struct tb_log_info *in = &set->logs[i];
        if (!in->steps_skipped)
            continue;
        char msg[1024];
        snprintf(msg, sizeof(msg), "%s: %d mode step%s skipped, on no front: %s", in->path,
                 in->steps_skipped, in->steps_skipped == 1 ? "" : "s", in->skipped);
        if (tb_format_is_data(d->f))
            warning("compare: %s", msg);
        else
            tb_doc_note(d, "%s", msg);
    }
}

