/* safeio_internal.h: what safeio.c shares with safeio_batch.c, safeio_kept.c and
 * safeio_reader.c: what a reader is asked and answers, what a reader does, one read handed
 * to a reader and its answer taken back, by a deadline. Not for any other file. */
#ifndef TB_SAFEIO_INTERNAL_H
#define TB_SAFEIO_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* What a reader is asked (fixed size: one recv) and what it answers before the bytes. */
enum { RQ_PATH, RQ_FD, RQ_KEPT };
struct request {
    int32_t has_fd;      /* RQ_FD: read the descriptor sent with the request; RQ_PATH: open
                          * path; RQ_KEPT: count paths, each NUL-ended, in path, each read
                          * through a descriptor the reader keeps (safeio_reader.c) */
    int32_t flags;
    uint32_t cap;        /* read at most cap bytes, one past the caller's bound (RQ_KEPT:
                          * caps) */
    int32_t count;       /* RQ_KEPT: how many paths; one answer each, in order */
    uint32_t caps[16];   /* RQ_KEPT: path i read to caps[i] bytes at most (one a file of
                          * TB_SAFEIO_KEPT_MAX: safeio_kept.c asserts it) */
    char path[PATH_MAX];
};

enum stage { ST_OK, ST_OPEN, ST_STAT, ST_LINK, ST_KIND, ST_REOPEN, ST_READ };

struct answer {
    int32_t stage;       /* enum stage: where it failed, or ST_OK */
    int32_t err;         /* errno there */
    uint32_t mode;       /* st_mode, for ST_KIND */
    uint32_t got;        /* bytes read (<= cap); min(got, cap - 1) of them follow */
    int64_t ns;          /* RQ_KEPT: how long the file's check and read took, by the
                          * reader's CLOCK_MONOTONIC */
    int64_t end_ns;      /* RQ_KEPT: CLOCK_MONOTONIC when that read ended (the caller's
                          * clock too: one clock for every process) */
};

struct worker;

/* Checks a job (fd >= 0: read it; else open path and read it) and hands it to a reader (one
 * of a batch's when batch): the reader, or NULL with *rc and why filled. */
struct worker *tb_sio_send(int fd, const char *path, int flags, const char *what, size_t n,
                           bool batch, int *rc, char *why, size_t why_n);
/* A request made by the caller handed to a reader (fd >= 0 sent with it), key naming it
 * (a read of the same key gets no second reader while one is stuck on it). */
struct worker *tb_sio_send_rq(const struct request *rq, int fd, const char *key, bool batch,
                              int *rc, char *why, size_t why_n);
/* The reader's answer by end: the bytes into buf (NUL-terminated), *len (may be NULL) their
 * count; the reader back to the pool, or given up at end (-ETIMEDOUT). 0, or -errno with why
 * filled, as tb_safeio_read returns. opened: the job named a path. */
int tb_sio_recv(struct worker *w, bool opened, const char *what, char *buf, size_t n,
                size_t *len, const struct timespec *end, int deadline_ms, char *why,
                size_t why_n);
/* One answer of several (RQ_KEPT), the reader kept: as tb_sio_recv, *a the answer as it
 * came; *transport set where the reader itself failed (-ETIMEDOUT, -EIO): then it must be
 * given back by tb_sio_put and the rest of its answers never come. */
int tb_sio_answer(struct worker *w, bool opened, const char *what, char *buf, size_t n,
                  size_t *len, struct answer *a, const struct timespec *end, int deadline_ms,
                  bool *transport, char *why, size_t why_n);
/* Whether a reader given up on key is still stuck (a read of key would get none). */
bool tb_sio_key_stuck(const char *key);
/* w's key now key: a kept reader given up is remembered under the file it hung on. */
void tb_sio_rekey(struct worker *w, const char *key);
/* A reader done with: back to the pool, or given up (a read past its deadline), or broken. */
void tb_sio_put(struct worker *w, bool given_up, bool broken);
/* The socket of a reader, to poll. */
int tb_sio_sock(const struct worker *w);
/* end = CLOCK_MONOTONIC now + ms; the ms left until end (0 past it). */
void tb_sio_deadline(struct timespec *end, int ms);
int tb_sio_ms_left(const struct timespec *end);

/* In a reader (safeio_reader.c; async-signal-safe): path opened as tb_safeio_read opens
 * it (no final link unless flags say, a regular file, without blocking), a->stage and
 * a->err saying where it failed; its bytes read to EOF or cap; a reply of n bytes sent
 * whole. */
int tb_sio_open_regular(const char *path, int flags, struct answer *a);
void tb_sio_read_all(int fd, char *buf, struct answer *a, uint32_t cap);
bool tb_sio_send_all(int sock, const void *p, size_t n);
/* In a reader: an RQ_KEPT request served, one answer (and its bytes) a path; false where
 * the socket failed. buf holds TB_SAFEIO_MAX + 1 bytes. A read that took longer than
 * TB_SIO_KEPT_SLOW_NS is answered at once (with those before it), and the caller's deadline
 * starts again from it. */
#define TB_SIO_KEPT_SLOW_NS 5000000
bool tb_sio_serve_kept(int sock, const struct request *rq, char *buf);
/* In a reader, before a path is read (a request's or a kept one's): nothing; tests define
 * it to make a file's read block as a wedged driver's does. */
void tb_safeio_test_read(const char *path);

#endif
