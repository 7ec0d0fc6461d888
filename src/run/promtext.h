/*
 * promtext.h - the Prometheus text exposition format (what node_exporter
 * serves on /metrics) read as samples, and the figures of a database host
 * taken from one node_exporter text: CPU seconds by mode, memory, load,
 * pressure, network totals, the counters of the disk that holds the data
 * directory, and the host's identity (node_uname_info, node_os_info).
 *
 * Pure functions of the text (tested on sample text in
 * tests/unit/test_promtext.c): nothing here allocates, prints, touches the
 * network or keeps a pointer.  A line that does not parse is counted and
 * skipped, never guessed at; a text without node_cpu_seconds_total is no
 * node_exporter text, which the caller says.
 */
#ifndef TPCC_PROMTEXT_H
#define TPCC_PROMTEXT_H

#include <stddef.h>

/* One sample line: name{labels} value [timestamp].  name and labels point
 * into the text (not NUL-terminated); labels is "" (len 0) without braces. */
struct prom_sample {
    const char *name;
    size_t name_len;
    const char *labels; /* between the braces */
    size_t labels_len;
    double value;
};

/*
 * The next sample of the text from *p to end; *p moves past it.  Comments
 * (# HELP, # TYPE) and blank lines are skipped; a malformed line is skipped
 * and counted in *bad.  1 with s filled, 0 at the end.
 */
int prom_next(const char **p, const char *end, struct prom_sample *s, int *bad);

/* Whether the sample's name is exactly name. */
int prom_is(const struct prom_sample *s, const char *name);

/* The value of label key (escapes \\ \" \n undone) into out (cap bytes,
 * cut): 0, or -1 when the sample has no such label. */
int prom_label(const struct prom_sample *s, const char *key, char *out, size_t cap);

/* node_cpu_seconds_total's modes, summed over CPUs. */
enum { NX_USER, NX_NICE, NX_SYSTEM, NX_IRQ, NX_SOFTIRQ, NX_IOWAIT, NX_STEAL, NX_IDLE, NX_NMODES };
/* node_memory_*_bytes read. */
enum { NX_MEM_FREE, NX_MEM_CACHED, NX_MEM_DIRTY, NX_MEM_WRITEBACK, NX_MEM_TOTAL, NX_NMEM };
/* node_pressure_*_seconds_total. */
enum {
    NX_PSI_CPU_WAIT,
    NX_PSI_IO_WAIT,
    NX_PSI_IO_STALL,
    NX_PSI_MEM_WAIT,
    NX_PSI_MEM_STALL,
    NX_NPSI
};
/* node_disk_*_total of the data disk. */
enum {
    NX_D_READS,
    NX_D_READ_BYTES,
    NX_D_READ_S,
    NX_D_WRITES,
    NX_D_WRITTEN_BYTES,
    NX_D_WRITE_S,
    NX_D_IO_S,
    NX_NDISK
};

#define NX_MAX_DISKS 64

/* What one node_exporter text says (each have_*: served in this text). */
struct nodex {
    double cpu[NX_NMODES]; /* seconds, all CPUs */
    int have_cpu;          /* every mode but irq/softirq/steal/nice may be missing */
    int ncpu;              /* CPUs with an idle series */
    double mem[NX_NMEM];   /* bytes */
    int have_mem[NX_NMEM];
    double load1;
    int have_load1;
    double psi[NX_NPSI]; /* seconds */
    int have_psi[NX_NPSI];
    double net_rx, net_tx; /* bytes, every interface but lo */
    int n_net;             /* interfaces summed */
    /* The filesystem that holds the data directory (longest mount point). */
    char fs_mountpoint[256], fs_device[256], fs_fstype[64];
    /* The data disk: its node_disk_* device, how it was chosen, its counters. */
    char disk[64];
    char disk_from[320]; /* "node_filesystem_size_bytes{mountpoint=\"/\"}: /dev/vda", or why none */
    double disk_v[NX_NDISK];
    int have_disk;
    int n_disks;        /* devices in node_disk_reads_completed_total */
    char scheduler[64]; /* of the data disk, "" where not served */
    char uname_release[128], uname_version[192], uname_machine[64], uname_nodename[128];
    char uname_sysname[64];
    char os_pretty[128], os_id[64], os_version_id[64];
    int n_samples, n_bad; /* sample lines read, lines that did not parse */
};

/*
 * Read one node_exporter text (len bytes, need not be NUL-terminated) into
 * out.  data_dir: the server's data_directory ("" or NULL: unknown);
 * device: the data disk named by the user (run.db_host_device), used when
 * the data directory's filesystem does not name a device of node_disk_*.
 */
void nodex_parse(const char *text, size_t len, const char *data_dir, const char *device,
                 struct nodex *out);

#endif
