/*
 * managed.h - the embedded default: a private PostgreSQL that tpccbench
 * creates (initdb), starts and stops itself, reached over a Unix socket.
 *
 * Everything runs the PostgreSQL programs (initdb, pg_ctl, createdb, psql)
 * with fork + execve, never through a shell.  When we run as root the server
 * runs as the `postgres` user (fallback `nobody`), because PostgreSQL refuses
 * to run as root.  The server is started in its own session, so a Ctrl-C sent
 * to our process group does not reach it: the caller handles SIGINT and then
 * calls managed_stop().  Nothing here prints or exits.
 *
 * Server settings appended to postgresql.conf at initdb time (max_connections
 * 200, shared_buffers 256MB, max_wal_size 4GB, checkpoint_timeout 15min,
 * logging_collector off).  The per-start settings (listen_addresses, port,
 * unix_socket_directories) go into datadir/tpccbench.conf, which
 * postgresql.conf includes last and which is rewritten on every start, so an
 * existing cluster can be restarted with another port or socket directory.
 *
 * Authentication: over the Unix socket `trust`, but only the server's OS
 * user and root reach it (socket and directory 0700).  With a TCP port the
 * server listens on 127.0.0.1 only and asks for scram-sha-256 with a random
 * password made once per cluster and kept only in datadir/tpccbench.pgpass
 * (0600, libpq's passfile format); our TCP connections name that file
 * (passfile=), so the password is never on a command line, in the
 * environment, printed or recorded.  The hba rules are our own file
 * (hba_file in tpccbench.conf); the cluster's pg_hba.conf is not used.
 *
 * One owner at a time.  The command that starts the server names itself in
 * datadir/tpccbench.owner (pid, process start time, boot id; 0600) before
 * pg_ctl start, and stops it at its end.  A later command that finds the
 * server running reads that file: its owner still runs (another command,
 * now): use it and leave it (MANAGED_SHARED); it says "kept" (an earlier
 * --keep-server, managed_keep()) or there is no such file: use it and leave
 * it (MANAGED_KEPT); its owner is gone (killed, crashed): adopt it, become
 * its owner and stop it at the end like one we started (MANAGED_ADOPTED).
 * Deciding this, starting and stopping happen under a lock (flock on the
 * data directory itself), so two commands starting at once never both
 * start a server.  A running server that listens elsewhere than the port
 * asked (another port, or the socket only) is restarted with it when it is
 * ours or adopted; else managed_start() refuses (E_USAGE, naming both).
 */
#ifndef TPCC_MANAGED_H
#define TPCC_MANAGED_H

#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"

#define MANAGED_DBNAME "tpcc"
#define MANAGED_USER   "tpcc"
/* The cluster's password, in libpq's password file format, inside the datadir. */
#define MANAGED_PASS_FILE "tpccbench.pgpass"
/* Who owns the running server ("pid N", "start_ticks N", "boot_id S", "state owned|kept"). */
#define MANAGED_OWNER_FILE "tpccbench.owner"

/* How managed_start() came by the server (m->how). */
enum managed_how {
    MANAGED_STARTED = 0, /* this call started it; managed_stop() stops it */
    MANAGED_ADOPTED,     /* it ran, and the command that started it is gone: ours now */
    MANAGED_SHARED,      /* it runs for a command that still runs: left as found */
    MANAGED_KEPT,        /* left running on purpose (or not by tpccbench): left as found */
};

struct managed_pg {
    char bindir[4096];  /* where initdb and pg_ctl were found */
    char datadir[4096]; /* the cluster, an absolute path */
    char sockdir[4096]; /* Unix socket directory: the datadir, or a mkdtemp dir under /tmp */
    int port;           /* TCP port, or 0 = Unix socket only */
    int socket_port;    /* number in the socket file name (.s.PGSQL.N): port, or 5432 when 0 */
    int sockdir_tmp;    /* 1: sockdir is a directory we made; removed after the server stops */
    int started;        /* 1: we started the server and managed_stop() must stop it */
    uid_t run_uid;      /* user the server runs as */
    gid_t run_gid;      /* its primary group */
    char hide_env[256]; /* environment variable the children must not see ("" = none) */
    int how;            /* enum managed_how */
    long owner_pid;     /* SHARED, KEPT: the pid the owner file names (0 = no file) */
    char listen[256];   /* read back from the server: listen_addresses ("" = socket only) */
    int listen_port;    /* read back from the server: port */
    int sock_away;      /* 1: the socket never in the datadir (a FUSE mount: MANAGED_SOCK_AWAY) */
};

/* managed_start_flags: the Unix socket in a directory of /tmp, never in the
 * data directory (which a FUSE file system may hold). */
#define MANAGED_SOCK_AWAY 0x1

/*
 * Find a PostgreSQL server bindir (one holding initdb): `pg_config --bindir`
 * first, then the highest version under /usr/lib/postgresql/<v>/bin.
 * E_USAGE when there is none.
 */
int managed_find_bindir(char *out, size_t len, struct err *e);

/*
 * Make sure a server runs on datadir and holds database tpcc owned by user
 * tpcc, and fill m.  A datadir without PG_VERSION is created (mkdir -p) and
 * initialised; an existing cluster is started; a server already running on
 * the datadir is used as the owner file says (m->how; m->started = 1 when
 * adopted, else 0), restarted when it listens elsewhere than port and is
 * adopted, else refused (E_USAGE).  port is the TCP port on 127.0.0.1,
 * or 0 for the Unix socket only.  hide_env names an environment variable
 * (the one holding the database password) that initdb, pg_ctl, psql and the
 * server must not inherit, nor any other variable holding its value; or is
 * NULL.  PG* variables are never passed on.
 * On failure nothing is left running that this call started.
 */
int managed_start(struct managed_pg *m, const char *datadir, int port, const char *hide_env,
                  struct err *e);

/* managed_start with flags (MANAGED_*). */
int managed_start_flags(struct managed_pg *m, const char *datadir, int port, const char *hide_env,
                        unsigned flags, struct err *e);

/*
 * The crash of acid's durability test: every process of the server this
 * process started or adopted killed at once (SIGKILL to the postmaster's
 * process group, which pg_ctl's setsid made its own), and waited for until
 * none is left (bounded: E_FAIL).  The owner file and the stale
 * postmaster.pid stay, as a crash leaves them.  E_USAGE when the server is
 * not ours to kill.
 */
int managed_crash(struct managed_pg *m, struct err *e);

/*
 * Start again the server managed_crash() killed, on the same data
 * directory, port and flags: PostgreSQL's crash recovery runs in pg_ctl's
 * start.  E_FAIL with the server log's last lines when it does not come up.
 */
int managed_restart(struct managed_pg *m, struct err *e);

/*
 * Stop the server if managed_start() started or adopted it (pg_ctl stop -m
 * fast, wait), remove the owner file and a temporary socket directory.  A
 * no-op when m->started is 0.
 */
int managed_stop(struct managed_pg *m, struct err *e);

/*
 * Restart the server this process started or adopted with a load's
 * settings (on: wal_level minimal, max_wal_senders 0, from a file
 * datadir/tpccbench_load.conf that tpccbench.conf includes) or without
 * them (off: the file removed; every start removes it too, so a command
 * that died during a load leaves the next start with the run's settings).
 * got: "wal_level|max_wal_senders" as the restarted server shows them.
 * E_USAGE when m->started is 0 (not ours to restart).
 */
int managed_load_settings(struct managed_pg *m, int on, char *got, size_t len, struct err *e);

/*
 * Leave a server this process started or adopted running on purpose
 * (--keep-server): the owner file says "kept", so no later command adopts
 * and stops it; m->started becomes 0.  A no-op when m->started is 0.
 */
int managed_keep(struct managed_pg *m, struct err *e);

/* What a private server on a data directory is now (managed_inspect, `server status`). */
struct managed_info {
    char datadir[4096];  /* the data directory, an absolute path */
    int cluster;         /* 1: it holds a cluster (PG_VERSION) */
    int running;         /* 1: postmaster.pid names a live process */
    long pm_pid;         /* that postmaster's pid (running) */
    char pm_status[16];  /* as postmaster.pid says: "ready", "starting", "stopping", ... */
    char sockdir[4096];  /* its Unix socket directory ("" = none) */
    int port;            /* its port (the socket's number too) */
    char listen[256];    /* its first TCP listen address, "" = the socket only */
    int how;             /* what a command would find: MANAGED_SHARED, _KEPT or _ADOPTED */
    int owner_file;      /* 1: there is an owner file (tpccbench started it) */
    int owner_kept;      /* 1: it says kept (--keep-server) */
    long owner_pid;      /* the pid it names (0 = no file) */
    int owner_alive;     /* 1: that command runs now */
    char owner_cmd[128]; /* what it runs ("tpccbench run"), "" when gone or unknown */
};

/*
 * Fill mi for datadir without touching anything (no lock: a command
 * starting or stopping the server at the same moment may show as
 * "starting" or "stopping").  mi->running 0 and mi->cluster 0 when datadir
 * is missing.  E_USAGE when datadir is empty or too long.
 */
int managed_inspect(const char *datadir, struct managed_info *mi, struct err *e);

/*
 * Stop the server running on datadir (pg_ctl stop -m fast, as its user),
 * whoever started it, under the lock the commands take, and remove its
 * owner file and a temporary socket directory of ours.  A server a command
 * that still runs owns (MANAGED_SHARED) is refused (E_USAGE, naming that
 * command) unless force.  mi: what was found before the stop.  Returns 0
 * when it stopped the server, 1 when none ran (nothing done), E_USAGE when
 * datadir holds no cluster or the stop is refused, E_FAIL when the stop
 * failed.
 */
int managed_stop_datadir(const char *datadir, int force, struct managed_info *mi, struct err *e);

/*
 * Write "host=SOCKDIR port=PORT dbname=tpcc user=tpcc" into buf.  Returns 0,
 * or E_FAIL when buf is too small.
 */
int managed_conninfo(const struct managed_pg *m, char *buf, size_t len);

/*
 * Write "dbname=tpcc user=tpcc passfile=DATADIR/tpccbench.pgpass" into buf:
 * the start of a conninfo for this server over TCP (the caller adds host and
 * port: 127.0.0.1 and m->port, or a proxy in front of it).  0 or E_FAIL.
 */
int managed_conninfo_tcp(const struct managed_pg *m, char *buf, size_t len);

#endif
