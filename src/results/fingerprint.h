/*
 * fingerprint.h - the environment fingerprint of a run record: what the
 * database and the machine looked like, so that `compare` can name what
 * changed between two runs.
 *
 * Three parts, all added to run.json's "environment":
 *  - the host (this machine): sysctls, transparent huge pages, CPU governor,
 *    OS release (kernel, CPU and memory come from record_environment());
 *  - the DBMS, read through the driver interface (fp_server and fp_settings
 *    of schema/<dialect>/admin.sql): name, version, every setting not at its
 *    default plus a fixed list of key ones, how we reached it, and whether
 *    it is local;
 *  - the storage of its data directory, only when the server is local:
 *    mount point, filesystem type, mount options, block device, scheduler,
 *    rotational flag.  A remote server's storage is recorded as "unknown".
 * And a hash of the redacted config (fingerprint_config_hash).
 *
 * Never records a secret: the config it hashes is the redacted one, server
 * settings are redacted (primary_conninfo's password, settings named like
 * *_passphrase_command or *_auth masked whole), and the connection's own
 * password is scrubbed from them.  Nothing here
 * prints or exits; what cannot be read is recorded as "unknown".
 */
#ifndef TPCC_FINGERPRINT_H
#define TPCC_FINGERPRINT_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

/* Add the host part (sysctl, transparent_hugepage, cpu_governor, os) to env. */
void fingerprint_host(json_t *env);

/* What fingerprint_dbms found that a command needs later, as C values (the
 * same as env's, "unknown" where that says so). */
struct fp_facts {
    char datadir[PATH_MAX];  /* storage.data_directory */
    char device[256];        /* storage.device: "none" (no block device), "unknown" */
    char fstype[64];         /* storage.fstype */
    char connection[128];    /* dbms.connection: "unix socket" or the server's address */
    int local;               /* dbms.local: 1, 0, -1 unknown */
};

/*
 * Connect with ops and a, read the DBMS part with the statements of dialect
 * ("postgresql") and add env.dbms and env.storage; the same facts into out
 * (may be NULL).  Never fails: a failure (also a dialect without the
 * statements) is recorded as env.dbms.error and what could not be read is
 * "unknown".
 */
void fingerprint_dbms(json_t *env, const struct db_ops *ops, const struct db_connect_args *a,
                      const char *dialect, struct fp_facts *out);

/* FNV-1a 64-bit hash of len bytes. */
uint64_t fingerprint_fnv1a64(const void *data, size_t len);

/*
 * "fnv1a64:<16 hex digits>" of the canonical JSON of config: compact, keys
 * sorted, reals with 17 significant digits, without the keys "file" and
 * "results" (where the config came from and where records go do not change
 * what is measured).  config is not modified.
 */
void fingerprint_config_hash(const json_t *config, char *out, size_t len);

/* One line of /proc/self/mountinfo. */
struct fp_mount {
    char mount_point[PATH_MAX]; /* unescaped ("\040" -> " ") */
    char fstype[64];            /* "ext4", "xfs", "tmpfs" */
    char options[512];          /* per-mount options: "rw,noatime" */
    char super_options[512];    /* filesystem options: "rw,discard" */
    char source[PATH_MAX];      /* "/dev/sda1", "tmpfs", ... */
    unsigned major, minor;      /* st_dev of the filesystem */
};

/*
 * Find in mountinfo (the text of /proc/self/mountinfo) the mount whose mount
 * point is the longest prefix of path (whole components; a later line wins
 * over an earlier one at the same point, as it mounts over it).  0 and *m
 * filled, or -1 when no line matches or the text is malformed.
 */
int fingerprint_mount_find(const char *mountinfo, const char *path, struct fp_mount *m);

/* The selected word of a sysfs choice list ("none [mq-deadline] kyber" ->
 * "mq-deadline"); the text itself, trimmed, when it has no brackets. */
void fingerprint_selected(const char *text, char *out, size_t len);

/*
 * The storage object for directory dir on this machine: data_directory,
 * mount_point, fstype, mount_options, super_options, source, device, disk,
 * scheduler, rotational.  Items that cannot be read are "unknown"; a
 * filesystem without a block device (tmpfs, overlay) has device "none".
 */
json_t *fingerprint_storage(const char *dir);

#endif
