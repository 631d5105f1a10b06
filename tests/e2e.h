/* e2e.h: what the end-to-end programs (tests/test_e2e*.c: the real binary on the CPU
 * backend) share beyond helpers.h: the options of a small, fast sweep. */
#ifndef TB_TEST_E2E_H
#define TB_TEST_E2E_H

#include "helpers.h"

/* Small, fast sweep options for the CPU. */
#define FAST "--device cpu -b boards/generic.cfg --set power.source=none " \
             "--set sweep.stop.min_time_ms=5 --set sweep.stop.min_reps=3 --set sweep.warmup=1"

#endif
