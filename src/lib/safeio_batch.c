/* safeio_batch.c: tb_safeio_lines (safeio.h), a scan's reads all at once under one deadline,
 * in reader processes of safeio.c (one each). Not here: how a reader reads (safeio.c), what a
 * caller makes of a file it could not read. */
#include "lib/safeio.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/safeio_internal.h"

void tb_safeio_lines(struct tb_safeio_job *job, int n, int deadline_ms)
{
    struct worker *w[TB_SAFEIO_BATCH_MAX];
    struct pollfd p[TB_SAFEIO_BATCH_MAX];
    int at[TB_SAFEIO_BATCH_MAX], left = 0;
    if (deadline_ms <= 0)
        deadline_ms = TB_SAFEIO_DEADLINE_MS;
    tb_clock_hold();   /* as run_job: no virtual time passes while readers answer */
    for (int i = 0; i < n; i++) {   /* every read on its way before the deadline starts */
        struct tb_safeio_job *j = &job[i];
        j->rc = 0;
        if (j->n)
            j->buf[0] = '\0';
        if (i >= TB_SAFEIO_BATCH_MAX) {
            snprintf(j->why, sizeof(j->why), "'%s' not read: more than %d reads in one scan",
                     j->path ? j->path : j->what, TB_SAFEIO_BATCH_MAX);
            j->rc = -E2BIG;
            continue;
        }
        w[i] = tb_sio_send(j->path ? -1 : j->fd, j->path, j->flags, j->path ? j->path : j->what,
                           j->n, true, &j->rc, j->why, sizeof(j->why));
        left += w[i] != NULL;
    }
    struct timespec end;
    tb_sio_deadline(&end, deadline_ms);
    while (left > 0) {
        int k = 0;
        for (int i = 0; i < n && i < TB_SAFEIO_BATCH_MAX; i++)
            if (w[i]) {
                p[k] = (struct pollfd){ tb_sio_sock(w[i]), POLLIN, 0 };
                at[k++] = i;
            }
        int r = poll(p, (nfds_t)k, tb_sio_ms_left(&end));
        if (r < 0 && errno == EINTR)
            continue;
        for (int q = 0; q < k; q++) {   /* past the deadline (r == 0): each is given up */
            struct tb_safeio_job *j = &job[at[q]];
            if (r > 0 && !p[q].revents)
                continue;
            j->rc = tb_sio_recv(w[at[q]], j->path != NULL, j->path ? j->path : j->what, j->buf,
                             j->n, NULL, &end, deadline_ms, j->why, sizeof(j->why));
            w[at[q]] = NULL;
            left--;
        }
    }
    for (int i = 0; i < n; i++)   /* a first line is wanted: a longer file is no error */
        if (job[i].rc == 0 || job[i].rc == -EFBIG) {
            job[i].rc = 0;
            job[i].buf[strcspn(job[i].buf, "\n")] = '\0';
        }
    tb_clock_release();
}

