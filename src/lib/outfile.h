/* outfile.h: the one rule for every file the tool writes that is not a log: tune's sweep
 * (--out), compare's and history's page (--html) and plot (--plot). Such a file never
 * replaces an input, a log, another output of the same command, or anything that is not a
 * regular file (a device such as /dev/null, a FIFO, a directory, a socket); it is written to
 * our own O_EXCL | O_NOFOLLOW temporary beside it and renamed into place, so a link left at
 * the name is replaced, its target never written. Not here: logs (src/log/csvlog.c: never
 * replaced at all), `list --images` (link(2): never replaces anything), the mode state file. */
#ifndef TB_OUTFILE_H
#define TB_OUTFILE_H

#include <stddef.h>

/* Checks the outputs outs[0..nout) (NULL entries skipped) of command who against the rule
 * and against the inputs it reads (logs, sweep and board files; NULL entries skipped), before
 * anything is read or measured. Returns 0, or -1 after an error naming the output and why
 * (the caller's exit 2): an empty name, a name with a control character (a newline, as
 * -o refuses), a name ending .csv.gz, .csv, .gz or .part, one of the
 * inputs (by name or by inode), two outputs naming one file, an existing file that is not a
 * regular file or a link, an existing file that starts like a log. */
int tb_outfile_check(const char *who, const char *const *outs, size_t nout,
                     const char *const *inputs, size_t nin);

/* Our own new temporary beside path (path.XXXXXX.part, six random letters: no name another
 * user could plant beforehand), made with O_CREAT | O_EXCL (never through a link), mode 0644
 * less the umask; tmp receives its name. Returns the descriptor, or -1 with errno. */
int tb_outfile_tmp(const char *path, char *tmp, size_t tmp_n);

/* Puts our temporary in place: the rule checked again at the last moment (what is at path
 * now may have changed since tb_outfile_check), then rename(2). On any failure the
 * temporary is removed. Returns 0, or -1 after an error naming the output. */
int tb_outfile_commit(const char *who, const char *tmp, const char *path);

#endif
