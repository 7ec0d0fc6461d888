/*
 * config.h - the one struct a run is configured by, and how it is filled.
 *
 * cfg_load() parses a YAML file (core/yaml.h) into struct config: defaults first,
 * then the file, then cfg_set() for each command-line override, then
 * cfg_validate().  After that the struct is read-only and shared by all
 * threads.  Secrets never live here: only the *name* of the environment
 * variable holding the password (database.password_env).
 */
#ifndef TPCC_CONFIG_H
#define TPCC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Transaction types, in the order the spec lists them. */
enum tx_type {
    TX_NEW_ORDER = 0,
    TX_PAYMENT,
    TX_ORDER_STATUS,
    TX_DELIVERY,
    TX_STOCK_LEVEL,
    TX_NTYPES
};

/* How transactions reach the server (run.mode). */
enum run_mode {
    RUN_MODE_AUTO = 0,      /* procedure where the dialect has them, else client */
    RUN_MODE_CLIENT = 1,    /* one prepared statement per round trip */
    RUN_MODE_PIPELINE = 2,  /* a transaction's statements sent together (libpq pipeline) */
    RUN_MODE_PROCEDURE = 3, /* one server-side function call per transaction */
};

/* Name of a run mode ("client", ...). */
const char *run_mode_name(int mode);

/* How each statement reaches the server (run.statements). */
enum run_statements {
    RUN_STMT_PREPARED = 0, /* named statements prepared once per connection (the default) */
    RUN_STMT_UNNAMED = 1,  /* the unnamed statement, parsed again each time: nothing is kept on
                            * the server between transactions (works through a pooler in
                            * transaction mode); values are still bound parameters */
};

/* Name of a statements setting ("prepared", "unnamed"). */
const char *run_statements_name(int statements);

/* Length of every string field in struct config, including the NUL. */
#define CFG_STR 256

/* Most transactions one connection carries per round trip (run.batch). */
#define TXN_BATCH_MAX 64

struct config {
    char path[CFG_STR]; /* file it came from, "" for built-in defaults */

    struct {
        char driver[CFG_STR];       /* "postgres" | "odbc" | "null" */
        int managed;                /* 1: start a private PostgreSQL (see cfg_validate) */
        int managed_set;            /* 1: managed was given in the file or on the command line */
        char conninfo[CFG_STR];     /* libpq conninfo (no password) */
        char dsn[CFG_STR];          /* ODBC DSN or connection string */
        char password_env[CFG_STR]; /* name of the env variable with the password */
        char datadir[CFG_STR];      /* managed: cluster directory ("" = under results dir) */
        int keep_server;            /* managed: leave the server running at exit */
        int port;                   /* managed: TCP port, 0 = Unix socket only */
        int64_t null_service_us;    /* driver null: time each call takes (a sleep) */
        char pooler[CFG_STR];       /* connection pooler in between, as the user says:
                                     * "" = not said, "none", "pgbouncer", ... (recorded) */
    } database;

    struct {
        int warehouses; /* >= 1 */
        char dialect[CFG_STR]; /* "" = detect */
    } schema;

    struct {
        int jobs;     /* parallel loader connections, >= 1 */
        int64_t seed; /* data generator seed */
        int seed_set; /* 1 when seed came from file or command line */
        int drop;     /* drop an existing schema first */
        int copy_text; /* load.copy: 1 text (text COPY per table and warehouse), 0 fast */
    } load;

    struct {
        int virtual_users;      /* >= 1: terminals and connections of a closed-loop run */
        int terminals;          /* 0: virtual_users, or 10 x warehouses with think time */
        int connections;        /* 0: virtual_users, or what the offered load needs */
        int batch;              /* most transactions of different terminals per round trip
                                 * on one connection (procedure mode, PostgreSQL); 1 = off */
        int workers;            /* threads serving the connections; 0: auto (driver.c) */
        double rate;            /* > 0: open loop, Poisson arrivals per second in total */
        double time_scale;      /* keying and think times x this (a deviation when not 1) */
        int64_t rampup_us;      /* VUs start staggered over this */
        int64_t warmup_us;      /* not measured */
        int64_t duration_us;    /* measured window, > 0 */
        int mix[TX_NTYPES];     /* weights per enum tx_type, dealt as a deck (tpcc/deck.h):
                                 * percent summing to 100 when mix_set, else the spec's
                                 * 23-card deck 10/10/1/1/1 */
        int mix_set;            /* 1 when run.mix came from file or command line */
        int think_time;         /* 1: TPC-C keying + think times */
        int max_retries;        /* retries of a retryable failure, >= 0 */
        int delivery_workers;   /* deferred delivery threads; 0 = sized from connections */
        int delivery_inline;    /* 1: run delivery inline (a labelled deviation) */
        int delivery_queue;     /* bound of the deferred delivery queue */
        char isolation[CFG_STR]; /* "read committed" | "repeatable read" | "serializable" */
        int isolation_set;      /* 1 when run.isolation came from file or command line: only
                                 * then is a level the DBMS lacks refused (else run/driver.c
                                 * takes the weakest it offers from read committed up) */
        int64_t seed;           /* run-time RNG seed, 0 = from the clock */
        int mode;               /* enum run_mode; 0 = the driver's best */
        int64_t transactions;   /* per VU: stop after this many (0 = by duration) */
        int64_t max_outage_us;  /* a VU unable to reconnect this long aborts the run */
        int statements;         /* enum run_statements */
        int metrics;            /* 1: OS and database metrics each second (metrics.csv) */
        char metrics_listen[CFG_STR];  /* "HOST:PORT" of the live endpoint, "" = none */
        char metrics_devices[CFG_STR]; /* more block devices to sample, comma-separated */
        int wait_sampling;      /* wait samples a second (pg_stat_activity), 0 = off */
        char db_host_metrics[CFG_STR]; /* the database host's node_exporter URL, "" = none
                                        * (never with credentials: set_url refuses them) */
        char db_host_metrics_auth_env[CFG_STR]; /* names the variable holding a bearer token */
        char db_host_device[CFG_STR];  /* the data disk in node_disk_* when the data
                                        * directory's filesystem does not tell it */
        int part_k, part_n;     /* run.part K/N (core/part.h); 0, 0: not given */
        int parts;              /* run.parts: the number of parts; 0: not given */
        int64_t part_timeout_us; /* how long a part waits for the others in the database */
        char run_id[CFG_STR];   /* what the parts of one run share; "" = from the launcher */
        char meet_conninfo[CFG_STR]; /* a PostgreSQL the parts meet in; "" = the database
                                      * under test */
    } run;

    /* Where the keys that choose the server were set ("file:line:col" or "--conninfo"),
     * "" when not given: for the message naming both when they disagree. */
    struct {
        char managed[CFG_STR];
        char conninfo[CFG_STR];
        char dsn[CFG_STR];
        char part[CFG_STR];  /* run.part */
        char parts[CFG_STR]; /* run.parts */
    } where;

    struct {
        char crash_command[CFG_STR];   /* durability on a user's server: crashes it (sh -c) */
        char restart_command[CFG_STR]; /* and starts it again ("" = it comes back by itself) */
        int64_t restart_timeout_us;    /* how long the server gets to answer again */
        int durability;                /* bench, study: a durability check after each run:
                                        * 0 off, 1 kill, 2 power (durab.h's ACID_CRASH_*) */
        int64_t durability_window_us;  /* that check's mix (the crash in its middle half) */
    } acid;

    struct {
        char dir[CFG_STR];    /* results root */
        char label[CFG_STR];  /* run label */
        char change[CFG_STR]; /* change note */
    } results;
};

/* 1 when key ("run.duration") is a key of the config (not a section), else 0. */
int cfg_key_known(const char *key);

/* Fill c with the built-in defaults (managed PostgreSQL, 1 warehouse, ...). */
void cfg_defaults(struct config *c);

/* Parse the YAML file at path into c (which must hold defaults already).
 * Errors: E_USAGE with "file:line:column: ..." naming the key. */
int cfg_load(struct config *c, const char *path, struct err *e);

/* Parse YAML text of len bytes (any bytes, NULs too; at most YTREE_MAX_FILE_SIZE) held in
 * memory: what cfg_load() does after reading the file, and the entry of tests and the fuzzer
 * (tests/fuzz).  name is used in messages in place of a file.  Same errors as cfg_load();
 * c is unchanged on error. */
int cfg_load_string(struct config *c, const char *name, const char *text, size_t len,
                    struct err *e);

/* Set one dotted key ("run.duration") from a string, as a command-line
 * override; origin names it in messages ("--duration"). */
int cfg_set(struct config *c, const char *key, const char *value, const char *origin,
            struct err *e);

/*
 * Cross-field checks after all sources are merged (a mix given sums to 100, ...), and
 * the one value derived from others: database.managed, when not given, is
 * true only for driver postgres with neither conninfo nor dsn (the server a
 * config names is the server measured).  managed: true together with a
 * conninfo or dsn is an error naming both keys and where they were set.
 */
int cfg_validate(struct config *c, struct err *e);

/* Parse "500ms", "30s", "5m", "1h" (and a bare number of seconds) into
 * microseconds.  Returns 0 or -1. */
int parse_duration_us(const char *s, int64_t *out_us);

/* Parse a strictly decimal integer in [min, max].  Returns 0 or -1. */
int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out);

/* Names of transaction types as used in config and records ("new_order", ...). */
const char *tx_name(enum tx_type t);

#endif
