/* energy_figures.h: THE list of a point's energy figures, each named exactly as its log
 * column (log_columns.h) and held in that column's unit. The meter's result declares its
 * figures from it (energy/meter.h), the runner copies them into the row by it
 * (measure/runner_energy.c: r->NAME = m->NAME, one expansion) and the log reader declares
 * and fills the ones it keeps by it (logread.h, logread.c, logrec.c): one name from the
 * meter to the reader. Here, under log/, because the reader may not include energy/.
 * Not here: the row's own declaration (log_columns.h: every column, these among them), the
 * two texts the meter also gives (block_figures and power_note, named as their columns in
 * the meter's result and copied beside the expansion), the run's idle (power_idle_w: the
 * door's, not a point's), figures with no column (the meter's J per byte, its blocks' GB/s).
 *
 * X(name as its log column, what the log reader keeps of it, the largest value it keeps):
 *   NO      not kept (the reader may still read the column: power_capped_blocks)
 *   POS     a double; NAN for none and for a value not in 0..max (negative, -0, absurd)
 *   SIGNED  a double; NAN for none and beyond +-max (below 0 is a finding, not an error)
 *   COUNT   an int; 0 for none and for a value not in 1..max, else the value cut to whole
 * Every figure is a number (a DBL column, checked in csvlog.c); NAN where not measured or
 * withheld (the row's note says why). */
#ifndef TB_ENERGY_FIGURES_H
#define TB_ENERGY_FIGURES_H

/* The most degrees of freedom an energy_ratio_df can say: the size's pool (meter_pool.c)
 * counts a kernel's blocks over at most 64 cycles (TB_METER_MAX_CYCLES) and the copy blocks
 * beside them, 2 x 64 a kernel and one, less its columns; a size of 64 kernels (the kernel
 * table has 30 rows, a kernel is listed once) holds fewer than 2 x 64 x 64. */
#define TB_LOG_RATIO_DF_MAX 8192

#define TB_ENERGY_FIGURES(X) \
    X(power_total_w,           NO,     0)   \
    X(power_gpu_w,             NO,     0)   \
    X(energy_j,                NO,     0)   \
    X(energy_counter_j,        NO,     0)   \
    X(window_ms,               NO,     0)   /* the meter's blocks' seconds x 1e3 */ \
    X(window_bytes,            NO,     0)   \
    X(energy_ratio,            POS,    1e4) \
    X(energy_ratio_ci95,       POS,    1e4) /* the cycles' interval of the mean */ \
    X(energy_ratio_df,         POS,    TB_LOG_RATIO_DF_MAX) /* its t's degrees of \
                                             * freedom, from 1 (logread.c, ratio_df); NAN \
                                             * in logs before the column (the reader's \
                                             * rule: rerun.c, tb_rerun_row_df) */ \
    X(energy_ratio_sys_ci95,   POS,    1e4) /* energy_ratio_ci95's part the cycles do \
                                             * not average; NAN: none, or a log before it */ \
    X(energy_ratio_rerun_ci95, POS,    1e4) /* another night's; the reader's falls back to \
                                             * energy_ratio_ci95 in logs before it */ \
    X(gbps_per_w,              POS,    1e5) \
    X(gbps_per_w_gpu,          NO,     0)   \
    X(power_samples,           NO,     0)   /* a count, held as the column's number */ \
    X(power_updates,           NO,     0)   /* a count, as power_samples */ \
    X(power_cycles,            COUNT,  1e6) /* the meter's: a count as a number */ \
    X(power_capped_blocks,     NO,     0)   /* read: the reader's power_capped from it */ \
    X(rerun_ratio_sd,          NO,     0)   \
    X(rerun_abs_sd,            NO,     0)   \
    X(rerun_runs,              NO,     0)   /* NAN: no spread was given the meter */ \
    X(power_total_w_ci95,      NO,     0)   \
    X(gbps_per_w_ci95,         POS,    1e5) \
    X(j_per_gb,                POS,    1e6) \
    X(j_per_gb_ci95,           POS,    1e6) \
    X(dyn_pj_per_byte,         SIGNED, 1e9) \
    X(dyn_pj_per_byte_ci95,    POS,    1e9) \
    X(gpu_temp_c,              SIGNED, 300) /* below 0 C is a cold board */ \
    X(gpu_temp_min_c,          NO,     0)   \
    X(gpu_temp_max_c,          NO,     0)   \
    X(mem_temp_min_c,          NO,     0)   \
    X(mem_temp_max_c,          NO,     0)   \
    X(gpu_clock_mhz,           NO,     0)   \
    X(emc_clock_mhz,           NO,     0)

/* The reader's record's field of a figure it keeps (logread.h), by its rule. */
#define TB_FIG_FIELD_NO(name)
#define TB_FIG_FIELD_POS(name) double name;
#define TB_FIG_FIELD_SIGNED(name) double name;
#define TB_FIG_FIELD_COUNT(name) int name;

#endif
