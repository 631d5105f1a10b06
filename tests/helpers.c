/* helpers.c: see helpers.h. The per-test fixture keeps what a test made (scratch
 * directories, run outputs, the environment before it) in one list the teardown undoes. */
#include "helpers.h"

#include <math.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include "measure/backend.h"

extern char **environ;

char *th_tmpdir(void)
{
    char *d = strdup("/tmp/tb-test-XXXXXX");
    if (!mkdtemp(d)) {
        free(d);
        return NULL;
    }
    return d;
}

void th_rmtree(const char *path)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", path, path);
    if (system(cmd) != 0) {
        /* best effort */
    }
}

static void mkdirs(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

char *th_write(const char *dir, const char *name, const char *text)
{
    char *path = malloc(PATH_MAX);
    snprintf(path, PATH_MAX, "%s/%s", dir, name);
    char parent[PATH_MAX];
    snprintf(parent, sizeof(parent), "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash) {
        *slash = '\0';
        mkdirs(parent);
    }
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

char *th_write_sizes_log(const char *dir, const char *name, int n)
{
    size_t cap = 256 + (size_t)n * 80, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "# log_format: 1\nrun_id,board,device,kernel,elem,rows,"
                            "cols,block_x,block_y,gbps,rel_sem,status\n");
    for (int i = 1; i <= n; i++)
        len += (size_t)snprintf(text + len, cap - len, "h_x_20261101T023000Z,b,d,k,float,%d,64,"
                                "8,8,10,0.01,ok\n", i);
    snprintf(text + len, cap - len, "# end: complete, %d rows\n", n);
    char *path = th_write(dir, name, text);
    free(text);
    return path;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

void th_bin_split(char *runner, size_t rn, char *path, size_t pn)
{
    const char *b = getenv("TB_BIN");
    if (!b || !*b)
        b = "./transpose-bench";
    const char *sp = strrchr(b, ' ');
    snprintf(runner, rn, "%.*s", sp ? (int)(sp - b + 1) : 0, b);
    snprintf(path, pn, "%s", sp ? sp + 1 : b);
}

int th_run(const char *args, char **out, char **err)
{
    const char *bin = getenv("TB_BIN");
    char o[] = "/tmp/tb-out-XXXXXX", e[] = "/tmp/tb-err-XXXXXX";
    int fo = mkstemp(o), fe = mkstemp(e);
    close(fo);
    close(fe);
    size_t len = strlen(args) + 2 * PATH_MAX + 64;
    char *cmd = malloc(len);
    snprintf(cmd, len, "%s %s >%s 2>%s </dev/null", bin ? bin : "./transpose-bench", args, o, e);
    int st = system(cmd);
    free(cmd);
    if (out)
        *out = slurp(o);
    if (err)
        *err = slurp(e);
    unlink(o);
    unlink(e);
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

char *th_read_gz(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int got;
    while ((got = gzread(gz, buf + n, (unsigned)(cap - n - 1))) > 0) {
        n += (size_t)got;
        if (cap - n < 1024) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[n] = '\0';
    gzclose(gz);
    return buf;
}

char *th_find_one(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *found = NULL;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name), sl = strlen(suffix);
        if (l >= sl && !strcmp(e->d_name + l - sl, suffix)) {
            count++;
            free(found);
            found = malloc(PATH_MAX);
            snprintf(found, PATH_MAX, "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    if (count != 1) {
        free(found);
        return NULL;
    }
    return found;
}

size_t th_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Index of col in a header line, or -1. */
static int col_index(const char *header, const char *col)
{
    int i = 0;
    const char *p = header;
    size_t cl = strlen(col);
    for (;;) {
        const char *end = strpbrk(p, ",\n");
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == cl && !strncmp(p, col, cl))
            return i;
        if (!end || *end == '\n')
            return -1;
        p = end + 1;
        i++;
    }
}

int th_field(const char *header, const char *row, const char *col, char *buf, size_t n)
{
    int idx = col_index(header, col);
    if (idx < 0)
        return -1;
    const char *p = row;
    for (int i = 0; i < idx; i++) {
        bool quoted = false;
        while (*p && (quoted || (*p != ',' && *p != '\n'))) {
            if (*p == '"')
                quoted = !quoted;
            p++;
        }
        if (*p != ',')
            return -1;
        p++;
    }
    size_t k = 0;
    bool quoted = false;
    while (*p && (quoted || (*p != ',' && *p != '\n')) && k + 1 < n) {
        if (*p == '"')
            quoted = !quoted;
        else
            buf[k++] = *p;
        p++;
    }
    buf[k] = '\0';
    return 0;
}

const char *th_fixture(const char *rel)
{
    static char path[PATH_MAX];
    const char *dir = getenv("TB_FIXTURES");
    snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", rel);
    return path;
}

int th_build_sysfs(const char *root, const char *fixture, int hwmon_index)
{
    FILE *f = fopen(th_fixture(fixture), "r");
    if (!f)
        return -1;
    char line[2048];
    int files = 0;
    while (fgets(line, sizeof(line), f)) {
        if (line[0] != '/')
            continue;
        char *bar = strstr(line, " | ");
        if (!bar)
            continue;
        *bar = '\0';
        char *content = bar + 3, *bar2 = strstr(content, " | ");
        if (bar2)
            *bar2 = '\0';
        if (strchr(content, '<'))
            continue; /* "<n>": a value the fixture does not know */
        char rel[1024], idx[16];
        snprintf(idx, sizeof(idx), "hwmon%d", hwmon_index);
        /* replace "hwmon<N>" (or "hwmon<M>") with hwmonK */
        const char *p = line;
        size_t k = 0;
        while (*p && k + 16 < sizeof(rel)) {
            if (!strncmp(p, "hwmon<", 6)) {
                k += (size_t)snprintf(rel + k, sizeof(rel) - k, "%s", idx);
                p = strchr(p, '>') + 1;
            } else {
                rel[k++] = *p++;
            }
        }
        rel[k] = '\0';
        char text[256];
        snprintf(text, sizeof(text), "%s\n", content);
        free(th_write(root, rel + 1, text));
        files++;
    }
    fclose(f);
    return files;
}

size_t th_fixture_lines(const char *rel, char ***lines)
{
    FILE *f = fopen(th_fixture(rel), "r");
    *lines = NULL;
    if (!f)
        return 0;
    char buf[8192];
    size_t n = 0;
    while (fgets(buf, sizeof(buf), f)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (!buf[0] || buf[0] == '#')
            continue;
        *lines = realloc(*lines, (n + 1) * sizeof(char *));
        (*lines)[n++] = strdup(buf);
    }
    fclose(f);
    return n;
}

void th_assert_close_(double a, double b, double eps, const char *what, const char *file,
                      int line)
{
    if (!(fabs(a - b) <= eps)) {   /* NaN fails too */
        print_error("%s = %.9g, expected %.9g within %.3g\n", what, a, b, eps);
        _fail(file, line);
    }
}

static int saved_stderr = -1;
static char stderr_path[64];

void th_stderr_begin(void)
{
    fflush(stderr);
    snprintf(stderr_path, sizeof(stderr_path), "/tmp/tb-stderr-XXXXXX");
    int fd = mkstemp(stderr_path);
    assert_true(fd >= 0);
    saved_stderr = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
}

char *th_stderr_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    saved_stderr = -1;
    char *text = slurp(stderr_path);
    unlink(stderr_path);
    return text;
}

/* args is the caller's format with one %s, as the header says */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
char *th_run_log(const char *args, int want_rc, bool want_log, char **out, char **err)
{
    char *dir = th_tmpdir(), *e = NULL;
    size_t n = strlen(args) + strlen(dir) + 1;
    char *full = malloc(n);
    snprintf(full, n, args, dir);
    int rc = th_run(full, out, &e);
    if (rc != want_rc)
        print_error("'%s' exited %d, want %d; stderr:\n%s\n", full, rc, want_rc, e);
    assert_int_equal(rc, want_rc);
    char *log = th_find_one(dir, ".csv.gz"), *text = log ? th_read_gz(log) : NULL;
    if (want_log) {
        assert_non_null(text);
        assert_int_equal(th_count_files(dir), 1);   /* the log alone: no .part left */
    }
    free(log);
    free(full);
    th_rmtree(dir);
    free(dir);
    if (err)
        *err = e;
    else
        free(e);
    return text;
}
#pragma GCC diagnostic pop

/* ---- the per-test fixture ---------------------------------------------------------- */

static char **env_before;            /* "NAME=value" copies, NULL-ended */
static char **scratch_dirs;
static size_t n_scratch;
static void **kept;
static size_t n_kept;
static char *last_out, *last_err;

int th_test_setup(void **state)
{
    size_t n = 0;
    while (environ[n])
        n++;
    env_before = calloc(n + 1, sizeof(*env_before));
    for (size_t i = 0; env_before && i < n; i++)
        env_before[i] = strdup(environ[i]);
    return env_before ? 0 : -1;
}

/* The environment back to env_before: unset what is new or changed, set what was. */
static void env_restore(void)
{
    if (!env_before)
        return;
    clearenv();
    for (size_t i = 0; env_before[i]; i++) {
        char *eq = strchr(env_before[i], '=');
        if (eq) {
            *eq = '\0';
            setenv(env_before[i], eq + 1, 1);
            *eq = '=';
        }
        free(env_before[i]);
    }
    free(env_before);
    env_before = NULL;
}

int th_test_teardown(void **state)
{
    env_restore();
    for (size_t i = 0; i < n_scratch; i++) {
        th_rmtree(scratch_dirs[i]);
        free(scratch_dirs[i]);
    }
    free(scratch_dirs);
    scratch_dirs = NULL;
    n_scratch = 0;
    for (size_t i = 0; i < n_kept; i++)
        free(kept[i]);
    free(kept);
    kept = NULL;
    n_kept = 0;
    last_out = last_err = NULL;
    return 0;
}

void *th_keep(void *p)
{
    void **k = realloc(kept, (n_kept + 1) * sizeof(*k));
    assert_non_null(k);
    kept = k;
    kept[n_kept++] = p;
    return p;
}

const char *th_scratch(void)
{
    char *d = th_tmpdir();
    assert_non_null(d);
    char **s = realloc(scratch_dirs, (n_scratch + 1) * sizeof(*s));
    assert_non_null(s);
    scratch_dirs = s;
    scratch_dirs[n_scratch++] = d;
    return d;
}

int th_runf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *args = malloc((size_t)n + 1);
    assert_non_null(args);
    va_start(ap, fmt);
    vsnprintf(args, (size_t)n + 1, fmt, ap);
    va_end(ap);
    char *out, *err;
    int rc = th_run(args, &out, &err);
    free(args);
    last_out = th_keep(out);
    last_err = th_keep(err);
    return rc;
}

const char *th_out(void) { return last_out ? last_out : ""; }
const char *th_err(void) { return last_err ? last_err : ""; }

void th_orin_super_root(const char *r, int mode)
{
    char p[PATH_MAX], st[32];
    free(th_write(r, "proc/device-tree/model",
                  "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"));
    snprintf(st, sizeof(st), "pmode:%04d\n", mode);
    free(th_write(r, "var/lib/nvpmodel/status", st));
    free(th_write(r, "sys/kernel/debug/.keep", ""));
    snprintf(p, sizeof(p), "%s/etc", r);
    mkdir(p, 0755);
    char *conf = realpath(th_fixture("nvpmodel/orin-nano-super.conf"), NULL);
    assert_non_null(conf);
    snprintf(p, sizeof(p), "%s/etc/nvpmodel.conf", r);
    assert_int_equal(symlink(conf, p), 0);
    free(conf);
}

void th_must_have(const char *text, const char *want)
{
    if (!strstr(text, want))
        th_fail("missing '%s' in:\n%.3000s", want, text);
}

char *th_the_log(const char *dir)
{
    char *p = th_find_one(dir, ".csv.gz");
    assert_non_null(p);
    char *text = th_read_gz(p);
    assert_non_null(text);
    free(p);
    return text;
}

const char *th_fake_cuda_lib(void)
{
    static char lib[2 * PATH_MAX + 64];
    const char *b = getenv("TB_BUILD");
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    if (b && b[0] == '/')
        snprintf(lib, sizeof(lib), "%s/tests/libfake-cuda.so", b);
    else
        snprintf(lib, sizeof(lib), "%s/%s/tests/libfake-cuda.so", cwd, b ? b : "build");
    return lib;
}

void th_use_hooks_binary(void)
{
    const char *b = getenv("TB_BUILD"), *runner = getenv("TB_RUNNER");
    char cwd[PATH_MAX], base[2 * PATH_MAX], bin[3 * PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    b = b ? b : "build";
    if (b[0] == '/')
        snprintf(base, sizeof(base), "%s", b);
    else
        snprintf(base, sizeof(base), "%s/%s", cwd, b);
    snprintf(bin, sizeof(bin), "%s%s%s/tests/transpose-bench-hooks", runner ? runner : "",
             runner ? " " : "", base);
    setenv("TB_BIN", bin, 1);
}

bool th_quick(void)
{
    const char *q = getenv("TB_TEST_QUICK");
    return q && strcmp(q, "1") == 0;
}

void th_use_fake_clock(void)
{
    const char *b = getenv("TB_BUILD"), *tool = getenv("TB_BIN");
    char cwd[PATH_MAX], prefix[PATH_MAX], bin[3 * PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    b = b ? b : "build";
    /* the words before the tool's path (a runner, a timeout) stay in front of the hooks' */
    const char *sp = tool ? strrchr(tool, ' ') : NULL;
    snprintf(prefix, sizeof(prefix), "%.*s", sp ? (int)(sp - tool + 1) : 0, sp ? tool : "");
    snprintf(bin, sizeof(bin), "%s%s%s%s/tests/transpose-bench-hooks", prefix,
             b[0] == '/' ? "" : cwd, b[0] == '/' ? "" : "/", b);
    setenv("TB_BIN", bin, 1);
    setenv("TB_FAKE_CLOCK", "1", 1);
}

static char own_dir[PATH_MAX];
static pid_t own_dir_pid;

static void own_dir_remove(void)
{
    if (own_dir[0] && getpid() == own_dir_pid)   /* a forked child's exit leaves it */
        th_rmtree(own_dir);
}

const char *th_own_dir(void)
{
    if (!own_dir[0]) {
        snprintf(own_dir, sizeof(own_dir), "/tmp/tb-test-own-XXXXXX");
        assert_non_null(mkdtemp(own_dir));
        own_dir_pid = getpid();
        atexit(own_dir_remove);
    }
    return own_dir;
}

static char group_lock[PATH_MAX];

int th_lock_setup(void **state)
{
    snprintf(group_lock, sizeof(group_lock), "%.4000s/lock", th_own_dir());
    setenv("TB_LOCK_FILE", group_lock, 1);
    return 0;
}

int th_lock_teardown(void **state)
{
    unlink(group_lock);
    return 0;
}

const char *th_lock_file(void)
{
    return group_lock;
}

char *th_only_log(const char *dir)
{
    char *p = th_find_one(dir, ".csv.gz");
    assert_non_null(p);
    return p;
}

int th_data_rows(const char *text, const char **header)
{
    int n = 0;
    *header = NULL;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (*p == '#' || *p == '\n')
            continue;
        if (!*header)
            *header = p;
        else
            n++;
    }
    return n;
}

const char *th_row_at(const char *header, int i)
{
    const char *p = strchr(header, '\n') + 1;
    for (int k = 0; k < i; p = strchr(p, '\n') + 1)
        if (*p != '#')
            k++;
    while (*p == '#')
        p = strchr(p, '\n') + 1;
    return p;
}

void th_own_lock(const char *suite)
{
    char lock[PATH_MAX];
    snprintf(lock, sizeof(lock), "%.3000s/%.1000s.lock", th_own_dir(), suite);
    setenv("TB_LOCK_FILE", lock, 1);
}

bool th_have_images(void)
{
    char what[1024] = "";
    return strncmp(tb_backend_cuda.images(what, sizeof(what)), "none", 4) != 0;
}

pid_t th_spawn_tool(const char *args)
{
    const char *bin = getenv("TB_BIN");
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "exec %s %s >/dev/null%s", bin ? bin : "./transpose-bench",
             args, strstr(args, "2>") ? "" : " 2>&1");
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

int th_reap(pid_t pid, int seconds)
{
    int status = 0;
    for (int i = 0; i < seconds * 20; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    th_fail("process %d did not end within %d s", (int)pid, seconds);
    return -1;
}

char *th_wait_part(const char *dir, int rows, double seconds)
{
    for (int i = 0; i < (int)(seconds * 20); i++) {
        char *p = th_find_one(dir, ".part");
        if (p && rows <= 0)
            return p;
        if (p) {
            char *text = th_read_gz(p);
            const char *h;
            if (text && th_data_rows(text, &h) >= rows) {
                free(text);
                return p;
            }
            free(text);
            free(p);
        }
        usleep(50000);
    }
    return NULL;
}
