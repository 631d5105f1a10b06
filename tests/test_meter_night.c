/* test_meter_night.c: an Orin's three-mode night on the fake clock. The Jetson default
 * sweep (conf/default.cfg on boards/jetson-orin-nano.cfg, the CUDA backend's points, the
 * power defaults), three mode steps of the R36 nvpmodel table (the Orin Nano Super's, on
 * NVIDIA's R36 PARAM section: tests/fixtures/nvpmodel/orin-nano-super.conf, laid out by
 * th_orin_super_root), the INA3221 of meter_sim.h as its datasheet says (a per-conversion
 * exponential average of 512 samples, 430 ms, as L4T sets it; each conversion +-5%). Each step as the runner runs it: its idle (the first before the announcement), the
 * warming once, each size's points timed at their stopping rule's least time, then the
 * size's energy by the meter (the fastest block of each kernel: one point a kernel), the
 * idle after. The night's time is announced by the meter's plan from the sweep's counts
 * before anything of it runs; the night ends within 45 minutes and within 15% of it. */
#include "meter_sim.h"

#include <stdlib.h>

#include "config/config.h"
#include "jetson/modes.h"
#include "lib/diag.h"
#include "kernels.h"

#define STEPS 3

/* A size of the sweep: its runnable points, and one energy point a kernel (the copy
 * among them: power.points = fastest measures the fastest block of each). */
struct size_plan {
    size_t run, energy;
    bool ref;
};

/* The Jetson default sweep's points of one size on the CUDA backend, by each kernel row's
 * rules (block shape, matrix shape, element), whether or not this build embeds the
 * kernels' images (a CUDA=0 build's sweep would have none to expand). */
static void plan_size(const struct tb_sweep_cfg *sw, size_t si, struct size_plan *s)
{
    memset(s, 0, sizeof(*s));
    long rows = sw->sizes[si].rows, cols = sw->sizes[si].cols;
    for (const struct tb_kernel *k = tb_kernels; k->name; k++) {
        char why[200];
        if (k->backend != TB_BACKEND_CUDA || !(k->elem_sizes & (1u << sw->elem_size)) ||
            !tb_kernel_shape_ok(k, rows, cols, why, sizeof(why)))
            continue;
        size_t nb = k->flags & TB_KF_NO_BLOCK ? 1 : sw->n_blocks, ok = 0;
        for (size_t b = 0; b < nb; b++)
            ok += (size_t)tb_kernel_block_ok(k, sw->blocks[b].x, sw->blocks[b].y, why,
                                             sizeof(why));
        s->run += ok;
        s->energy += ok > 0;
        s->ref |= ok > 0 && (k->flags & TB_KF_COPY_REF);
    }
}

/* A size's timing: each runnable point its stopping rule's least time under its load. */
static void time_size(const struct tb_sweep_cfg *sw, const struct size_plan *s)
{
    for (size_t i = 0; i < s->run; i++) {
        double b;
        sim_load(NULL, i % NPTS, tb_now_ns() + (int64_t)(sw->min_time_ms * 1e6), &b);
    }
}

static void test_orin_three_mode_night(void **state)
{
    struct tb_config cfg;
    struct tb_diag d = { 0 };
    tb_config_init(&cfg);
    tb_config_load(&cfg, "conf/default.cfg", "boards/jetson-orin-nano.cfg", &d);
    if (d.n)
        th_fail("%s", d.msgs[0]);
    struct size_plan sz[8];
    size_t nsz = cfg.sweep.n_sizes < 8 ? cfg.sweep.n_sizes : 8, run = 0;
    for (size_t k = 0; k < nsz; k++) {
        plan_size(&cfg.sweep, k, &sz[k]);
        run += sz[k].run;
        assert_true(sz[k].ref && sz[k].energy <= NPTS);
    }
    /* three modes of the R36 table, in the order a sweep would name them */
    char *root = th_tmpdir(), why[512];
    th_orin_super_root(root, 1);
    struct tb_mode_table table;
    assert_int_equal(tb_modes_table_read(root, &table, why, sizeof(why)), 0);
    assert_true(table.n >= STEPS);

    struct rig r;
    rig_start_pc(&r, EMA, 0.05, &cfg.board.power);   /* the first idle */
    double step_s = 0;
    for (size_t k = 0; k < nsz; k++)
        step_s += tb_meter_plan_size_s(r.m, sz[k].energy, sz[k].ref) +
                  (double)sz[k].run * cfg.sweep.min_time_ms * 1e-3;
    double said = tb_meter_plan_s(r.m, step_s, STEPS);
    int64_t t0 = tb_now_ns();
    struct tb_meter_load ld = { sim_load, NULL, NULL };
    char line[400];
    static struct tb_meter_result out[NPTS];
    for (int step = 0; step < STEPS; step++) {
        /* the mode's GPU cap scales the simulated draw (uncapped: the table's top) */
        double cap = table.v[step].gpu_cap_mhz > 0 ? table.v[step].gpu_cap_mhz : 1020;
        for (int i = 0; i < NPTS; i++)
            base_w[i] = (10.0 + 0.1 * i) * (0.5 + 0.5 * cap / 1020);
        if (step > 0)
            r.idle_w = tb_meter_idle(r.m, &r.idle_ci, NULL, 0);
        tb_meter_warm(r.m, &ld, 0, "copy", line, sizeof(line));
        for (size_t k = 0; k < nsz; k++) {
            time_size(&cfg.sweep, &sz[k]);
            measure(&r, sz[k].energy, out);
            for (size_t j = 0; j < sz[k].energy; j++)
                if (isnan(out[j].gbps_per_w) || out[j].power_cycles < 2)
                    th_fail("step %d size %zu point %zu: %.0f cycles, note '%s'", step, k, j,
                            out[j].power_cycles, out[j].power_note);
        }
        double ci;
        tb_meter_idle(r.m, &ci, NULL, 0);   /* the idle after the step */
    }
    double took = (double)(tb_now_ns() - t0) * 1e-9;
    rig_stop(&r);
    if (took > 45 * 60 || fabs(took - said) > 0.15 * took)
        th_fail("%zu points in %zu sizes, %d modes: announced %.0f s, took %.0f s", run, nsz,
                STEPS, said, took);
    tb_modes_table_free(&table);
    th_rmtree(root);
    free(root);
    tb_config_free(&cfg);
}

int main(void)
{
    tb_clock_fake(1000000000000LL);
    for (int i = 3; i < NPTS; i++)
        rate_bps[i] = 100e9 / (1 + 0.05 * i);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orin_three_mode_night),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
