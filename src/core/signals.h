/*
 * signals.h - Ctrl-C and SIGTERM as a flag the long-running work polls.
 *
 * The first SIGINT/SIGTERM sets the flag: work stops at the next safe point
 * and still writes a valid record marked "interrupted".  A second one exits
 * at once (files are only ever renamed into place, so none is half-written),
 * shutting down the private server first when we started one.
 * SIGPIPE is ignored.
 */
#ifndef TPCC_SIGNALS_H
#define TPCC_SIGNALS_H

void sig_install(void);
/* 0, or the signal number that asked us to stop. */
int sig_stop_requested(void);
/* Exit code for the stop signal: 130 for SIGINT, 143 for SIGTERM. */
int sig_exit_code(void);
/* The pid of a server we started and must shut down (fast) if a second
 * signal makes us exit at once; 0 when there is none. */
void sig_set_server_pid(long pid);
/* An eventfd (or -1: none) the stop signal also rings, so a thread asleep
 * on it wakes at once rather than at its next look at the flag.  It must
 * stay open from then on: the handler may write to it at any time. */
void sig_set_wake_fd(int fd);
/* Tests: request a stop as if signalled. */
void sig_request_stop(int signo);

#endif
