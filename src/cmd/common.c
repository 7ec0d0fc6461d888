/*
 * common.c - option parsing, usage text and database sessions shared by the
 * subcommands.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "core/clock.h"
#include "core/secret.h"
#include "core/signals.h"
#include "db/dialect.h"

const struct cmd_opt cmd_db_opts[] = {
    { "driver", 0, 1, "database.driver", "driver: postgres (libpq) or null (testing)" },
    { "conninfo", 0, 1, "database.conninfo", "libpq connection string (no password in it)" },
    { "managed", 0, 1, "database.managed", "true: start a private PostgreSQL (default without -c)" },
    { "datadir", 0, 1, "database.datadir", "managed: cluster directory (default RESULTS/pgdata)" },
    { "keep-server", 0, 0, NULL, "managed: leave the server running at the end" },
    { "warehouses", 'w', 1, "schema.warehouses", "number of warehouses" },
    { "results-dir", 0, 1, "results.dir", "where run records go (default results)" },
    { "label", 0, 1, "results.label", "label of this run's record" },
    { "change", 0, 1, "results.change", "what changed since the previous run (a note)" },
    { NULL, 0, 0, NULL, NULL },
};

static const struct cmd_opt *find_opt(const struct cmd_opt *opts, const char *name, char sh)
{
    for (const struct cmd_opt *o = cmd_db_opts; o->name; o++)
        if (name ? strcmp(o->name, name) == 0 : o->short_name == sh)
            return o;
    for (const struct cmd_opt *o = opts; o && o->name; o++)
        if (name ? strcmp(o->name, name) == 0 : (sh && o->short_name == sh))
            return o;
    return NULL;
}

const char *cmd_extra(const struct cmd_args *a, const char *name)
{
    const char *v = NULL;

    for (int i = 0; i < a->nextra; i++)
        if (strcmp(a->extra_name[i], name) == 0)
            v = a->extra_val[i]; /* the last one wins */
    return v;
}

int cmd_parse(const char *cmd, int argc, char **argv, const struct cmd_opt *opts,
              struct config *cfg, struct cmd_args *a, struct err *e)
{
    /* Overrides are applied after the file, in command-line order. */
    const struct cmd_opt *ov_opt[64];
    const char *ov_val[64];
    int nov = 0, rc;

    memset(a, 0, sizeof(*a));
    cfg_defaults(cfg);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        const struct cmd_opt *o = NULL;
        char name[64];
        int is_long = strncmp(arg, "--", 2) == 0 && arg[2];

        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            a->help = 1;
            return 0;
        }
        if (strcmp(arg, "-c") == 0 || strcmp(arg, "--config") == 0 ||
            strncmp(arg, "--config=", 9) == 0) {
            if (strncmp(arg, "--config=", 9) == 0)
                a->config_path = arg + 9;
            else if (i + 1 < argc)
                a->config_path = argv[++i];
            else
                return err_set(e, E_USAGE, "option '%s' needs a file name", arg);
            if (!a->config_path[0])
                return err_set(e, E_USAGE, "option '--config' needs a file name");
            continue;
        }
        if (is_long) {
            const char *eq = strchr(arg + 2, '=');
            size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
            snprintf(name, sizeof(name), "%.*s", (int)n, arg + 2);
            o = find_opt(opts, name, 0);
            if (!o)
                return err_set(e, E_USAGE, "unknown option '--%s' (see 'tpccbench %s --help')",
                               name, cmd);
            if (o->has_arg) {
                if (eq)
                    val = eq + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else
                    return err_set(e, E_USAGE, "option '--%s' needs a value", name);
            } else if (eq) {
                return err_set(e, E_USAGE, "option '--%s' takes no value", name);
            }
        } else if (arg[0] == '-' && arg[1] && arg[1] != '-' && !arg[2]) {
            o = find_opt(opts, NULL, arg[1]);
            if (!o)
                return err_set(e, E_USAGE, "unknown option '%s' (see 'tpccbench %s --help')",
                               arg, cmd);
            if (o->has_arg) {
                if (i + 1 >= argc)
                    return err_set(e, E_USAGE, "option '%s' needs a value", arg);
                val = argv[++i];
            }
        } else {
            if (a->npos >= CMD_MAX_POS)
                return err_set(e, E_USAGE, "too many arguments");
            a->pos[a->npos++] = arg;
            continue;
        }
        if (o->cfg_key) {
            if (nov >= 64)
                return err_set(e, E_USAGE, "too many options");
            ov_opt[nov] = o;
            ov_val[nov++] = val;
        } else {
            if (a->nextra >= CMD_MAX_EXTRA)
                return err_set(e, E_USAGE, "too many options");
            a->extra_name[a->nextra] = o->name;
            a->extra_val[a->nextra++] = val ? val : "";
        }
    }
    if (a->config_path && (rc = cfg_load(cfg, a->config_path, e)) < 0)
        return rc;
    for (int k = 0; k < nov; k++) {
        char origin[80];
        snprintf(origin, sizeof(origin), "--%s", ov_opt[k]->name);
        if ((rc = cfg_set(cfg, ov_opt[k]->cfg_key, ov_val[k] ? ov_val[k] : "true", origin, e)) <
            0)
            return rc;
    }
    if (cmd_extra(a, "keep-server"))
        cfg->database.keep_server = 1;
    return cfg_validate(cfg, e);
}

void cmd_usage(FILE *out, const char *cmd, const char *synopsis, const char *about,
               const struct cmd_opt *opts)
{
    fprintf(out, "usage: tpccbench %s %s\n\n%s\n\noptions:\n", cmd, synopsis, about);
    fprintf(out, "  -c, --config FILE      YAML config (default: a private PostgreSQL, 1 warehouse)\n");
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
        fprintf(stderr, "starting private PostgreSQL in %s\n", datadir);
        if ((rc = managed_start(&s->mpg, datadir, cfg->database.port,
                                cfg->database.password_env, e)) < 0)
            return rc;
        s->managed = 1;
        managed_conninfo(&s->mpg, s->conninfo, sizeof(s->conninfo));
    } else {
        snprintf(s->conninfo, sizeof(s->conninfo), "%s", cfg->database.conninfo);
    }
    s->args.conninfo = s->conninfo;
    s->args.dsn = cfg->database.dsn;
    s->args.app_name = "tpccbench";
    s->args.statements = cfg->run.statements == RUN_STMT_UNNAMED ? DB_STMT_UNNAMED
                                                                  : DB_STMT_PREPARED;
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
        fprintf(stderr, "private PostgreSQL left running: %s\n", s->conninfo);
    }
    /* Wipe the password from memory (libpq and the ODBC driver manager keep
     * their own copies until their connections are closed). */
    secret_wipe(s->password, sizeof(s->password));
    s->managed = 0;
}
