/* groups.c: see groups.h. A merge sort of the indices (stable: ties keep their order, so a
 * run's first index is its group's first item), the runs of ties its groups, then the groups
 * emitted as their first items come in the original order. */
#include "lib/groups.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct by {
    const char *v;
    size_t size;
    int (*cmp)(const void *, const void *);
};

static int cmp_at(const struct by *b, size_t i, size_t j)
{
    return b->cmp(b->v + i * b->size, b->v + j * b->size);
}

static void merge_sort(const struct by *b, size_t *x, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2, i = 0, j = h, k = 0;
    merge_sort(b, x, tmp, h);
    merge_sort(b, x + h, tmp, n - h);
    while (i < h && j < n)
        tmp[k++] = cmp_at(b, x[j], x[i]) < 0 ? x[j++] : x[i++];
    while (i < h)
        tmp[k++] = x[i++];
    while (j < n)
        tmp[k++] = x[j++];
    memcpy(x, tmp, n * sizeof(*x));
}

int tb_groups(const void *v, size_t n, size_t size, int (*cmp)(const void *, const void *),
              size_t **order, size_t **start, size_t *ngroups)
{
    size_t m = n ? n : 1;
    size_t *x = malloc(m * sizeof(*x)), *tmp = malloc(m * sizeof(*tmp));
    size_t *run = malloc((m + 1) * sizeof(*run)), *run_of = malloc(m * sizeof(*run_of));
    size_t *out = malloc(m * sizeof(*out)), *st = malloc((m + 1) * sizeof(*st));
    bool *emitted = calloc(m, sizeof(*emitted));
    int rc = x && tmp && run && run_of && out && st && emitted ? 0 : -1;
    if (rc == 0) {
        struct by b = { v, size, cmp };
        for (size_t i = 0; i < n; i++)
            x[i] = i;
        merge_sort(&b, x, tmp, n);
        size_t nr = 0;
        for (size_t p = 0; p < n; p++) {
            if (p == 0 || cmp_at(&b, x[p - 1], x[p]) != 0)
                run[nr++] = p;
            run_of[x[p]] = nr - 1;
        }
        run[nr] = n;
        size_t k = 0, g = 0;
        for (size_t i = 0; i < n; i++) {
            size_t r = run_of[i];
            if (emitted[r])
                continue;
            emitted[r] = true;
            st[g++] = k;
            for (size_t p = run[r]; p < run[r + 1]; p++)
                out[k++] = x[p];
        }
        st[g] = k;
        *order = out, *start = st, *ngroups = g;
    }
    free(x);
    free(tmp);
    free(run);
    free(run_of);
    free(emitted);
    if (rc) {
        free(out);
        free(st);
    }
    return rc;
}
