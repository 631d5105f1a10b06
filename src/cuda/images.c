/* images.c: the embedded kernel images and NVIDIA's rules for which one a GPU runs (a cubin
 * of a CUDA major newer than the driver's is never loaded; PTX only up to the driver's ISA),
 * the gzip unpacking, and the PTX splitter that lets a sweep JIT-compile only the entries it
 * runs. No driver calls here: the loader in backend.c applies what these functions decide. */
#include "cuda/images.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/util.h"

size_t tb_image_count(void)
{
    size_t n = 0;
    while (tb_images[n].compiler)
        n++;
    return n;
}

/* CUDA version -> newest PTX ISA its driver JIT-compiles (NVIDIA's PTX ISA release notes). */
static const struct { int cuda, isa; } driver_isa[] = {
    { 9000, 60 },  { 9010, 61 },  { 9020, 62 },  { 10000, 63 }, { 10010, 64 }, { 10020, 65 },
    { 11000, 70 }, { 11010, 71 }, { 11020, 72 }, { 11030, 73 }, { 11040, 74 }, { 11050, 75 },
    { 11060, 76 }, { 11070, 77 }, { 11080, 78 }, { 12000, 80 }, { 12010, 81 }, { 12020, 82 },
    { 12030, 83 }, { 12040, 84 }, { 12050, 85 }, { 12060, 85 }, { 12080, 87 }, { 12090, 88 },
    { 13000, 90 },
};

int tb_driver_ptx_isa(int driver)
{
    int isa = 0;   /* a driver older than the table: nothing we build */
    for (size_t i = 0; i < ARRAY_SIZE(driver_isa); i++)
        if (driver >= driver_isa[i].cuda)
            isa = driver_isa[i].isa;   /* newer than the table: the newest we know, no more */
    return isa;
}

void tb_image_describe(const struct tb_image *im, char *buf, size_t n)
{
    if (im->kind == TB_IMAGE_CUBIN)
        snprintf(buf, n, "cubin sm_%d (CUDA %d.%d), %s, %zu bytes", im->sm, im->cuda / 10,
                 im->cuda % 10, im->compiler, im->bytes);
    else
        snprintf(buf, n, "PTX sm_%d ISA %d.%d, %s, %zu bytes", im->sm, im->ptx_isa / 10,
                 im->ptx_isa % 10, im->compiler, im->bytes);
}

static size_t short_name(const struct tb_image *im, char *buf, size_t n)
{
    int w = im->kind == TB_IMAGE_CUBIN
                ? snprintf(buf, n, "cubin sm_%d (%s)", im->sm, im->compiler)
                : snprintf(buf, n, "PTX sm_%d ISA %d.%d (%s)", im->sm, im->ptx_isa / 10,
                           im->ptx_isa % 10, im->compiler);
    return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
}

const char *tb_images_summary(char *buf, size_t n)
{
    size_t count = tb_image_count(), len = 0;
    if (!count) {
        snprintf(buf, n, "none (%s)", tb_images_none_why[0] ? tb_images_none_why :
                 "built with CUDA=0, or with neither clang nor nvcc");
        return buf;
    }
    buf[0] = '\0';
    for (size_t i = 0; i < count && len + 2 < n; i++) {
        if (i)
            len += (size_t)snprintf(buf + len, n - len, ", ");
        if (len < n)
            len += short_name(&tb_images[i], buf + len, n - len);
    }
    return buf;
}

bool tb_image_pick(const struct tb_image *images, size_t n, int sm, bool integrated, int driver,
                   struct tb_image_pick *p)
{
    int dmajor = driver / 1000, disa = tb_driver_ptx_isa(driver);
    p->cubin = p->ptx = -1;
    bool newer_cubin = false;
    for (size_t i = 0; i < n; i++) {
        const struct tb_image *im = &images[i];
        if (im->kind == TB_IMAGE_CUBIN) {
            if (im->sm != sm)
                continue;   /* a Tegra runs only its own SM's cubin; we build exact ones */
            if (im->cuda / 10 > dmajor)
                newer_cubin = true;
            else if (p->cubin < 0)
                p->cubin = (int)i;
        } else if (im->sm <= sm && im->ptx_isa <= disa) {
            const struct tb_image *b = p->ptx >= 0 ? &images[p->ptx] : NULL;
            if (!b || im->sm > b->sm || (im->sm == b->sm && im->ptx_isa > b->ptx_isa))
                p->ptx = (int)i;
        }
    }
    char name[128], fb[160] = "";
    if (p->cubin >= 0) {
        short_name(&images[p->cubin], name, sizeof(name));
        if (p->ptx >= 0) {
            char pn[128];
            short_name(&images[p->ptx], pn, sizeof(pn));
            snprintf(fb, sizeof(fb), "; %s if the driver refuses it", pn);
        }
        snprintf(p->why, sizeof(p->why), "%s: built for this GPU by a CUDA major not newer than "
                 "the driver's %d.%d%s", name, driver / 1000, driver % 1000 / 10, fb);
        return true;
    }
    if (p->ptx >= 0) {
        short_name(&images[p->ptx], name, sizeof(name));
        snprintf(p->why, sizeof(p->why), "%s, JIT-compiled by the driver (CUDA %d.%d takes PTX "
                 "ISA %d.%d at most%s)", name, driver / 1000, driver % 1000 / 10, disa / 10,
                 disa % 10, newer_cubin ? "; the cubin for this SM is of a newer CUDA major" : "");
        return true;
    }
    snprintf(p->why, sizeof(p->why), "no image fits sm_%d%s under a driver of CUDA %d.%d (PTX "
             "ISA %d.%d at most, cubins of CUDA %d or older)%s", sm, integrated ? " (Tegra)" : "",
             driver / 1000, driver % 1000 / 10, disa / 10, disa % 10, dmajor,
             newer_cubin ? "; the cubin for this SM is of a newer CUDA major" : "");
    return false;
}

int tb_image_unpack(const struct tb_image *im, unsigned char **out, size_t *len)
{
    unsigned char *buf = malloc(im->bytes + 1);
    if (!buf)
        return -ENOMEM;
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        free(buf);
        return -ENOMEM;
    }
    z.next_in = (unsigned char *)(uintptr_t)im->gz;
    z.avail_in = (uInt)(im->gz_end - im->gz);
    z.next_out = buf;
    z.avail_out = (uInt)im->bytes;
    int rc = inflate(&z, Z_FINISH);
    size_t got = im->bytes - z.avail_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || got != im->bytes) {
        free(buf);
        return -EILSEQ;   /* the executable is damaged */
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return 0;
}

/* ---- PTX: top-level items ------------------------------------------------------------ */

static const char *skip_blank(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == '/' && p[1] == '/') {
            const char *e = strchr(p, '\n');
            p = e ? e : p + strlen(p);
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else
            return p;
    }
}

static bool starts_word(const char *p, const char *w)
{
    size_t n = strlen(w);
    return !strncmp(p, w, n) && !isalnum((unsigned char)p[n]) && p[n] != '_';
}

/* The end of the top-level item at p: a directive of one line (.version, .target,
 * .address_size, .file), a declaration ending in ';' (an initializer's braces included), or
 * a function or entry ending in its '}'. */
static const char *item_end(const char *p)
{
    if (starts_word(p, ".version") || starts_word(p, ".target") ||
        starts_word(p, ".address_size") || starts_word(p, ".file")) {
        const char *e = strchr(p, '\n');
        return e ? e : p + strlen(p);
    }
    int depth = 0, paren = 0;
    while (*p) {
        if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
            p = skip_blank(p);
            continue;
        }
        if (*p == '"') {   /* a string: braces inside it are text */
            const char *e = strchr(p + 1, '"');
            p = e ? e + 1 : p + strlen(p);
            continue;
        }
        char c = *p++;
        if (c == '(')
            paren++;
        else if (c == ')')
            paren--;
        else if (c == '{')
            depth++;
        else if (c == '}' && --depth <= 0) {
            const char *q = p;   /* an initializer "= { ... };" ends at its ';' */
            while (*q == ' ' || *q == '\t')
                q++;
            return *q == ';' ? q + 1 : p;
        }
        else if (c == ';' && depth == 0 && paren <= 0)
            return p;
    }
    return p;
}

/* The entry's name when the item [p, e) is an entry (".visible .entry name("), else NULL
 * with *len 0. */
static const char *entry_name(const char *p, const char *e, size_t *len)
{
    *len = 0;
    while (p < e && (starts_word(p, ".visible") || starts_word(p, ".weak") ||
                     starts_word(p, ".extern"))) {
        while (p < e && !isspace((unsigned char)*p))
            p++;
        while (p < e && isspace((unsigned char)*p))
            p++;
    }
    if (!starts_word(p, ".entry"))
        return NULL;
    p += 6;
    while (p < e && isspace((unsigned char)*p))
        p++;
    const char *s = p;
    while (p < e && (isalnum((unsigned char)*p) || *p == '_' || *p == '$'))
        p++;
    *len = (size_t)(p - s);
    return s;
}

char *tb_ptx_only_entry(const char *ptx, const char *name)
{
    size_t want = strlen(name), total = strlen(ptx);
    char *out = malloc(2 * total + 2);   /* each kept item plus a newline: at most twice */
    if (!out)
        return NULL;
    size_t len = 0;
    bool found = false;
    for (const char *p = skip_blank(ptx); *p; p = skip_blank(p)) {
        const char *e = item_end(p);
        size_t nlen;
        const char *en = entry_name(p, e, &nlen);
        if (!en || (nlen == want && !strncmp(en, name, want))) {
            found |= en != NULL;
            memcpy(out + len, p, (size_t)(e - p));
            len += (size_t)(e - p);
            out[len++] = '\n';
        }
        if (e == p)
            break;   /* cannot happen on text that parsed; never loop */
        p = e;
    }
    out[len] = '\0';
    if (!found) {
        free(out);
        return NULL;
    }
    return out;
}
