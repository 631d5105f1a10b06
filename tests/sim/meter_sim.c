/* meter_sim.c: build/meter-sim (make meter-sim), the meter against the power sensors as
 * their datasheets describe them (sensor_sim.h), on the fake clock: N nights of the real
 * meter code measuring a copy and a kernel of known energy ratio, summed up in one line of
 * key=value fields (doc/power.md says what each means). Not the tool, and no board: a
 * night here is a simulation, whatever its seconds say. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "fake_clock.h"   /* the fake clock: tests/fake_clock.c, linked in by the Makefile */
#include "sim/nights.h"

int main(int argc, char **argv)
{
    struct sim_opts o;
    char why[256];
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        sim_usage(stdout);
        return 0;
    }
    if (sim_parse(argc - 1, argv + 1, &o, why, sizeof(why))) {
        fprintf(stderr, "meter-sim: %s\n", why);
        sim_usage(stderr);
        return 2;
    }
    tb_clock_fake(1000000000000LL);
    struct sim_night *nt = calloc((size_t)o.nights, sizeof(*nt));
    if (!nt) {
        fprintf(stderr, "meter-sim: out of memory\n");
        return 1;
    }
    struct sim_summary sm;
    sim_nights(&o, nt, &sm);
    if (o.probe) {   /* the probe's fit, on the line's end */
        struct tb_stepfit fit;
        int rc = sim_probe(&o, (unsigned long long)o.seed, &fit, why, sizeof(why));
        char tail[160] = " tau_ms_fit=nan model_fit=none";
        if (rc == 0)
            snprintf(tail, sizeof(tail), " tau_ms_fit=%.1f model_fit=%s delay_ms_fit=%.1f "
                     "refresh_ms_fit=%.1f", fit.tau_ms, fit.model, fit.delay_ms, fit.refresh_ms);
        else
            fprintf(stderr, "meter-sim: --probe: %s\n", why);
        sim_summary_tail(&sm, tail);
    }
    sim_print(stdout, &o, &sm);
    free(nt);
    return sm.failed == sm.nights;
}
