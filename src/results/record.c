/*
 * record.c - run.json pieces and atomic file writes.  Never holds a secret:
 * passwords are not in struct config, and connection strings are redacted.
 */
#include "results/record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/proc.h"
#include "core/secret.h"
#include "results/fingerprint.h"

#ifndef TPCC_VERSION
# define TPCC_VERSION "0.1.0"
#endif
#ifndef TPCC_GIT_COMMIT
# define TPCC_GIT_COMMIT "unknown"
#endif

static int mkdir_p(const char *path, struct err *e)
{
    char tmp[PATH_MAX], eb[128];
    size_t n = strlen(path);

    if (n == 0 || n >= sizeof(tmp))
        return err_set(e, E_USAGE, "results directory path '%s' is empty or too long", path);
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return err_set(e, E_USAGE, "cannot create directory '%s': %s", tmp,
                           err_errno(errno, eb, sizeof(eb)));
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return err_set(e, E_USAGE, "cannot create directory '%s': %s", tmp,
                       err_errno(errno, eb, sizeof(eb)));
    return 0;
}

int record_make_dir(const char *results_dir, const char *label, char *out, size_t len,
                    struct err *e)
{
    char stamp[32], safe[64], eb[128];
    size_t k = 0;
    int rc;

    if ((rc = mkdir_p(results_dir, e)) < 0)
        return rc;
    for (const char *p = label; *p && k + 1 < sizeof(safe); p++)
        safe[k++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                                   (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'
                               ? *p
                               : '_');
    safe[k] = '\0';
    clock_format(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", (int64_t)time(NULL));
    for (int n = 1; n < 100; n++) {
        if (n == 1)
            snprintf(out, len, "%s/%s-%s", results_dir, stamp, k ? safe : "run");
        else
            snprintf(out, len, "%s/%s-%s-%d", results_dir, stamp, k ? safe : "run", n);
        if (mkdir(out, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            return err_set(e, E_USAGE, "cannot create run directory '%s': %s", out,
                           err_errno(errno, eb, sizeof(eb)));
    }
    return err_set(e, E_FAIL, "too many runs named '%s' this second", out);
}

int record_write_file(const char *dir, const char *name, const char *data, size_t len,
                      struct err *e)
{
    char path[PATH_MAX], tmp[PATH_MAX], eb[128];
    size_t off = 0;
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp.%ld", dir, name, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_set(e, E_FAIL, "cannot write '%s': %s", tmp, err_errno(errno, eb, sizeof(eb)));
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int saved = errno;
            close(fd);
            unlink(tmp);
            return err_set(e, E_FAIL, "cannot write '%s': %s", tmp,
                           err_errno(saved, eb, sizeof(eb)));
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return err_set(e, E_FAIL, "cannot write '%s': %s", tmp, err_errno(errno, eb, sizeof(eb)));
    }
    if (rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return err_set(e, E_FAIL, "cannot rename '%s' to '%s': %s", tmp, path,
                       err_errno(saved, eb, sizeof(eb)));
    }
    /* Make the rename itself durable. */
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
    return 0;
}

int record_write_json(const char *dir, const char *name, json_t *doc, struct err *e)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    int rc;

    if (!text)
        return err_set(e, E_FAIL, "cannot serialise %s", name);
    rc = record_write_file(dir, name, text, strlen(text), e);
    free(text);
    return rc;
}

json_t *record_tool(void)
{
    return json_pack("{s:s, s:s, s:s, s:i}", "name", "tpccbench", "version", TPCC_VERSION,
                     "commit", TPCC_GIT_COMMIT, "record_version", RECORD_VERSION);
}

void record_redact_conninfo(const char *in, char *out, size_t len)
{
    secret_redact(in, out, len);
}

/* The connection strings of the config as the record shows them: any
 * password redacted, and the configured one (the value of password_env)
 * scrubbed too, wherever it stands - libpq and ODBC accept strings the
 * redaction cannot parse, such as the password typed without its key. */
static void record_conn_string(const struct config *c, const char *in, char *out, size_t len)
{
    const char *pw = c->database.password_env[0] ? getenv(c->database.password_env) : NULL;

    secret_redact(in, out, len);
    secret_scrub(out, pw);
}

json_t *record_config(const struct config *c)
{
    char conninfo[CFG_STR * 2], dsn[CFG_STR * 2];
    json_t *mix = json_object(), *cfg;

    record_conn_string(c, c->database.conninfo, conninfo, sizeof(conninfo));
    record_conn_string(c, c->database.dsn, dsn, sizeof(dsn));
    for (int t = 0; t < TX_NTYPES; t++)
        json_object_set_new(mix, tx_name((enum tx_type)t), json_integer(c->run.mix[t]));
    cfg = json_pack(
        "{s:s, s:{s:s, s:b, s:s, s:s, s:s, s:s}, s:{s:i}, s:{s:i, s:I}, "
        "s:{s:i, s:f, s:f, s:f, s:o, s:b, s:i, s:i, s:s, s:s}, s:{s:s}}",
        "file", c->path,
        "database", "driver", c->database.driver, "managed", c->database.managed, "conninfo",
        conninfo, "dsn", dsn, "password_env", c->database.password_env, "datadir",
        c->database.datadir,
        "schema", "warehouses", c->schema.warehouses,
        "load", "jobs", c->load.jobs, "seed", (json_int_t)c->load.seed,
        "run", "virtual_users", c->run.virtual_users, "rampup_s", (double)c->run.rampup_us / 1e6,
        "warmup_s", (double)c->run.warmup_us / 1e6, "duration_s",
        (double)c->run.duration_us / 1e6, "mix", mix, "think_time", c->run.think_time,
        "max_retries", c->run.max_retries, "delivery_workers", c->run.delivery_workers,
        "delivery", c->run.delivery_inline ? "inline" : "deferred", "isolation",
        c->run.isolation,
        "results", "dir", c->results.dir);
    if (!cfg)
        return NULL;
    /* A pooler only when the user named one: "" means not said. */
    json_object_set_new(json_object_get(cfg, "database"), "pooler",
                        c->database.pooler[0] ? json_string(c->database.pooler) : json_null());
    json_object_set_new(json_object_get(cfg, "run"), "statements",
                        json_string(run_statements_name(c->run.statements)));
    /* The database host's node_exporter (no credentials: config refuses them) and
     * the name of the variable with its token (never the token). */
    json_object_set_new(json_object_get(cfg, "run"), "db_host_metrics",
                        json_string(c->run.db_host_metrics));
    json_object_set_new(json_object_get(cfg, "run"), "db_host_metrics_auth_env",
                        json_string(c->run.db_host_metrics_auth_env));
    json_object_set_new(json_object_get(cfg, "run"), "db_host_device",
                        json_string(c->run.db_host_device));
    /* Whether the run sampled metrics: compare says so where a record has none. */
    json_object_set_new(json_object_get(cfg, "run"), "metrics", json_boolean(c->run.metrics));
    return cfg;
}

/* First line of a file that starts with key (e.g. "model name"), value after ':'. */
static int read_field(const char *path, const char *key, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t k = strlen(key);

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, k) == 0) {
            char *v = strchr(line, ':');
            if (!v)
                continue;
            v++;
            while (*v == ' ' || *v == '\t')
                v++;
            v[strcspn(v, "\n")] = '\0';
            snprintf(out, len, "%s", v);
            fclose(f);
            return 0;
        }
    }
    fclose(f);
    return -1;
}

json_t *record_environment(void)
{
    struct utsname u;
    char cpu[256] = "unknown", mem[64] = "unknown", host[256] = "unknown";
    json_t *env = json_object();

    if (uname(&u) == 0) {
        json_object_set_new(env, "kernel", json_string(u.release));
        json_object_set_new(env, "machine", json_string(u.machine));
    }
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    json_object_set_new(env, "hostname", json_string(host));
    read_field("/proc/cpuinfo", "model name", cpu, sizeof(cpu));
    json_object_set_new(env, "cpu_model", json_string(cpu));
    json_object_set_new(env, "cpu_count", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    if (read_field("/proc/meminfo", "MemTotal", mem, sizeof(mem)) == 0)
        json_object_set_new(env, "memory_kb", json_integer(strtoll(mem, NULL, 10)));
    fingerprint_host(env);
    return env;
}

json_t *record_process(void)
{
    struct proc_id me;
    char host[256] = "";

    proc_self(&me);
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    return json_pack("{s:I, s:I, s:s, s:s}", "pid", (json_int_t)getpid(), "start_ticks",
                     (json_int_t)me.start_ticks, "boot_id", me.boot_id, "hostname", host);
}

int record_liveness(const json_t *rec, char *why, size_t len)
{
    const char *status = json_string_value(json_object_get(rec, "status"));
    json_t *p = json_object_get(rec, "process");
    const char *boot = json_string_value(json_object_get(p, "boot_id"));
    const char *host = json_string_value(json_object_get(p, "hostname"));
    const char *found = json_string_value(json_object_get(json_object_get(rec, "crashed"), "why"));
    char here[256] = "", scratch[8];
    struct proc_id who;

    if (!why) {
        why = scratch;
        len = sizeof(scratch);
    }
    if (status && strcmp(status, "crashed") == 0) {
        snprintf(why, len, "crashed (%s)", found ? found : "its command died");
        return RECORD_CRASHED;
    }
    if (!status || strcmp(status, "running") != 0) {
        snprintf(why, len, "%s", status ? status : "");
        return RECORD_ENDED;
    }
    memset(&who, 0, sizeof(who));
    who.pid = (long)json_integer_value(json_object_get(p, "pid"));
    if (who.pid <= 0) {
        snprintf(why, len, "running (no pid recorded: it crashed, or still runs)");
        return RECORD_UNKNOWN;
    }
    gethostname(here, sizeof(here) - 1);
    if (host && host[0] && strcmp(host, here) != 0) {
        snprintf(why, len, "running (pid %ld on host %s: cannot tell from here)", who.pid, host);
        return RECORD_UNKNOWN;
    }
    who.start_ticks = (unsigned long long)json_integer_value(json_object_get(p, "start_ticks"));
    snprintf(who.boot_id, sizeof(who.boot_id), "%s", boot ? boot : "");
    switch (proc_judge(&who)) {
    case PROC_ALIVE:
        snprintf(why, len, "running (pid %ld)", who.pid);
        return RECORD_RUNNING;
    case PROC_OTHER_BOOT:
        snprintf(why, len, "crashed (pid %ld, before the last boot)", who.pid);
        return RECORD_CRASHED;
    default:
        snprintf(why, len, "crashed (pid %ld gone)", who.pid);
        return RECORD_CRASHED;
    }
}

int record_says_running(const char *path)
{
    char head[4097];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    n = read(fd, head, sizeof(head) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    head[n] = '\0';
    return strstr(head, "\"status\": \"running\"") != NULL;
}
