/*
 * lingering.h - threads this process left running past their bound (a
 * scrape, a sampler blocked on a server that stopped answering) that may
 * still be inside a library: libpq, libcurl, OpenSSL.  While there are any,
 * the process must end with _exit, so that no library's exit handler frees
 * what such a thread uses (cmd_exit_bound).  Counts only grow.
 */
#ifndef TPCC_CORE_LINGERING_H
#define TPCC_CORE_LINGERING_H

#include <pthread.h>

/* One more thread left running. */
void lingering_add(void);
/* How many were left running so far. */
int lingering_count(void);
/* Join th within wait_ms; past it, detach it and count it (lingering_add).
 * Returns 0 when it was joined, 1 when it was left. */
int lingering_join(pthread_t th, int wait_ms);

#endif
