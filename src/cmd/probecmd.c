/* probecmd.c: see probecmd.h. The steps in order: options, files, lock, the result's
 * temporary (a folder we cannot write is said before a minute is spent), the source (one
 * that cannot be polled fast is refused), the device and its copy, the sampler every few
 * ms, idle / load / idle / load / idle on tb_now_ns's clock (the fake one in tests), the
 * fit, what sysfs claims, the result put in place. What it prints is what users send. */
#include "cmd/probecmd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/probe_internal.h"
#include "cmd/probe_report.h"
#include "config/config.h"
#include "energy/stepfit.h"
#include "lib/clock.h"
#include "lib/lock.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "lib/version.h"
#include "measure/board.h"
#include "measure/conditions.h"

enum { P_DEVICE = TB_OPT_LONG, P_SET, P_SECONDS, P_POLL, P_SIZE, P_REPORT };

static const struct tb_opt_row probe_opts[] = {
    { "board", 'b', "BOARD.cfg", "board file (default: detected, as run does)" },
    { "output", 'o', "LOGDIR", "where the result is kept (default: the sweep file's output.dir)" },
    { "device", P_DEVICE, "D", "whose copy is the load: auto (a usable GPU, else the CPU),\n"
                               "cpu, cuda or cuda:N" },
    { "set", P_SET, "KEY=VAL...", "override a setting, e.g. --set power.total_rail=VDD_IN" },
    { "seconds", P_SECONDS, "S", "each load and idle span, 0.5 to 10 (default 1.5, longer\n"
                                 "where sysfs claims a slower sensor)" },
    { "poll-ms", P_POLL, "MS", "polling interval, 1 to 10 ms (default 5)" },
    { "size", P_SIZE, "RxC", "the copy's matrix (default 4096x4096 elements of 4 bytes)" },
    { "report", P_REPORT, NULL, "also gather the sensors' folders, timed reads, averaging\n"
                                "and device tree into LOGDIR/probe-<board>-<l4t>-report-\n"
                                "<time>.txt, with the probe: the file to send" },
    TB_OPT_END,
};

const struct tb_usage tb_probe_usage = {
    "probe-power", probe_opts,
    "  Measures how the board's power sensor answers a step of load: idle, the backend's\n"
    "  copy, idle, the copy, idle (each --seconds long), every rail polled every\n"
    "  --poll-ms. Fits an exponential (first-order) average and a boxcar (moving mean) with\n"
    "  a delay, finds the refresh period, prints the better model beside what sysfs claims\n"
    "  (hwmon update_interval, samples) and keeps the result in LOGDIR/probe-<board>-<l4t>.cfg.\n"
    "  Each rail is fitted by itself too. Takes at most 60 s. Run it once on each new board\n"
    "  and L4T release with --report and send the report file: nobody has measured this\n"
    "  sensor yet (doc/power.md, \"Probing the sensor\"). The result is looked up by later\n"
    "  nights in their own log folder (-o) only.\n"
    "\n"
    "exit: 0 measured and kept, 1 no usable source, a failed load or an unwritable result,\n"
    "2 usage or configuration, 75 a run holds the lock.\n",
};

volatile sig_atomic_t tb_probe_stop;

static void on_signal(int sig) { tb_probe_stop = sig; }

/* SIGINT, SIGTERM and SIGHUP only set the flag (no SA_RESTART: a sleep is cut short), so an
 * interrupted probe removes its temporary and says so; the old handlers are put back. */
static void signals(bool on, struct sigaction old[3])
{
    static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], on ? &sa : &old[i], on ? &old[i] : NULL);
}

static int parse(struct probe *p, int argc, char **argv)
{
    struct tb_getopt g;
    tb_getopt_begin(&g, probe_opts);
    int opt;
    while ((opt = tb_getopt_next(&g, argc, argv)) != -1) {
        switch (opt) {
        case 'b': p->board_file = optarg; break;
        case 'o': {
            char v[PATH_MAX + 8], label[PATH_MAX + 8];
            snprintf(v, sizeof v, "\"%s\"", optarg);
            snprintf(label, sizeof label, "-o %s", optarg);
            tb_config_add_override(&p->cfg, "output.dir", v, label);
            break;
        }
        case P_DEVICE: p->device = optarg; break;
        case P_REPORT: p->report = true; break;
        case P_SET: tb_config_add_set(&p->cfg, optarg, &p->diag); break;
        case P_SECONDS:
            if (tb_parse_number(optarg, 0.5, false, 10, &p->span_s) < 0)
                tb_diag_add(&p->diag, "--seconds '%s': expected seconds, 0.5 to 10", optarg);
            p->span_given = true;
            break;
        case P_POLL:
            if (tb_parse_number(optarg, 1, false, 10, &p->poll_ms) < 0 ||
                p->poll_ms != floor(p->poll_ms))
                tb_diag_add(&p->diag, "--poll-ms '%s': expected whole ms, 1 to 10", optarg);
            break;
        case P_SIZE:
            if (tb_parse_pair(optarg, &p->rows, &p->cols) < 0 || p->rows < 16 ||
                p->cols < 16 || p->rows > 65536 || p->cols > 65536)
                tb_diag_add(&p->diag, "--size '%s': expected RxC, 16 to 65536 each", optarg);
            break;
        default:
            tb_usage_print(&tb_probe_usage, stderr);
            return -1;
        }
    }
    if (optind < argc) {
        error("probe-power: unexpected argument '%s'", argv[optind]);
        tb_usage_print(&tb_probe_usage, stderr);
        return -1;
    }
    return 0;
}

/* The sweep file (for output.dir) and the board file, as run reads them: every problem
 * said in one pass, exit 2. */
static int load_files(struct probe *p)
{
    char sweep[PATH_MAX], board[PATH_MAX], why[512];
    tb_data_file("conf", "default.cfg", sweep, sizeof sweep);
    if (tb_board_pick(&p->cfg, p->board_file, NULL, board, sizeof board, why, sizeof why) < 0)
        tb_diag_add(&p->diag, "cannot find a board file: %s (give one with -b)", why);
    else
        tb_config_load(&p->cfg, access(sweep, R_OK) == 0 ? sweep : NULL, board, &p->diag);
    if (p->diag.n) {
        tb_diag_print(&p->diag);
        return -1;
    }
    return 0;
}

static void plain_name(char *dst, size_t n, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        dst[i] = ok ? ch : '_';
    }
    dst[i] = 0;
}

int tb_probe_result_path(const char *dir, const char *board, const char *l4t, char *buf,
                         size_t n)
{
    char b[128], l[64];
    plain_name(b, sizeof b, board && *board ? board : "generic");
    plain_name(l, sizeof l, l4t && *l4t ? l4t : "no-l4t");
    int len = snprintf(buf, n, "%s/probe-%s-%s.cfg", dir, b, l);
    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* How old a temporary of ours must be to be taken as left by a probe that was killed: the
 * temporary lives from the fit to the rename (milliseconds), and no probe runs longer than
 * this (probe_night.h), so one older was left by a kill no handler sees (SIGKILL, a power
 * cut) and its writer is gone. */
#define STALE_PART_S 120.0   /* twice TB_PROBE_NIGHT_MAX_S (probe_night.h), the probe's most */

/* Whether name in the folder dfd is a temporary this command left (tb_outfile_tmp's
 * "RESULT.XXXXXX.part" of this very result, six letters), provably ours: a regular file of
 * one link, this user's, STALE_PART_S old, empty or holding the start of a result. */
static bool stale_part(int dfd, const char *name, const char *base, time_t now)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) || name[bl] != '.' || strlen(name) != bl + 12 ||
        strcmp(name + bl + 7, ".part"))
        return false;
    for (size_t i = bl + 1; i < bl + 7; i++)
        if (!isalnum((unsigned char)name[i]))
            return false;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char head[sizeof(TB_STEPFIT_HEAD)] = "";
    bool ours = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
                st.st_uid == geteuid() && st.st_size <= 4096 &&
                difftime(now, st.st_mtime) > STALE_PART_S &&
                (st.st_size == 0 || (read(fd, head, sizeof head - 1) == sizeof head - 1 &&
                                     !strcmp(head, TB_STEPFIT_HEAD)));
    if (fd >= 0)
        close(fd);
    return ours;
}

/* The temporaries an earlier probe of this result left when it was killed, removed (only
 * those stale_part proves ours, in a folder no one else may rename in), each said. */
static void clear_stale(const struct probe *p, const char *dir)
{
    const char *base = strrchr(p->result, '/') + 1;
    DIR *d = opendir(dir);
    struct stat st;
    if (!d || fstat(dirfd(d), &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0) ||
        ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))) {
        if (d)
            closedir(d);
        return;
    }
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d));)
        if (stale_part(dirfd(d), e->d_name, base, now) &&
            unlinkat(dirfd(d), e->d_name, 0) == 0)
            note("probe-power: removed '%s/%s', the temporary of a probe that was killed",
                 dir, e->d_name);
    closedir(d);
}

/* The result's place: the folder made as run makes it; what is at the name may only be an
 * earlier result of this command (replaced: the board measured again), never another file;
 * a temporary of ours made and removed now, so a folder we cannot write is said before any
 * measuring; the one that is kept is made only once the fit is done (keep_result), so a
 * probe killed while it measures leaves none behind. */
static int open_result(struct probe *p)
{
    const char *dir = p->cfg.sweep.out_dir;
    struct stat st;
    if (stat(dir, &st) < 0 && mkdir(dir, 0755) < 0)
        return error("probe-power: cannot create the log folder '%s': %s", dir,
                     strerror(errno));
    struct tb_conditions c;
    tb_conditions_read(&c);
    tb_strlcpy(p->l4t, c.l4t, sizeof p->l4t);
    if (tb_probe_result_path(dir, p->cfg.board.name, p->l4t, p->result, sizeof p->result) < 0)
        return error("probe-power: the result's name in '%s' is too long", dir);
    /* what is there, read through one descriptor that never follows a link nor waits on a
     * FIFO (an lstat then fopen by name read whatever a link swapped in between pointed at) */
    int fd = open(p->result, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0 || (errno != ENOENT && errno != ENOTDIR)) {   /* something there */
        char head[64] = "";
        ssize_t got = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                      ? read(fd, head, sizeof head - 1) : 0;
        head[got > 0 ? got : 0] = '\0';
        if (fd >= 0)
            close(fd);
        if (strncmp(head, TB_STEPFIT_HEAD, strlen(TB_STEPFIT_HEAD)))
            return error("probe-power: '%s' exists and is not an earlier probe's result: not "
                         "replaced (move it, or give another folder with -o)", p->result);
        p->replaces = true;
    }
    clear_stale(p, dir);
    fd = tb_outfile_tmp(p->result, p->tmp, sizeof p->tmp);
    if (fd < 0)
        return error("probe-power: cannot write in the log folder '%s': %s", dir,
                     strerror(errno));
    close(fd);
    unlink(p->tmp);   /* our own, made just now with O_EXCL */
    return 0;
}

/* The result's text into our temporary, then renamed into place (lib/outfile.c's rule). */
static int keep_result(struct probe *p, const struct tb_stepfit *fit)
{
    char text[4096];
    int len = tb_stepfit_format(fit, p->cfg.board.name, p->l4t, text, sizeof text);
    p->tmp_fd = tb_outfile_tmp(p->result, p->tmp, sizeof p->tmp);
    if (p->tmp_fd < 0)
        return error("probe-power: cannot write in the log folder '%s': %s",
                     p->cfg.sweep.out_dir, strerror(errno));
    bool ok = len > 0 && write(p->tmp_fd, text, (size_t)len) == len && fsync(p->tmp_fd) == 0;
    int saved = errno;
    ok = close(p->tmp_fd) == 0 && ok;
    p->tmp_fd = -1;
    if (!ok) {
        unlink(p->tmp);
        return error("probe-power: cannot write '%s': %s", p->tmp, strerror(saved ? saved : EIO));
    }
    return tb_outfile_commit("probe-power", p->tmp, p->result);
}

static void drop_result(struct probe *p)
{
    if (p->tmp_fd >= 0) {
        close(p->tmp_fd);
        unlink(p->tmp);   /* our own temporary, made by tb_outfile_tmp with O_EXCL */
        p->tmp_fd = -1;
    }
}

int tb_probe_take(struct probe *p, struct tb_stepfit *fit)
{
    int rc = -1;
    bool measured = open_result(p) == 0 && tb_probe_source(p) == 0 &&
                    tb_probe_device(p) == 0 && tb_probe_measure(p) == 0;
    if (measured && p->out)
        tb_probe_say_head(p, p->out);
    if (measured && tb_probe_fit(p, fit) == 0) {
        if (p->out)
            tb_probe_say(p, fit, p->out);
        rc = keep_result(p, fit);
    }
    if (p->out)
        fflush(p->out);
    drop_result(p);
    tb_probe_release(p);
    return rc;
}

/* The report printed and kept beside the result (a folder it cannot be written in: said,
 * the printed copy is the one to send). */
static void report_out(const struct probe *p, const char *text, size_t len)
{
    char path[PATH_MAX + 64], base[PATH_MAX];
    fwrite(text, 1, len, stdout);
    int rc = tb_probe_result_path(p->cfg.sweep.out_dir, p->cfg.board.name, p->l4t, base,
                                  sizeof base);
    if (rc == 0)
        rc = tb_probe_report_keep(base, text, len, path, sizeof path);
    if (rc < 0)
        error("probe-power: the report could not be kept in '%s': %s (the output above is "
              "it)", p->cfg.sweep.out_dir, strerror(-rc));
    else
        printf("report: %s\nplease send that file to the transpose-bench maintainers (issue "
               "#48): nobody has measured this sensor yet\n", path);
}

/* Lock, result, source, device, measure, fit, say, keep: an exit code. */
static int probe_steps(struct probe *p)
{
    struct tb_lock *lock;
    int rc = tb_lock_acquire(NULL, &lock);
    if (rc)
        return rc == TB_LOCK_HELD ? TB_EXIT_LOCKED : rc == TB_LOCK_BAD ? TB_EXIT_USAGE
                                                                       : TB_EXIT_FAIL;
    int code = TB_EXIT_FAIL;
    struct tb_stepfit fit;
    struct sigaction old[3];
    tb_probe_stop = 0;
    signals(true, old);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = p->report ? open_memstream(&text, &len) : NULL;
    if (mem) {
        time_t now = time(NULL);
        char date[40];
        struct tm tm;
        strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
        fprintf(mem, "# transpose-bench %s probe-power report, %s\nboard file: %s\n",
                TB_VERSION, date, p->cfg.board.name);
        tb_probe_report_board(mem, tb_sys_root(p->cfg.board.power.sysfs_root));
        p->out = mem;
    }
    if (tb_probe_take(p, &fit) == 0) {
        FILE *o = mem ? mem : stdout;
        fprintf(o, "kept: %s%s\n", p->result, p->replaces ? " (replacing the earlier result)"
                : "");
        if (!mem)
            printf("please send this whole output to the transpose-bench maintainers (issue "
                   "#48): run it once on each new board and L4T release (with --report: "
                   "one file to send); nobody has measured this sensor yet\n");
        code = TB_EXIT_OK;
    } else if (mem) {
        fprintf(mem, "the probe did not finish: the error transpose-bench printed on stderr "
                "says why (add it when you send this)\n");
    }
    if (mem && fclose(mem) == 0 && text)
        report_out(p, text, len);
    free(text);
    fflush(stdout);
    tb_lock_release(lock);
    signals(false, old);
    return code;
}

int tb_probe_main(int argc, char **argv)
{
    struct probe p;
    memset(&p, 0, sizeof p);
    tb_config_init(&p.cfg);
    p.device = "auto";
    p.span_s = 1.5;
    p.poll_ms = 5;
    p.rows = p.cols = 4096;
    p.tmp_fd = -1;
    p.stop = &tb_probe_stop;
    p.out = stdout;
    int code = TB_EXIT_USAGE;
    if (parse(&p, argc, argv) == 0 && load_files(&p) == 0)
        code = probe_steps(&p);
    tb_config_free(&p.cfg);
    tb_diag_free(&p.diag);
    return code;
}
