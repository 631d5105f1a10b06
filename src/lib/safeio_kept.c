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

/* ---- in this process ------------------------------------------------------------------ */

/* The jobs from first on that fit one request (TB_SAFEIO_KEPT_MAX, the paths' bytes), into
 * rq; how many. */
static int pack(struct tb_safeio_job *job, int n, struct request *rq)
{
    size_t used = 0;
    int k = 0;
    rq->cap = UINT32_MAX;
    for (; k < n && k < TB_SAFEIO_KEPT_MAX; k++) {
        size_t len = strlen(job[k].path);
        if (used + len + 1 > sizeof(rq->path) || job[k].n == 0 || job[k].n - 1 > TB_SAFEIO_MAX)
            break;
        memcpy(rq->path + used, job[k].path, len + 1);
        used += len + 1;
        rq->cap = job[k].n < rq->cap ? (uint32_t)job[k].n : rq->cap;
    }
    rq->count = k;
    return k;
}

void tb_safeio_kept_reads(struct tb_safeio_job *job, int n, int deadline_ms)
{
    static struct request zero;
    struct request rq = zero;
    if (deadline_ms <= 0)
        deadline_ms = TB_SAFEIO_DEADLINE_MS;
    rq.has_fd = RQ_KEPT;
    bool named = true;
    for (int i = 0; i < n; i++) {
        job[i].rc = 0, job[i].ns = 0, job[i].why[0] = '\0';
        if (job[i].n)
            job[i].buf[0] = '\0';
        named = named && job[i].path;
    }
    for (int i = 0; i < n && !named; i++) {
        job[i].rc = -EINVAL;
        snprintf(job[i].why, sizeof(job[i].why), "a kept read without a path: none read");
    }
    if (!named)
        return;
    int packed = n ? pack(job, n, &rq) : 0, rc = 0;
    tb_clock_hold();   /* as run_job: no virtual time passes while the reader answers */
    struct worker *w = packed ? tb_sio_send_rq(&rq, -1, job[0].path, false, &rc, job[0].why,
                                               sizeof(job[0].why)) : NULL;
    struct timespec end;
    tb_sio_deadline(&end, deadline_ms);
    bool transport = !w;
    for (int i = 0; i < packed; i++) {
        struct tb_safeio_job *j = &job[i];
        struct answer a = { 0 };
        if (transport) {   /* the reader failed: every job after it says why */
            j->rc = rc;
            if (i)
                memcpy(j->why, job[i - 1].why, sizeof(j->why));
            continue;
        }
        j->rc = rc = tb_sio_answer(w, true, j->path, j->buf, j->n, NULL, &a, &end, deadline_ms,
                                   &transport, j->why, sizeof(j->why));
        if (a.ns > TB_SIO_KEPT_SLOW_NS)   /* answered alone: the next file's deadline from now */
            tb_sio_deadline(&end, deadline_ms);
        j->ns = a.ns;
        if (transport)
            tb_sio_put(w, rc == -ETIMEDOUT, rc != -ETIMEDOUT);
    }
    if (w && !transport)
        tb_sio_put(w, false, false);
    tb_clock_release();
    for (int i = packed; i < n; i++)   /* past one request: one at a time */
        job[i].rc = tb_safeio_read(job[i].path, job[i].buf, job[i].n, NULL, 0, deadline_ms,
                                   job[i].why, sizeof(job[i].why));
}
