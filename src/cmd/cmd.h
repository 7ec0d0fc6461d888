/*
 * cmd.h - what every subcommand shares: option parsing onto struct config,
 * opening the database (starting the private PostgreSQL when managed), and
 * the entry points main() dispatches to.
 *
 * Only cmd_*() functions and main() print errors and choose exit codes.
 */
#ifndef TPCC_CMD_H
#define TPCC_CMD_H

#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include <jansson.h>

#include "core/config.h"
#include "core/err.h"
#include "core/part.h"
#include "db/db.h"
#include "db/managed.h"

/* An option of a subcommand.  cfg_key set: the value goes through cfg_set;
 * else the option is a flag or value the command reads itself. */
struct cmd_opt {
    const char *name;    /* long name without "--" */
    char short_name;     /* 0 = none */
    int has_arg;         /* 1: takes a value */
    const char *cfg_key; /* "run.duration", or NULL */
    const char *help;    /* one line for --help */
};

/* What the parser found that is not config. */
#define CMD_MAX_POS   16
#define CMD_MAX_EXTRA 16
struct cmd_args {
    const char *config_path;      /* -c FILE, NULL = built-in defaults */
    const char *pos[CMD_MAX_POS]; /* positional arguments */
    int npos;
    const char *extra_name[CMD_MAX_EXTRA]; /* options without cfg_key, in order */
    const char *extra_val[CMD_MAX_EXTRA];  /* their values ("" for flags) */
    int nextra;
    int help;         /* -h/--help was given */
    struct part part; /* cmd_part: this process's part of the run */
    int part_set;     /* 1: part was decided (run, bench, load) */
    char run_id[PART_RUN_ID_MAX + 1]; /* cmd_part: the name the parts share (core/part.h) */
    char run_id_source[64];           /* where it came from: "run.run_id", "TPCC_RUN_ID" */
    char merged_label[CFG_STR];       /* run --part: the run's label (the part's own record is
                                       * labelled <label>-part<K>of<N>) */
    int durability_by_caller;         /* study: acid.durability is checked by the study, on the
                                       * server it started, not by one_record */
};

/* Parse argv (after the subcommand) against opts (plus -c/--config and
 * -h/--help), load the config and apply overrides, then validate.
 * Errors are E_USAGE with a message naming the option. */
int cmd_parse(const char *cmd, int argc, char **argv, const struct cmd_opt *opts,
              struct config *cfg, struct cmd_args *a, struct err *e);
/* Value of an extra option, or NULL. */
const char *cmd_extra(const struct cmd_args *a, const char *name);

/* This process's part (--part, run.part, --parts, run.parts, the launcher's
 * environment; core/part.h) into a->part, and for a part of several the
 * run id the parts share into a->run_id. */
int cmd_part(const struct config *cfg, struct cmd_args *a, struct err *e);
/*
 * E_NOTYET (exit 2) when a->part is a part of several and the command
 * cannot run as one yet: a part must never run as if it were the whole.
 * what names the missing thing in the message ("loads (each part ...)").
 */
int cmd_part_not_yet(const struct cmd_args *a, const char *what, struct err *e);
/* {"k": K, "n": N, "source": "..."} of a->part, or NULL when not decided. */
json_t *cmd_part_json(const struct cmd_args *a);

/* Print usage of cmd with its options. */
void cmd_usage(FILE *out, const char *cmd, const char *synopsis, const char *about,
               const struct cmd_opt *opts);

/* An open database: driver, connection arguments, managed server. */
struct session {
    const struct config *cfg;
    const struct db_ops *ops;
    struct db_connect_args args;
    char conninfo[1024];
    char password[256]; /* from the environment; never printed or recorded */
    struct managed_pg mpg;
    int managed;      /* 1: mpg is in use */
    char dialect[32]; /* SQL dialect: folder under schema/ ("postgresql", "mysql") */
};

/* While a command waits on one connection: a thread that cancels the
 * connection's request when a stop signal comes, so a long query (or one
 * blocked on a lock) does not hold Ctrl-C up. */
struct stop_watch {
    pthread_t thread;
    struct db_conn *c;
    int done; /* atomic: 1 asks the thread to end */
    int started;
};
void stop_watch_start(struct stop_watch *w, struct db_conn *c);
void stop_watch_end(struct stop_watch *w);

struct metrics;
struct mserve;
struct runrec;

/* The live endpoint of run.metrics_listen, when set: bound now, so a bad
 * address or a port in use is E_USAGE before anything starts (*out NULL
 * when unset).  Says its address on stderr.  Stop it with mserve_stop. */
int cmd_serve_start(const struct config *cfg, struct mserve **out, struct err *e);

/* The OS and database sampler of one run or load (metrics_new,
 * metrics_start), publishing to serve when not NULL (kept, not owned); NULL
 * with run.metrics false, or with a warning on stderr when it cannot be made
 * (the command goes on without).  rec: the record, its fingerprint taken
 * (runrec_dbms): the data directory, its device, the part. */
struct metrics *session_metrics(struct session *s, const struct runrec *rec, struct mserve *serve);

/*
 * run.db_host_metrics checked before anything starts: it needs run.metrics,
 * and run.db_host_metrics_auth_env a URL and a variable that is set and
 * holds a token of one line; libcurl initialised.  E_USAGE otherwise.
 */
int cmd_db_host_check(const struct config *cfg, struct err *e);

/*
 * rec's environment.db_host: the database host's identity from one scrape
 * of its node_exporter (run.db_host_metrics), one host with the driver
 * (a local server), or "not measured" and why; what an exporter cannot
 * show is "not visible (remote)".  After runrec_dbms.  A scrape that
 * fails is a warning on stderr, never the run's failure.
 */
void cmd_db_host_fingerprint(struct runrec *rec, const struct config *cfg);

/* Start the managed server if configured and prepare connection arguments. */
int session_open(struct session *s, const struct config *cfg, struct err *e);
/* Stop the managed server (unless keep_server). */
void session_close(struct session *s);

/*
 * The end of a command whose last record is written: from now on the process
 * ends within CMD_EXIT_BOUND_S whatever the network does.  A detached thread
 * _exits with code once the bound is over (anything at exit that waits on a
 * socket: a library's exit handler, a server's stop); after cmd_abandoned()
 * (a run left connections behind, blocked in the database) it flushes stdout
 * and stderr and _exits at once, so no exit handler touches those
 * connections.  Else returns code, for main to return.
 */
#define CMD_EXIT_BOUND_S 2
int cmd_exit_bound(int code);
/* A command's exit code, after which the process ends: with _exit, stdout and
 * stderr flushed, while threads left running past their bound may still be in
 * a library (core/lingering.h: a scrape, the wait sampler); else code. */
int cmd_exit_lingering(int code);
/* Threads of this process stay blocked on a socket (run.left_behind): see cmd_exit_bound. */
void cmd_abandoned(void);

/* Print "tpccbench CMD: message" to stderr and return the exit code. */
int cmd_fail(const char *cmd, const struct err *e);

/* Common options shared by the database commands. */
extern const struct cmd_opt cmd_db_opts[];

int cmd_load(int argc, char **argv);
int cmd_install_procedures(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_acid(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_iobench(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_history(int argc, char **argv);
/* `server status|stop`: the private PostgreSQL by its data directory (cmd/server.c). */
int cmd_server(int argc, char **argv);
/* `report --history`: history's HTML page into a file (cmd/history.c). */
int cmd_report_history(int argc, char **argv);

/* One run (or bench step) with its own record; the record's folder goes to
 * dir_out when given.  Returns the exit code. */
int one_record(const char *cmd, int bench, struct config *cfg, const struct cmd_args *a, int index,
               int of, char *dir_out, size_t dir_len);
int cmd_netbench(int argc, char **argv);
int cmd_proxy(int argc, char **argv);

#endif
