/*
 * osmetrics.h - what the machine did, from /proc text: CPU shares, run queue
 * and context switches (/proc/stat), memory (/proc/meminfo), one block
 * device (/proc/diskstats), network interfaces (/proc/net/dev) and this
 * process's own CPU time and RSS (/proc/self/stat, /proc/self/status).
 *
 * The parsers are pure functions of the text (tested on sample text in
 * tests/unit/test_osmetrics.c); the rates are pure functions of two samples.
 * osm_read_file() is the only function here that touches the file system.
 * Nothing here prints, allocates or keeps a pointer.
 */
#ifndef TPCC_OSMETRICS_H
#define TPCC_OSMETRICS_H

#include <stddef.h>
#include <stdint.h>

/* The "cpu" line of /proc/stat, in clock ticks, and two system counters. */
struct osm_cpu {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
    uint64_t ctxt;          /* context switches since boot */
    uint64_t procs_running; /* runnable tasks now (the run queue) */
};

/* CPU shares of an interval, percent of all CPUs; they sum to 100. */
struct osm_cpu_pct {
    double user;   /* user + nice (guest time is inside user) */
    double system; /* system + irq + softirq */
    double iowait;
    double steal;
    double idle;
};

/* /proc/meminfo, in kB as the kernel gives it. */
struct osm_mem {
    uint64_t free_kb, cached_kb, dirty_kb, writeback_kb;
};

/* One line of /proc/diskstats. */
struct osm_disk {
    uint64_t reads, sectors_read, read_ms;      /* completed reads, 512-byte sectors, ms */
    uint64_t writes, sectors_written, write_ms; /* completed writes, ... */
    uint64_t io_ms;                             /* ms with I/O in flight */
};

/* Rates of a device over an interval. */
struct osm_disk_rate {
    double reads_per_s, writes_per_s;
    double read_mb_per_s, write_mb_per_s; /* MB = 10^6 bytes */
    double await_ms;                      /* mean time per completed I/O; 0 with none */
    double util_pct;                      /* share of the interval with I/O in flight */
};

/* One interface of /proc/net/dev. */
struct osm_net {
    char name[32];
    uint64_t rx_bytes, tx_bytes;
};

/* This process, from /proc/self/stat (ticks) and /proc/self/status (kB). */
struct osm_self {
    uint64_t utime, stime;
    uint64_t rss_kb;
};

/* Parse /proc/stat: 0, or -1 when the "cpu" line is missing or short. */
int osm_parse_stat(const char *text, struct osm_cpu *out);
/* Shares of b - a (b later); all zero when no tick passed. */
void osm_cpu_shares(const struct osm_cpu *a, const struct osm_cpu *b, struct osm_cpu_pct *out);

/* Parse /proc/meminfo: 0, or -1 when one of the four fields is missing. */
int osm_parse_meminfo(const char *text, struct osm_mem *out);

/* The line of device dev ("vda", "sda1", "nvme0n1") in /proc/diskstats:
 * 0, or -1 when dev is not there (a device that disappeared). */
int osm_parse_diskstats(const char *text, const char *dev, struct osm_disk *out);
/* Rates of b - a over interval_s seconds. */
void osm_disk_rates(const struct osm_disk *a, const struct osm_disk *b, double interval_s,
                    struct osm_disk_rate *out);

/* Interfaces of /proc/net/dev into out (at most cap): how many were read. */
int osm_parse_netdev(const char *text, struct osm_net *out, int cap);
/* The interface named name in text: 0, or -1 when it is not there. */
int osm_netdev_find(const char *text, const char *name, struct osm_net *out);

/* Parse /proc/self/stat (utime, stime; the command name may hold blanks
 * and parentheses) and /proc/self/status (VmRSS): 0 or -1. */
int osm_parse_self_stat(const char *text, struct osm_self *out);
int osm_parse_self_status(const char *text, struct osm_self *out);

/* Read a whole /proc or /sys file into buf (NUL-terminated, at most cap - 1
 * bytes): its length, or -1. */
long osm_read_file(const char *path, char *buf, size_t cap);

#endif
