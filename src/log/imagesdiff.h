/* imagesdiff.h: whether logs ran the same kernel images, from each log's "# kernel_images:"
 * line (the images the executable carried and the compiler of each). compare (against a
 * baseline) and history (night after night of one board) say so beside their verdicts, so
 * that a rebuild with another compiler is never read as the code's regression unsaid.
 * Not here: the rows (logread.h), the verdicts themselves (compare.c, history.c). */
#ifndef TB_IMAGESDIFF_H
#define TB_IMAGESDIFF_H

#include <stddef.h>

/* What one log says of itself, from its metadata lines (those before the CSV header). */
struct tb_log_images {
    char images[1024];      /* "# kernel_images:" value; "" when the log has none */
    char started[32];       /* "# started_utc:" */
    char who[256];          /* "host machine_id board": one board's nights */
};

/* Reads path's metadata: a regular file, opened without following a link or blocking,
 * gzip or plain, at most TB_IMAGESDIFF_MAX_LINES lines. 0, or a negative errno. */
#define TB_IMAGESDIFF_MAX_LINES 4096
int tb_log_images_read(const char *path, struct tb_log_images *out);

/* compare: 1 when the two sides' sets of kernel_images values differ (logs without the line
 * are left out), and a warning naming both, prefixed "who: "; 0 when the same or unknown. */
int tb_images_note_sides(const char *who, char *const *now, size_t nn, char *const *base,
                         size_t nb);

/* history: for each board (host, machine-id, board name), its logs in time order; every
 * change of kernel images from one night to the next is a warning naming the night and both
 * sides. Returns the number of changes. */
int tb_images_note_nights(const char *who, char *const *paths, size_t n);

#endif
