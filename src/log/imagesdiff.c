/* imagesdiff.c: see imagesdiff.h. Reads only the metadata lines of each log, itself (a few
 * kilobytes, bounded), so that compare and history need no new field in their row reader.
 * Not a judge of which images are better: it says that they differ, and where. */
#include "log/imagesdiff.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/util.h"

static void take(char *dst, size_t n, const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k))
        return;
    tb_strlcpy(dst, line + k, n);
    dst[strcspn(dst, "\r\n")] = '\0';
}

int tb_log_images_read(const char *path, struct tb_log_images *out)
{
    memset(out, 0, sizeof(*out));
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    gzFile gz = gzdopen(fd, "rb");   /* reads plain files too (transparent) */
    if (!gz) {
        close(fd);
        return -ENOMEM;
    }
    char line[1536], host[64] = "", id[64] = "", board[64] = "";
    for (int i = 0; i < TB_IMAGESDIFF_MAX_LINES && gzgets(gz, line, sizeof(line)); i++) {
        if (line[0] != '#')
            break;   /* the CSV header: the metadata is over */
        take(out->images, sizeof(out->images), line, "# kernel_images: ");
        take(out->started, sizeof(out->started), line, "# started_utc: ");
        take(host, sizeof(host), line, "# host: ");
        take(id, sizeof(id), line, "# machine_id: ");
        take(board, sizeof(board), line, "# board: ");
    }
    gzclose(gz);
    board[strcspn(board, ",")] = '\0';   /* "generic, peak 0.0 GB/s" */
    snprintf(out->who, sizeof(out->who), "%s %s %s", host, id, board);
    return 0;
}

/* The distinct kernel_images values of paths (sorted, so that two sides compare by value),
 * joined by " | " into buf; their number. */
#define DISTINCT_MAX 16
static int by_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static size_t distinct(char *const *paths, size_t n, char *buf, size_t bn)
{
    char *vals[DISTINCT_MAX];
    size_t count = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        struct tb_log_images li;
        if (tb_log_images_read(paths[i], &li) < 0 || !li.images[0])
            continue;
        bool seen = false;
        for (size_t j = 0; j < count && !seen; j++)
            seen = !strcmp(vals[j], li.images);
        if (seen || count == DISTINCT_MAX || !(vals[count] = strdup(li.images)))
            continue;
        count++;
    }
    tb_sort(vals, count, sizeof(vals[0]), by_str);
    for (size_t j = 0; j < count; j++) {
        size_t used = strlen(buf);
        snprintf(buf + used, bn - used, "%s%s", used ? " | " : "", vals[j]);
        free(vals[j]);
    }
    return count;
}

int tb_images_note_sides(const char *who, char *const *now, size_t nn, char *const *base,
                         size_t nb)
{
    char a[4096], b[4096];
    size_t ka = distinct(now, nn, a, sizeof(a)), kb = distinct(base, nb, b, sizeof(b));
    if (!ka || !kb || !strcmp(a, b))
        return 0;
    warning("%s: the logs and the baseline ran different kernel images (logs: %s; baseline: "
            "%s): a difference between them may come from the compiler or the images, not "
            "from the code", who, a, b);
    return 1;
}

static int by_who_started(const void *x, const void *y)
{
    const struct tb_log_images *a = x, *b = y;
    int c = strcmp(a->who, b->who);
    return c ? c : strcmp(a->started, b->started);
}

int tb_images_note_nights(const char *who, char *const *paths, size_t n)
{
    struct tb_log_images *v = calloc(n ? n : 1, sizeof(*v));
    if (!v)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (tb_log_images_read(paths[i], &v[k]) == 0 && v[k].images[0] && v[k].started[0])
            k++;
    tb_sort(v, k, sizeof(*v), by_who_started);
    int changes = 0;
    for (size_t i = 1; i < k; i++) {
        if (strcmp(v[i].who, v[i - 1].who) || !strcmp(v[i].images, v[i - 1].images))
            continue;
        changes++;
        warning("%s: %s: the kernel images changed on the night of %s (before: %s; from then: "
                "%s): a change from that night on may come from the compiler or the images, "
                "not from the code", who, v[i].who, v[i].started, v[i - 1].images, v[i].images);
    }
    free(v);
    return changes;
}
