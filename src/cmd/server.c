/*
 * server.c - `tpccbench server status|stop`: the private PostgreSQL seen
 * and stopped by its data directory, for a server a command left running
 * on purpose (--keep-server) or one still running for any other reason.
 *
 * The data directory comes from --datadir, or as the other commands find
 * it: the config's database.datadir, else RESULTS/pgdata.  status only
 * reads (postmaster.pid, tpccbench.owner) and exits 0 when the server
 * runs, 3 when it does not (as pg_ctl status does), so a script can ask
 * `if tpccbench server status >/dev/null`.  stop goes through
 * managed_stop_datadir(): under the lock the commands take, refused while
 * a command that still runs owns the server unless --force.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/config.h"
#include "core/opt.h"
#include "core/signals.h"

#define SV_CMD              "server"
#define SV_EXIT_NOT_RUNNING 3 /* status: no server runs (pg_ctl status's code) */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tpccbench server status|stop [-c FILE | --datadir DIR] [options]\n"
            "\n"
            "The private PostgreSQL of the commands: whether it runs, and stopping it.  A\n"
            "command started with --keep-server (or database.keep_server: true) leaves it\n"
            "running; later commands use it and leave it so; 'server stop' ends it.\n"
            "\n"
            "  status   whether it runs, its postmaster, its owner (the command that\n"
            "           started it and stops it at its end), kept or not, where it listens\n"
            "  stop     stop it (pg_ctl stop -m fast, as its user) under the lock the\n"
            "           commands take; refused while a command that still runs owns it\n"
            "\n"
            "options:\n"
            "  -c, --config FILE      YAML config: its database.datadir (else RESULTS/pgdata)\n"
            "      --datadir X        the private cluster's directory (wins over the config)\n"
            "      --results-dir X    results directory whose pgdata is meant (default results)\n"
            "      --force            stop: stop it even while a command owns it (that\n"
            "                         command loses its connections)\n"
            "      --json             status: one JSON object on stdout\n"
            "  -h, --help             this text\n"
            "\n"
            "Exit: status 0 running, 3 not running; stop 0 stopped or not running, 1 the stop\n"
            "failed; 2 bad arguments, no cluster to stop, or a stop refused (a command owns\n"
            "the server).\n");
}

enum { SV_O_CONFIG, SV_O_DATADIR, SV_O_RESULTS, SV_O_FORCE, SV_O_JSON, SV_O_HELP };
static const struct opt_spec sv_opt_table[] = {
    [SV_O_CONFIG] = { "config", 'c', 1, "a file name" },
    [SV_O_DATADIR] = { "datadir", 0, 1, "a directory" },
    [SV_O_RESULTS] = { "results-dir", 0, 1, "a directory" },
    [SV_O_FORCE] = { "force", 0, 0, NULL },
    [SV_O_JSON] = { "json", 0, 0, NULL },
    [SV_O_HELP] = { "help", 'h', 0, NULL },
};

/* What the command line asks. */
struct sv_opts {
    const char *action;      /* "status" or "stop" */
    const char *config;      /* -c FILE, or NULL */
    const char *datadir;     /* --datadir, or NULL */
    const char *results_dir; /* --results-dir, or NULL */
    int force;               /* --force */
    int json;                /* --json */
    int help;                /* -h/--help */
};

/* One option or argument onto o. */
static int parse_one(int found, int which, const char *val, struct sv_opts *o, struct err *e)
{
    if (found == OPT_ARG) {
        if (o->action)
            return err_set(e, E_USAGE,
                           "unexpected argument \"%s\" after '%s': give one action, status or "
                           "stop (see 'tpccbench server --help')",
                           val, o->action);
        o->action = val;
        return 0;
    }
    switch (which) {
    case SV_O_CONFIG:
        o->config = val;
        break;
    case SV_O_DATADIR:
        o->datadir = val;
        break;
    case SV_O_RESULTS:
        o->results_dir = val;
        break;
    case SV_O_FORCE:
        o->force = 1;
        break;
    case SV_O_JSON:
        o->json = 1;
        break;
    default:
        o->help = 1;
        break;
    }
    return 0;
}

static int parse(int argc, char **argv, struct sv_opts *o, struct err *e)
{
    struct opt_parser p;
    const char *val;
    int found, which, rc;

    memset(o, 0, sizeof(*o));
    if ((rc = opt_init(&p, SV_CMD, sv_opt_table, OPT_COUNT(sv_opt_table), argc, argv, e)) < 0)
        return rc;
    while (rc == 0 && !o->help && (found = opt_next(&p, &which, &val, e)) != OPT_END)
        rc = found < 0 ? found : parse_one(found, which, val, o, e);
    opt_release(&p);
    if (rc < 0 || o->help)
        return rc;
    if (!o->action)
        return err_set(e, E_USAGE,
                       "say what to do: 'tpccbench server status' or 'tpccbench server stop' "
                       "(see 'tpccbench server --help')");
    if (strcmp(o->action, "status") != 0 && strcmp(o->action, "stop") != 0)
        return err_set(e, E_USAGE,
                       "unknown action '%s': give status or stop (see 'tpccbench server --help')",
                       o->action);
    if ((o->config && !o->config[0]) || (o->datadir && !o->datadir[0]) ||
        (o->results_dir && !o->results_dir[0]))
        return err_set(e, E_USAGE, "'--%s' needs a value that is not empty",
                       o->config && !o->config[0]     ? "config"
                       : o->datadir && !o->datadir[0] ? "datadir"
                                                      : "results-dir");
    if (o->force && strcmp(o->action, "stop") != 0)
        return err_set(e, E_USAGE, "'--force' goes with 'server stop' only");
    if (o->json && strcmp(o->action, "status") != 0)
        return err_set(e, E_USAGE, "'--json' goes with 'server status' only");
    return 0;
}

/*
 * The data directory meant, into out: --datadir, else as session_open()
 * finds it (database.datadir, else RESULTS/pgdata).  The config is read
 * and checked in every case, so a bad one is reported as by any command.
 */
static int sv_datadir(const struct sv_opts *o, char *out, size_t len, struct err *e)
{
    struct config cfg;
    int rc, n;

    cfg_defaults(&cfg);
    if ((o->config && (rc = cfg_load(&cfg, o->config, e)) < 0) ||
        (o->results_dir &&
         (rc = cfg_set(&cfg, "results.dir", o->results_dir, "--results-dir", e)) < 0) ||
        (rc = cfg_validate(&cfg, e)) < 0)
        return rc;
    if (o->datadir)
        n = snprintf(out, len, "%s", o->datadir);
    else if (!cfg.database.managed)
        return err_set(e, E_USAGE,
                       "'%s' does not use the private PostgreSQL (database.managed is false): give "
                       "the private server's directory with --datadir",
                       o->config);
    else if (cfg.database.datadir[0])
        n = snprintf(out, len, "%s", cfg.database.datadir);
    else
        n = snprintf(out, len, "%s/pgdata", cfg.results.dir);
    if (n < 0 || (size_t)n >= len)
        return err_set(e, E_USAGE, "the datadir path is too long");
    return 0;
}

/* "127.0.0.1:5433" when the server listens on TCP, "" when on its socket only. */
static void sv_tcp(const struct managed_info *mi, char *buf, size_t len)
{
    buf[0] = '\0';
    if (mi->listen[0])
        snprintf(buf, len, "%s:%d", mi->listen, mi->port);
}

/* The owner line of status: who stops the server, and when. */
static void sv_owner_text(const struct managed_info *mi, char *buf, size_t len)
{
    if (!mi->owner_file)
        snprintf(buf, len, "none (no %s: tpccbench did not start it)", MANAGED_OWNER_FILE);
    else if (mi->owner_kept)
        snprintf(buf, len, "none: kept by pid %ld (--keep-server)", mi->owner_pid);
    else if (mi->owner_alive)
        snprintf(buf, len, "%s (pid %ld), running now: it stops the server at its end",
                 mi->owner_cmd[0] ? mi->owner_cmd : "a command", mi->owner_pid);
    else
        snprintf(buf, len,
                 "pid %ld, gone (killed or crashed): the next command adopts the server and "
                 "stops it at its end",
                 mi->owner_pid);
}

static void sv_status_text(const struct managed_info *mi)
{
    char owner[400], tcp[300];

    printf("private PostgreSQL in %s\n", mi->datadir);
    if (!mi->running) {
        printf("  state:    not running%s\n",
               mi->cluster ? "" : " (no cluster there yet: the first command creates it)");
        return;
    }
    sv_owner_text(mi, owner, sizeof(owner));
    sv_tcp(mi, tcp, sizeof(tcp));
    printf("  state:    running (postmaster pid %ld, %s)\n", mi->pm_pid,
           mi->pm_status[0] ? mi->pm_status : "status unknown");
    printf("  owner:    %s\n", owner);
    printf("  kept:     %s\n", mi->how == MANAGED_KEPT
                                   ? "yes: commands use it and leave it running; 'tpccbench "
                                     "server stop' ends it"
                                   : "no");
    if (mi->sockdir[0] && tcp[0])
        printf("  listens:  %s/.s.PGSQL.%d and %s\n", mi->sockdir, mi->port, tcp);
    else if (mi->sockdir[0])
        printf("  listens:  %s/.s.PGSQL.%d only (no TCP)\n", mi->sockdir, mi->port);
    else
        printf("  listens:  %s only (no Unix socket)\n", tcp);
    if (mi->sockdir[0])
        printf("  conninfo: host=%s port=%d dbname=%s user=%s\n", mi->sockdir, mi->port,
               MANAGED_DBNAME, MANAGED_USER);
}

static int sv_status_json(const struct managed_info *mi)
{
    char tcp[300], sock[4200];
    json_t *j, *owner = json_null();
    char *text;

    sv_tcp(mi, tcp, sizeof(tcp));
    snprintf(sock, sizeof(sock), "%s/.s.PGSQL.%d", mi->sockdir, mi->port);
    if (mi->running && mi->owner_file)
        owner = json_pack("{s:I, s:s, s:b, s:s?}", "pid", (json_int_t)mi->owner_pid, "state",
                          mi->owner_kept ? "kept" : "owned", "running", mi->owner_alive, "command",
                          mi->owner_cmd[0] ? mi->owner_cmd : NULL);
    j = json_pack("{s:s, s:b, s:b, s:o, s:s?, s:o, s:b, s:s?, s:o, s:s?}", "datadir", mi->datadir,
                  "cluster", mi->cluster, "running", mi->running, "pid",
                  mi->running ? json_integer(mi->pm_pid) : json_null(), "status",
                  mi->running ? mi->pm_status : NULL, "owner", owner, "kept",
                  mi->running && mi->how == MANAGED_KEPT, "socket",
                  mi->running && mi->sockdir[0] ? sock : NULL, "port",
                  mi->running ? json_integer(mi->port) : json_null(), "tcp",
                  mi->running && tcp[0] ? tcp : NULL);
    text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        return -1;
    printf("%s\n", text);
    free(text);
    return 0;
}

static int sv_stop(const char *datadir, int force)
{
    struct managed_info mi;
    struct err e;
    int rc;

    err_clear(&e);
    rc = managed_stop_datadir(datadir, force, &mi, &e);
    if (rc < 0)
        return cmd_fail(SV_CMD, &e);
    if (rc == 1) {
        printf("private PostgreSQL in %s: not running, nothing to stop\n", mi.datadir);
        return 0;
    }
    printf("stopped private PostgreSQL in %s (postmaster pid %ld)\n", mi.datadir, mi.pm_pid);
    if (mi.how == MANAGED_SHARED)
        printf("  --force: %s (pid %ld) owned it; that command loses its connections\n",
               mi.owner_cmd[0] ? mi.owner_cmd : "a command", mi.owner_pid);
    return 0;
}

int cmd_server(int argc, char **argv)
{
    struct sv_opts o;
    struct managed_info mi;
    char datadir[4096];
    struct err e;

    err_clear(&e);
    if (parse(argc - 1, argv + 1, &o, &e) < 0)
        return cmd_fail(SV_CMD, &e);
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (sv_datadir(&o, datadir, sizeof(datadir), &e) < 0)
        return cmd_fail(SV_CMD, &e);
    if (strcmp(o.action, "stop") == 0) {
        /* A Ctrl-C while waiting for the lock ends the wait. */
        sig_install();
        return sv_stop(datadir, o.force);
    }
    if (managed_inspect(datadir, &mi, &e) < 0)
        return cmd_fail(SV_CMD, &e);
    if (o.json) {
        if (sv_status_json(&mi) < 0) {
            err_set(&e, E_FAIL, "out of memory");
            return cmd_fail(SV_CMD, &e);
        }
    } else {
        sv_status_text(&mi);
    }
    return mi.running ? 0 : SV_EXIT_NOT_RUNNING;
}
