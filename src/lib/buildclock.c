/* buildclock.c: see buildclock.h. The build's date is its commit's, so a clock before it is
 * wrong for sure (a build is never run before its commit); a clock after it may still be
 * wrong, which no check of ours can know. */
#include "lib/buildclock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "lib/version.h"

/* s as a UTC date, with its time of day when whole. */
static void utc(long long s, bool whole, char *buf, size_t n)
{
    time_t t = (time_t)s;
    struct tm tm;
    if (!gmtime_r(&t, &tm) ||
        !(whole ? strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) : strftime(buf, n, "%Y-%m-%d", &tm)))
        snprintf(buf, n, "%lld s", s);
}

bool tb_build_clock_note(long long now_s, long long build_s, char *buf, size_t n)
{
    if (build_s <= 0 || now_s >= build_s - 86400)
        return false;
    char built[32], floor[32], now[32];
    utc(build_s, false, built, sizeof(built));
    utc(build_s - 86400, false, floor, sizeof(floor));   /* the night is no older than this */
    utc(now_s, true, now, sizeof(now));
    snprintf(buf, n, "before_build %s: the clock said %s at the start, more than a day "
             "before this tool was built (%s): a reset clock (no RTC battery, no network time "
             "yet?); the log's name and times are wrong, and history leaves this night out "
             "and says so", floor, now, built);
    warning("the host's clock says %s, more than a day before this tool was built (%s): a "
            "reset clock? the log's name and times will be wrong (set the clock: timedatectl, "
            "or an NTP server); the night goes on", now, built);
    return true;
}

bool tb_build_clock_floor(const char *value, char *night, size_t n)
{
    int y, m, d, used = 0;
    if (n < 11 || strncmp(value, "before_build ", 13) ||
        sscanf(value + 13, "%4d-%2d-%2d%n", &y, &m, &d, &used) != 3 || used != 10)
        return false;
    snprintf(night, n, "%04d-%02d-%02d", y, m, d);
    return true;
}

bool tb_build_clock_now(char *buf, size_t n)
{
    return tb_build_clock_note((long long)time(NULL), tb_build_epoch, buf, n);
}
