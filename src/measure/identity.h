/* identity.h: the device's own identity, for the log's device_id line: two GPUs of one
 * model in one host, or two boards of one host name, are two devices to the rerun learner
 * and to history. Not here: the host's identity (its machine-id: run.c). */
#ifndef TB_IDENTITY_H
#define TB_IDENTITY_H

#include <stddef.h>

#include "power/power.h"

/* The GPU's UUID where the power source reads it (s: NVML's nvmlDeviceGetUUID; NULL: no
 * source), else "serial-" and a Jetson module's serial number from its device tree
 * (/proc/device-tree/serial-number under TB_ROOT, read bounded), kept as letters, digits
 * and '-'. 0, or -1 with buf "" where neither says. */
int tb_device_identity(const struct tb_sampler *s, char *buf, size_t n);

#endif
