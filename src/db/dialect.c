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

int dialect_for_dbms(const char *dbms, char *out, size_t cap)
{
    if (dbms && strcasestr(dbms, "postgres"))
        snprintf(out, cap, "postgresql");
    else if (dbms && (strcasestr(dbms, "mysql") || strcasestr(dbms, "mariadb")))
        snprintf(out, cap, "mysql");
    else {
        snprintf(out, cap, "ansi"); /* schema/ansi/: standard SQL only */
        return 1;
    }
    return 0;
}

int sql_to_qmark(const char *sql, char *out, size_t cap, unsigned char *map, int map_cap)
{
    size_t n = 0;
    int nq = 0;

    for (const char *p = sql; *p; p++) {
        if (n + 2 >= cap)
            return -1;
        if (*p == '\'') { /* copy string literals as they are */
            out[n++] = *p++;
            while (*p && *p != '\'' && n + 2 < cap)
                out[n++] = *p++;
            if (!*p)
                break;
            out[n++] = *p;
            continue;
        }
        if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
            char *end;
            long v = strtol(p + 1, &end, 10);
            if (nq >= map_cap || v > 255)
                return -1;
            map[nq++] = (unsigned char)v;
            out[n++] = '?';
            p = end - 1;
            continue;
        }
        out[n++] = *p;
    }
    out[n] = '\0';
    return nq;
}

/* Renumber $n densely in order of first appearance: "$3 .. $1 .. $3" becomes
 * "$1 .. $2 .. $1" with map {3, 1}. */
static int sql_dense_dollar(const char *sql, char *out, size_t cap, unsigned char *map,
                            int map_cap)
{
    size_t n = 0;
    int nd = 0;

    for (const char *p = sql; *p; p++) {
        if (n + 8 >= cap)
            return -1;
        if (*p == '\'') {
            out[n++] = *p++;
            while (*p && *p != '\'' && n + 2 < cap)
                out[n++] = *p++;
            if (!*p)
                break;
            out[n++] = *p;
            continue;
        }
        if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
            char *end;
            long v = strtol(p + 1, &end, 10);
            int j;
            for (j = 0; j < nd && map[j] != v; j++)
                ;
            if (j == nd) {
                if (nd >= map_cap || v > 255)
                    return -1;
                map[nd++] = (unsigned char)v;
            }
            n += (size_t)snprintf(out + n, cap - n, "$%d", j + 1);
            p = end - 1;
            continue;
        }
        out[n++] = *p;
    }
    out[n] = '\0';
    return nd;
}

struct split_ctx {
    struct dialect *d;
    int id;
    int failed;
};

/* One statement of a block: keep both placeholder forms. */
static int add_sub(const char *stmt, void *arg)
{
    struct split_ctx *x = arg;
    struct dialect *d = x->d;
    struct dialect_sub *sb;
    size_t cap = strlen(stmt) * 2 + 64;
    size_t len;

    if (d->nsub[x->id] >= DB_MAX_SUB)
        return x->failed = -1;
    sb = &d->sub[x->id][d->nsub[x->id]];
    sb->dollar = malloc(cap);
    sb->qmark = malloc(cap);
    if (!sb->dollar || !sb->qmark)
        return x->failed = -1;
    sb->nd = sql_dense_dollar(stmt, sb->dollar, cap, sb->dmap, DB_MAX_PARAMS);
    sb->nq = sql_to_qmark(stmt, sb->qmark, cap, sb->qmap, DB_MAX_PARAMS);
    if (sb->nd < 0 || sb->nq < 0)
        return x->failed = -1;
    /* Drop the final ";" and blank tail: drivers take one statement. */
    for (char *t = sb->dollar; t; t = t == sb->dollar ? sb->qmark : NULL) {
        len = strlen(t);
        while (len && (t[len - 1] == '\n' || t[len - 1] == ' ' || t[len - 1] == ';'))
            t[--len] = '\0';
    }
    d->nsub[x->id]++;
    return 0;
}

/* The "-- absent: NAME: REASON" lines of src into d->absent (the ids of names). */
static void read_absent(struct dialect *d, const char *src, const char *const *names, int n)
{
    for (const char *p = src; (p = strstr(p, "-- absent: ")) != NULL; p++) {
        const char *nm = p + 11, *colon = strchr(nm, ':'), *eol = strchr(nm, '\n');
        if (!colon || (eol && colon > eol))
            continue;
        for (int i = 0; i < n; i++) {
            const char *want = names[i][0] == '?' ? names[i] + 1 : names[i];
            long len = (long)((eol ? eol : colon + strlen(colon)) - colon) - 2;
            if (strlen(want) == (size_t)(colon - nm) && strncmp(want, nm, (size_t)(colon - nm)) == 0)
                snprintf(d->absent[i], sizeof(d->absent[i]), "%.*s", len > 0 ? (int)len : 0,
                         len > 0 ? colon + 2 : "");
        }
    }
}

int dialect_absent(const struct dialect *d, int id, struct err *e)
{
    return err_set(e, E_USAGE, "'%s' is not available in the %s dialect%s%s",
                   d->names[id] ? d->names[id] : "?", d->name, d->absent[id][0] ? ": " : "",
                   d->absent[id]);
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
            if (strcmp(names[i][0] == '?' ? names[i] + 1 : names[i], nm) == 0) {
                d->sql[i] = body;
                d->names[i] = nm;
                d->nparams[i] = count_params(body);
            }
        if (!next)
            break;
        p = next;
    }
    read_absent(d, src, names, n);
    for (int i = 0; i < n; i++) {
        struct split_ctx x = { .d = d, .id = i, .failed = 0 };
        if (!d->sql[i] && names[i][0] == '?') {
            d->names[i] = names[i] + 1;
            if (!d->absent[i][0])
                snprintf(d->absent[i], sizeof(d->absent[i]), "schema/%s/%s.sql has no '%s'",
                         name, file, names[i] + 1);
            continue;
        }
        if (!d->sql[i]) {
            int id = i;
            if (d->absent[id][0]) {
                d->names[id] = names[id];
                dialect_absent(d, id, e);
                dialect_release(d);
                return e->code;
            }
            dialect_release(d);
            return err_set(e, E_FAIL, "dialect '%s' lacks statement '%s'", name, names[id]);
        }
        if (sql_split(d->sql[i], add_sub, &x) != 0 || x.failed || d->nsub[i] == 0) {
            int id = i;
            dialect_release(d);
            return err_set(e, E_FAIL, "dialect '%s': statement '%s' has no SQL, more than %d "
                                      "statements or too many parameters",
                           name, names[id], DB_MAX_SUB);
        }
    }
    return 0;
}

void dialect_release(struct dialect *d)
{
    for (int i = 0; i < DB_MAX_STMTS; i++)
        for (int k = 0; k < d->nsub[i]; k++) {
            free(d->sub[i][k].dollar);
            free(d->sub[i][k].qmark);
        }
    free(d->text);
    memset(d, 0, sizeof(*d));
}

int sql_split(const char *script, int (*fn)(const char *stmt, void *arg), void *arg)
{
    const char *p = script;
    char *buf = malloc(strlen(script) + 2); /* each line gets its newline back */
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
