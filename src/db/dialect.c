/*
 * dialect.c - find named statements in the compiled-in schema SQL.
 *
 * Holds no SQL itself: the text is in the .sql files under schema/<dialect>/.
 */
#include "db/dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/schema_sql.h"

const char *schema_sql(const char *dialect, const char *name)
{
    for (const struct schema_file *f = schema_files; f->dialect; f++)
        if (strcmp(f->dialect, dialect) == 0 && strcmp(f->name, name) == 0)
            return f->text;
    return NULL;
}

static int count_params(const char *sql)
{
    int max = 0, nq = 0;

    for (const char *p = sql; *p; p++) {
        if (*p == '\'') { /* skip string literals */
            for (p++; *p && *p != '\''; p++)
                ;
            if (!*p)
                break;
        } else if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
            int v = (int)strtol(p + 1, NULL, 10);
            if (v > max)
                max = v;
        } else if (*p == '?') {
            nq++;
        }
    }
    return max > nq ? max : nq;
}

int dialect_load(struct dialect *d, const char *name, const char *file,
                 const char *const *names, int n, struct err *e)
{
    const char *src = schema_sql(name, file);
    char *p;

    memset(d, 0, sizeof(*d));
    if (n > DB_MAX_STMTS)
        return err_set(e, E_FAIL, "too many statements (%d, at most %d)", n, DB_MAX_STMTS);
    if (!src)
        return err_set(e, E_USAGE, "unknown SQL dialect '%s' (no schema/%s/%s.sql)", name,
                       name, file);
    snprintf(d->name, sizeof(d->name), "%s", name);
    d->text = strdup(src);
    if (!d->text)
        return err_set(e, E_FAIL, "out of memory");

    /* Each block runs from its "-- name: X" line to the next one. */
    p = d->text;
    while ((p = strstr(p, "-- name: ")) != NULL) {
        char *nm = p + 9, *eol = strchr(nm, '\n'), *body, *next;
        if (!eol)
            break;
        *eol = '\0';
        body = eol + 1;
        next = strstr(body, "-- name: ");
        if (next)
            next[-1] = '\0'; /* the newline before the next marker */
        for (char *t = body + strlen(body); t > body && (t[-1] == '\n' || t[-1] == ' ' ||
                                                         t[-1] == ';');)
            *--t = '\0';
        for (int i = 0; i < n; i++)
            if (strcmp(names[i], nm) == 0) {
                d->sql[i] = body;
                d->nparams[i] = count_params(body);
            }
        if (!next)
            break;
        p = next;
    }
    for (int i = 0; i < n; i++)
        if (!d->sql[i]) {
            int id = i;
            dialect_release(d);
            return err_set(e, E_FAIL, "dialect '%s' lacks statement '%s'", name, names[id]);
        }
    return 0;
}

void dialect_release(struct dialect *d)
{
    free(d->text);
    memset(d, 0, sizeof(*d));
}

int sql_split(const char *script, int (*fn)(const char *stmt, void *arg), void *arg)
{
    const char *p = script;
    char *buf = malloc(strlen(script) + 1);
    size_t n = 0;
    int rc = 0;

    if (!buf)
        return -1;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *s = p;
        size_t l = len;

        while (l && (*s == ' ' || *s == '\t'))
            s++, l--;
        if (!(l >= 2 && s[0] == '-' && s[1] == '-')) {
            memcpy(buf + n, p, len);
            n += len;
            buf[n++] = '\n';
            while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
                l--;
            if (l && s[l - 1] == ';') {
                buf[n] = '\0';
                /* Skip statements that are only whitespace. */
                if (strspn(buf, " \t\r\n;") != n && (rc = fn(buf, arg)) != 0)
                    break;
                n = 0;
            }
        }
        p += len + (eol ? 1 : 0);
    }
    if (!rc && n) {
        buf[n] = '\0';
        if (strspn(buf, " \t\r\n;") != n)
            rc = fn(buf, arg);
    }
    free(buf);
    return rc;
}
