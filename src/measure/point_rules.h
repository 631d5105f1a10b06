/* point_rules.h: the configuration checked against the kernel table and the device: kernel
 * names for the backend (with did-you-mean), element types and block rules of explicit
 * points, then the opened device's limits (threads per block, memory). Beside the kernel
 * rules because they are about kernels, not about reading files (config.c).
 * Not here: expanding the sweep into points (sweep.c), which marks points a rule skips. */
#ifndef TB_POINT_RULES_H
#define TB_POINT_RULES_H

#include <stdbool.h>

#include "config/config.h"
#include "kernels.h"

struct tb_device_info;

/* Kernel names (sweep.kernels and sweep.points) against backend b's rows: unknown names,
 * names of the other backend, element types a kernel does not take, blocks an explicit
 * point's kernel refuses. usable: the backend's device can run (a GPU that cannot is the
 * run's failure, not each kernel's: then availability is not checked). Needs no device,
 * so a run reports these before it opens one. Returns the number of problems added. */
int tb_point_rules_check_names(const struct tb_config *c, enum tb_backend_id b, bool usable,
                               struct tb_diag *d);
/* What needs the opened device: blocks above its threads-per-block limit and sizes whose
 * input and output exceed its memory. Returns the number of problems added. */
int tb_point_rules_check_device(const struct tb_config *c, const struct tb_device_info *dev,
                                struct tb_diag *d);

#endif
