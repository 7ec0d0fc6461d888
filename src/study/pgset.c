/*
 * pgset.c - server settings of a study (see pgset.h).  The pure value check
 * mirrors what PostgreSQL's guc.c accepts for the common cases (numbers with
 * memory and time units, booleans and their prefixes, enum values); a
 * setting a session may change is judged by the server itself instead.
 */
#include "study/pgset.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const pgset_names[PGS_NSTMTS] = {
    "study_setting",   "study_try", "study_alter_set", "study_alter_reset", "study_reload",
    "study_conf_time", "study_db",  "study_drop_db",   "study_create_db",   "study_rename_db",
};

int pgset_dialect_load(struct dialect *d, const char *name, struct err *e)
{
    return dialect_load(d, name, "admin", pgset_names, PGS_NSTMTS, e);
}

static void col_copy(struct db_conn *c, int col, char *out, size_t size)
{
    int len = 0;
    const char *t = db_col_isnull(c, col) ? NULL : db_col_text(c, col, &len);

    if (!t || len < 0)
        len = 0;
    if ((size_t)len >= size)
        len = (int)size - 1;
    memcpy(out, t ? t : "", (size_t)len);
    out[len] = '\0';
}

static void drain(struct db_conn *c)
{
    while (db_next(c) > 0)
        ;
}

int pgset_lookup(struct db_conn *c, const struct dialect *d, const char *name,
                 struct pgset_info *out, struct err *e)
{
    struct db_param p[1] = { DBP_TEXT(name) };
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = db_query(c, d->sql[PGS_SETTING], p, 1, e)) < 0)
        return rc;
    if (db_next(c) <= 0)
        return 1;
    col_copy(c, 0, out->name, sizeof(out->name));
    col_copy(c, 1, out->setting, sizeof(out->setting));
    col_copy(c, 2, out->unit, sizeof(out->unit));
    col_copy(c, 3, out->vartype, sizeof(out->vartype));
    col_copy(c, 4, out->context, sizeof(out->context));
    col_copy(c, 5, out->min_val, sizeof(out->min_val));
    col_copy(c, 6, out->max_val, sizeof(out->max_val));
    col_copy(c, 7, out->enumvals, sizeof(out->enumvals));
    drain(c);
    return 0;
}

/* Size of a unit in bytes (memory) or microseconds (time); *kind 'm' or 't'; 0 when unknown. */
static double unit_size(const char *u, int *kind)
{
    static const struct {
        const char *name;
        char kind;
        double size;
    } units[] = {
        { "B", 'm', 1.0 },
        { "kB", 'm', 1024.0 },
        { "MB", 'm', 1048576.0 },
        { "GB", 'm', 1073741824.0 },
        { "TB", 'm', 1099511627776.0 },
        { "us", 't', 1.0 },
        { "ms", 't', 1e3 },
        { "s", 't', 1e6 },
        { "min", 't', 6e7 },
        { "h", 't', 3.6e9 },
        { "d", 't', 8.64e10 },
    };
    double mult = 1.0;
    char *end;

    /* A setting's unit may carry a multiple: "8kB", "16MB". */
    if (isdigit((unsigned char)*u)) {
        mult = strtod(u, &end);
        u = end;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (!strcmp(u, units[i].name)) {
            *kind = units[i].kind;
            return mult * units[i].size;
        }
    *kind = 0;
    return 0.0;
}

/* Whether word is one of the comma-separated list (case-insensitive). */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);

    while (*list) {
        size_t k = strcspn(list, ",");
        if (k == n && !strncasecmp(list, word, n))
            return 1;
        list += k + (list[k] == ',');
    }
    return 0;
}

/* PostgreSQL's parse_bool: on, off, 1, 0, and any prefix of true, false, yes, no. */
static int bool_ok(const char *v)
{
    size_t n = strlen(v);

    if (!n)
        return 0;
    if (!strcasecmp(v, "on") || !strcasecmp(v, "off") || !strcasecmp(v, "of") || !strcmp(v, "1") ||
        !strcmp(v, "0"))
        return 1;
    return !strncasecmp(v, "true", n) || !strncasecmp(v, "false", n) || !strncasecmp(v, "yes", n) ||
           !strncasecmp(v, "no", n);
}

int pgset_value_ok(const struct pgset_info *in, const char *value, struct err *e)
{
    if (!strcmp(in->vartype, "bool")) {
        if (!bool_ok(value))
            return err_set(e, E_USAGE, "must be on or off (got \"%.64s\")", value);
        return 0;
    }
    if (!strcmp(in->vartype, "enum")) {
        if (!in_list(in->enumvals, value))
            return err_set(e, E_USAGE, "must be one of %s (got \"%.64s\")", in->enumvals, value);
        return 0;
    }
    if (!strcmp(in->vartype, "integer") || !strcmp(in->vartype, "real")) {
        double v, lo, hi;
        char *end, what[160];
        int ukind = 0, skind = 0;

        errno = 0;
        v = strtod(value, &end);
        if (end == value || errno == ERANGE || isnan(v) || isinf(v))
            goto bad;
        while (*end == ' ')
            end++;
        if (*end) {
            double us = unit_size(end, &ukind), ss = in->unit[0] ? unit_size(in->unit, &skind) : 0;
            if (!us || !ss || ukind != skind)
                goto bad;
            v = v * us / ss;
        }
        if (!strcmp(in->vartype, "integer"))
            v = round(v);
        lo = strtod(in->min_val, NULL);
        hi = strtod(in->max_val, NULL);
        if (in->min_val[0] && in->max_val[0] && (v < lo || v > hi))
            return err_set(e, E_USAGE, "must be from %s to %s%s%s (got \"%.64s\")", in->min_val,
                           in->max_val, in->unit[0] ? " x " : "", in->unit, value);
        return 0;
    bad:
        snprintf(what, sizeof(what), "%s%s%s",
                 !strcmp(in->vartype, "integer") ? "an integer" : "a number",
                 in->unit[0] ? " with a unit such as " : "",
                 !in->unit[0]                                  ? ""
                 : unit_size(in->unit, &skind) && skind == 'm' ? "8MB or 1GB"
                                                               : "200ms or 5min");
        return err_set(e, E_USAGE, "must be %s (got \"%.64s\")", what, value);
    }
    return 0; /* a string: the server judges it when it is set */
}

int pgset_check(struct db_conn *c, const struct dialect *d, const struct pgset_info *in,
                const char *value, struct err *e)
{
    struct db_param p[2] = { DBP_TEXT(in->name), DBP_TEXT(value) };
    struct err scratch;
    int rc;

    if (strcmp(in->context, "user") != 0 && strcmp(in->context, "superuser") != 0)
        return pgset_value_ok(in, value, e);
    if ((rc = db_begin(c, e)) < 0)
        return rc;
    rc = db_query(c, d->sql[PGS_TRY], p, 2, e);
    if (rc == 0)
        drain(c);
    db_rollback(c, &scratch);
    if (rc < 0 && e->code != E_CONN) {
        /* The server's own words: "invalid value for parameter ...: ..." */
        char msg[sizeof(e->msg)];
        snprintf(msg, sizeof(msg), "%s", e->msg);
        return err_set(e, E_USAGE, "the server refuses it: %s", msg);
    }
    return rc;
}

/* Run the statement text the server built (format('ALTER SYSTEM ...')). */
static int exec_built(struct db_conn *c, const char *sql, const struct db_param *p, int np,
                      struct err *e)
{
    char text[1024];
    int rc;

    if ((rc = db_query(c, sql, p, np, e)) < 0)
        return rc;
    if (db_next(c) <= 0)
        return err_set(e, E_FAIL, "the server built no statement");
    col_copy(c, 0, text, sizeof(text));
    drain(c);
    return db_exec_sql(c, text, e);
}

int pgset_alter(struct db_conn *c, const struct dialect *d, const char *name, const char *value,
                struct err *e)
{
    struct db_param p[2] = { DBP_TEXT(name), DBP_TEXT(value ? value : "") };

    return exec_built(c, d->sql[value ? PGS_ALTER_SET : PGS_ALTER_RESET], p, value ? 2 : 1, e);
}

int pgset_reload(struct db_conn *c, const struct dialect *d, double *t_before, struct err *e)
{
    char t[64];
    int rc;

    if ((rc = db_query(c, d->sql[PGS_RELOAD], NULL, 0, e)) < 0)
        return rc;
    if (db_next(c) <= 0)
        return err_set(e, E_FAIL, "pg_reload_conf() returned no row");
    col_copy(c, 1, t, sizeof(t));
    drain(c);
    *t_before = strtod(t, NULL);
    return 0;
}

int pgset_conf_state(struct db_conn *c, const struct dialect *d, double *t_loaded, char *pending,
                     size_t len, struct err *e)
{
    char t[64];
    int rc;

    if ((rc = db_query(c, d->sql[PGS_CONF_TIME], NULL, 0, e)) < 0)
        return rc;
    if (db_next(c) <= 0)
        return err_set(e, E_FAIL, "pg_settings returned no row");
    col_copy(c, 0, t, sizeof(t));
    col_copy(c, 1, pending, len);
    drain(c);
    *t_loaded = strtod(t, NULL);
    return 0;
}
