/* rerun_logs.h: what test_power_rerun.c and test_power_rerun_logs.c share: earlier logs
 * written as the tool writes them (plain text under a .csv.gz name, which the reader takes as
 * gzip does), the learner over a folder of them, the point of the learning run, and the sd of
 * successive differences. Test machinery only: static helpers, each file takes what it uses. */
#ifndef TB_TESTS_RERUN_LOGS_H
#define TB_TESTS_RERUN_LOGS_H

#include "helpers.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/stats.h"
#include "log/logread.h"
#include "energy/rerun.h"

static const struct tb_power_cfg pc = { .rerun_ratio_sd = 0.004, .rerun_abs_sd = 0.008 };

#define HEADER "host,board,device,kernel,elem,rows,cols,block_x,block_y,gbps,status," \
               "verified,power_mode,energy_ratio,energy_ratio_ci95,j_per_gb,power_cycles," \
               "power_capped_blocks\n"

#define IMAGES "5f1e0a"   /* the kernel images' sha256 the learning run carries */

/* A log of host h and board lab-h200 started on day d (2026-11-d), of kernel images img
 * (NULL: a log from before the line), its rows as given, under its run's name with suffix
 * (the tool's "-1" where a name was taken). */
static inline void write_log_named(const char *dir, const char *h, int d, const char *img,
                            const char *suffix, const char *rows)
{
    char name[128], text[8192], line[96] = "";
    snprintf(name, sizeof(name), "%s_lab-h200_202611%02dT010000Z%s.csv.gz", h, d, suffix);
    if (img)
        snprintf(line, sizeof(line), "# images_sha256: %s\n", img);
    snprintf(text, sizeof(text), "# transpose-bench: 0.1.0\n# log_format: 1\n"
             "# run_id: %s_lab-h200_202611%02dT010000Z\n%s# host: %s\n"
             "# board: lab-h200, peak 4800.0 GB/s, has a GPU\n" HEADER "%s"
             "# end: complete\n", h, d, line, h, rows);
    free(th_write(dir, name, text));
}

/* A log of device dev_id (its device_id line; "" none) on host "lab", day d. */
static inline void write_log_dev(const char *dir, int d, const char *dev_id, const char *rows)
{
    char name[128], text[8192], line[160] = "";
    snprintf(name, sizeof(name), "lab_lab-h200_202611%02dT010000Z.csv.gz", d);
    if (dev_id[0])
        snprintf(line, sizeof(line), "# device_id: %s\n", dev_id);
    snprintf(text, sizeof(text), "# transpose-bench: 0.1.0\n# log_format: 1\n"
             "# run_id: lab_lab-h200_202611%02dT010000Z\n# images_sha256: " IMAGES "\n"
             "# host: lab\n# device: NVIDIA H200\n%s"
             "# board: lab-h200, peak 4800.0 GB/s, has a GPU\n" HEADER "%s"
             "# end: complete\n", d, line, rows);
    free(th_write(dir, name, text));
}

static inline void write_log_of(const char *dir, const char *h, int d, const char *img, const char *rows)
{
    write_log_named(dir, h, d, img, "", rows);
}

static inline void write_log(const char *dir, const char *h, int d, const char *rows)
{
    write_log_of(dir, h, d, IMAGES, rows);
}

/* One row of vec16 256x1 at 8192x8192 float on an H200 in no power mode. */
static inline void vec16_row(char *buf, size_t n, double ratio, double ci, double jpg, int cycles,
                      int capped)
{
    snprintf(buf, n, "lab,lab-h200,NVIDIA H200,vec16,float,8192,8192,256,1,3600,ok,ok,,"
             "%.5f,%.7g,%.5f,%d,%d\n", ratio, ci, jpg, cycles, capped);
}

static struct tb_rerun *learn(const char *dir)
{
    char line[512];
    struct tb_rerun *r = tb_rerun_learn(dir, "lab", "", "lab-h200", IMAGES, line,
                                        sizeof(line));
    assert_non_null(r);
    return r;
}

static inline void me_vec16(struct tb_log_rec *me)
{
    memset(me, 0, sizeof(*me));
    strcpy(me->host, "lab");
    strcpy(me->board, "lab-h200");
    strcpy(me->device, "NVIDIA H200");
    strcpy(me->kernel, "vec16");
    strcpy(me->elem, "float");
    me->rows = me->cols = 8192;
    me->bx = 256;
    me->by = 1;
    me->gpu_cap_mhz = me->emc_cap_mhz = NAN;
}


/* The sd whose successive nights all differ by a factor e^l: the differences' root mean
 * square over sqrt 2 (tb_sd_of_steps_rms). */
static inline double sd_of_steps(double l)
{
    return l / sqrt(2.0);
}

#define K TB_RERUN_PRIOR_RUNS   /* the settings' weight, in differences */

#endif
