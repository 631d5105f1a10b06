/* fuzz_report.c: libFuzzer target for the page and plot writers (html.c, plot.c) fed any
 * numbers: the input's bytes are the chart's shape and its values as raw doubles (NaN, inf,
 * 1e308, 5e-324, negative zero, subnormals all come up). Every call must return, and the
 * page's output stays bounded; the plot's script and data are written and dropped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/plot.h"

enum { MAX_SIDE = 8, PAGE_BOUND = 1 << 20 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t nc = data[0] % MAX_SIDE + 1, ns = data[1] % MAX_SIDE + 1;
    int log = data[2] & 1;
    double v[MAX_SIDE * MAX_SIDE];
    for (size_t i = 0; i < nc * ns; i++) {
        uint8_t b[8] = { 0 };
        for (size_t k = 0; k < 8; k++)
            b[k] = data[(3 + i * 8 + k) % size];
        memcpy(&v[i], b, sizeof(double));
    }
    static const char *const names[MAX_SIDE] = { "a", "b|c", "d,e", "f\"g", "<h>", "i'j",
                                                 "k\x1b[2J", "l" };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return 0;
    tb_html_bars(f, "t", "GB/s", names, nc, names, ns, v, log);
    tb_html_lines(f, "t", "of median", names, nc, names, ns, v);
    fclose(f);
    if (len > PAGE_BOUND)
        abort();   /* an unbounded page: the tick loop of issue 22 */
    free(buf);
    struct tb_plot *p = tb_plot_open_script("/dev/shm/tb-fuzz-plot.svg", "fuzz");
    if (!p)
        return 0;
    tb_plot_heading(p, "h", "n");
    tb_plot_bars(p, "t", "GB/s", names, nc, names, ns, v, log);
    tb_plot_lines(p, "t", "x", names, nc, names, ns, v);
    tb_plot_discard(p);
    return 0;
}
