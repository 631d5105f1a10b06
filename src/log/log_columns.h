/* log_columns.h: THE definition of the log's columns, in order. The CSV header, every
 * row, `transpose-bench list --columns`, doc/log-format.md and the compare reader all
 * follow from this one list. Kinds: STR (text, empty when NULL or ""), INT (integer),
 * DBL (number, empty when NAN, i.e. no reading). Units live in the names.
 * X(name, kind, printf format, unit, meaning) */
#ifndef TB_LOG_COLUMNS_H
#define TB_LOG_COLUMNS_H

#define TB_LOG_COLUMNS(X) \
    X(run_id,          STR, "%s",    "-",   "identifies the run: host, board, UTC start and -N when that second already had a run") \
    X(utc,             STR, "%s",    "-",   "UTC time the point finished, ISO 8601") \
    X(host,            STR, "%s",    "-",   "host name") \
    X(board,           STR, "%s",    "-",   "board name from the board file") \
    X(device,          STR, "%s",    "-",   "device name (GPU or CPU model)") \
    X(backend,         STR, "%s",    "-",   "cpu or cuda") \
    X(kernel,          STR, "%s",    "-",   "kernel name (transpose-bench list)") \
    X(elem,            STR, "%s",    "-",   "element type") \
    X(elem_bytes,      INT, "%lld",  "B",   "bytes per element") \
    X(rows,            INT, "%lld",  "-",   "input rows (output has cols rows)") \
    X(cols,            INT, "%lld",  "-",   "input columns") \
    X(block_x,         INT, "%lld",  "-",   "block shape x (0: kernel takes no block)") \
    X(block_y,         INT, "%lld",  "-",   "block shape y") \
    X(grid_x,          INT, "%lld",  "-",   "grid x (0: no grid)") \
    X(grid_y,          INT, "%lld",  "-",   "grid y") \
    X(reps,            INT, "%lld",  "-",   "timed repetitions") \
    X(stop,            STR, "%s",    "-",   "why repetitions stopped: spread, max_reps or max_time") \
    X(time_ms_median,  DBL, "%.6g",  "ms",  "median time of one repetition") \
    X(time_ms_min,     DBL, "%.6g",  "ms",  "fastest repetition") \
    X(time_ms_max,     DBL, "%.6g",  "ms",  "slowest repetition") \
    X(time_ms_mean,    DBL, "%.6g",  "ms",  "mean repetition") \
    X(time_ms_stddev,  DBL, "%.6g",  "ms",  "standard deviation of the repetitions") \
    X(rel_sem,         DBL, "%.4g",  "-",   "standard error of the mean / mean") \
    X(bytes,           INT, "%lld",  "B",   "bytes moved by one repetition (read + written)") \
    X(gbps,            DBL, "%.2f",  "GB/s","bytes / median time, GB = 1e9 bytes") \
    X(frac_peak,       DBL, "%.4f",  "-",   "gbps / peak_gbps, the ceiling this point is judged against") \
    X(peak_gbps,       DBL, "%.1f",  "GB/s","the ceiling frac_peak divides by: from the EMC clock read in the point's power window (live EMC), else the nvpmodel mode's EMC cap, else the board file's peak; in a mode sweep never above the EMC cap read back after the step settled") \
    X(peak_source,     STR, "%s",    "-",   "where peak_gbps came from: live EMC, nvpmodel EMC cap (the mode's, or the step's read back) or board file (why: the ceiling metadata line)") \
    X(frac_copy,       DBL, "%.4f",  "-",   "gbps / the reference copy's gbps at this size, same run") \
    X(cache,           STR, "%s",    "-",   "warm (as a program sees it) or cold (cache flushed per rep)") \
    X(fits_cache,      STR, "%s",    "-",   "yes when input + output fit in the last-level cache") \
    X(sm_clock_mhz,    DBL, "%.0f",  "MHz", "mean SM clock while timing (GPU), empty where unknown") \
    X(gpu_max_mhz,     DBL, "%.0f",  "MHz", "the GPU clock the board can reach in this mode (Jetson devfreq max, desktop NVML max SM clock), empty where unknown") \
    X(throttled,       STR, "%s",    "-",   "yes when sm_clock_mhz fell below 0.85 of gpu_max_mhz (else of the clock measured at the run's start), or throttle_cause names a cause") \
    X(throttle_cause,  STR, "%s",    "-",   "why the point may have run slower, the strongest cause seen between its start and end: power mode changed, devfreq max lowered, over-current events (oc3 +12), a hot thermal zone, a pinned clock that fell; NVML's clock-event reasons on desktops; empty: none seen") \
    X(oc_events,       DBL, "%.0f",  "-",   "over-current events (soctherm_oc oc1..oc3_event_cnt) during the point (its timing, and where its energy was measured until its size's energy blocks ended); empty where the board has no such counters") \
    X(max_temp_c,      DBL, "%.1f",  "C",   "the hottest thermal zone at the point's start or end (of those read: a zone that could not be read is named in # thermal_unread: and the row's note says so)") \
    X(power_mode,      STR, "%s",    "-",   "nvpmodel power mode, name (ID), e.g. MAXN (0); empty off a Jetson") \
    X(gpu_cap_asked_mhz, DBL, "%.0f", "MHz", "the GPU clock cap this row's step of a mode sweep asked (sweep.gpu_max_mhz, written to devfreq max_freq); empty: none asked") \
    X(emc_cap_asked_mhz, DBL, "%.0f", "MHz", "the EMC clock cap this row's step asked (sweep.emc_max_mhz, the nvpmodel EMC cap file); empty: none asked") \
    X(emc_cap_mhz,     DBL, "%.0f",  "MHz", "the nvpmodel EMC cap read after the step's mode and caps settled (0: none); empty outside a mode sweep (gpu_max_mhz is then the GPU max_freq read after it settled)") \
    X(verified,        VERIFIED, "%s", "-", "the output checked bit for bit: ok, FAIL or n/a (sweep.verify off)") \
    X(status,          STATUS, "%s", "-",   "how the point ended: ok, suspect, skipped, oom, error, interrupted") \
    X(note,            STR, "%s",    "-",   "why a point was skipped or failed, or what is suspect") \
    X(power_source,    STR, "%s",    "-",   "power source used, empty when none") \
    X(rail_total,      STR, "%s",    "-",   "rail counted as the board total (sum: all rails)") \
    X(rail_gpu,        STR, "%s",    "-",   "rail counted as the GPU") \
    X(power_total_w,   DBL, "%.3f",  "W",   "mean total power over the point's energy blocks (each between two sensor updates: the energy counter's difference where the source has one, else the mean of the readings); it moves with temperature: energy_ratio much less") \
    X(power_gpu_w,     DBL, "%.3f",  "W",   "mean GPU-rail power over the point's energy blocks") \
    X(power_idle_w,    DBL, "%.3f",  "W",   "idle total power measured before the sweep (after it, and the drift: the power_idle metadata line)") \
    X(energy_j,        DBL, "%.4f",  "J",   "total-rail energy over the point's energy blocks (trapezoid of the readings)") \
    X(energy_counter_j,DBL, "%.4f",  "J",   "energy over the point's energy blocks from the device's counter") \
    X(window_ms,       DBL, "%.1f",  "ms",  "the point's energy blocks' measured spans together (lead-ins aside)") \
    X(window_bytes,    DBL, "%.6g",  "B",   "bytes moved in those spans") \
    X(energy_ratio,    DBL, "%.4f",  "-",   "THE energy figure: the point's J per byte over the reference copy's in its neighbouring blocks (blocks of the two interleaved, the copy's on either side), mean over cycles; 1 for the copy itself; empty without a copy at this size") \
    X(energy_ratio_ci95, DBL, "%.6g", "-",  "half-width of the 95% confidence interval of the night's mean ratio, from this run's cycles and what they do not average (energy_ratio_sys_ci95, combined as sqrt(cycles^2 + sys^2)); the cycles' part t x s sqrt(sum a_j^2), a the mean's weights on the kernel's and the copy's blocks, s a block's spread by the residual mean square orthogonal to the two levels, to a and, from 6 cycles, to a drift both share (each block's time), t at its degrees of freedom (energy_ratio_df; one kernel over n cycles: 2n - 2 below 6 cycles, 2n - 3 from 6; kernels interleaved at a size: 3n - 2, 3n - 3; since #57, before: sqrt(s^2 / n + D s_c^2) at Welch-Satterthwaite's), from 6 cycles on never below what the ratios' own lag-1 autocovariance gives (at that estimate's own degrees where it is the larger); never narrower than the size's pooled block-to-block spread gives: what power.target_rel_ci stops the cycles on; a wide one is printed, power_note says so (doc/power.md). logs written before this definition (2026-11-28) hold where a rerun of as many cycles lands, sqrt(2) times the mean's interval as the cycles' spread alone gives it") \
    X(energy_ratio_df, DBL, "%.6g",  "-",   "degrees of freedom of the t in energy_ratio_ci95's cycles' part, the one the meter took: its blocks' residual's (one kernel over n cycles 2n - 2 below 6 cycles, 2n - 3 from 6; kernels interleaved at the size 3n - 2, 3n - 3; a block without a figure changes the count, not always by one), the size's pooled residual's where the pool's interval was the wider, the residual's still where, from 6 cycles, the ratios' lag-1 floor set the variance (the floor's own, Satterthwaite's 1.32 at 6 cycles and 3.27 at 12, are fewer: doc/power.md); the rerun learner reads each row's own variance by it. Empty for the copy and where there is no interval. Since 2026-12-08 (#57); a log without it is read by its date: from 2026-12-07T21:05:54Z one kernel's 2n - 2 and 2n - 3, before that the Welch-Satterthwaite degrees of its definition then (doc/power.md)") \
    X(energy_ratio_sys_ci95, DBL, "%.6g", "-", "energy_ratio_ci95's systematic part, in its units: the 95% half-width of what the cycles do not average (the sensor constants' uncertainty carried through the inversion, the register's step, the model's floor: doc/power.md), combined with the cycles' part as sqrt(cycles^2 + sys^2); the rerun learner reads the cycles' part alone as sqrt(energy_ratio_ci95^2 - this^2). Empty where there is none (a sensor not inverted) and for the copy. Since 2026-12-08 (#57)") \
    X(energy_ratio_rerun_ci95, DBL, "%.4f", "-", "half-width of the 95% interval a rerun on another night of as many cycles lands in: t x sqrt(2 s^2 / n + 2 rerun_ratio_sd^2), s the per-cycle spread of the size's points this night pooled with this device's in its earlier runs, n the cycles, t by their degrees of freedom (Welch-Satterthwaite); compare (and its --html page) and history show it, history judges by it (doc/power.md)") \
    X(gbps_per_w,      DBL, "%.4f",  "GB/s/W", "bytes per joule / 1e9 at total power (not above idle): from energy_ratio x the copy's own J per byte (its blocks' mean), at gpu_temp_c") \
    X(gbps_per_w_gpu,  DBL, "%.4f",  "GB/s/W", "window bandwidth / power_gpu_w") \
    X(power_samples,   DBL, "%.0f",  "-",   "samples (polls of the sensor) inside the windows; not independent: see power_updates") \
    X(power_updates,   DBL, "%.0f",  "-",   "distinct sensor updates inside the windows: the independent readings behind every power figure of the row") \
    X(power_cycles,    DBL, "%.0f",  "-",   "energy blocks of this point with a figure: one a cycle of the size's interleaved blocks (at least power.rounds, more until power.target_rel_ci or power.budget_s)") \
    X(power_capped_blocks, DBL, "%.0f", "-", "energy blocks of this point the power limit held: NVML's SW power cap clock-event reason in half the block's readings or more (the source reads the reasons with every reading), the block's power within 2% of the enforced limit (NVML's; a Jetson's INA3221 averaged warning limit (currK_max) on the total rail x its bus voltage), or on a Jetson the over-current throttle acting in it (the rail's currK_crit_alarm read 1, or a soctherm_oc ocK_event_cnt grew): where half its blocks or more were capped and the copy's were not, the cap held its power while the copy's rose with the card's temperature, so j_per_gb, not energy_ratio, is its figure a rerun hot or cold reproduces (power_note says so; history judges it by j_per_gb); empty where the source cannot say (tegrastats; an INA3221 with no limit, alarm or counter to read) or a block's readings did not") \
    X(block_figures,   STR, "%s",    "-",   "each block's ratio to the copy around it (the copy's own rows and a size without a copy: its pJ/B), then each block's GPU temperature (\"ratio 0.912 0.915; C 46 47\"): the spread behind the interval") \
    X(rerun_ratio_sd,  DBL, "%.6f",  "-",   "the run-to-run spread of energy_ratio beyond its cycles' (a relative sd) behind energy_ratio_rerun_ci95: learned from rerun_runs earlier runs of this device's points (its kernels and sizes pooled) in this host's and board's logs in the log folder, pulled toward the board file's power.rerun_ratio_sd (which counts as 1 difference of successive runs, an estimate of 1 degree of freedom) while fewer than 4 differences are pooled, that setting alone before 1") \
    X(rerun_abs_sd,    DBL, "%.6f",  "-",   "the same for J per byte (a relative sd), in the intervals of gbps_per_w, j_per_gb and dyn_pj_per_byte: learned as rerun_ratio_sd, pulled toward power.rerun_abs_sd") \
    X(rerun_runs,      DBL, "%.0f",  "-",   "earlier runs of this device's points (host, device by its device_id, board, power mode and caps; each kernel, element and size a series, and each block too unless power.points = fastest) in the log folder whose successive differences rerun_ratio_sd and rerun_abs_sd were learned from (the newest 30 of a series in the newest 60 logs; power-capped rows left out); 0: the board file's settings alone") \
    X(power_total_w_ci95, DBL, "%.3f", "W", "half-width of the 95% interval of power_total_w over the point's blocks (Student t); it holds the drift, which energy_ratio cancels") \
    X(gbps_per_w_ci95, DBL, "%.4f",  "GB/s/W", "half-width of gbps_per_w's 95% rerun interval: energy_ratio's cycles' interval, the copy's own (from its blocks' spread, and half the range they drifted over the cycles) and another night's (1.96 x sqrt(2) x rerun_abs_sd) combined; it holds at gpu_temp_c: a rerun at another temperature moves it (0.4% a degree), energy_ratio much less") \
    X(j_per_gb,        DBL, "%.4f",  "J/GB", "energy per GB moved at total power: energy_ratio x the copy's J per byte x 1e9, at gpu_temp_c") \
    X(j_per_gb_ci95,   DBL, "%.4f",  "J/GB", "half-width of the 95% rerun interval of j_per_gb (as gbps_per_w_ci95's)") \
    X(dyn_pj_per_byte, DBL, "%.2f",  "pJ/B", "dynamic energy per byte: J per byte as j_per_gb, less power_idle_w over the blocks' bytes per second") \
    X(dyn_pj_per_byte_ci95, DBL, "%.2f", "pJ/B", "half-width of the 95% rerun interval of dyn_pj_per_byte (j_per_gb's and the idle's combined)") \
    X(gpu_temp_c,      DBL, "%.1f",  "C",   "mean GPU temperature over the point's energy blocks: the absolute figures (power, gbps_per_w, j_per_gb, dyn_pj_per_byte) and their intervals hold at it, over the range gpu_temp_min_c..gpu_temp_max_c; a rerun at another temperature moves them (about 0.4% a degree on the lent H100 and H200), energy_ratio much less (though 0.8% for 3-4 C on one H200 where the kernel was power-capped: power_capped_blocks, and about 1% where the copy itself ran slower on a hot card); each block's is in block_figures") \
    X(gpu_temp_min_c,  DBL, "%.1f",  "C",   "the coolest of the point's energy blocks (its mean GPU temperature): with gpu_temp_max_c, the range over the cycles at which the absolute figures hold") \
    X(gpu_temp_max_c,  DBL, "%.1f",  "C",   "the hottest of the point's energy blocks (its mean GPU temperature)") \
    X(mem_temp_min_c,  DBL, "%.1f",  "C",   "the GPU memory's own temperature over the point's energy blocks, from NVML's memory-temperature field (HBM boards): the coolest block's; empty where the source cannot say (GDDR, Jetson, tegrastats, INA3221)") \
    X(mem_temp_max_c,  DBL, "%.1f",  "C",   "the GPU memory's own temperature over the point's energy blocks (as mem_temp_min_c): the hottest block's; with it, whether a copy that ran slower on a hot card had hot memory") \
    X(gpu_clock_mhz,   DBL, "%.0f",  "MHz", "GPU clock reported by the power source at the end of the point's last energy block") \
    X(emc_clock_mhz,   DBL, "%.0f",  "MHz", "memory (EMC) clock at the end of the point's last energy block (tegrastats, else sysfs)") \
    X(power_note,      STR, "%s",    "-",   "what the meter could not measure and why, each named: blocks with too few clean sensor updates, a source lost, a jump (throttle, mode change) that dropped blocks, a signal or the budget ending the cycles, an interval wider than power.max_rel_ci (printed all the same), a warming that never settled; empty when the figures are whole. Figures are withheld only when no block measured")

/* The values of `status` and `verified`, X(enum suffix, text in the log, meaning). Whether
 * a row counts as a result is decided from these two by ONE function, tb_outcome_counts()
 * (outcome.h), which the runner's summary, tune, compare, history and the pages all ask. */
#define TB_STATUS_VALUES(X) \
    X(NONE,        "",            "no status column (logs from before it was written): counts like ok") \
    X(OK,          "ok",          "measured") \
    X(SUSPECT,     "suspect",     "measured, but above the board's peak outside any cache: check board.peak_gbps") \
    X(SKIPPED,     "skipped",     "not run: a rule excludes the point (note says which)") \
    X(OOM,         "oom",         "not measured: the device ran out of memory") \
    X(ERROR,       "error",       "not measured: the backend failed (note says in which step)") \
    X(INTERRUPTED, "interrupted", "not measured: a signal or deadline stopped it")

#define TB_VERIFIED_VALUES(X) \
    X(NA,   "n/a",  "not checked (sweep.verify = false); counts") \
    X(OK,   "ok",   "every output element checked bit for bit") \
    X(FAIL, "FAIL", "the output was wrong: never a result anywhere (best point, baseline, history, tuned file)")

#endif
