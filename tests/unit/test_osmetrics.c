/*
 * test_osmetrics.c - unit tests for the /proc parsers and rates of
 * src/run/osmetrics.c, on sample text as Linux writes it: CPU shares sum to
 * 100 and follow the tick deltas; meminfo's four fields; a device's line in
 * diskstats (a partition whose name starts like its disk's, a device that
 * is not there); disk rates (MB/s, await, utilisation); /proc/net/dev's
 * headers are skipped; /proc/self/stat with blanks and ')' in the command
 * name.  Each failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/osmetrics.h"

#define CHECK_U64(what, got, want)                                                          \
    do {                                                                                    \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
        if (g_ != w_)                                                                       \
            fail_msg("%s: got %llu, want %llu", (what), g_, w_);                            \
    } while (0)

#define CHECK_NEAR(what, got, want)                                \
    do {                                                           \
        double g_ = (got), w_ = (want);                            \
        if (fabs(g_ - w_) > 1e-9 * (fabs(w_) + 1))                 \
            fail_msg("%s: got %.12g, want %.12g", (what), g_, w_); \
    } while (0)

static const char stat_a[] = "cpu  1000 50 300 8000 100 10 40 0 0 0\n"
                             "cpu0 500 25 150 4000 50 5 20 0 0 0\n"
                             "cpu1 500 25 150 4000 50 5 20 0 0 0\n"
                             "intr 12345 0 0\n"
                             "ctxt 987654\n"
                             "btime 1700000000\n"
                             "processes 4242\n"
                             "procs_running 3\n"
                             "procs_blocked 1\n";

static const char stat_b[] = "cpu  1300 100 400 8400 150 20 60 20 0 0\n"
                             "ctxt 997654\n"
                             "procs_running 5\n";

static void test_stat(void **state)
{
    struct osm_cpu a, b;
    struct osm_cpu_pct p;

    (void)state;
    assert_int_equal(osm_parse_stat(stat_a, &a), 0);
    CHECK_U64("user", a.user, 1000);
    CHECK_U64("nice", a.nice, 50);
    CHECK_U64("idle", a.idle, 8000);
    CHECK_U64("steal", a.steal, 0);
    CHECK_U64("ctxt", a.ctxt, 987654);
    CHECK_U64("procs_running", a.procs_running, 3);
    assert_int_equal(osm_parse_stat(stat_b, &b), 0);
    CHECK_U64("steal b", b.steal, 20);
    /* Deltas: user 300+50, system 100+10+20, iowait 50, steal 20, idle 400: 950 ticks. */
    osm_cpu_shares(&a, &b, &p);
    CHECK_NEAR("user %", p.user, 100.0 * 350 / 950);
    CHECK_NEAR("system %", p.system, 100.0 * 130 / 950);
    CHECK_NEAR("iowait %", p.iowait, 100.0 * 50 / 950);
    CHECK_NEAR("steal %", p.steal, 100.0 * 20 / 950);
    CHECK_NEAR("idle %", p.idle, 100.0 * 400 / 950);
    CHECK_NEAR("sum", p.user + p.system + p.iowait + p.steal + p.idle, 100.0);
    /* No tick between the samples: all zero, never a division by zero. */
    osm_cpu_shares(&a, &a, &p);
    CHECK_NEAR("idle of nothing", p.idle, 0);
    /* "cpu0" alone is not the "cpu" line. */
    assert_int_equal(osm_parse_stat("cpu0 1 2 3 4\n", &a), -1);
    assert_int_equal(osm_parse_stat("", &a), -1);
}

static const char meminfo[] = "MemTotal:        8000000 kB\n"
                              "MemFree:          123456 kB\n"
                              "MemAvailable:     500000 kB\n"
                              "Buffers:           10000 kB\n"
                              "Cached:           654321 kB\n"
                              "SwapCached:            7 kB\n"
                              "Dirty:               808 kB\n"
                              "Writeback:            12 kB\n"
                              "WritebackTmp:         99 kB\n";

static void test_meminfo(void **state)
{
    struct osm_mem m;

    (void)state;
    assert_int_equal(osm_parse_meminfo(meminfo, &m), 0);
    CHECK_U64("free", m.free_kb, 123456);
    CHECK_U64("cached (not SwapCached)", m.cached_kb, 654321);
    CHECK_U64("dirty", m.dirty_kb, 808);
    CHECK_U64("writeback (not WritebackTmp)", m.writeback_kb, 12);
    assert_int_equal(osm_parse_meminfo("MemFree: 1 kB\nCached: 2 kB\n", &m), -1);
}

static const char diskstats[] =
    "   7       0 loop0 1668 0 95912 176 6196 0 24592 2163 0 2136 4224 0 0 0 0 3124 1884\n"
    "   8       0 sda 100 5 8000 300 200 10 16000 900 2 1500 1200 0 0 0 0\n"
    "   8       1 sda1 90 5 7000 280 190 10 15000 850 0 1400 1130 0 0 0 0\n"
    " 254       0 vda 178426 17264 9411746 140524 2308758 342733 227956632 1818829 0 436456 "
    "2342141 382100 66 149793872 143589 837518 239198\n";

static void test_diskstats(void **state)
{
    struct osm_disk a, b;
    struct osm_disk_rate r;

    (void)state;
    assert_int_equal(osm_parse_diskstats(diskstats, "sda", &a), 0);
    CHECK_U64("sda reads", a.reads, 100);
    CHECK_U64("sda sectors read", a.sectors_read, 8000);
    CHECK_U64("sda read ms", a.read_ms, 300);
    CHECK_U64("sda writes", a.writes, 200);
    CHECK_U64("sda sectors written", a.sectors_written, 16000);
    CHECK_U64("sda write ms", a.write_ms, 900);
    CHECK_U64("sda io ms", a.io_ms, 1500);
    assert_int_equal(osm_parse_diskstats(diskstats, "sda1", &b), 0);
    CHECK_U64("sda1 reads", b.reads, 90);
    assert_int_equal(osm_parse_diskstats(diskstats, "vda", &b), 0);
    CHECK_U64("vda writes", b.writes, 2308758);
    CHECK_U64("vda io ms", b.io_ms, 436456);
    assert_int_equal(osm_parse_diskstats(diskstats, "sdb", &b), -1);
    assert_int_equal(osm_parse_diskstats(diskstats, "sd", &b), -1);
    assert_int_equal(osm_parse_diskstats(diskstats, "", &b), -1);

    /* Half a second later: 10 reads, 40 writes, 2048 + 20480 sectors, 100 ms of waits, 250 ms busy.
     */
    b = a;
    b.reads += 10;
    b.writes += 40;
    b.sectors_read += 2048;
    b.sectors_written += 20480;
    b.read_ms += 20;
    b.write_ms += 80;
    b.io_ms += 250;
    osm_disk_rates(&a, &b, 0.5, &r);
    CHECK_NEAR("reads/s", r.reads_per_s, 20);
    CHECK_NEAR("writes/s", r.writes_per_s, 80);
    CHECK_NEAR("read MB/s", r.read_mb_per_s, 2048 * 512.0 / 1e6 / 0.5);
    CHECK_NEAR("write MB/s", r.write_mb_per_s, 20480 * 512.0 / 1e6 / 0.5);
    CHECK_NEAR("await ms", r.await_ms, 100.0 / 50);
    CHECK_NEAR("util %", r.util_pct, 50);
    /* No I/O: await 0, not NaN. */
    osm_disk_rates(&a, &a, 1, &r);
    CHECK_NEAR("await of nothing", r.await_ms, 0);
}

static const char netdev[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo: 28087974407 17209200    0    0    0     0          0         0 28087974407 "
    "17209200    0    0    0     0       0          0\n"
    "  eth0:  5000 10 0 0 0 0 0 0  7000 11 0 0 0 0 0 0\n";

static void test_netdev(void **state)
{
    struct osm_net n[4];

    (void)state;
    assert_int_equal(osm_parse_netdev(netdev, n, 4), 2);
    assert_string_equal(n[0].name, "lo");
    CHECK_U64("lo rx", n[0].rx_bytes, UINT64_C(28087974407));
    assert_string_equal(n[1].name, "eth0");
    CHECK_U64("eth0 rx", n[1].rx_bytes, 5000);
    CHECK_U64("eth0 tx", n[1].tx_bytes, 7000);
    assert_int_equal(osm_netdev_find(netdev, "eth0", &n[2]), 0);
    CHECK_U64("found tx", n[2].tx_bytes, 7000);
    assert_int_equal(osm_netdev_find(netdev, "eth1", &n[2]), -1);
    assert_int_equal(osm_parse_netdev(netdev, n, 1), 1);
}

static void test_self(void **state)
{
    struct osm_self s;
    char buf[4096];

    (void)state;
    memset(&s, 0, sizeof(s));
    assert_int_equal(osm_parse_self_stat("4242 (a (b) c) S 1 4242 4242 0 -1 4194304 104 0 0 0 "
                                         "731 42 0 0 20 0 1 0 280904 2998272 414\n",
                                         &s),
                     0);
    CHECK_U64("utime", s.utime, 731);
    CHECK_U64("stime", s.stime, 42);
    assert_int_equal(osm_parse_self_stat("4242 (x) S 1 2\n", &s), -1);
    assert_int_equal(
        osm_parse_self_status("Name:\tx\nVmPeak:\t 9999 kB\nVmRSS:\t    5120 kB\n", &s), 0);
    CHECK_U64("rss", s.rss_kb, 5120);
    assert_int_equal(osm_parse_self_status("Name:\tx\n", &s), -1);
    /* The real files parse too. */
    assert_true(osm_read_file("/proc/self/stat", buf, sizeof(buf)) > 0);
    assert_int_equal(osm_parse_self_stat(buf, &s), 0);
    assert_true(osm_read_file("/proc/self/status", buf, sizeof(buf)) > 0);
    assert_int_equal(osm_parse_self_status(buf, &s), 0);
    assert_true(s.rss_kb > 0);
    assert_int_equal(osm_read_file("/proc/self/no-such-file", buf, sizeof(buf)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat),      cmocka_unit_test(test_meminfo),
        cmocka_unit_test(test_diskstats), cmocka_unit_test(test_netdev),
        cmocka_unit_test(test_self),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
