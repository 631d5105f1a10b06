/* groups.h: items put into groups of equal keys in O(n log n), the groups in the order of
 * their first item and each group's items in their own order: what `compare` shows size by
 * size. One scan of the rest for each group cost 50,000 sizes 1.25 billion comparisons
 * (seconds on a desktop, minutes on a Nano, #59). Not here: what the groups are of. */
#ifndef TB_GROUPS_H
#define TB_GROUPS_H

#include <stddef.h>

/* Groups v[0..n) (items of size bytes) by cmp, a total order whose ties are one group:
 * *order holds the items' indices group by group, group g being order[(*start)[g] ..
 * (*start)[g + 1]), *ngroups of them. 0, or -1 out of memory (nothing to free). Both arrays
 * malloc'd, the caller's to free. */
int tb_groups(const void *v, size_t n, size_t size, int (*cmp)(const void *, const void *),
              size_t **order, size_t **start, size_t *ngroups);

#endif
