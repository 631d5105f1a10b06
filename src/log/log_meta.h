/* log_meta.h: THE list of a log's metadata keys ("# key: value" lines). The writers
 * (csvlog.c, run.c, runner.c) name keys through TB_META(), so a key missing here does not
 * compile (the run conditions' keys, which conditions.c names, are the one family written
 * by name: run.c warns of one not listed here); the reader (logread.c) matches them through
 * tb_meta_value(); doc/log-format.md's metadata table is made from this list
 * (scripts/log-format-doc.sh). The list's order is the doc's, not a promise of the order
 * in a log (rows come between, the end line last).
 * X(id, key as written, when it is there, meaning) */
#ifndef TB_LOG_META_H
#define TB_LOG_META_H

#define TB_LOG_META(X) \
    X(transpose_bench, "transpose-bench", "always", "tool version and git revision") \
    X(log_format,    "log_format",    "always", "the format's version (readers refuse newer ones)") \
    X(run_id,        "run_id",        "always", "the log's name without .csv.gz") \
    X(started_utc,   "started_utc",   "always", "UTC start, ISO 8601") \
    X(host,          "host",          "always", "the host's name as it is (the log's file name spells it: a-z, 0-9, '.', '-' as they are, any other name with '+' and a short hash)") \
    X(machine_id,    "machine_id",    "where the host has one", "the host's /etc/machine-id (else /var/lib/dbus/machine-id): two hosts of one name, or boards cloned from one image, stay apart") \
    X(clock,         "clock",         "a clock before the build's date", "before_build DATE: the host's clock at the start was before the tool's own build date (a reset clock: no RTC battery, no network time yet), so the log's name and times are wrong; the night ran on DATE or later, and history leaves it out and says so (src/lib/buildclock.c)") \
    X(images_sha256, "images_sha256", "always", "sha256 of the kernel images the executable carries (as `--version` says; none: a build without them): logs with the same one ran the same GPU kernel code, and a run learns its run-to-run spread from those alone (src/energy/rerun.c)") \
    X(sweep_file,    "sweep_file",    "always", "the sweep file and its FNV-1a 64 hash") \
    X(board_file,    "board_file",    "always", "the board file, its hash, and why it was chosen") \
    X(board,         "board",         "always", "board name, its peak GB/s, whether it has a GPU") \
    X(board_variant, "board_variant", "a corrected peak", "the board file's peak corrected for a variant (an Orin Nano Super: 102.4 GB/s)") \
    X(kernel_images, "kernel_images", "always", "the kernel images the executable carries") \
    X(backend,       "backend",       "always", "cpu, cuda, or none when the GPU could not be used") \
    X(gpu,           "gpu",           "GPU unusable", "unusable: why") \
    X(device,        "device",        "a device ran", "device name") \
    X(device_id,     "device_id",     "where the device says", "the device's own identity: the GPU's UUID as NVML gives it (nvmlDeviceGetUUID; the power source nvml) on a desktop, `serial-` and the module's serial number from its device tree (/proc/device-tree/serial-number) on a Jetson where readable; the rerun learner and history key on it, so two GPUs of one model in one host, or two boards of one host name, are two series (logs without it: host and device name)") \
    X(cuda_device,   "cuda_device",   "CUDA", "index, compute capability, SMs, L2, memory, driver's CUDA, PCI bus id, image run") \
    X(cpu_device,    "cpu_device",    "CPU backend", "cores, last-level cache, memory") \
    X(kernel_image,  "kernel_image",  "CUDA", "why that image: the rule that picked it (src/cuda/images.c), a cubin the driver refused") \
    X(jit_cache,     "jit_cache",     "CUDA", "where the driver keeps JIT-compiled PTX, its size limit, whether this user can write it") \
    X(l4t,           "l4t",           "Jetson", "the L4T release (/etc/nv_tegra_release)") \
    X(power_mode,    "power_mode",    "Jetson", "nvpmodel mode, name (ID)") \
    X(gpu_devfreq,   "gpu_devfreq",   "Jetson", "the GPU's devfreq node and its clocks") \
    X(gpu_clocks,    "gpu_clocks",    "Jetson", "pinned (jetson_clocks) or dynamic") \
    X(gpu_temp,      "gpu_temp",      "where readable", "GPU temperature at the start") \
    X(thermal_unread, "thermal_unread", "a thermal zone could not be read", "each zone whose `type` or `temp` could not be read and why: `thermal_zone3/type (no answer within 2000 ms), ...` (the zones are read at once, under one deadline: src/jetson/throttle.c); each row's note says its max_temp_c was taken without them") \
    X(emc_clock,     "emc_clock",     "where sysfs has it", "the memory (EMC) clock at the start (src/jetson/emc.c)") \
    X(fault_injection, "fault_injection", "TB_CUDA_FAULT set", "a test hook was on: the kernel it breaks on purpose (contrib/gpu-lab/gpu-check.sh)") \
    X(power,         "power",         "a source failed", "why the power source could not start") \
    X(gpu_conditions,"gpu_conditions","NVML", "clocks, limits and temperatures the power source reports (the GPU's; the memory's too on HBM boards)") \
    X(power_source,  "power_source",  "a sweep ran", "the power source used, or none") \
    X(config,        "config",        "always", "one line per resolved setting: path = value;") \
    X(modes_restored,"modes_restored","a mode sweep, or a dead run's state file", "what was put back: the power mode and clock caps as found before the sweep (or by a run that died: its pid), or what was not and why") \
    X(mode_step,     "mode_step",     "a mode sweep", "each step of sweep.power_modes x caps before its rows: the mode, the caps asked and the clocks read after it settled, or why it was skipped (refused, needs a reboot, clocks never followed, cap refused); the ceiling, power_cadence and power_idle lines that follow are that step's") \
    X(ceiling,       "ceiling",       "a sweep ran", "the run's bandwidth ceiling (each mode step's, after its mode_step line), where it came from (nvpmodel EMC cap, a step's EMC cap read back, board file) and why the EMC clock could or could not be read") \
    X(power_cadence, "power_cadence", "a power source", "the sensor's model where the source says one (ema, boxcar, point, counter, mean: its constants per rail and where each came from, and which lead-in its blocks take), how often the sensor's reading really changes, how that was known (sysfs, energy counter, documented, inferred), the window it sized (and where a slow average's blocks were cut to the budget), on an inverted sensor what the night's own load steps self-calibrated (each rail's time constant and dead time with their sds, against what the board said and the prior's source: doc/power.md), every rail read, which is the total and which the GPU, the figure's scope, and the enforced power limit a block within 2% of is capped, with where it came from (NVML's enforced limit; a Jetson's INA3221 averaged warning limit (currK_max) on the total rail x its bus voltage: doc/power.md) or why it is not known") \
    X(power_idle,    "power_idle",    "a power source", "idle power before and after the sweep with their 95% intervals, and the drift; why the idle has no interval (a static sensor)") \
    X(power_settle,  "power_settle",  "a power source and power.settle_s > 0", "the warming, once a night before the sweep: power.settle_s under which kernel, in blocks of how long, the power of its first and last block, and whether the last two agreed (steady) or not") \
    X(power_rerun,   "power_rerun",   "a power source", "what the run-to-run spread in every energy interval a rerun on another night lands in was learned from: the earlier logs of this host and board read in the log folder (src/energy/rerun.c), and the board file's power.rerun_ratio_sd and power.rerun_abs_sd it starts from; each row's rerun_runs says how many runs of its point") \
    X(power_plan,    "power_plan",    "a power source", "the night's time the run announced at its start (every mode step's timing, energy and idles, and the warming) and the time it took since, at the end of each step") \
    X(sensor,        "sensor",        "a power source", "readings dropped, silences") \
    X(sampler,       "sampler",       "a power source", "samples taken, the thread's CPU time") \
    X(kernel_load,   "kernel_load",   "CUDA", "the cubin's load time, or the PTX entries JIT-compiled and their time") \
    X(end,           "end",           "a whole log", "how the run ended, and its row count: complete, failed: ..., interrupted by ..., recovered ...")

enum tb_meta {
#define TB_META_ENUM(id, key, when, doc) TB_META_##id,
    TB_LOG_META(TB_META_ENUM)
#undef TB_META_ENUM
    TB_META_N
};

struct tb_meta_key {
    const char *key, *when, *doc;
};
extern const struct tb_meta_key tb_meta_keys[TB_META_N];

/* The key of id as written, e.g. TB_META(host) is "host". */
#define TB_META(id) (tb_meta_keys[TB_META_##id].key)

/* The value of a "# key: value" line when its key is id's, else NULL. */
const char *tb_meta_value(const char *line, enum tb_meta id);
/* Whether key is in the list. */
int tb_meta_known(const char *key);

#endif
