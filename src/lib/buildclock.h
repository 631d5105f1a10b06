/* buildclock.h: a host clock before this build's date (lib/version.h's tb_build_epoch): a
 * reset clock (a board without an RTC battery, no network time yet) stamps a night 2017 or
 * January, its log named and dated so, and history would leave the newest nights out in
 * silence (#58). Said on stderr and as the log's `# clock:` line, whose value starts with
 * "before_build YYYY-MM-DD", the date the night cannot be older than (logread.c reads it).
 * Not here: what history makes of such nights (report/history.c). */
#ifndef TB_BUILDCLOCK_H
#define TB_BUILDCLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* When now_s (seconds since 1970 UTC) is more than a day before build_s (0: unknown, never
 * before; the day's margin: a clock a few hours slow, or a build committed in another time
 * zone's evening, still dates the night right or nearly): the `# clock:` value into buf (n
 * bytes), a warning on stderr, and true; else false. */
bool tb_build_clock_note(long long now_s, long long build_s, char *buf, size_t n);
/* The same for the clock now and this build (tb_build_epoch). */
bool tb_build_clock_now(char *buf, size_t n);

/* The night a `# clock:` value says the run cannot be older than ("YYYY-MM-DD" into night,
 * 11 bytes at least); false when the value does not start so. */
bool tb_build_clock_floor(const char *value, char *night, size_t n);

#endif
