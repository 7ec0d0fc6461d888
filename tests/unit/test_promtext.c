/*
 * test_promtext.c - unit tests for src/run/promtext.c: samples of the
 * Prometheus text format (comments skipped, labels with escaped quotes and
 * braces, a timestamp after the value, malformed lines counted and
 * skipped, a text without a final newline), and a node_exporter text read
 * into a database host's figures: CPU seconds by mode summed over CPUs,
 * memory, load, pressure, network without lo, the data directory's disk
 * found through node_filesystem_size_bytes' longest mount point, else the
 * device named, else why not; node_uname_info and node_os_info.  Each
 * failure prints both sides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/promtext.h"

#define CHECK_NEAR(what, got, want)                                \
    do {                                                           \
        double g_ = (got), w_ = (want);                            \
        if (fabs(g_ - w_) > 1e-9 * (fabs(w_) + 1))                 \
            fail_msg("%s: got %.12g, want %.12g", (what), g_, w_); \
    } while (0)

#define CHECK_STR(what, got, want)                                          \
    do {                                                                    \
        if (strcmp((got), (want)) != 0)                                     \
            fail_msg("%s: got \"%s\", want \"%s\"", (what), (got), (want)); \
    } while (0)

static void test_samples(void **state)
{
    static const char text[] = "# HELP a_total things\n"
                               "# TYPE a_total counter\n"
                               "a_total 12\n"
                               "\n"
                               "b{x=\"1\",y=\"q\\\"}\\\\ z\"} 2.5e3 1700000000000\n"
                               "this is not a sample\n"
                               "c{unterminated=\"x} 3\n"
                               "d +Inf\n"
                               "e{k=\"v\"} 7";
    const char *p = text, *end = text + strlen(text);
    struct prom_sample s;
    char v[64];
    int bad = 0;

    (void)state;
    assert_int_equal(prom_next(&p, end, &s, &bad), 1);
    assert_true(prom_is(&s, "a_total"));
    CHECK_NEAR("a_total", s.value, 12);
    assert_int_equal(prom_label(&s, "x", v, sizeof(v)), -1);
    assert_int_equal(prom_next(&p, end, &s, &bad), 1);
    assert_true(prom_is(&s, "b"));
    CHECK_NEAR("b", s.value, 2500);
    assert_int_equal(prom_label(&s, "y", v, sizeof(v)), 0);
    CHECK_STR("label y", v, "q\"}\\ z");
    assert_int_equal(prom_label(&s, "x", v, sizeof(v)), 0);
    CHECK_STR("label x", v, "1");
    assert_int_equal(prom_next(&p, end, &s, &bad), 1);
    assert_true(prom_is(&s, "d"));
    assert_true(isinf(s.value));
    assert_int_equal(prom_next(&p, end, &s, &bad), 1);
    assert_true(prom_is(&s, "e"));
    CHECK_NEAR("e", s.value, 7);
    assert_int_equal(prom_next(&p, end, &s, &bad), 0);
    assert_int_equal(bad, 2);
}

static const char node_text[] =
    "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.\n"
    "# TYPE node_cpu_seconds_total counter\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 100\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"iowait\"} 4\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"irq\"} 1\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"nice\"} 2\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"softirq\"} 3\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"steal\"} 0.5\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"system\"} 20\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 40\n"
    "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 110\n"
    "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 30\n"
    "node_cpu_seconds_total{cpu=\"1\",mode=\"system\"} 10\n"
    "node_disk_info{device=\"vda\",major=\"254\",minor=\"0\"} 1\n"
    "node_disk_io_time_seconds_total{device=\"vda\"} 42\n"
    "node_disk_io_time_seconds_total{device=\"vdb\"} 1\n"
    "node_disk_read_bytes_total{device=\"vda\"} 1e6\n"
    "node_disk_read_time_seconds_total{device=\"vda\"} 3\n"
    "node_disk_reads_completed_total{device=\"vda\"} 100\n"
    "node_disk_reads_completed_total{device=\"vdb\"} 5\n"
    "node_disk_write_time_seconds_total{device=\"vda\"} 6\n"
    "node_disk_writes_completed_total{device=\"vda\"} 200\n"
    "node_disk_written_bytes_total{device=\"vda\"} 2e6\n"
    "node_filesystem_size_bytes{device=\"/dev/vdb\",fstype=\"xfs\",mountpoint=\"/srv\"} 1e9\n"
    "node_filesystem_size_bytes{device=\"/dev/vda\",fstype=\"ext4\",mountpoint=\"/\"} 2e9\n"
    "node_filesystem_size_bytes{device=\"/dev/mapper/vg-pg\",fstype=\"ext4\","
    "mountpoint=\"/var/lib/postgresql\"} 3e9\n"
    "node_load1 1.25\n"
    "node_memory_Cached_bytes 3e8\n"
    "node_memory_Dirty_bytes 4096\n"
    "node_memory_MemFree_bytes 1e9\n"
    "node_memory_MemTotal_bytes 8e9\n"
    "node_memory_Writeback_bytes 0\n"
    "node_network_receive_bytes_total{device=\"eth0\"} 1000\n"
    "node_network_receive_bytes_total{device=\"lo\"} 99999\n"
    "node_network_receive_bytes_total{device=\"eth1\"} 500\n"
    "node_network_transmit_bytes_total{device=\"eth0\"} 2000\n"
    "node_network_transmit_bytes_total{device=\"lo\"} 99999\n"
    "node_os_info{id=\"debian\",name=\"Debian GNU/Linux\",pretty_name=\"Debian GNU/Linux 12 "
    "(bookworm)\",version_id=\"12\"} 1\n"
    "node_pressure_io_waiting_seconds_total 28.5\n"
    "node_uname_info{domainname=\"(none)\",machine=\"x86_64\",nodename=\"db1\",release=\"6.1.0-"
    "18-amd64\",sysname=\"Linux\",version=\"#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1\"} 1\n";

static void test_node(void **state)
{
    struct nodex n;

    (void)state;
    nodex_parse(node_text, strlen(node_text), "/srv/pg/16/main", NULL, &n);
    assert_true(n.have_cpu);
    assert_int_equal(n.ncpu, 2);
    CHECK_NEAR("idle", n.cpu[NX_IDLE], 210);
    CHECK_NEAR("user", n.cpu[NX_USER], 70);
    CHECK_NEAR("system", n.cpu[NX_SYSTEM], 30);
    CHECK_NEAR("softirq", n.cpu[NX_SOFTIRQ], 3);
    CHECK_NEAR("MemTotal", n.mem[NX_MEM_TOTAL], 8e9);
    assert_true(n.have_mem[NX_MEM_WRITEBACK]);
    CHECK_NEAR("load1", n.load1, 1.25);
    assert_true(n.have_psi[NX_PSI_IO_WAIT]);
    assert_false(n.have_psi[NX_PSI_CPU_WAIT]);
    CHECK_NEAR("rx without lo", n.net_rx, 1500);
    CHECK_NEAR("tx without lo", n.net_tx, 2000);
    assert_int_equal(n.n_net, 2);
    /* /srv holds the data directory: vdb, which serves no write counters. */
    CHECK_STR("disk", n.disk, "vdb");
    CHECK_STR("mount", n.fs_mountpoint, "/srv");
    CHECK_STR("fstype", n.fs_fstype, "xfs");
    assert_false(n.have_disk);
    /* Under / it is vda, whole. */
    nodex_parse(node_text, strlen(node_text), "/tmp/pg", NULL, &n);
    CHECK_STR("disk", n.disk, "vda");
    assert_true(n.have_disk);
    CHECK_NEAR("reads", n.disk_v[NX_D_READS], 100);
    CHECK_NEAR("written", n.disk_v[NX_D_WRITTEN_BYTES], 2e6);
    CHECK_NEAR("io", n.disk_v[NX_D_IO_S], 42);
    CHECK_STR("from", n.disk_from, "node_filesystem_size_bytes{mountpoint=\"/\"}: /dev/vda");
    CHECK_STR("release", n.uname_release, "6.1.0-18-amd64");
    CHECK_STR("version", n.uname_version, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1");
    CHECK_STR("nodename", n.uname_nodename, "db1");
    CHECK_STR("os", n.os_pretty, "Debian GNU/Linux 12 (bookworm)");
    /* An LVM volume: not a node_disk device; the one named is taken, else why not. */
    nodex_parse(node_text, strlen(node_text), "/var/lib/postgresql/16/main", "vda", &n);
    CHECK_STR("named", n.disk, "vda");
    CHECK_STR("from", n.disk_from, "run.db_host_device");
    nodex_parse(node_text, strlen(node_text), "/var/lib/postgresql/16/main", NULL, &n);
    CHECK_STR("none", n.disk, "");
    assert_non_null(strstr(n.disk_from, "/dev/mapper/vg-pg"));
    assert_non_null(strstr(n.disk_from, "run.db_host_device"));
    nodex_parse(node_text, strlen(node_text), "", NULL, &n);
    assert_non_null(strstr(n.disk_from, "data_directory"));
    /* Garbage is no node_exporter text. */
    nodex_parse("<html>oops</html>\n\x01\x02", 20, "/", NULL, &n);
    assert_false(n.have_cpu);
    assert_int_equal(n.n_samples, 0);
    assert_int_equal(n.n_bad, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_node),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
