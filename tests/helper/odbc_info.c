/*
 * odbc_info.c - print what an ODBC driver answers about itself, the inputs
 * of tpccbench's capability decisions (src/db/odbccaps.h), as "key value"
 * lines: how the answers of psqlODBC, MariaDB Connector/ODBC and SQLite's
 * driver kept in tests/unit/test_odbccaps.c were recorded.
 *
 *   odbc_info 'CONNECTION STRING'      (a DSN name or Driver=...;...)
 *
 * The password, if any, comes from the environment variable
 * ODBC_INFO_PASSWORD and is added as PWD={...}; nothing is written but
 * stdout.  Exit 0, or 2 when the connection fails.
 */
#include <sql.h>
#include <sqlext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/odbccaps.h"

int main(int argc, char **argv)
{
    SQLHENV env = NULL;
    SQLHDBC dbc = NULL;
    struct odbc_info in;
    char cs[1024], out[2048];
    const char *pw = getenv("ODBC_INFO_PASSWORD");
    SQLRETURN r;

    if (argc != 2) {
        fprintf(stderr, "usage: odbc_info 'CONNECTION STRING'\n");
        return 2;
    }
    snprintf(cs, sizeof(cs), "%s%s%s%s%s", strchr(argv[1], '=') ? "" : "DSN=", argv[1],
             pw ? ";PWD={" : "", pw ? pw : "", pw ? "}" : "");
    SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &env);
    SQLSetEnvAttr(env, SQL_ATTR_ODBC_VERSION, (SQLPOINTER)SQL_OV_ODBC3, 0);
    SQLAllocHandle(SQL_HANDLE_DBC, env, &dbc);
    r = SQLDriverConnect(dbc, NULL, (SQLCHAR *)cs, SQL_NTS, NULL, 0, NULL, SQL_DRIVER_NOPROMPT);
    if (r != SQL_SUCCESS && r != SQL_SUCCESS_WITH_INFO) {
        SQLCHAR state[6] = "", msg[400] = "";
        SQLINTEGER native = 0;
        SQLSMALLINT len = 0;
        SQLGetDiagRec(SQL_HANDLE_DBC, dbc, 1, state, &native, msg, sizeof(msg), &len);
        fprintf(stderr, "odbc_info: cannot connect: %s (SQLSTATE %s)\n", msg, state);
        return 2;
    }
    odbc_info_read(dbc, &in);
    odbc_info_format(&in, out, sizeof(out));
    fputs(out, stdout);
    SQLDisconnect(dbc);
    SQLFreeHandle(SQL_HANDLE_DBC, dbc);
    SQLFreeHandle(SQL_HANDLE_ENV, env);
    return 0;
}
