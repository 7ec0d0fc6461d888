/*
 * proc.h - is a process that wrote something still the same process, alive?
 *
 * A pid alone names a process only while it lives: the kernel reuses it.  A
 * pid with its start time (clock ticks after boot, /proc/PID/stat field 22)
 * and the boot id (/proc/sys/kernel/random/boot_id) names one process for
 * ever, so a file that records the three (the private server's owner file,
 * a run record) can later be judged: that process still runs, or it is gone.
 * Linux only (/proc); nothing here prints or exits.
 */
#ifndef TPCC_PROC_H
#define TPCC_PROC_H

#include <stddef.h>

#define PROC_BOOT_ID_LEN 40 /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its NUL fit */

/* Who a process is: pid, start time and boot. */
struct proc_id {
    long pid;                       /* > 0 */
    unsigned long long start_ticks; /* /proc/PID/stat field 22; 0 = unknown */
    char boot_id[PROC_BOOT_ID_LEN]; /* "" = unknown */
};

/* What became of a process a file named. */
enum proc_state {
    PROC_ALIVE = 0,      /* it runs (same pid, same start time, this boot) */
    PROC_GONE = 1,       /* no such process now, or the pid is another one's */
    PROC_OTHER_BOOT = 2, /* it ran before the machine's last boot */
};

/* This process: 0, or -1 when /proc cannot say (start_ticks 0, boot_id ""). */
int proc_self(struct proc_id *out);

/* Fill out for pid; -1 when it does not run. */
int proc_lookup(long pid, struct proc_id *out);

/* The machine's boot id into buf ("" when unknown). */
void proc_boot_id(char *buf, size_t len);

/*
 * Judge who: alive, gone or from another boot.  Unknown parts (start_ticks 0,
 * boot_id "") are not compared, so an old file with a pid only is judged by
 * the pid alone.
 */
enum proc_state proc_judge(const struct proc_id *who);

/*
 * What pid runs, for messages: the base name of its program and its first
 * argument ("tpccbench run"), from /proc/PID/cmdline; "" when it cannot be
 * read.  No later argument is shown (a path, a label: nothing a message needs).
 */
void proc_command(long pid, char *buf, size_t len);

#endif
