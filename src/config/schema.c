/* config/schema.c: the schema of every setting (type, limits, default, one line of help), the
 * one table the loader (config.c), --set (set.c) and the help (help.c) read; a list setting's
 * row names its loader (lists.c). Not here: loading, checking a value against its row. */
#include "config/config.h"
#include "config/internal.h"

#include <stddef.h>
#include <string.h>

#include "lib/util.h"

const char *const tb_config_file_kind[2] = { "sweep", "board" };

/* ---- schema ----------------------------------------------------------------------- */

#define SW(f) offsetof(struct tb_config, sweep.f)
#define BO(f) offsetof(struct tb_config, board.f)
#define GROUP(p, fl, d) { .path = p, .file = fl, .type = S_GROUP, .doc = d }
#define CUSTOM(p, fl, fn, o, dflt, d) \
    { .path = p, .file = fl, .type = S_CUSTOM, .custom = fn, .off = o, .def_s = dflt, .doc = d }
#define INT(p, fl, o, lo, hi, dflt, d) \
    { .path = p, .file = fl, .type = S_INT, .off = o, .min = lo, .max = hi, .def = dflt, .doc = d }
#define FLOAT(p, fl, o, lo, hi, dflt, d) \
    { .path = p, .file = fl, .type = S_FLOAT, .off = o, .min = lo, .max = hi, .def = dflt, .doc = d }
/* a physical quantity whose 0 says "not known" or "none": 0, or within [lo, hi] (so a
 * 1e-300 GB/s peak, which printed frac_peak with 308 digits, is refused at load) */
#define FLOAT0(p, fl, o, lo, hi, dflt, d) \
    { .path = p, .file = fl, .type = S_FLOAT, .off = o, .min = lo, .max = hi, .zero_ok = true, \
      .def = dflt, .doc = d }
#define BOOL(p, fl, o, dflt, d) { .path = p, .file = fl, .type = S_BOOL, .off = o, .def = dflt, .doc = d }
#define STRING(p, fl, o, ch, dflt, d) \
    { .path = p, .file = fl, .type = S_STRING, .off = o, .choices = ch, .def_s = dflt, .doc = d }
/* a string that names something in every log and label: UTF-8 text (lib/util.h) */
#define TEXT(p, fl, o, d) \
    { .path = p, .file = fl, .type = S_STRING, .off = o, .text = true, .doc = d }
#define S TB_CFG_SWEEP
#define B TB_CFG_BOARD

/* Custom rows with an offset keep a string there (their default is def_s); the others
 * (lists) default to empty, but sweep.blocks to its def_s when the sweep file has none. */
const struct tb_cfg_row tb_config_schema[] = {
    GROUP("sweep", S, "what to measure"),
    CUSTOM("sweep.kernels", S, tb_config_load_kernels, 0, NULL,
           "kernel names, [\"*\"] for every kernel of the backend, or \"best\" for its fast ones (the fastest shown)"),
    CUSTOM("sweep.sizes", S, tb_config_load_sizes, 0, NULL, "( [rows, cols], ... )"),
    CUSTOM("sweep.blocks", S, tb_config_load_blocks, 0, "32x8",
           "( [x, y], ... ); the classic 32x8 when not given"),
    CUSTOM("sweep.points", S, tb_config_load_points, 0, NULL,
           "( { kernel = \"tiled\"; size = [r, c]; block = [x, y]; }, ... ) instead of the product"),
    INT("sweep.warmup", S, SW(warmup), 0, 1e6, 3, "untimed launches first"),
    CUSTOM("sweep.element", S, tb_config_load_element, SW(element), "float",
           "element type: u8, f16, float or double (1, 2, 4, 8 bytes; aliases in elements.c)"),
    BOOL("sweep.verify", S, SW(verify), true, "check each point's output against the reference"),
    STRING("sweep.cache", S, SW(cache), "warm,cold", "warm",
           "warm: as a real program sees it; cold: cache flushed before each repetition"),
    GROUP("sweep.stop", S, "the stopping rule"),
    INT("sweep.stop.min_reps", S, SW(min_reps), 1, 1e7, 10, "at least this many timed repetitions"),
    INT("sweep.stop.max_reps", S, SW(max_reps), 1, 1e7, 1000, "at most this many timed repetitions"),
    FLOAT("sweep.stop.min_time_ms", S, SW(min_time_ms), 0, 1e9, 100,
          "and at least this much measured time, ms"),
    FLOAT("sweep.stop.max_time_ms", S, SW(max_time_ms), 0.001, 1e9, 2000,
          "stop a point after this much wall time, ms"),
    FLOAT("sweep.stop.rel_spread", S, SW(rel_spread), 0, 10, 0.005,
          "stop once the standard error of the mean / mean is below this"),
    CUSTOM("sweep.power_modes", S, tb_config_load_power_modes, 0, NULL,
           "nvpmodel modes to sweep, names or ids of /etc/nvpmodel.conf (Jetson; empty: the "
           "mode is never changed)"),
    CUSTOM("sweep.gpu_max_mhz", S, tb_config_load_clock_caps, 0, NULL,
           "GPU clock caps to sweep in each mode, MHz (devfreq max_freq; empty: none set)"),
    CUSTOM("sweep.emc_max_mhz", S, tb_config_load_clock_caps, 0, NULL,
           "memory (EMC) clock caps to sweep in each mode, MHz (the nvpmodel EMC cap; empty: none)"),
    GROUP("tune", S, "the autotuner"),
    FLOAT("tune.seconds", S, SW(tune_seconds), 1, 1e6, 600,
          "time budget of `tune`: no new point starts after it"),
    GROUP("output", S, "where logs go"),
    STRING("output.dir", S, SW(out_dir), NULL, "logs", "log directory"),
    STRING("output.metrics_file", S, SW(metrics_file), NULL, NULL,
           "the night's figures in Prometheus' text format, e.g. node_exporter's textfile "
           "folder/transpose_bench.prom (run --metrics)"),
    INT("output.gzip_level", S, SW(gzip_level), 1, 9, 6, "1 fast .. 9 small"),
    INT("output.keep_logs", S, SW(keep_logs), 0, 1e6, 0, "keep the newest N logs of this tool (0: all)"),
    INT("output.keep_days", S, SW(keep_days), 0, 1e5, 0,
        "remove this tool's logs older than N days (0: never)"),

    GROUP("board", B, "the board"),
    TEXT("board.name", B, BO(name), "short name, used in log names"),
    GROUP("board.match", B, "how to recognise it"),
    CUSTOM("board.match.model", B, tb_config_load_models, 0, NULL,
           "substring of /proc/device-tree/model, or a list of them (L4T releases differ)"),
    STRING("board.match.gpu", B, BO(match_gpu), NULL, NULL, "substring of the GPU name"),
    STRING("board.arch", B, BO(arch), NULL, NULL, "GPU architecture, sm_XY"),
    STRING("board.sms", B, BO(sms), NULL, NULL, "the GPU architectures make builds for, e.g. \"53\" (SMS=)"),
    STRING("board.cpu", B, BO(cpu), "aarch64,x86_64", NULL,
           "the board's CPU, for `make dist` (aarch64 on every Jetson)"),
    STRING("board.cuda", B, BO(cuda), NULL, NULL,
           "the CUDA version of the board's JetPack (its driver loads no newer kernel images)"),
    STRING("board.ptx_isa", B, BO(ptx_isa), NULL, NULL,
           "the newest PTX ISA the board's driver JIT-compiles, e.g. \"6.5\" (make builds PTX at it)"),
    BOOL("board.gpu", B, BO(has_gpu), false,
         "the board has a GPU: a run that cannot use it fails unless --device cpu"),
    FLOAT0("board.max_power_w", B, BO(power.max_power_w), 0.5, 1e4, 0,
          "most the board can draw: readings above it (or below 0) are dropped (0: no ceiling)"),
    FLOAT0("board.peak_gbps", B, BO(peak_gbps), 0.1, 1e5, 0,
          "theoretical peak memory bandwidth, GB/s (0: unknown)"),
    INT("board.dram_bus_bits", B, BO(dram_bus_bits), 0, 8192, 0,
        "DRAM bus width in bits (0: unknown); with dram_mts the peak is bits/8 x MT/s / 1000 GB/s"),
    INT("board.dram_mts", B, BO(dram_mts), 0, 40000, 0,
        "DRAM data rate at the board's full memory clock, MT/s (0: unknown)"),
    STRING("board.dram_type", B, BO(dram_type), "LPDDR4,LPDDR4x,LPDDR5", NULL,
           "memory type: how many transfers one EMC clock makes (ceiling.c)"),
    GROUP("power", B, "power measurement"),
    { .path = "power.source", .file = B, .type = S_CUSTOM, .custom = tb_config_load_power_source,
      .off = BO(power.source), .def_s = "auto", .doc_fn = tb_config_doc_power_source },
    INT("power.interval_ms", B, BO(power.interval_ms), 1, 60000, 50, "sampling interval"),
    INT("power.window_ms", B, BO(power.window_ms), 10, 600000, 1000,
        "an energy block's measured span, at least (whole sensor updates, at least "
        "power.block_updates of them; the first update after a switch is load, not measured)"),
    INT("power.idle_ms", B, BO(power.idle_ms), 0, 600000, 1000,
        "idle baseline before and after the sweep, at least (0: none); lengthened to hold "
        "power.min_readings updates"),
    INT("power.min_readings", B, BO(power.min_readings), 2, 10000, 10,
        "independent sensor updates the idle baseline must hold (it is lengthened to them): "
        "they also give the cadence where the source does not say it"),
    INT("power.batches", B, BO(power.batches), 1, 64, 4,
        "equal spans of time an idle or warming window is cut into: its interval is the wider "
        "of the readings' and the spans' means' (a drift over seconds; 1: readings only)"),
    INT("power.settle_s", B, BO(power.settle_s), 0, 3600, 10,
        "warming: once a night, before the sweep, load the GPU for exactly this many seconds, "
        "counted in the time the run announces (it brings the device to the load; "
        "interleaving with the copy cancels the drift that remains) (0: none)"),
    FLOAT("power.settle_rel", B, BO(power.settle_rel), 0.0001, 0.1, 0.002,
          "the warming says steady when its last two blocks (5 s at least) have mean powers "
          "within this fraction, or within their 95% intervals (said, not waited for)"),
    INT("power.rounds", B, BO(power.rounds), 1, 64, 3,
        "fewest cycles of interleaved energy blocks per size unless power.budget_s ends them "
        "first (the interval needs 2: 1 counts as 2); more until power.target_rel_ci"),
    FLOAT("power.max_rel_ci", B, BO(power.max_rel_ci), 0.0001, 10, 0.03,
          "a figure whose relative 95% interval is wider than this says so in power_note "
          "(it is printed all the same, never withheld for its width)"),
    STRING("power.sysfs_root", B, BO(power.sysfs_root), NULL, "/",
           "root under which /sys and /proc are read"),
    GROUP("power.tegrastats", B, "tegrastats settings"),
    STRING("power.tegrastats.command", B, BO(power.tegrastats_command), NULL, "tegrastats",
           "command; --interval MS is appended"),
    STRING("power.total_rail", B, BO(power.total_rail), NULL, NULL,
           "rail that is the board's total, or \"sum\" of all rails"),
    STRING("power.gpu_rail", B, BO(power.gpu_rail), NULL, NULL, "rail that feeds the GPU"),
    FLOAT("power.target_rel_ci", B, BO(power.target_rel_ci), 0.0001, 1, 0.01,
          "cycles of energy blocks are added until each figure's relative 95% interval (the one "
          "printed: a ratio's, its mean's; the copy's own J per byte, where a rerun of as many "
          "cycles lands) is this narrow, or power.budget_s is spent"),
    FLOAT("power.budget_s", B, BO(power.budget_s), 1, 3600, 12,
          "most seconds of energy blocks per measured point (its own and its share of the "
          "copy's); it may end the cycles before power.rounds, never before 2"),
    INT("power.block_updates", B, BO(power.block_updates), 1, 1000, 3,
        "clean sensor updates an energy block must hold (a triggered sensor, no averaging: "
        "three times as many)"),
    FLOAT("power.rerun_ratio_sd", B, BO(power.rerun_ratio_sd), 0, 0.5, 0.004,
          "how far a rerun on another night moves a kernel's energy ratio beyond what its "
          "cycles show (a relative sd; 0.2-0.6% on the lent H100 and H200s, not measured on a "
          "Jetson): in energy_ratio_rerun_ci95 until this device's own earlier logs teach it "
          "(it counts as 1 difference of successive runs among them while fewer than 4 are "
          "pooled, an estimate of 1 degree of freedom; 0: no prior, the logs alone teach it)"),
    FLOAT("power.rerun_abs_sd", B, BO(power.rerun_abs_sd), 0, 0.5, 0.008,
          "the same for J per byte (0.3-1% on the lent GPUs): in the intervals of gbps_per_w, "
          "j_per_gb and dyn_pj_per_byte"),
    STRING("power.points", B, BO(power.points), "fastest,all", "fastest",
           "whose energy is measured: the fastest block of each kernel and size, or all points "
           "(the timing sweep covers every point either way)"),
    STRING("power.probe", B, BO(probe), "auto,never,always", "auto",
           "the sensor's step response (probe-power) at a night's start: a kept result for "
           "this board and L4T release is always used; auto: probed first (at most 60 s) when "
           "there is none, the source is the INA3221 rails, the L4T release is known and the "
           "night's energy budget (power.budget_s x points measured x mode steps; a tune's "
           "tune.seconds) is 120 s or more; always: probed every night; never: not probed"),
};
const size_t tb_config_schema_n = ARRAY_SIZE(tb_config_schema);
_Static_assert(ARRAY_SIZE(tb_config_schema) <= TB_CFG_MAX_ROWS, "raise TB_CFG_MAX_ROWS");

#undef S
#undef B

const struct tb_cfg_row *tb_config_row(const char *path)
{
    for (size_t i = 0; i < tb_config_schema_n; i++)
        if (!strcmp(tb_config_schema[i].path, path))
            return &tb_config_schema[i];
    return NULL;
}
