/* probe_board.h: the fake Orin NX's VDD_IN that the probe's tests (test_probe.c,
 * test_probe_night.c) poll: its hwmon files written whole, and the chip's register moved as
 * TI's datasheet averages (step_sensor.h) by the load the fake clock reports. Idle 4.6 W,
 * +3.0 W while the device is busy; each conversion with 2% noise and the 8 mA step of a
 * 5 mOhm shunt (40 uV LSB); the register is read as mA. Time is the fake clock's. */
#ifndef TB_TEST_PROBE_BOARD_H
#define TB_TEST_PROBE_BOARD_H

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/clock.h"
#include "step_sensor.h"

#define HWMON "sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon1"
#define STEP_NS 2500000LL      /* the generator's step: conversions caught up every 2.5 ms */
#define MV 5160.0              /* VDD_IN's bus voltage (the fixture's idle reading) */

/* Written whole (a temporary renamed over the file): a read never sees half a number. */
static inline void pb_put(const char *root, const char *rel, long v)
{
    char path[700], tmp[710], text[32];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    int n = snprintf(text, sizeof text, "%ld\n", v);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) < 0 || rename(tmp, path) < 0)
        fprintf(stderr, "probe_board: cannot write '%s'\n", path);
}

struct pb_sensor {
    struct step_sensor s;
    const char *root;
    int64_t t0, last_spent;    /* the sensor's start; the load's work seen so far */
    double owed_ms, conv_ms;
    long shown;                /* curr1_input as last written */
};

/* Started now (its first step a little later, off the poll grid); returns the first step's
 * time. */
static inline int64_t pb_begin(struct pb_sensor *b, const char *root, int avg_n, uint64_t seed)
{
    *b = (struct pb_sensor){ .s = { SS_EMA, 0.84, avg_n, 4.6, 7.6, 0.02, 0, seed, 0, 0, NULL,
                                    0, 0, 0 }, .root = root, .shown = -1 };
    b->s.reg = b->s.idle_w;
    b->t0 = tb_now_ns() + 1234567;
    b->last_spent = tb_clock_spent_ns();
    return b->t0;
}

/* The step ending at next: the work the load reported since the last step, spread over the
 * steps it took, as power; the conversions up to next averaged as SBOS576 says; curr1_input
 * written when it changed. */
static inline void pb_step(struct pb_sensor *b, int64_t next)
{
    struct step_sensor *s = &b->s;
    int64_t sp = tb_clock_spent_ns();
    b->owed_ms += (double)(sp - b->last_spent) * 1e-6;
    b->last_spent = sp;
    double step_ms = STEP_NS * 1e-6, busy = fmin(b->owed_ms, step_ms) / step_ms;
    b->owed_ms -= fmin(b->owed_ms, step_ms);
    double p = s->idle_w + (s->load_w - s->idle_w) * busy;
    for (; b->conv_ms <= (double)(next - b->t0) * 1e-6; b->conv_ms += s->cycle_ms) {
        double x = p * (1 + s->noise_rel * ss_gauss(&s->seed));
        x = round(x / MV * 1e6 / 8) * 8 * MV * 1e-6;   /* one conversion, in 8 mA steps */
        s->reg += (x - s->reg) / s->avg_n;                /* SBOS576's averaging */
    }
    long ma = lround(s->reg / MV * 1e6 / 8) * 8;
    if (ma != b->shown)
        pb_put(b->root, HWMON "/curr1_input", ma), b->shown = ma;
}

/* A board of several rails on one or two chips (the AGX boards), each rail averaged by its
 * own count N as SBOS576 says (one conversion of each channel every 0.84 ms), its true power
 * idle + (load - idle) x how busy the device was, each conversion with 2% noise in 8 mA
 * steps at its bus voltage; its currK_input written when it changed. */
struct pb_rail {
    const char *curr;          /* its currK_input, relative to the root */
    double idle_w, load_w, mv;
    int avg_n;
    double reg;
    long shown;
};

struct pb_board {
    const char *root;
    struct pb_rail *r;
    int n;
    int64_t t0, last_spent;
    double owed_ms, conv_ms;
    uint64_t seed;
};

static inline int64_t pb_board_begin(struct pb_board *b, const char *root, struct pb_rail *r,
                                     int n, uint64_t seed)
{
    *b = (struct pb_board){ .root = root, .r = r, .n = n, .seed = seed };
    for (int i = 0; i < n; i++)
        r[i].reg = r[i].idle_w, r[i].shown = -1;
    b->t0 = tb_now_ns() + 1234567;
    b->last_spent = tb_clock_spent_ns();
    return b->t0;
}

static inline void pb_board_step(struct pb_board *b, int64_t next)
{
    int64_t sp = tb_clock_spent_ns();
    b->owed_ms += (double)(sp - b->last_spent) * 1e-6;
    b->last_spent = sp;
    double step_ms = STEP_NS * 1e-6, busy = fmin(b->owed_ms, step_ms) / step_ms;
    b->owed_ms -= fmin(b->owed_ms, step_ms);
    for (; b->conv_ms <= (double)(next - b->t0) * 1e-6; b->conv_ms += 0.84)
        for (int i = 0; i < b->n; i++) {
            struct pb_rail *r = &b->r[i];
            double p = r->idle_w + (r->load_w - r->idle_w) * busy;
            double x = p * (1 + 0.02 * ss_gauss(&b->seed));
            x = round(x / r->mv * 1e6 / 8) * 8 * r->mv * 1e-6;
            r->reg += (x - r->reg) / r->avg_n;
        }
    for (int i = 0; i < b->n; i++) {
        struct pb_rail *r = &b->r[i];
        long ma = lround(r->reg / r->mv * 1e6 / 8) * 8;
        if (ma != r->shown)
            pb_put(b->root, r->curr, ma), r->shown = ma;
    }
}

#endif
