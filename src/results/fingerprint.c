/*
 * fingerprint.c - the environment fingerprint of a run record (see
 * fingerprint.h): host sysctls, the DBMS's settings through the driver
 * interface, the data directory's filesystem and disk, the config hash.
 *
 * Reads /proc, /sys and the database; never guesses: what it cannot see is
 * "unknown".  It must not print, exit, or hold a secret: server settings
 * that hold one are recorded redacted.
 */
#include "results/fingerprint.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/secret.h"
#include "db/dialect.h"

#define UNKNOWN "unknown"

/*
 * Our statements in schema/<dialect>/admin.sql.  Loaded on their own, so a
 * dialect without them still loads its admin statements; its fingerprint
 * then says why the DBMS part is unknown.
 */
enum fp_stmt { FP_SERVER = 0, FP_SETTINGS, FP_NSTMTS };
static const char *const fp_names[FP_NSTMTS] = { "?fp_server", "?fp_settings" };

/* The sysctls a database tuning study looks at (relative to /proc/sys). */
static const char *const sysctls[] = {
    "vm/dirty_ratio",
    "vm/dirty_background_ratio",
    "vm/dirty_bytes",
    "vm/dirty_background_bytes",
    "vm/dirty_expire_centisecs",
    "vm/dirty_writeback_centisecs",
    "vm/swappiness",
    "vm/overcommit_memory",
    "vm/overcommit_ratio",
    "vm/nr_hugepages",
    "vm/zone_reclaim_mode",
    "kernel/shmmax",
    "kernel/shmall",
    "kernel/sem",
    "kernel/numa_balancing",
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/* Read a small file into buf, whitespace runs folded to one blank, trimmed.
 * 0, or -1 when it cannot be read. */
static int read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    size_t n, o = 0;
    char raw[4096];
    int blank = 0;

    if (!f)
        return -1;
    n = fread(raw, 1, sizeof(raw) - 1, f);
    if (ferror(f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    raw[n] = '\0';
    for (size_t i = 0; i < n && o + 1 < len; i++) {
        if (isspace((unsigned char)raw[i])) {
            blank = o > 0;
            continue;
        }
        if (blank && o + 2 < len)
            buf[o++] = ' ';
        blank = 0;
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    return 0;
}

/* Copy src into out (len bytes), truncating; snprintf would warn for the sysfs names. */
static void copy_str(char *out, size_t len, const char *src)
{
    size_t n = strlen(src);

    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(out, src, n);
    out[n] = '\0';
}

static void set_str(json_t *o, const char *key, const char *val)
{
    json_object_set_new(o, key, json_string(val && val[0] ? val : UNKNOWN));
}

void fingerprint_selected(const char *text, char *out, size_t len)
{
    const char *lb = strchr(text, '['), *rb = lb ? strchr(lb, ']') : NULL;

    if (lb && rb) {
        snprintf(out, len, "%.*s", (int)(rb - lb - 1), lb + 1);
        return;
    }
    while (isspace((unsigned char)*text))
        text++;
    snprintf(out, len, "%s", text);
    for (size_t n = strlen(out); n > 0 && isspace((unsigned char)out[n - 1]); n--)
        out[n - 1] = '\0';
}

/* ------------------------------------------------------------------ */
/* The host                                                            */
/* ------------------------------------------------------------------ */

void fingerprint_host(json_t *env)
{
    json_t *sc = json_object(), *thp = json_object();
    char path[256], val[512], sel[128];

    for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++) {
        char name[64];
        snprintf(path, sizeof(path), "/proc/sys/%s", sysctls[i]);
        snprintf(name, sizeof(name), "%s", sysctls[i]);
        for (char *p = name; *p; p++)
            if (*p == '/')
                *p = '.';
        set_str(sc, name, read_small(path, val, sizeof(val)) == 0 ? val : NULL);
    }
    json_object_set_new(env, "sysctl", sc);
    if (read_small("/sys/kernel/mm/transparent_hugepage/enabled", val, sizeof(val)) == 0) {
        fingerprint_selected(val, sel, sizeof(sel));
        set_str(thp, "enabled", sel);
    } else {
        set_str(thp, "enabled", NULL);
    }
    if (read_small("/sys/kernel/mm/transparent_hugepage/defrag", val, sizeof(val)) == 0) {
        fingerprint_selected(val, sel, sizeof(sel));
        set_str(thp, "defrag", sel);
    } else {
        set_str(thp, "defrag", NULL);
    }
    json_object_set_new(env, "transparent_hugepage", thp);
    set_str(env, "cpu_governor",
            read_small("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", val, sizeof(val)) ==
                    0
                ? val
                : NULL);
    {
        /* PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" */
        FILE *f = fopen("/etc/os-release", "re");
        char line[512];
        val[0] = '\0';
        while (f && fgets(line, sizeof(line), f)) {
            if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
                char *v = line + 12;
                v[strcspn(v, "\n")] = '\0';
                if (*v == '"') {
                    v++;
                    v[strcspn(v, "\"")] = '\0';
                }
                snprintf(val, sizeof(val), "%s", v);
                break;
            }
        }
        if (f)
            fclose(f);
        set_str(env, "os", val);
    }
}

/* ------------------------------------------------------------------ */
/* Config hash                                                         */
/* ------------------------------------------------------------------ */

uint64_t fingerprint_fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(0xcbf29ce484222325);

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

void fingerprint_config_hash(const json_t *config, char *out, size_t len)
{
    json_t *copy = json_deep_copy(config);
    char *text;

    if (!copy) {
        snprintf(out, len, "%s", UNKNOWN);
        return;
    }
    json_object_del(copy, "file");
    json_object_del(copy, "results");
    text =
        json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    json_decref(copy);
    if (!text) {
        snprintf(out, len, "%s", UNKNOWN);
        return;
    }
    snprintf(out, len, "fnv1a64:%016llx",
             (unsigned long long)fingerprint_fnv1a64(text, strlen(text)));
    free(text);
}

/* ------------------------------------------------------------------ */
/* Mounts and disks                                                    */
/* ------------------------------------------------------------------ */

/* Copy the next blank-separated field of *p into out (len); advance *p.  -1 at the end. */
static int next_field(const char **p, char *out, size_t len)
{
    const char *s = *p, *t;

    while (*s == ' ')
        s++;
    if (!*s || *s == '\n')
        return -1;
    for (t = s; *t && *t != ' ' && *t != '\n'; t++)
        ;
    snprintf(out, len, "%.*s", (int)(t - s), s);
    *p = t;
    return 0;
}

/* Undo mountinfo's octal escapes ("\040" is a blank) in place. */
static void unescape_octal(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* Length of mount point mp when it is a whole-component prefix of path, else -1. */
static long prefix_len(const char *mp, const char *path)
{
    size_t n = strlen(mp);

    if (strcmp(mp, "/") == 0)
        return path[0] == '/' ? 1 : -1;
    if (strncmp(mp, path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
        return -1;
    return (long)n;
}

int fingerprint_mount_find(const char *mountinfo, const char *path, struct fp_mount *m)
{
    long best = -1;
    const char *line = mountinfo;

    while (line && *line) {
        const char *p = line, *eol = strchr(line, '\n');
        char f[PATH_MAX], mp[PATH_MAX], opts[512], devno[32];
        struct fp_mount cand;
        long n;
        int ok = 1;

        memset(&cand, 0, sizeof(cand));
        /* id parent major:minor root mount_point options [optional...] - fstype source super */
        ok = next_field(&p, f, sizeof(f)) == 0 && next_field(&p, f, sizeof(f)) == 0 &&
             next_field(&p, devno, sizeof(devno)) == 0 && next_field(&p, f, sizeof(f)) == 0 &&
             next_field(&p, mp, sizeof(mp)) == 0 && next_field(&p, opts, sizeof(opts)) == 0;
        while (ok && (ok = next_field(&p, f, sizeof(f)) == 0) && strcmp(f, "-") != 0)
            ;
        ok = ok && next_field(&p, cand.fstype, sizeof(cand.fstype)) == 0 &&
             next_field(&p, cand.source, sizeof(cand.source)) == 0;
        if (ok && next_field(&p, cand.super_options, sizeof(cand.super_options)) < 0)
            cand.super_options[0] = '\0';
        if (ok && sscanf(devno, "%u:%u", &cand.major, &cand.minor) != 2)
            ok = 0;
        if (ok) {
            unescape_octal(mp);
            unescape_octal(cand.source);
            n = prefix_len(mp, path);
            if (n >= 0 && n >= best) {
                best = n;
                snprintf(cand.mount_point, sizeof(cand.mount_point), "%s", mp);
                snprintf(cand.options, sizeof(cand.options), "%s", opts);
                *m = cand;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return best >= 0 ? 0 : -1;
}

/* Read /proc/self/mountinfo whole (heap; free()), or NULL. */
static char *read_mountinfo(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);

    if (!f || !buf) {
        if (f)
            fclose(f);
        free(buf);
        return NULL;
    }
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (n + 1 < cap)
            break;
        {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Block device name and its whole disk for major:minor, from /sys/dev/block. */
static int block_names(unsigned major, unsigned minor, char *dev, size_t dlen, char *disk,
                       size_t klen)
{
    char link[64], target[PATH_MAX], part[96];
    ssize_t n;
    char *slash;

    snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
    n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0)
        return -1;
    target[n] = '\0';
    slash = strrchr(target, '/');
    copy_str(dev, dlen, slash ? slash + 1 : target);
    copy_str(disk, klen, dev);
    /* A partition: its parent folder in sysfs is the disk (.../block/sda/sda1). */
    snprintf(part, sizeof(part), "%s/partition", link);
    if (access(part, F_OK) == 0 && slash) {
        *slash = '\0';
        slash = strrchr(target, '/');
        copy_str(disk, klen, slash ? slash + 1 : target);
    }
    return 0;
}

/*
 * When no mount of mountinfo covers path (a chroot or container hides the
 * mounts above its root): the filesystem type from statfs, the per-mount
 * flags from statvfs, the device from stat.  The mount point and source stay
 * unknown; mount_options_from says where the options came from.
 */
static int mount_from_stat(const char *path, struct fp_mount *m)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } types[] = {
        { 0xEF53, "ext4" },       { 0x58465342, "xfs" },   { 0x9123683E, "btrfs" },
        { 0x01021994, "tmpfs" },  { 0x794C7630, "overlay" }, { 0x6969, "nfs" },
        { 0x2FC12FC1, "zfs" },    { 0xF2F52010, "f2fs" },  { 0x65735546, "fuse" },
    };
    struct statvfs v;
    struct statfs f;
    struct stat st;
    size_t u = 0;

    memset(m, 0, sizeof(*m));
    if (statvfs(path, &v) < 0 || statfs(path, &f) < 0 || stat(path, &st) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if ((unsigned long)f.f_type == types[i].magic)
            snprintf(m->fstype, sizeof(m->fstype), "%s", types[i].name);
    if (!m->fstype[0])
        snprintf(m->fstype, sizeof(m->fstype), "0x%lx", (unsigned long)f.f_type);
#define OPT(flag, word)                                                                            \
    do {                                                                                           \
        if (v.f_flag & (flag))                                                                     \
            u += (size_t)snprintf(m->options + u, sizeof(m->options) - u, ",%s", word);            \
    } while (0)
    u = (size_t)snprintf(m->options, sizeof(m->options), "%s", v.f_flag & ST_RDONLY ? "ro" : "rw");
    OPT(ST_NOSUID, "nosuid");
    OPT(ST_NODEV, "nodev");
    OPT(ST_NOEXEC, "noexec");
    OPT(ST_SYNCHRONOUS, "sync");
    OPT(ST_NOATIME, "noatime");
    OPT(ST_NODIRATIME, "nodiratime");
    OPT(ST_RELATIME, "relatime");
#undef OPT
    m->major = major(st.st_dev);
    m->minor = minor(st.st_dev);
    return 0;
}

/* Storage's device and fstype into f (when not NULL) as set_str records them. */
static void storage_fact(struct fp_facts *f, const char *device, const char *fstype)
{
    if (!f)
        return;
    snprintf(f->device, sizeof(f->device), "%s", device && device[0] ? device : UNKNOWN);
    snprintf(f->fstype, sizeof(f->fstype), "%s", fstype && fstype[0] ? fstype : UNKNOWN);
}

/* fingerprint_storage, its device and filesystem also into f (may be NULL). */
static json_t *storage_json(const char *dir, struct fp_facts *f)
{
    json_t *s = json_object();
    char real[PATH_MAX], *mi;
    struct fp_mount m;
    char dev[256] = "", disk[256] = "", val[512], path[PATH_MAX + 64];
    unsigned major, minor;

    set_str(s, "data_directory", dir);
    if (!dir || !realpath(dir, real) || !(mi = read_mountinfo())) {
        const char *keys[] = { "mount_point", "fstype", "mount_options", "super_options", "source",
                               "device",      "disk",   "scheduler",     "rotational" };
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            set_str(s, keys[i], NULL);
        storage_fact(f, NULL, NULL);
        return s;
    }
    if (fingerprint_mount_find(mi, real, &m) == 0) {
        set_str(s, "mount_options_from", "mountinfo");
    } else if (mount_from_stat(real, &m) == 0) {
        set_str(s, "mount_options_from", "statvfs (no mount of mountinfo covers it)");
    } else {
        memset(&m, 0, sizeof(m));
        set_str(s, "mount_options_from", NULL);
    }
    free(mi);
    set_str(s, "mount_point", m.mount_point);
    set_str(s, "fstype", m.fstype);
    set_str(s, "mount_options", m.options);
    set_str(s, "super_options", m.super_options);
    set_str(s, "source", m.source);
    major = m.major;
    minor = m.minor;
    /* btrfs and others report an anonymous device number: use the source's. */
    if (major == 0 && strncmp(m.source, "/dev/", 5) == 0) {
        struct stat st;
        if (stat(m.source, &st) == 0 && S_ISBLK(st.st_mode)) {
            major = major(st.st_rdev);
            minor = minor(st.st_rdev);
        }
    }
    if (!m.fstype[0]) {
        set_str(s, "device", NULL);
        set_str(s, "disk", NULL);
        set_str(s, "scheduler", NULL);
        set_str(s, "rotational", NULL);
        storage_fact(f, NULL, m.fstype);
        return s;
    }
    if (major == 0 || block_names(major, minor, dev, sizeof(dev), disk, sizeof(disk)) < 0) {
        /* tmpfs, overlay, nfs: no block device on this machine. */
        set_str(s, "device", "none");
        set_str(s, "disk", "none");
        set_str(s, "scheduler", "n/a");
        set_str(s, "rotational", "n/a");
        storage_fact(f, "none", m.fstype);
        return s;
    }
    set_str(s, "device", dev);
    storage_fact(f, dev, m.fstype);
    set_str(s, "disk", disk);
    snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", disk);
    if (read_small(path, val, sizeof(val)) == 0) {
        char sel[128];
        fingerprint_selected(val, sel, sizeof(sel));
        set_str(s, "scheduler", sel);
    } else {
        set_str(s, "scheduler", NULL);
    }
    snprintf(path, sizeof(path), "/sys/block/%s/queue/rotational", disk);
    set_str(s, "rotational", read_small(path, val, sizeof(val)) == 0 ? val : NULL);
    return s;
}

/* ------------------------------------------------------------------ */
/* The DBMS                                                            */
/* ------------------------------------------------------------------ */

/* Text of column col of the current row, or NULL when NULL. */
static const char *col(struct db_conn *c, int i)
{
    int len;

    return db_col_isnull(c, i) ? NULL : db_col_text(c, i, &len);
}

/*
 * A server setting as the record shows it.  Some hold secrets: a standby's
 * primary_conninfo may carry password=..., restore_command a PGPASSWORD=...,
 * and settings named like ssl_passphrase_command or wsrep_sst_auth are one.
 * The latter are masked whole, the others redacted (core/secret.h), and our
 * own password is scrubbed from all.
 */
static void setting_value(const char *name, const char *val, const char *password, char *out,
                          size_t len)
{
    if (val && *val && secret_setting_name(name)) {
        snprintf(out, len, "%s", SECRET_MASK);
        return;
    }
    snprintf(out, len, "%s", val ? val : "");
    secret_clean(out, len, password);
}

/* 1 when address a (inet_server_addr()) is this machine's loopback. */
static int is_loopback(const char *a)
{
    return strncmp(a, "127.", 4) == 0 || strncmp(a, "::1", 3) == 0 ||
           strncmp(a, "::ffff:127.", 11) == 0;
}

json_t *fingerprint_storage(const char *dir)
{
    return storage_json(dir, NULL);
}

/* The storage object of a server whose storage we cannot see. */
static json_t *storage_unknown(const char *datadir, struct fp_facts *f)
{
    json_t *s = storage_json(NULL, f);

    set_str(s, "data_directory", datadir);
    return s;
}

/* What the dialect cannot ask (dbms.unavailable: fact -> why) and what the
 * driver found out about the DBMS at connect (dbms.capabilities). */
static void dbms_unavailable(json_t *dbms, const struct dialect *ad, const struct db_conn *c)
{
    json_t *un = json_object();
    const struct db_caps *k = &c->caps;

    if (!ad->sql[FP_SERVER])
        json_object_set_new(un, "server", json_string(ad->absent[FP_SERVER]));
    if (!ad->sql[FP_SETTINGS])
        json_object_set_new(un, "settings", json_string(ad->absent[FP_SETTINGS]));
    if (json_object_size(un))
        json_object_set_new(dbms, "unavailable", un);
    else
        json_decref(un);
    if (!k->known)
        return;
    json_object_set_new(
        dbms, "capabilities",
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s}", "source", k->source,
                  "transactions", k->transactions, "isolation_levels", k->isolation,
                  "default_isolation", k->default_isolation, "load_path", k->load_path,
                  "load_path_why", k->load_why, "max_identifier_len",
                  (json_int_t)k->max_identifier_len, "catalog", k->catalog));
}

void fingerprint_dbms(json_t *env, const struct db_ops *ops, const struct db_connect_args *a,
                      const char *dialect, struct fp_facts *out)
{
    json_t *dbms = json_object(), *settings = json_object(), *sources = json_object();
    char datadir[PATH_MAX] = "", via[128] = "", version_full[512] = "", cwd_dir[PATH_MAX] = "";
    long pid = 0;
    struct dialect ad;
    struct db_conn *c = NULL;
    struct err e;
    int rc, local = -1; /* 1 local, 0 remote, -1 unknown */

    err_clear(&e);
    memset(&ad, 0, sizeof(ad));
    if ((rc = db_connect(ops, NULL, a, &c, &e)) == 0 &&
        (rc = dialect_load(&ad, dialect, "admin", fp_names, FP_NSTMTS, &e)) < 0)
        err_prefix(&e, "no fingerprint statements for dialect '%s'", dialect);
    if (rc == 0)
        dbms_unavailable(dbms, &ad, c);
    if (rc == 0 && ad.sql[FP_SERVER] && (rc = db_query(c, ad.sql[FP_SERVER], NULL, 0, &e)) == 0) {
        if (db_next(c)) {
            const char *addr = col(c, 0), *v = col(c, 2), *dd = col(c, 3), *p = col(c, 1);
            snprintf(via, sizeof(via), "%s", addr ? addr : "unix socket");
            snprintf(version_full, sizeof(version_full), "%s", v ? v : "");
            snprintf(datadir, sizeof(datadir), "%s", dd ? dd : "");
            pid = p ? strtol(p, NULL, 10) : 0;
            while (db_next(c))
                ;
        }
    }
    if (rc == 0 && ad.sql[FP_SETTINGS] && (rc = db_query(c, ad.sql[FP_SETTINGS], NULL, 0, &e)) == 0) {
        while (db_next(c)) {
            const char *name = col(c, 0), *val = col(c, 1), *src = col(c, 2);
            char shown[2048];
            if (!name)
                continue;
            setting_value(name, val, a ? a->password : NULL, shown, sizeof(shown));
            json_object_set_new(settings, name, json_string(shown));
            json_object_set_new(sources, name, json_string(src ? src : UNKNOWN));
        }
    }
    set_str(dbms, "name", c ? c->server_name : NULL);
    set_str(dbms, "version", c ? c->server_version : NULL);
    set_str(dbms, "version_full", version_full);
    set_str(dbms, "connection", via);

    /*
     * Local: reached over a Unix socket or the loopback, and its data
     * directory is a folder here.  When /proc shows the backend that serves
     * us, its working directory is the data directory: it must agree (and it
     * tells the data directory to users who may not read the setting).
     */
    if (via[0] && (strcmp(via, "unix socket") == 0 || is_loopback(via))) {
        char link[64];
        ssize_t n;
        snprintf(link, sizeof(link), "/proc/%ld/cwd", pid);
        if (pid > 0 && (n = readlink(link, cwd_dir, sizeof(cwd_dir) - 1)) > 0)
            cwd_dir[n] = '\0';
        else
            cwd_dir[0] = '\0';
        if (datadir[0]) {
            struct stat st;
            char r1[PATH_MAX], r2[PATH_MAX];
            local = stat(datadir, &st) == 0 && S_ISDIR(st.st_mode);
            if (local && cwd_dir[0] && realpath(datadir, r1) && realpath(cwd_dir, r2) &&
                strcmp(r1, r2) != 0)
                local = 0; /* a different server answers on this address */
        } else if (cwd_dir[0]) {
            snprintf(datadir, sizeof(datadir), "%s", cwd_dir);
            local = 1;
        }
    } else if (via[0]) {
        local = 0;
    }
    if (local < 0)
        json_object_set_new(dbms, "local", json_string(UNKNOWN));
    else
        json_object_set_new(dbms, "local", json_boolean(local));
    json_object_set_new(dbms, "settings", settings);
    json_object_set_new(dbms, "settings_source", sources);
    if (rc < 0)
        json_object_set_new(dbms, "error", json_string(e.msg));
    json_object_set_new(env, "dbms", dbms);
    json_object_set_new(env, "storage", local == 1 ? storage_json(datadir, out)
                                                   : storage_unknown(datadir, out));
    if (out) {
        snprintf(out->datadir, sizeof(out->datadir), "%s", datadir[0] ? datadir : UNKNOWN);
        snprintf(out->connection, sizeof(out->connection), "%s", via[0] ? via : UNKNOWN);
        out->local = local;
    }
    if (c)
        db_close(c);
    dialect_release(&ad);
}
