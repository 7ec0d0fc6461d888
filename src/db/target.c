/*
 * target.c - one line saying which server a connection string reaches, for
 * the first line every command prints ("server 127.0.0.1:5432 db tpcc
 * (libpq)", "ODBC DSN=maria;UID=tpcc").  The libpq form is read with
 * PQconninfoParse, with what the environment (PGHOST, PGPORT, PGDATABASE)
 * and libpq's own defaults fill in for keys the string leaves out; an ODBC
 * string is shown redacted.  Nothing here connects, prints or exits.
 */
#include "db/db.h"

#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>

#include "core/secret.h"

/* The value of keyword in opts, or "" when absent or empty. */
static const char *opt_val(const PQconninfoOption *opts, const char *keyword)
{
    for (const PQconninfoOption *o = opts; o && o->keyword; o++)
        if (strcmp(o->keyword, keyword) == 0 && o->val && *o->val)
            return o->val;
    return "";
}

/* keyword from the string, else from libpq's defaults (environment, compiled-in). */
static const char *val_or_default(const PQconninfoOption *opts, const PQconninfoOption *defs,
                                  const char *keyword)
{
    const char *v = opt_val(opts, keyword);

    return *v ? v : opt_val(defs, keyword);
}

int db_describe_target(const char *driver, const char *conninfo, const char *dsn, char *out,
                       size_t len, struct err *e)
{
    if (strcmp(driver, "odbc") == 0) {
        char shown[1024];
        secret_redact(dsn ? dsn : "", shown, sizeof(shown));
        snprintf(out, len, "ODBC %s", shown);
        return 0;
    }
    if (strcmp(driver, "postgres") != 0) {
        snprintf(out, len, "no server (driver %s)", driver);
        return 0;
    }
    {
        char *msg = NULL, port_buf[16];
        PQconninfoOption *opts = PQconninfoParse(conninfo ? conninfo : "", &msg);
        PQconninfoOption *defs;
        const char *host, *addr, *port, *db, *user;

        if (!opts) {
            /* libpq's message ends in a newline. */
            size_t n = msg ? strcspn(msg, "\n") : 0;
            err_set(e, E_USAGE, "'database.conninfo' cannot be read: %.*s; see libpq's "
                    "connection string format", (int)n, msg ? msg : "out of memory");
            PQfreemem(msg);
            return E_USAGE;
        }
        defs = PQconndefaults();
        host = val_or_default(opts, defs, "host");
        addr = opt_val(opts, "hostaddr");
        port = val_or_default(opts, defs, "port");
        db = val_or_default(opts, defs, "dbname");
        user = val_or_default(opts, defs, "user");
        if (!*port) {
            snprintf(port_buf, sizeof(port_buf), "%d", 5432);
            port = port_buf;
        }
        if (!*host && !*addr)
            snprintf(out, len, "server on the local socket, port %s, db %s (libpq)", port,
                     *db ? db : *user ? user : "(user name)");
        else if (host[0] == '/' || host[0] == '@')
            snprintf(out, len, "server on the socket in %s, port %s, db %s (libpq)", host, port,
                     *db ? db : *user ? user : "(user name)");
        else
            snprintf(out, len, "server %s:%s db %s (libpq)", *host ? host : addr, port,
                     *db ? db : *user ? user : "(user name)");
        PQconninfoFree(opts);
        if (defs)
            PQconninfoFree(defs);
    }
    return 0;
}
