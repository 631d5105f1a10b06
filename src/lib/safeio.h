/* safeio.h: bounded reads of files in system trees (/proc, /sys, /etc, /var under TB_ROOT):
 * opened without following a final link where none is expected and without blocking,
 * checked to be a regular file (a sysfs attribute is one, its size may read as 4096), read
 * up to a size bound and within a deadline. A FIFO, a device, a directory, a link or a read
 * that hangs (a wedged I2C sensor) becomes an error within the deadline, never a hang.
 * Not here: logs (csvlog.c) and config files (config.c), which have their own rules. */
#ifndef TB_SAFEIO_H
#define TB_SAFEIO_H

#include <stdbool.h>
#include <stddef.h>

/* How long one read may take before it is given up, ms. */
#define TB_SAFEIO_DEADLINE_MS 2000
/* The most bytes any one read returns (the largest system file read: nvpmodel.conf). */
#define TB_SAFEIO_MAX (256 * 1024)

enum {
    TB_SAFEIO_LINK_OK = 1,   /* the final component may be a link (/etc/nvpmodel.conf is
                              * one on L4T); its target must still be a regular file */
};

/* Reads at most n - 1 bytes of path into buf, NUL-terminated, *len (may be NULL) the byte
 * count. Returns 0, or -errno with why filled: -ELOOP (a link), -EINVAL (not a regular
 * file: FIFO, device, directory), -ETIMEDOUT (the read did not finish within deadline_ms;
 * the reader process is left to finish on its own and the file's descriptor with it), -EFBIG
 * (more than n - 1 bytes: buf holds the first n - 1), or open's and read's own errors.
 * deadline_ms <= 0 means TB_SAFEIO_DEADLINE_MS. Thread-safe; allocates and forks only to
 * make a reader, which is then reused (safeio.c says why reads are in processes). */
int tb_safeio_read(const char *path, char *buf, size_t n, size_t *len, int flags,
                   int deadline_ms, char *why, size_t why_n);

/* The first line of path (no newline) into buf; same rules and returns, except that a
 * file longer than buf is not an error (its first line is what is wanted). */
int tb_safeio_line(const char *path, char *buf, size_t n, int flags, char *why, size_t why_n);

/* One read of a batch (tb_safeio_lines; tb_safeio_kept_reads, below): path (or, when path
 * is NULL, the descriptor fd, named what, as tb_safeio_read_fd reads it) and flags in; the
 * first line into buf (n bytes), rc (0 or -errno, tb_safeio_line's) and why out. */
struct tb_safeio_job {
    const char *path;
    int fd;
    const char *what;
    int flags;
    char *buf;
    size_t n;
    int rc;
    char why[320];
    long long ns;        /* tb_safeio_kept_reads: how long its check and read took (ns, the
                          * reader's clock; a file read alone: this process's) */
    long long end_ns;    /* tb_safeio_kept_reads: when that read ended, CLOCK_MONOTONIC (one
                          * clock for the reader and this process: tb_real_now_ns), 0 none */
};
/* The most reads of one batch (a job past it fails with -E2BIG). */
#define TB_SAFEIO_BATCH_MAX 64

/* Every job's read at once, each in a reader of its own, all under ONE deadline from the
 * moment they are all asked (deadline_ms <= 0: TB_SAFEIO_DEADLINE_MS): however many hang,
 * the call returns by then, and a hung file never keeps a later one from being read (a
 * scan of thermal zones, one of which is a wedged I2C sensor). A batch's readers are its
 * own: the 8 that single reads use stay free; up to 32 idle readers are kept for the next. */
void tb_safeio_lines(struct tb_safeio_job *job, int n, int deadline_ms);

/* The most files one call of tb_safeio_kept_reads reads in one round trip (more: one at a
 * time after them), and the most one reader keeps open. */
#define TB_SAFEIO_KEPT_MAX 16

/* Every job's path (each must name one) read by ONE reader, one file after another: one
 * round trip for them all where they are quick, where tb_safeio_line makes one a file (a
 * sampler's rail files, 20 times a second). The first answer must come within deadline_ms
 * of the call and, after a read that took over 5 ms (a driver that waits for a conversion
 * on each read: answered at once), the next within deadline_ms of it, so a file has the
 * deadline a read of its own has wherever reads block. The reader keeps each file open for
 * the next call and reads it again from its start, but only while the path still names
 * that same regular file (its device and inode, seen without following a link); a path
 * that is gone fails (-ENOENT), one that names another file now is opened again as
 * tb_safeio_read opens it (a link: -ELOOP), and a kept descriptor whose read fails (a
 * driver unbound) is opened again by its path, once. No link is followed. Each job's rc,
 * why and bytes (NUL-terminated; -EFBIG past its own n - 1) as tb_safeio_read gives them,
 * and ns. Past the deadline the reader is given up and every job it has not answered (the
 * quick answers it holds to send together among them) is read alone, as tb_safeio_read
 * reads it, with a deadline of its own: only the file that hangs fails (-ETIMEDOUT, naming
 * it), and the reader given up is remembered under it; a path a given-up reader is still
 * stuck on is read alone too (it fails at once, as tb_safeio_read's does). */
void tb_safeio_kept_reads(struct tb_safeio_job *job, int n, int deadline_ms);

/* The read step alone, on a descriptor the caller opened and keeps: the same deadline and
 * bound. tb_safeio_read uses it; tests feed it a pipe nobody writes to, the one blocking
 * read that a test can make without a wedged sensor. fd is duplicated, never closed. */
int tb_safeio_read_fd(int fd, const char *what, char *buf, size_t n, size_t *len,
                      int deadline_ms, char *why, size_t why_n);

/* Whether a library named by the user ($TB_CUDA_LIB, $TB_NVML_LIB, $TB_CUBLAS_LIB) must not be
 * given to dlopen: a name with a '/' that is not a regular file once links are followed (a
 * FIFO would block dlopen's open for ever, a device or a directory cannot be a library).
 * Names without '/' are searched by the dynamic loader in its own directories. Returns
 * true with why filled (e.g. "a FIFO, not a library"). The check opens nothing. */
bool tb_lib_refused(const char *name, char *why, size_t n);

/* How many given-up readers are still stuck now (each holds one reader process; a read of the same
 * file fails at once while its reader is stuck, and healthy files keep their readers). */
unsigned tb_safeio_stuck(void);

/* How many readers were given up on a read that did not return (still stuck or not). */
unsigned tb_safeio_abandoned(void);

#endif
