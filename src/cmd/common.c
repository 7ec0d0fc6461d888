/*
 * common.c - option parsing, usage text and database sessions shared by the
 * subcommands.
 *
 * cmd_parse turns a command's table of struct cmd_opt (plus -c/--config,
 * -h/--help and the shared database options) into one getopt_long table
 * (core/opt.h) and applies what it finds to struct config.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/lingering.h"
#include "core/opt.h"
#include "core/secret.h"
#include "core/signals.h"
#include "db/dialect.h"
#include "run/metrics.h"
#include "run/mserve.h"
#include "run/scrape.h"
#include "results/runrec.h"

const struct cmd_opt cmd_db_opts[] = {
    { "driver", 0, 1, "database.driver",
      "driver: postgres (libpq), odbc (unixODBC) or null (testing)" },
    { "conninfo", 0, 1, "database.conninfo", "libpq connection string (no password in it)" },
    { "managed", 0, 1, "database.managed",
      "true: start a private PostgreSQL (the default when no conninfo or dsn is given)" },
    { "datadir", 0, 1, "database.datadir", "managed: cluster directory (default RESULTS/pgdata)" },
    { "keep-server", 0, 0, NULL,
      "managed: leave the server running at the end ('tpccbench server stop' ends it)" },
    { "warehouses", 'w', 1, "schema.warehouses", "number of warehouses" },
    { "results-dir", 0, 1, "results.dir", "where run records go (default results)" },
    { "label", 0, 1, "results.label", "label of this run's record" },
    { "change", 0, 1, "results.change", "what changed since the previous run (a note)" },
    { NULL, 0, 0, NULL, NULL },
};

const char *cmd_extra(const struct cmd_args *a, const char *name)
{
    const char *v = NULL;

    for (int i = 0; i < a->nextra; i++)
        if (strcmp(a->extra_name[i], name) == 0)
            v = a->extra_val[i]; /* the last one wins */
    return v;
}

/*
 * One getopt table for a command: -c/--config and -h/--help, then the
 * database options every command shares, then the command's own (a name in
 * both is the shared one's).  src[i] is the cmd_opt behind entry i (NULL for
 * the first two).
 */
enum { CMD_OPT_CONFIG, CMD_OPT_HELP, CMD_OPT_FIRST };

static int cmd_table(const char *cmd, const struct cmd_opt *opts, struct opt_spec *specs,
                     const struct cmd_opt **src, struct err *e)
{
    int n = CMD_OPT_FIRST;

    specs[CMD_OPT_CONFIG] = (struct opt_spec){ "config", 'c', 1, "a file name" };
    specs[CMD_OPT_HELP] = (struct opt_spec){ "help", 'h', 0, NULL };
    src[CMD_OPT_CONFIG] = src[CMD_OPT_HELP] = NULL;
    for (int pass = 0; pass < 2; pass++)
        for (const struct cmd_opt *o = pass == 0 ? cmd_db_opts : opts; o && o->name; o++) {
            if (n == OPT_MAX)
                return err_set(e, E_FAIL, "%s: more than %d options", cmd, OPT_MAX);
            specs[n] = (struct opt_spec){ o->name, o->short_name, o->has_arg, NULL };
            src[n++] = o;
        }
    return n;
}

int cmd_parse(const char *cmd, int argc, char **argv, const struct cmd_opt *opts,
              struct config *cfg, struct cmd_args *a, struct err *e)
{
    /* Overrides are applied after the file, in command-line order. */
    const struct cmd_opt *ov_opt[64];
    const char *ov_val[64];
    struct opt_spec specs[OPT_MAX];
    const struct cmd_opt *src[OPT_MAX];
    struct opt_parser p;
    int nov = 0, nspecs, rc, found, i;
    const char *val;

    memset(a, 0, sizeof(*a));
    cfg_defaults(cfg);
    if ((nspecs = cmd_table(cmd, opts, specs, src, e)) < 0 ||
        (rc = opt_init(&p, cmd, specs, nspecs, argc, argv, e)) < 0)
        return nspecs < 0 ? nspecs : rc;
    while ((found = opt_next(&p, &i, &val, e)) > 0) {
        const struct cmd_opt *o = found == OPT_OPTION ? src[i] : NULL;

        if (found == OPT_ARG) {
            if (a->npos >= CMD_MAX_POS) {
                found = err_set(e, E_USAGE, "too many arguments");
                break;
            }
            a->pos[a->npos++] = val;
        } else if (i == CMD_OPT_HELP) {
            a->help = 1;
            opt_release(&p);
            return 0;
        } else if (i == CMD_OPT_CONFIG) {
            if (!val[0]) {
                found = err_set(e, E_USAGE, "option '--config' needs a file name");
                break;
            }
            a->config_path = val;
        } else if (o->cfg_key) {
            if (nov >= 64) {
                found = err_set(e, E_USAGE, "too many options");
                break;
            }
            ov_opt[nov] = o;
            ov_val[nov++] = val;
        } else {
            if (a->nextra >= CMD_MAX_EXTRA) {
                found = err_set(e, E_USAGE, "too many options");
                break;
            }
            a->extra_name[a->nextra] = o->name;
            a->extra_val[a->nextra++] = val ? val : "";
        }
    }
    opt_release(&p);
    if (found < 0)
        return found;
    if (a->config_path && (rc = cfg_load(cfg, a->config_path, e)) < 0)
        return rc;
    for (int k = 0; k < nov; k++) {
        char origin[80];
        snprintf(origin, sizeof(origin), "--%s", ov_opt[k]->name);
        if ((rc = cfg_set(cfg, ov_opt[k]->cfg_key, ov_val[k] ? ov_val[k] : "true", origin, e)) < 0)
            return rc;
    }
    if (cmd_extra(a, "keep-server"))
        cfg->database.keep_server = 1;
    return cfg_validate(cfg, e);
}

int cmd_part(const struct config *cfg, struct cmd_args *a, struct err *e)
{
    struct part_given g = {
        .k = cfg->run.part_k,
        .n = cfg->run.part_n,
        .where = cfg->where.part[0] ? cfg->where.part : NULL,
        .parts = cfg->run.parts,
        .parts_where = cfg->where.parts[0] ? cfg->where.parts : NULL,
    };
    int rc;

    if ((rc = part_detect(&g, part_getenv, NULL, &a->part, e)) < 0)
        return rc;
    a->part_set = 1;
    if (a->part.n > 1 &&
        (rc = part_run_id(cfg->run.run_id, "run.run_id", cfg->results.label, part_getenv, NULL,
                          a->run_id, sizeof(a->run_id), a->run_id_source,
                          sizeof(a->run_id_source), e)) < 0)
        return rc;
    return 0;
}

int cmd_part_not_yet(const struct cmd_args *a, const char *what, struct err *e)
{
    if (a->part.n > 1)
        return err_set(e, E_NOTYET,
                       "this is part %d/%d (from %s), but scale-out %s are not built yet: run "
                       "one process (no --part, or --part 1/1)",
                       a->part.k, a->part.n, a->part.source, what);
    return 0;
}

json_t *cmd_part_json(const struct cmd_args *a)
{
    if (!a->part_set)
        return NULL;
    return json_pack("{s:i, s:i, s:s}", "k", a->part.k, "n", a->part.n, "source", a->part.source);
}

void cmd_usage(FILE *out, const char *cmd, const char *synopsis, const char *about,
               const struct cmd_opt *opts)
{
    fprintf(out, "usage: tpccbench %s %s\n\n%s\n\noptions:\n", cmd, synopsis, about);
    fprintf(out,
            "  -c, --config FILE      YAML config (default: a private PostgreSQL, 1 warehouse)\n");
    for (int pass = 0; pass < 2; pass++) {
        const struct cmd_opt *list = pass == 0 ? opts : cmd_db_opts;
        for (const struct cmd_opt *o = list; list && o->name; o++) {
            char left[48];
            if (o->short_name)
                snprintf(left, sizeof(left), "-%c, --%s%s", o->short_name, o->name,
                         o->has_arg ? " X" : "");
            else
                snprintf(left, sizeof(left), "    --%s%s", o->name, o->has_arg ? " X" : "");
            fprintf(out, "  %-22s %s\n", left, o->help);
        }
    }
    fprintf(out, "  -h, --help             this text\n");
}

int cmd_fail(const char *cmd, const struct err *e)
{
    int code = e->code == E_INTR && sig_stop_requested() ? sig_exit_code() : err_exit_code(e->code);

    fprintf(stderr, "tpccbench %s: %s\n", cmd, e->msg[0] ? e->msg : "failed");
    return code;
}

static int session_dialect(struct session *s, struct err *e);

static void *stop_watch_main(void *arg)
{
    struct stop_watch *w = arg;

    while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
        if (sig_stop_requested()) {
            db_cancel(w->c);
            break;
        }
        clock_sleep_us(50000);
    }
    return NULL;
}

void stop_watch_start(struct stop_watch *w, struct db_conn *c)
{
    w->c = c;
    w->done = 0;
    w->started = pthread_create(&w->thread, NULL, stop_watch_main, w) == 0;
}

void stop_watch_end(struct stop_watch *w)
{
    if (!w->started)
        return;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    pthread_join(w->thread, NULL);
    w->started = 0;
}

/*
 * Once this process holds a password (ours, and libpq's and the ODBC
 * driver's copies for as long as a connection is open), a core file or a
 * same-user process reading our memory (gdb -p, /proc/PID/mem, and
 * /proc/PID/environ, where the variable itself sits) would expose it.  Not
 * dumpable: no core file, and only root may attach.  The flag is per
 * process and does not survive execve, so the servers managed.c starts are
 * unaffected.  What it costs - gdb -p and perf -p as the same non-root user -
 * is paid only by runs that read a password.  A failure changes nothing
 * else, so it is ignored.
 */
static void no_core_dumps(void)
{
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/*
 * The first line of every command that talks to a database: which one.  For
 * the private server it comes after the start, with where the server
 * listens as it says itself (m: SHOW listen_addresses, port) and how this
 * command came by it.
 */
static int session_announce(const struct config *cfg, const struct managed_pg *m, struct err *e)
{
    char target[1200];
    int rc;

    if (m) {
        const char *dir = cfg->database.datadir[0] ? cfg->database.datadir : cfg->results.dir;
        const char *sub = cfg->database.datadir[0] ? "" : "/pgdata";
        char tcp[300] = "";
        if (m->listen[0])
            snprintf(tcp, sizeof(tcp), " (and on %s:%d)", m->listen, m->listen_port);
        fprintf(stderr, "private PostgreSQL in %s%s%s%s\n", dir, sub, tcp,
                m->how == MANAGED_ADOPTED ? " (left running by a command that ended without "
                                            "stopping it: adopted)"
                                          : "");
        return 0;
    }
    if ((rc = db_describe_target(cfg->database.driver, cfg->database.conninfo, cfg->database.dsn,
                                 target, sizeof(target), e)) < 0)
        return rc;
    fprintf(stderr, "%s\n", target);
    return 0;
}

int session_open(struct session *s, const struct config *cfg, struct err *e)
{
    int rc;

    memset(s, 0, sizeof(*s));
    s->cfg = cfg;
    s->ops = db_find(cfg->database.driver);
    if (!s->ops)
        return err_set(e, E_USAGE, "unknown driver '%s' (known: %s)", cfg->database.driver,
                       db_driver_names());
    if (cfg->database.password_env[0]) {
        const char *pw = getenv(cfg->database.password_env);
        if (!pw)
            return err_set(e, E_USAGE,
                           "environment variable '%s' (database.password_env) is not set: "
                           "export it with the database password",
                           cfg->database.password_env);
        if (strlen(pw) >= sizeof(s->password))
            return err_set(e, E_USAGE, "the password in '%s' is too long",
                           cfg->database.password_env);
        snprintf(s->password, sizeof(s->password), "%s", pw);
        s->args.password = s->password;
        if (*pw)
            no_core_dumps();
    }
    if (cfg->database.managed && strcmp(cfg->database.driver, "postgres") == 0) {
        char datadir[PATH_MAX];
        if (cfg->database.datadir[0])
            snprintf(datadir, sizeof(datadir), "%s", cfg->database.datadir);
        else
            snprintf(datadir, sizeof(datadir), "%s/pgdata", cfg->results.dir);
        if ((rc = managed_start(&s->mpg, datadir, cfg->database.port, cfg->database.password_env,
                                e)) < 0)
            return rc;
        s->managed = 1;
        managed_conninfo(&s->mpg, s->conninfo, sizeof(s->conninfo));
        session_announce(cfg, &s->mpg, e);
    } else {
        /* libpq quotes a word it cannot parse back: it may be the password. */
        if ((rc = session_announce(cfg, NULL, e)) < 0) {
            secret_clean(e->msg, sizeof(e->msg), s->password);
            return rc;
        }
        snprintf(s->conninfo, sizeof(s->conninfo), "%s", cfg->database.conninfo);
    }
    s->args.conninfo = s->conninfo;
    s->args.dsn = cfg->database.dsn;
    s->args.app_name = "tpccbench";
    s->args.null_service_us = cfg->database.null_service_us;
    s->args.statements =
        cfg->run.statements == RUN_STMT_UNNAMED ? DB_STMT_UNNAMED : DB_STMT_PREPARED;
    return session_dialect(s, e);
}

/* Which schema/<dialect>/ to use: the config's schema.dialect, else what the
 * DBMS calls itself (ODBC: SQLGetInfo(SQL_DBMS_NAME)). */
static int session_dialect(struct session *s, struct err *e)
{
    struct db_conn *c = NULL;
    int rc;

    if (s->cfg->schema.dialect[0]) {
        snprintf(s->dialect, sizeof(s->dialect), "%.31s", s->cfg->schema.dialect);
        return 0;
    }
    if (s->ops != &db_odbc_ops) {
        snprintf(s->dialect, sizeof(s->dialect), "postgresql");
        return 0;
    }
    if ((rc = db_connect(s->ops, NULL, &s->args, &c, e)) < 0)
        return rc;
    rc = dialect_for_dbms(c->server_name, s->dialect, sizeof(s->dialect));
    if (rc > 0)
        fprintf(stderr,
                "ODBC: unknown DBMS '%s': using the generic ANSI dialect "
                "(set schema.dialect to choose)\n",
                c->server_name);
    else
        fprintf(stderr, "ODBC: %s %s, SQL dialect %s\n", c->server_name, c->server_version,
                s->dialect);
    db_close(c);
    return 0;
}

void session_close(struct session *s)
{
    struct err e;

    if (s->managed && s->mpg.started && !s->cfg->database.keep_server) {
        if (managed_stop(&s->mpg, &e) < 0)
            fprintf(stderr, "tpccbench: stopping the private PostgreSQL: %s\n", e.msg);
        else
            fprintf(stderr, "stopped private PostgreSQL\n");
    } else if (s->managed && s->mpg.started) {
        /* The owner file says "kept": no later command adopts and stops it. */
        if (managed_keep(&s->mpg, &e) < 0)
            fprintf(stderr, "tpccbench: marking the private PostgreSQL kept: %s\n", e.msg);
        fprintf(stderr, "private PostgreSQL left running: %s\n", s->conninfo);
    }
    /* Wipe the password from memory (libpq and the ODBC driver manager keep
     * their own copies until their connections are closed). */
    secret_wipe(s->password, sizeof(s->password));
    s->managed = 0;
}

/* The sampler of one run or load (see cmd.h): the data directory's device
 * from the record's environment (the fingerprint found it), a baseline
 * through a connection of its own (the metrics keep it). */
#define NOT_VISIBLE "not visible (remote)"

int cmd_db_host_check(const struct config *cfg, struct err *e)
{
    const char *env = cfg->run.db_host_metrics_auth_env, *tok;

    if (!cfg->run.db_host_metrics[0]) {
        if (env[0])
            return err_set(e, E_USAGE,
                           "'run.db_host_metrics_auth_env' names a token for "
                           "'run.db_host_metrics', which is not given: give the URL too");
        return 0;
    }
    if (!cfg->run.metrics)
        return err_set(e, E_USAGE, "'run.db_host_metrics' needs 'run.metrics' true");
    if (env[0]) {
        tok = getenv(env);
        if (!tok || !tok[0])
            return err_set(e, E_USAGE,
                           "'run.db_host_metrics_auth_env' names %s, which is not set: export "
                           "the bearer token in it, or remove the key",
                           env);
        if (strlen(tok) > 4000 || strpbrk(tok, "\r\n"))
            return err_set(e, E_USAGE,
                           "the variable %s (run.db_host_metrics_auth_env) must hold one bearer "
                           "token of at most 4000 characters on one line (not shown)",
                           env);
    }
    return scrape_global_init(e);
}

/* What one scrape of the database host's node_exporter says of the host. */
static json_t *db_host_identity(const char *url, const struct nodex *n, const char *datadir)
{
    json_t *st = json_pack(
        "{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:s}", "data_directory",
        datadir ? datadir : "unknown", "mount_point",
        n->fs_mountpoint[0] ? n->fs_mountpoint : "unknown", "fstype",
        n->fs_fstype[0] ? n->fs_fstype : "unknown", "device",
        n->fs_device[0] ? n->fs_device : "unknown", "disk",
        n->disk[0] ? json_string(n->disk) : json_null(), "disk_from", n->disk_from, "scheduler",
        n->scheduler[0] ? n->scheduler : NOT_VISIBLE, "mount_options", NOT_VISIBLE, "rotational",
        NOT_VISIBLE);

    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:o, s:o, s:s, s:s, s:s}",
                     "status", "measured", "source", url, "kernel",
                     n->uname_release[0] ? n->uname_release : "unknown", "kernel_version",
                     n->uname_version[0] ? n->uname_version : "unknown", "machine",
                     n->uname_machine[0] ? n->uname_machine : "unknown", "hostname",
                     n->uname_nodename[0] ? n->uname_nodename : "unknown", "os",
                     n->os_pretty[0] ? n->os_pretty : "unknown", "cpu_count", n->ncpu,
                     "memory_kb",
                     n->have_mem[NX_MEM_TOTAL] ? json_integer((json_int_t)(n->mem[NX_MEM_TOTAL] /
                                                                           1024))
                                               : json_string("unknown"),
                     "storage", st, "sysctl", NOT_VISIBLE, "transparent_hugepage", NOT_VISIBLE,
                     "cpu_governor", NOT_VISIBLE);
}

void cmd_db_host_fingerprint(struct runrec *rec, const struct config *cfg)
{
    json_t *env = rec->env, *out;
    const char *url = cfg->run.db_host_metrics, *envn = cfg->run.db_host_metrics_auth_env;
    const char *where = rec->db_connection[0] ? rec->db_connection : NULL;
    char why[600];
    struct nodex *n;
    struct err e;

    if (!env)
        return;
    json_object_set_new(env, "os_fields_host",
                        json_string(rec->db_local == 1 ? "driver+db (one host)" : "driver"));
    err_clear(&e);
    if (strcmp(cfg->database.driver, "null") == 0) {
        out = json_pack("{s:s, s:s}", "status", "not measured", "why",
                        "driver null: no database behind it, so no database host");
    } else if (url[0] && rec->part_k > 1) {
        snprintf(why, sizeof(why), "part %d of a scale-out run: part 1 scrapes the database host",
                 rec->part_k);
        out = json_pack("{s:s, s:s}", "status", "not measured", "why", why);
    } else if (url[0] && (n = malloc(sizeof(*n))) != NULL) {
        if (scrape_once(url, envn[0] ? getenv(envn) : NULL, runrec_datadir(rec),
                        cfg->run.db_host_device, 2000, n, &e) == 0) {
            out = db_host_identity(url, n, runrec_datadir(rec));
        } else {
            fprintf(stderr, "warning: db host: %s\n", e.msg);
            out = json_pack("{s:s, s:s, s:s}", "status", "not measured", "source", url, "why",
                            e.msg);
        }
        free(n);
    } else if (rec->db_local == 1) {
        snprintf(why, sizeof(why),
                 "the server is reached over %.100s and its data directory is on this host: "
                 "kernel, cpu, memory, sysctl and storage of the environment are its host's",
                 where ? where : "this host");
        out = json_pack("{s:s, s:s}", "status", "same host as the driver", "why", why);
    } else {
        snprintf(why, sizeof(why),
                 "the server is %s (reached at %.100s) and no run.db_host_metrics was given: "
                 "kernel, cpu, memory, sysctl of the environment are the driver host's",
                 rec->db_local == 0 ? "on another host" : "maybe on another host",
                 where ? where : "unknown");
        out = json_pack("{s:s, s:s}", "status", "not measured", "why", why);
    }
    json_object_set_new(env, "db_host", out);
    rec->db_host = out;
}

/* Whose host the sampler's OS figures are, and the database host's source. */
static void session_metrics_db_host(struct session *s, const struct runrec *rec,
                                    struct metrics_opts *mo, char *part_note, size_t len)
{
    const char *envn = s->cfg->run.db_host_metrics_auth_env;

    mo->db_local = rec->db_local;
    if (s->managed)
        mo->db_local = 1;
    mo->db_where = rec->db_connection[0] ? rec->db_connection : NULL;
    mo->db_datadir = runrec_datadir(rec);
    mo->db_host_device = s->cfg->run.db_host_device[0] ? s->cfg->run.db_host_device : NULL;
    if (s->ops->flags & DB_F_SYNTHETIC) {
        mo->db_host_note = "driver null: no database behind it, so no database host";
        return;
    }
    if (!s->cfg->run.db_host_metrics[0])
        return;
    if (rec->part_k > 1) {
        snprintf(part_note, len,
                 "part %d of a scale-out run: part 1 scrapes the database host (the merged "
                 "record has its figures)",
                 rec->part_k);
        mo->db_host_note = part_note;
        return;
    }
    mo->db_host_url = s->cfg->run.db_host_metrics;
    mo->db_host_token = envn[0] ? getenv(envn) : NULL;
}

struct metrics *session_metrics(struct session *s, const struct runrec *rec, struct mserve *serve)
{
    struct db_conn *conn = NULL, **c = &conn;
    const char *dev = rec->device[0] ? rec->device : NULL;
    const char *fstype = rec->fstype[0] ? rec->fstype : NULL;
    char note[256], part_note[200];
    struct metrics_opts mo;
    struct metrics *m;
    struct err e;

    if (!s->cfg->run.metrics)
        return NULL;
    err_clear(&e);
    memset(&mo, 0, sizeof(mo));
    mo.dialect = s->dialect;
    mo.data_device = dev;
    if (dev && strcmp(dev, "none") == 0) {
        snprintf(note, sizeof(note), "the data directory is on %s: no block device",
                 fstype ? fstype : "a filesystem");
        mo.data_note = note;
    }
    mo.devices = s->cfg->run.metrics_devices[0] ? s->cfg->run.metrics_devices : NULL;
    mo.synthetic = (s->ops->flags & DB_F_SYNTHETIC) != 0;
    mo.serve = serve;
    mo.wait_hz = s->cfg->run.wait_sampling;
    mo.db_ops = s->ops;
    mo.db_args = &s->args;
    session_metrics_db_host(s, rec, &mo, part_note, sizeof(part_note));
    if (!(m = metrics_new(&mo, &e))) {
        fprintf(stderr, "warning: no metrics: %s\n", e.msg);
        return NULL;
    }
    if (!mo.synthetic && db_connect(s->ops, NULL, &s->args, c, &e) < 0) {
        fprintf(stderr, "warning: metrics: no connection for the baseline: %s\n", e.msg);
        *c = NULL;
    }
    metrics_start(m, *c);
    return m;
}

int cmd_serve_start(const struct config *cfg, struct mserve **out, struct err *e)
{
    *out = NULL;
    if (!cfg->run.metrics_listen[0])
        return 0;
    if (!cfg->run.metrics)
        return err_set(e, E_USAGE, "'run.metrics_listen' needs 'run.metrics' true");
    if (mserve_start(out, cfg->run.metrics_listen, "run.metrics_listen", e) < 0)
        return e->code;
    fprintf(stderr, "metrics: http://%s/metrics\n", mserve_address(*out));
    return 0;
}

/* Set by cmd_abandoned(): threads of this process are still blocked on sockets. */
static int exit_abandon;

void cmd_abandoned(void)
{
    exit_abandon = 1;
}

/* The watchdog of cmd_exit_bound: its code, then _exit once the bound is over. */
static int exit_code;

static void *exit_watchdog(void *arg)
{
    (void)arg;
    clock_sleep_us(CMD_EXIT_BOUND_S * 1000000ULL);
    _exit(exit_code);
}

int cmd_exit_lingering(int code)
{
    if (lingering_count() == 0)
        return code;
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

int cmd_exit_bound(int code)
{
    pthread_attr_t at;
    pthread_t t;

    exit_code = code;
    if (pthread_attr_init(&at) == 0) {
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_create(&t, &at, exit_watchdog, NULL);
        pthread_attr_destroy(&at);
    }
    if (!exit_abandon && lingering_count() == 0)
        return code;
    /* Connections or scrapes left behind: no library's exit handler may touch
     * them (libpq, libcurl, OpenSSL). */
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}
