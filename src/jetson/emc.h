/* emc.h: the EMC (memory controller) clock read from sysfs, on every Jetson whatever the
 * power source: tegrastats prints it only on its own lines, and the memory clock is what
 * bounds a transpose. Every path is under a root (tests use fake trees). Not here: EMC
 * load (actmon counts activity, not a clock), setting clocks. */
#ifndef TB_EMC_H
#define TB_EMC_H

#include <stddef.h>

/* The first EMC clock file under root that reads as a clock, in this order:
 *   sys/class/devfreq/<name with "emc", or "bwmgr">/cur_freq   (world-readable; Thor's bwmgr)
 *   sys/kernel/debug/bpmp/debug/clk/emc/rate      (TX2, Xavier, Orin: L4T 32 to 36; root)
 *   sys/kernel/debug/clk/emc/clk_rate             (Nano, TX1: L4T 32; root)
 *   sys/kernel/debug/clk/override.emc/clk_rate    (L4T 32 with tegra_bwmgr; root)
 * All in Hz. 0 with path filled, or -ENOENT ("" in path) when none reads. */
int tb_emc_find(const char *root, char *path, size_t n);

/* "3199000000\n" -> 3.199e9: 0, or -EINVAL for anything but a clock in Hz (1 MHz..100 GHz). */
int tb_emc_parse_hz(const char *buf, double *hz);

/* The clock in path, MHz, by a bounded read; NAN with why filled when it does not read. */
double tb_emc_read_mhz(const char *path, char *why, size_t n);

#endif
