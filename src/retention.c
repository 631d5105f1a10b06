/* retention.c: see retention.h. Age comes from the name's UTC stamp, not the mtime,
 * which rsync and cp -p may have changed. */
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

#include "util.h"

bool tb_retention_is_log(const char *name, time_t *stamp)
{
    static const char suffix[] = "Z.csv.gz";
    size_t len = strlen(name), sl = sizeof(suffix) - 1;
    /* ..._YYYYMMDDTHHMMSSZ.csv.gz */
    if (name[0] == '.' || len < sl + 16 + 3 || strcmp(name + len - sl, suffix))
        return false;
    const char *s = name + len - sl - 15;
    if (s[-1] != '_' || s[8] != 'T')
        return false;
    for (int i = 0; i < 15; i++)
        if (i != 8 && !isdigit((unsigned char)s[i]))
            return false;
    if (!strchr(name, '_') || strchr(name, '_') == s - 1)
        return false; /* needs host_board_ */
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (sscanf(s, "%4d%2d%2dT%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec) != 6)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    if (stamp)
        *stamp = timegm(&tm);
    return true;
}

struct entry { char name[NAME_MAX + 1]; time_t stamp; };

static int newest_first(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return (x->stamp < y->stamp) - (x->stamp > y->stamp);
}

int tb_retention_apply(const char *dir, int keep_logs, int keep_days, const char *keep_path)
{
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
        if (!tb_retention_is_log(e->d_name, &t))
            continue;
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
    for (size_t i = 0; i < n; i++) {
        bool too_many = keep_logs > 0 && i >= (size_t)keep_logs;
        bool too_old = keep_days > 0 && now - v[i].stamp > (time_t)keep_days * 86400;
        if (!(too_many || too_old) || (keep_base && !strcmp(v[i].name, keep_base)))
            continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (unlink(path) == 0)
            removed++;
        else
            warning("log retention: cannot remove '%s': %s", path, strerror(errno));
    }
    free(v);
    return removed;
}
