/*
 * signals.h - Ctrl-C and SIGTERM as a flag the long-running work polls.
 *
 * The first SIGINT/SIGTERM sets the flag: work stops at the next safe point
 * and still writes a valid record marked "interrupted".  A second one exits
 * at once (files are only ever renamed into place, so none is half-written).
 * SIGPIPE is ignored.
 */
#ifndef TPCC_SIGNALS_H
#define TPCC_SIGNALS_H

void sig_install(void);
/* 0, or the signal number that asked us to stop. */
int sig_stop_requested(void);
/* Exit code for the stop signal: 130 for SIGINT, 143 for SIGTERM. */
int sig_exit_code(void);
/* Tests: request a stop as if signalled. */
void sig_request_stop(int signo);

#endif
