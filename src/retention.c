/* retention.c: see retention.h. Age comes from the name's UTC stamp, not the mtime,
 * which rsync and cp -p may have changed; names are the log module's (csvlog.h). */
#include "retention.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csvlog.h"
#include "util.h"

struct entry { char name[NAME_MAX + 1]; time_t stamp; };

static int newest_first(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return (x->stamp < y->stamp) - (x->stamp > y->stamp);
}

int tb_retention_apply(const char *dir, const char *host, const char *board, int keep_logs,
                       int keep_days, const char *keep_path)
{
    char h[128], b[128];
    tb_strlcpy(h, host, sizeof(h));
    tb_strlcpy(b, board, sizeof(b));
    tb_log_name_part(h);
    tb_log_name_part(b);
    if (keep_logs <= 0 && keep_days <= 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d) {
        warning("log retention: cannot open '%s': %s", dir, strerror(errno));
        return 0;
    }
    struct entry *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        time_t t;
        char lh[128], lb[128];
        if (!tb_log_name_parse(e->d_name, lh, sizeof(lh), lb, sizeof(lb), &t) || strcmp(lh, h) ||
            strcmp(lb, b))
            continue;   /* not a log, or another host's or board's */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            struct entry *nv = realloc(v, cap * sizeof(*v));
            if (!nv)
                break;
            v = nv;
        }
        tb_strlcpy(v[n].name, e->d_name, sizeof(v[n].name));
        v[n].stamp = t;
        n++;
    }
    closedir(d);
    qsort(v, n, sizeof(*v), newest_first);
    time_t now = time(NULL);
    int removed = 0;
    const char *keep_base = keep_path ? strrchr(keep_path, '/') : NULL;
    keep_base = keep_base ? keep_base + 1 : keep_path;
    /* a clock that jumped ahead makes every log look old: ages count from now and from the
     * newest earlier log (a log stamped in the future is none), and a log is too old only
     * by both, so a jump alone deletes nothing (#33) */
    time_t ref = 0, max_age = (time_t)keep_days * 86400;
    for (size_t i = 0; i < n; i++)
        if (v[i].stamp <= now + 86400 && !(keep_base && !strcmp(v[i].name, keep_base)) &&
            v[i].stamp > ref)
            ref = v[i].stamp;
    if (keep_days > 0 && ref && now - ref > max_age)
        warning("log retention: the newest earlier log is %lld days old (a clock that jumped, "
                "or a long pause): ages counted from it too", (long long)((now - ref) / 86400));
    for (size_t i = 0; i < n; i++) {
        bool too_many = keep_logs > 0 && i >= (size_t)keep_logs;
        bool too_old = keep_days > 0 && now - v[i].stamp > max_age && ref - v[i].stamp > max_age;
        if (!(too_many || too_old) || (keep_base && !strcmp(v[i].name, keep_base)))
            continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (unlink(path) == 0) {
            removed++;
            note("log retention: removed '%s' (%s)", path, too_many ? "keep_logs" : "keep_days");
        }
        else
            warning("log retention: cannot remove '%s': %s", path, strerror(errno));
    }
    free(v);
    return removed;
}
