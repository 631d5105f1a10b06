/* safeio_kept.c: tb_safeio_kept_reads (safeio.h), a sampler's files read together by one
 * reader of safeio.c, which keeps them open between calls (safeio_reader.c): one round trip
 * a reading where one a file cost the INA3221 sampler most of its time (doc/power.md, "What
 * the sampler costs"). The caller's side. Not here: how a reader is made or given up
 * (safeio.c), or what it does (safeio_reader.c). */
#include "lib/safeio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/safeio_internal.h"

_Static_assert(sizeof(((struct request *)0)->caps) / sizeof(uint32_t) == TB_SAFEIO_KEPT_MAX,
               "one cap a kept file");

/* ---- in this process ------------------------------------------------------------------ */

/* The jobs that go in one request (TB_SAFEIO_KEPT_MAX, the paths' bytes), their indexes into
 * pick, each read to its own n (rq->caps): not one whose path a given-up reader is still
 * stuck on (read alone, it fails at once naming that file, as tb_safeio_read's do), nor one
 * that asks no bytes or too many; how many. */
static int pack(struct tb_safeio_job *job, int n, struct request *rq, int *pick)
{
    size_t used = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(job[i].path);
        if (k == TB_SAFEIO_KEPT_MAX || used + len + 1 > sizeof(rq->path) || job[i].n == 0 ||
            job[i].n - 1 > TB_SAFEIO_MAX || tb_sio_key_stuck(job[i].path))
            continue;
        memcpy(rq->path + used, job[i].path, len + 1);
        used += len + 1;
        rq->caps[k] = (uint32_t)job[i].n;
        pick[k++] = i;
    }
    rq->count = k;
    return k;
}

/* The request's answers into its jobs (pick) by their deadlines: how many came before the
 * reader failed (timed out, or ended). The reader sends
 * quick answers together, so one that times out says only that a file from there on hung:
 * the caller reads those alone. */
static int take(struct worker *w, struct tb_safeio_job *job, const int *pick, int packed,
                int deadline_ms, bool *timed_out)
{
    struct timespec end;
    tb_sio_deadline(&end, deadline_ms);
    for (int i = 0; i < packed; i++) {
        struct tb_safeio_job *j = &job[pick[i]];
        struct answer a = { 0 };
        bool transport = false;
        j->rc = tb_sio_answer(w, true, j->path, j->buf, j->n, NULL, &a, &end, deadline_ms,
                              &transport, j->why, sizeof(j->why));
        if (transport) {
            *timed_out = j->rc == -ETIMEDOUT;
            return i;
        }
        if (a.ns > TB_SIO_KEPT_SLOW_NS)   /* answered alone: the next file's deadline from now */
            tb_sio_deadline(&end, deadline_ms);
        j->ns = a.ns, j->end_ns = a.end_ns;
    }
    return packed;
}

/* A job read by itself (after a reader's failure, with no reader, or not in the request),
 * timed as the reader times its own: ns and end_ns on CLOCK_MONOTONIC, so that a caller
 * stamping by them (ina3221.c) sees the seconds a hung file cost, not 0 (#57). */
static void read_alone(struct tb_safeio_job *j, int deadline_ms)
{
    int64_t t0 = tb_real_now_ns();
    j->rc = tb_safeio_read(j->path, j->buf, j->n, NULL, 0, deadline_ms, j->why, sizeof(j->why));
    j->end_ns = tb_real_now_ns();
    j->ns = j->end_ns - t0;
}

/* Jobs from first on (pick) that the failed reader never answered, each read alone with a
 * deadline of its own; the reader given up under the path whose own read hung (the first),
 * so that it gets no second reader while this one is stuck, or under none. */
static void after_failure(struct worker *w, bool timed_out, struct tb_safeio_job *job,
                          const int *pick, int first, int packed, int deadline_ms)
{
    const char *hung = NULL;
    for (int i = first; i < packed; i++) {
        struct tb_safeio_job *j = &job[pick[i]];
        read_alone(j, deadline_ms);
        if (!hung && j->rc == -ETIMEDOUT)
            hung = j->path;
    }
    tb_sio_rekey(w, hung ? hung : "");
    tb_sio_put(w, timed_out, !timed_out);
}

void tb_safeio_kept_reads(struct tb_safeio_job *job, int n, int deadline_ms)
{
    static struct request zero;
    struct request rq = zero;
    int pick[TB_SAFEIO_KEPT_MAX];
    if (deadline_ms <= 0)
        deadline_ms = TB_SAFEIO_DEADLINE_MS;
    rq.has_fd = RQ_KEPT;
    bool named = true;
    for (int i = 0; i < n; i++) {
        job[i].rc = 0, job[i].ns = 0, job[i].end_ns = 0, job[i].why[0] = '\0';
        if (job[i].n)
            job[i].buf[0] = '\0';
        named = named && job[i].path;
    }
    for (int i = 0; i < n && !named; i++) {
        job[i].rc = -EINVAL;
        snprintf(job[i].why, sizeof(job[i].why), "a kept read without a path: none read");
    }
    if (!named || n <= 0)
        return;
    int packed = pack(job, n, &rq, pick), rc = 0, got = 0;
    bool timed_out = false;
    tb_clock_hold();   /* as run_job: no virtual time passes while the reader answers */
    struct tb_safeio_job *j0 = packed ? &job[pick[0]] : NULL;
    struct worker *w = packed ? tb_sio_send_rq(&rq, -1, j0->path, false, &rc, j0->why,
                                               sizeof(j0->why)) : NULL;
    if (w)
        got = take(w, job, pick, packed, deadline_ms, &timed_out);
    if (w && got == packed)
        tb_sio_put(w, false, false);
    tb_clock_release();
    if (w && got < packed)
        after_failure(w, timed_out, job, pick, got, packed, deadline_ms);
    for (int i = 0; packed && !w && i < packed; i++)   /* no reader: each names why */
        read_alone(&job[pick[i]], deadline_ms);
    for (int i = 0, k = 0; i < n; i++) {   /* those not in the request: alone */
        if (k < packed && pick[k] == i)
            k++;
        else
            read_alone(&job[i], deadline_ms);
    }
}
