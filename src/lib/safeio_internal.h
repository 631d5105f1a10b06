/* safeio_internal.h: what safeio.c shares with safeio_batch.c: one read handed to a reader
 * and its answer taken back, by a deadline. Not for any other file. */
#ifndef TB_SAFEIO_INTERNAL_H
#define TB_SAFEIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct worker;

/* Checks a job (fd >= 0: read it; else open path and read it) and hands it to a reader (one
 * of a batch's when batch): the reader, or NULL with *rc and why filled. */
struct worker *tb_sio_send(int fd, const char *path, int flags, const char *what, size_t n,
                           bool batch, int *rc, char *why, size_t why_n);
/* The reader's answer by end: the bytes into buf (NUL-terminated), *len (may be NULL) their
 * count; the reader back to the pool, or given up at end (-ETIMEDOUT). 0, or -errno with why
 * filled, as tb_safeio_read returns. opened: the job named a path. */
int tb_sio_recv(struct worker *w, bool opened, const char *what, char *buf, size_t n,
                size_t *len, const struct timespec *end, int deadline_ms, char *why,
                size_t why_n);
/* The socket of a reader, to poll. */
int tb_sio_sock(const struct worker *w);
/* end = CLOCK_MONOTONIC now + ms; the ms left until end (0 past it). */
void tb_sio_deadline(struct timespec *end, int ms);
int tb_sio_ms_left(const struct timespec *end);

#endif
