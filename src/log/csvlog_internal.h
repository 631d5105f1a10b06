/* csvlog_internal.h: what csvlog.c (writing a log) and recover.c (a dead run's log made
 * whole) share. Private to src/log/. */
#ifndef TB_CSVLOG_INTERNAL_H
#define TB_CSVLOG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* ".RUNID.csv.gz.PID.part": the run_id and pid of a run's temporary file. */
bool tb_csvlog_part_parse(const char *name, char *run_id, size_t n, long *pid);
/* Syncs a directory, so that a name given or removed in it survives a power cut. */
void tb_csvlog_sync_dir(const char *dir);

#endif
