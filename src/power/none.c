/* none.c: the power source that measures nothing; rows carry empty power columns. */
#include "power/power.h"

#include <errno.h>

static int none_probe(const struct tb_power_cfg *pc, char *why, size_t n) { return 0; }

static int none_open(void *st, const struct tb_power_cfg *pc, struct tb_power_rails *rails,
                     char *why, size_t n)
{
    rails->n = 0;
    return 0;
}

static int none_sample(void *st, struct tb_power_sample *s, char *why, size_t n)
{
    return -EAGAIN;
}

static void none_close(void *st) {}

const struct tb_power_ops tb_power_none = {
    .name = "none",
    .help = "no power measurement",
    .flags = TB_POWER_NOTHING,
    .state_size = 1,
    .probe = none_probe,
    .open = none_open,
    .sample = none_sample,
    .close = none_close,
};
