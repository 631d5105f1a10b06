/* retention.c: see retention.h. Whose a log is comes from inside it (its host, machine-id and
 * board lines), never from its name's spelling, which two names can share in logs of older
 * versions (lab_nano and lab-nano were both "lab-nano"). Age comes from the name's UTC stamp,
 * not the mtime, which rsync and cp -p may have changed; a stamp that cannot be true (in the
 * future, before 2020) counts as the oldest, so it never holds a place among the newest. */
#include "log/retention.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "log/csvlog.h"
#include "log/log_meta.h"
#include "log/logread.h"
#include "lib/util.h"

/* The metadata lines come first; a log whose first 256 lines or 64 KiB hold no header is
 * read no further (and is nobody's here). */
#define ID_MAX_LINES 256
#define ID_MAX_BYTES 65536

/* Newest first; an implausible stamp after every plausible one. */
static int newest_first(const void *a, const void *b)
{
    const struct tb_log_entry *x = a, *y = b;
    if (x->plausible != y->plausible)
        return x->plausible ? -1 : 1;
    return (x->stamp < y->stamp) - (x->stamp > y->stamp);
}

/* Whether a "# board:" value is exactly board's: "NAME, peak X GB/s[, has a GPU]". Matched
 * from the known name, so a name holding ", peak " cannot pass for another. */
static bool board_is(const char *v, const char *board)
{
    size_t bl = strlen(board);
    if (strncmp(v, board, bl) || strncmp(v + bl, ", peak ", 7))
        return false;
    const char *p = v + bl + 7, *end = strchr(p, ' ');
    char num[64];
    if (!end || (size_t)(end - p) >= sizeof(num))
        return false;
    memcpy(num, p, (size_t)(end - p));
    num[end - p] = '\0';
    if (isnan(tb_log_number(num)) || strncmp(end, " GB/s", 5))   /* the readers' one parser */
        return false;
    end += 5;
    return !*end || !strcmp(end, ", has a GPU");
}

int tb_log_identity(const char *path, struct tb_log_identity *id)
{
    memset(id, 0, sizeof(*id));
    /* a log folder is shared: no link followed, nothing that blocks, regular files only */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    gzFile z = gzdopen(fd, "rb");
    if (!z) {
        close(fd);
        return -ENOMEM;
    }
    char line[1024];
    size_t bytes = 0;
    for (int i = 0; i < ID_MAX_LINES && bytes < ID_MAX_BYTES && gzgets(z, line, sizeof(line)); i++) {
        size_t len = strlen(line);
        bytes += len;
        if (len == 0 || line[len - 1] != '\n')
            break;   /* a line too long for a metadata line, or a cut file */
        line[--len] = '\0';
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (line[0] != '#')
            break;   /* the header: the metadata is over */
        const char *v;
        if ((v = tb_meta_value(line, TB_META_host)) && !id->has_host) {
            id->has_host = tb_strlcpy(id->host, v, sizeof(id->host)) < sizeof(id->host);
        } else if ((v = tb_meta_value(line, TB_META_machine_id)) && !id->machine_id[0]) {
            tb_strlcpy(id->machine_id, v, sizeof(id->machine_id));
        } else if ((v = tb_meta_value(line, TB_META_board)) && !id->board_line[0]) {
            tb_strlcpy(id->board_line, v, sizeof(id->board_line));
        }
    }
    gzclose(z);
    return id->has_host && id->board_line[0] ? 0 : -ENOENT;
}

bool tb_log_identity_is(const struct tb_log_identity *id, const char *host, const char *machine_id,
                        const char *board)
{
    return id->has_host && !strcmp(id->host, host) && !strcmp(id->machine_id, machine_id) &&
           board_is(id->board_line, board);
}

/* The logs of open folder d that are host's and board's (by what they say of themselves),
 * but skip_base; *out holds them (free it). */
static size_t our_logs(DIR *d, const char *dir, const char *host, const char *machine_id,
                       const char *board, const char *skip_base, time_t now,
                       struct tb_log_entry **out)
{
    struct tb_log_entry *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        time_t t;
        if (!tb_log_name_parse(e->d_name, NULL, 0, NULL, 0, &t) ||
            (skip_base && !strcmp(e->d_name, skip_base)))
            continue;   /* not a log's name, or the log skipped (the one just written) */
        char path[PATH_MAX * 2];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct tb_log_identity id;
        if (tb_log_identity(path, &id) < 0 || !tb_log_identity_is(&id, host, machine_id, board))
            continue;   /* another host's or board's (whatever its name says), or no log */
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            struct tb_log_entry *nv = realloc(v, cap * sizeof(*v));
            if (!nv)
                break;
            v = nv;
        }
        tb_strlcpy(v[n].name, e->d_name, sizeof(v[n].name));
        v[n].stamp = t;
        v[n].plausible = !tb_time_implausible((long long)t, (long long)now);
        n++;
    }
    *out = v;
    return n;
}

long tb_logs_ours(const char *dir, const char *host, const char *machine_id, const char *board,
                  const char *skip_base, struct tb_log_entry **out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    size_t n = our_logs(d, dir, host, machine_id, board, skip_base, time(NULL), out);
    closedir(d);
    if (n)
        tb_sort(*out, n, sizeof(**out), newest_first);
    return (long)n;
}

int tb_retention_apply(const char *dir, const char *host, const char *board, int keep_logs,
                       int keep_days, const char *keep_path)
{
    if (keep_logs <= 0 && keep_days <= 0)
        return 0;
    /* who we are: the identity of the log this run just wrote, which must be ours */
    struct tb_log_identity me;
    if (!keep_path || tb_log_identity(keep_path, &me) < 0 ||
        !tb_log_identity_is(&me, host, me.machine_id, board)) {
        warning("log retention: cannot read this run's identity from '%s': no log removed",
                keep_path ? keep_path : "(no log)");
        return 0;
    }
    const char *keep_base = strrchr(keep_path, '/');
    keep_base = keep_base ? keep_base + 1 : keep_path;
    time_t now = time(NULL);
    struct tb_log_entry *v = NULL;
    long got = tb_logs_ours(dir, host, me.machine_id, board, keep_base, &v);
    if (got < 0) {
        warning("log retention: cannot open '%s': %s", dir, strerror((int)-got));
        return 0;
    }
    size_t n = (size_t)got;
    int removed = 0;
    /* a clock that jumped ahead makes every log look old: ages count from now and from the
     * newest earlier log (a log stamped in the future is none), and a log is too old only
     * by both, so a jump alone deletes nothing (#33) */
    time_t ref = 0, max_age = (time_t)keep_days * 86400;
    for (size_t i = 0; i < n; i++)
        if (v[i].plausible && v[i].stamp > ref)
            ref = v[i].stamp;
    if (keep_days > 0 && ref && now - ref > max_age)
        warning("log retention: the newest earlier log is %lld days old (a clock that jumped, "
                "or a long pause): ages counted from it too", (long long)((now - ref) / 86400));
    for (size_t i = 0; i < n; i++) {
        /* the log just written is the newest: keep_logs - 1 of the others stay */
        bool too_many = keep_logs > 0 && i + 1 >= (size_t)keep_logs;
        bool too_old = keep_days > 0 && v[i].plausible && now - v[i].stamp > max_age &&
                       ref - v[i].stamp > max_age;
        if (!(too_many || too_old))
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
