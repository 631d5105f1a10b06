/* stopsig.c: see stopsig.h. A list, so that no signal that would end a mode sweep with the
 * board changed and no end line is left out (SIGQUIT and SIGUSR1 once were). */
#include "lib/stopsig.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>

void tb_stopsig_install(void (*handler)(int))
{
    static const int sigs[] = {
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
        SIGXCPU, SIGIO,
#ifdef SIGPWR
        SIGPWR,
#endif
#ifdef SIGSTKFLT
        SIGSTKFLT,
#endif
    };
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        sigaction(s, &sa, NULL);
}
