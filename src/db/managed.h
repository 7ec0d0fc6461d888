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
};

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
 * the datadir is reused (m->started = 0).  port is the TCP port on 127.0.0.1,
 * or 0 for the Unix socket only.  hide_env names an environment variable
 * (the one holding the database password) that initdb, pg_ctl, psql and the
 * server must not inherit, nor any other variable holding its value; or is
 * NULL.  PG* variables are never passed on.
 * On failure nothing is left running that this call started.
 */
int managed_start(struct managed_pg *m, const char *datadir, int port, const char *hide_env,
                  struct err *e);

/*
 * Stop the server if managed_start() started it (pg_ctl stop -m fast, wait)
 * and remove a temporary socket directory.  A no-op when m->started is 0.
 */
int managed_stop(struct managed_pg *m, struct err *e);

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
