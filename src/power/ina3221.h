/* ina3221.h: the sysfs value reader of the INA3221 source, exposed for tests and fuzzing. */
#ifndef TB_INA3221_H
#define TB_INA3221_H

#include <stddef.h>

/* Parses a sysfs value's text: 0 with *value set, or -EINVAL. */
int tb_ina3221_parse_value(const char *buf, long *value);
/* Reads one integer sysfs value ("1022", "32760 ma"); 0, or -errno with why filled. */
int tb_ina3221_read_value(const char *path, long *value, char *why, size_t n);

#endif
