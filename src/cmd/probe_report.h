/* probe_report.h: `probe-power --report`: the board's INA3221 sensors as nobody here has
 * seen them, into one text file a user can send (probe_report.c). Reads only; writes the
 * report file alone, a new one each time. */
#ifndef TB_PROBE_REPORT_H
#define TB_PROBE_REPORT_H

#include <stddef.h>
#include <stdio.h>

/* The board's part, under root (power.sysfs_root, "" the system's): the kernel release,
 * `ls -l` of each INA3221 folder (hwmon chips, IIO devices), 20 timed reads of each rail
 * file with their values, update_interval, samples and R32's running_mode, the device
 * tree's ti,continuous-config and ti,trigger-config decoded (TI SBOS576's configuration
 * register); a heading for the probe's part, which follows. */
void tb_probe_report_board(FILE *out, const char *root);

/* text (len bytes) kept as a new file beside the probe's result (its path, result:
 * DIR/probe-<board>-<l4t>.cfg): DIR/probe-<board>-<l4t>-report-<UTC stamp>.txt (-1, -2, ...
 * where one is there), made with O_EXCL and never through a link; its name into path. 0,
 * or -errno. */
int tb_probe_report_keep(const char *result, const char *text, size_t len, char *path,
                         size_t n);

#endif
