/*
 * loader.c - the parallel loader.
 *
 * Phases: schema (one connection), copy (o->jobs connections pull work units
 * (table, warehouse) from a shared counter, biggest first, each one bulk load
 * committed on its own), index (the same connections pull statements of
 * indexes.sql), analyze.  Threads share only the counters below (and the
 * caller's struct load_live), updated with atomics once per buffer, never
 * per row.  A part of a load of several (o->parts > 1) meets the others
 * through loadpart.c in the schema phase (part 1 creates the plan, the
 * others wait for it and join) and after its copy (the last builds the
 * indexes); what it loads is only the units of its range.
 */
#include "tpcc/loader.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/progress.h"
#include "core/signals.h"
#include "db/dialect.h"
#include "db/schema_sql.h"
#include "tpcc/admin.h"
#include "tpcc/loadpart.h"

#define LOAD_BUF_BYTES (256 * 1024)
#define MAX_STMTS      64
#define DROP_TRIES     5 /* a drop statement chosen as a deadlock's victim, at most */

/* A unit of the copy: one table's rows of warehouse w (item: w = 0), or
 * with whole every row of the table in the load's range, in a transaction
 * that empties the table first (DB_BULK_TRUNCATE) so its COPY may FREEZE. */
struct unit {
    int table;
    int w;
    int whole;
};

/* The steps of an earlier, failed load (load --resume). */
struct done_steps {
    char **names;
    int n, cap;
};

static int done_has(const struct done_steps *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->names[i], name) == 0)
            return 1;
    return 0;
}

static void done_release(struct done_steps *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->names[i]);
    free(d->names);
    memset(d, 0, sizeof(*d));
}

const char *load_phase_name(int phase)
{
    static const char *const names[LOAD_NPHASES] = { "connect", "schema",  "copy",
                                                     "index",   "analyze", "done" };

    return phase >= 0 && phase < LOAD_NPHASES ? names[phase] : "unknown";
}

/* A live counter: add n when the caller watches. */
static void live_add(int64_t *p, int64_t n)
{
    __atomic_add_fetch(p, n, __ATOMIC_RELAXED);
}

static void set_phase(const struct load_opts *o, struct load_stats *st, int phase)
{
    snprintf(st->phase, sizeof(st->phase), "%s", load_phase_name(phase));
    if (o->live)
        __atomic_store_n(&o->live->phase, phase, __ATOMIC_RELAXED);
}

static void unit_step(const struct unit *u, char *buf, size_t len)
{
    if (u->whole)
        snprintf(buf, len, "copy:%s", tpcc_table_name(u->table));
    else
        snprintf(buf, len, "copy:%s:%d", tpcc_table_name(u->table), u->w);
}

/* State shared by the job threads of one phase. */
struct load_shared {
    const struct load_opts *o;
    struct gen_ctx gen;
    struct db_conn **conns;
    struct unit *units;
    int nunits;
    int how;                  /* DB_BULK_* of every unit (whole ones add TRUNCATE, FREEZE) */
    int whole_tables;         /* 1: a unit per table where no step of it committed before */
    int w_first, w_last;      /* the warehouses a whole unit loads */
    const char *stmts[MAX_STMTS]; /* index or analyze statements */
    int nstmts;
    const char *step_kind;    /* "index": record each statement as a step; NULL: don't */
    int stmt_done[MAX_STMTS]; /* 1: committed by an earlier load (resume) */
    struct dialect ad;        /* admin statements (step_insert) */
    struct dialect lp;        /* load_parts.sql (parts > 1) */
    int64_t load_epoch;       /* the load's dates (seconds since 1970), kept in its plan row
                               * so a resumed load writes the same ones */
    char date[24];            /* the rows' date as text: of load_epoch, or of the plan of
                               * the parts (as part 1 wrote it) */
    int next;                 /* next unit/statement to take (atomic) */
    int64_t rows_done;        /* atomic, for progress */
    int ndone;                /* jobs finished with the phase (atomic) */
    int abort;                /* atomic: stop taking work */
    pthread_mutex_t lock;     /* guards err and the per-table sums below */
    struct err err;           /* the first failure */
    double table_s[T_NTABLES];
    int64_t rows[T_NTABLES];
    int64_t bytes;
    int64_t rows_binary, rows_whole; /* rows committed by those paths */
};

struct job {
    struct load_shared *sh;
    int id;
    pthread_t thread;
};

static void fail_shared(struct load_shared *sh, const struct err *e)
{
    pthread_mutex_lock(&sh->lock);
    if (sh->err.code == E_OK) {
        sh->err = *e;
        /* Jobs that wait on each other's locks (SQLite: one writer at a
         * time) fail as a busy error: say what to change. */
        if (e->code == E_RETRY && sh->o->jobs > 1) {
            size_t n = strlen(sh->err.msg);
            snprintf(sh->err.msg + n, sizeof(sh->err.msg) - n,
                     "; the load's %d jobs held each other's locks: a DBMS that takes one "
                     "writer at a time needs load.jobs: 1 (--jobs 1)",
                     sh->o->jobs);
        }
    }
    pthread_mutex_unlock(&sh->lock);
    __atomic_store_n(&sh->abort, 1, __ATOMIC_RELAXED);
}

struct put_arg {
    struct load_shared *sh;
    int table;
    struct db_conn *c;
    struct err *e;
    int64_t rows_reported;
    struct gen_sink *sink;
};

static int put_rows(void *arg, const char *buf, size_t len)
{
    struct put_arg *a = arg;
    int rc;

    if (sig_stop_requested())
        return err_set(a->e, E_INTR, "interrupted");
    if (__atomic_load_n(&a->sh->abort, __ATOMIC_RELAXED))
        return err_set(a->e, E_FAIL, "stopped after another job failed");
    if ((rc = db_bulk_put(a->c, buf, len, a->e)) < 0)
        return rc;
    __atomic_add_fetch(&a->sh->rows_done, a->sink->rows - a->rows_reported, __ATOMIC_RELAXED);
    if (a->sh->o->live)
        live_add(&a->sh->o->live->rows_sent[a->table], a->sink->rows - a->rows_reported);
    a->rows_reported = a->sink->rows;
    return 0;
}

/* Record step (in the transaction open on c) and commit. */
static int step_commit(struct load_shared *sh, struct db_conn *c, const char *step, int64_t rows,
                       struct err *e)
{
    struct db_param p[6] = {
        DBP_TEXT(step), DBP_INT(sh->o->warehouses), DBP_INT((int64_t)sh->o->seed),
        DBP_INT(rows),  DBP_INT(sh->load_epoch),    DBP_INT(sh->o->part_k)
    };
    int parts = sh->o->parts > 1;
    int rc;

    /* A part's steps say which part committed them. */
    if ((rc = db_query(c, parts ? sh->lp.sql[LP_STEP] : sh->ad.sql[A_STEP_INSERT], p, parts ? 6 : 5,
                       e)) < 0)
        return err_prefix(e, "recording load step %s", step);
    if ((rc = db_commit(c, e)) == 0 && sh->o->live)
        live_add(&sh->o->live->steps, 1);
    return rc;
}

/* The rows of unit u into the COPY open on the sink's connection, with the
 * binary format's header and trailer. */
static int unit_rows(struct load_shared *sh, const struct unit *u, struct gen_sink *sink)
{
    int rc = 0;

    gen_copy_begin(sink);
    if (!u->whole || u->table == T_ITEM)
        rc = gen_table(&sh->gen, u->table, u->w, sink);
    for (int w = sh->w_first; u->whole && u->table != T_ITEM && w <= sh->w_last && rc == 0; w++)
        rc = gen_table(&sh->gen, u->table, w, sink);
    return rc ? rc : gen_copy_end(sink);
}

static int load_unit(struct load_shared *sh, struct db_conn *c, char *buf, const struct unit *u,
                     struct err *e)
{
    char step[64];

    struct gen_sink sink = { .buf = buf, .cap = LOAD_BUF_BYTES };
    struct put_arg pa = { .sh = sh, .table = u->table, .c = c, .e = e, .sink = &sink };
    int how = sh->how | (u->whole ? DB_BULK_TRUNCATE | DB_BULK_FREEZE : 0);
    uint64_t t0 = clock_us();
    int rc;

    unit_step(u, step, sizeof(step));
    sink.put = put_rows;
    sink.arg = &pa;
    sink.binary = (how & DB_BULK_BINARY) != 0;
    if ((rc = db_begin(c, e)) < 0 ||
        (rc = db_bulk_begin_how(c, tpcc_table_name(u->table), tpcc_table_columns(u->table), how,
                                e)) < 0) {
        struct err ignore;
        db_rollback(c, &ignore);
        return err_prefix(e, "loading %s", tpcc_table_name(u->table));
    }
    rc = unit_rows(sh, u, &sink);
    if (rc < 0) {
        struct err ignore;
        db_bulk_end(c, 1, &ignore);
        db_rollback(c, &ignore);
        if (rc != E_INTR && u->whole)
            err_prefix(e, "loading %s", tpcc_table_name(u->table));
        else if (rc != E_INTR)
            err_prefix(e, "loading %s (warehouse %d)", tpcc_table_name(u->table), u->w);
        return rc;
    }
    /* The rows and the step's record commit together: all or nothing. */
    if ((rc = db_bulk_end(c, 0, e)) < 0 || (rc = step_commit(sh, c, step, sink.rows, e)) < 0) {
        struct err ignore;
        db_rollback(c, &ignore);
        return u->whole ? err_prefix(e, "loading %s", tpcc_table_name(u->table))
                        : err_prefix(e, "loading %s (warehouse %d)", tpcc_table_name(u->table),
                                     u->w);
    }
    pthread_mutex_lock(&sh->lock);
    sh->table_s[u->table] += (double)(clock_us() - t0) / 1e6;
    sh->rows[u->table] += sink.rows;
    sh->bytes += sink.bytes;
    sh->rows_binary += sink.binary ? sink.rows : 0;
    sh->rows_whole += u->whole ? sink.rows : 0;
    pthread_mutex_unlock(&sh->lock);
    if (sh->o->live)
        live_add(&sh->o->live->rows[u->table], sink.rows);
    return 0;
}

static void *copy_job(void *arg)
{
    struct job *j = arg;
    struct load_shared *sh = j->sh;
    char *buf = malloc(LOAD_BUF_BYTES);
    struct err e;
    int i;

    err_clear(&e);
    if (!buf)
        err_set(&e, E_FAIL, "out of memory");
    while (buf && !__atomic_load_n(&sh->abort, __ATOMIC_RELAXED) &&
           (i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED)) < sh->nunits) {
        if (load_unit(sh, sh->conns[j->id], buf, &sh->units[i], &e) < 0)
            break;
    }
    if (e.code != E_OK)
        fail_shared(sh, &e);
    free(buf);
    __atomic_add_fetch(&sh->ndone, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *stmt_job(void *arg)
{
    struct job *j = arg;
    struct load_shared *sh = j->sh;
    struct err e;
    int i;

    err_clear(&e);
    while (!__atomic_load_n(&sh->abort, __ATOMIC_RELAXED) && !sig_stop_requested() &&
           (i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED)) < sh->nstmts) {
        /* Each statement its own transaction: drivers without autocommit
         * (ODBC) would otherwise hold its locks until the end of the phase. */
        struct db_conn *c = sh->conns[j->id];
        char step[32];
        int rc;
        if (sh->stmt_done[i]) {
            __atomic_add_fetch(&sh->rows_done, 1, __ATOMIC_RELAXED);
            continue;
        }
        snprintf(step, sizeof(step), "%s:%d", sh->step_kind ? sh->step_kind : "", i);
        if ((rc = db_begin(c, &e)) == 0 && (rc = db_exec_sql(c, sh->stmts[i], &e)) == 0)
            rc = sh->step_kind ? step_commit(sh, c, step, 0, &e) : db_commit(c, &e);
        if (rc < 0) {
            struct err ignore;
            db_rollback(c, &ignore);
            err_prefix(&e, "%.60s", sh->stmts[i]);
            fail_shared(sh, &e);
            break;
        }
        __atomic_add_fetch(&sh->rows_done, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&sh->ndone, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Run fn on every job connection; show progress until all are done. */
static int run_phase(struct load_shared *sh, void *(*fn)(void *), const char *name, int64_t total,
                     const char *unit, struct err *e)
{
    const struct load_opts *o = sh->o;
    struct job *jobs = calloc((size_t)o->jobs, sizeof(*jobs));
    struct progress pr;
    int started = 0, cancelled = 0;

    if (!jobs)
        return err_set(e, E_FAIL, "out of memory");
    sh->next = 0;
    sh->ndone = 0;
    sh->rows_done = 0;
    if (o->live) {
        __atomic_store_n(&o->live->phase_done, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&o->live->phase_total, total, __ATOMIC_RELAXED);
    }
    if (o->progress) {
        progress_init(&pr, o->progress);
        progress_phase(&pr, name, total, unit);
    }
    for (int i = 0; i < o->jobs; i++) {
        jobs[i].sh = sh;
        jobs[i].id = i;
        if (pthread_create(&jobs[i].thread, NULL, fn, &jobs[i]) != 0) {
            struct err pe;
            err_set(&pe, E_FAIL, "cannot start loader thread");
            fail_shared(sh, &pe);
            break;
        }
        started++;
    }
    while (__atomic_load_n(&sh->ndone, __ATOMIC_ACQUIRE) < started) {
        clock_sleep_us(100000);
        /* A stop: ask the server to cancel what the jobs wait for (an index
         * build can take minutes); a COPY also stops at its next buffer. */
        if (!cancelled && sig_stop_requested()) {
            for (int i = 0; i < o->jobs; i++)
                db_cancel(sh->conns[i]);
            cancelled = 1;
        }
        if (o->progress)
            progress_update(&pr, __atomic_load_n(&sh->rows_done, __ATOMIC_RELAXED));
        if (o->live)
            __atomic_store_n(&o->live->phase_done,
                             __atomic_load_n(&sh->rows_done, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    }
    if (o->live)
        __atomic_store_n(&o->live->phase_done, __atomic_load_n(&sh->rows_done, __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
    for (int i = 0; i < started; i++)
        pthread_join(jobs[i].thread, NULL);
    free(jobs);
    if (sh->err.code == E_OK && sig_stop_requested())
        err_set(&sh->err, E_INTR, "interrupted during %s", name);
    if (sh->err.code != E_OK) {
        if (o->progress && pr.tty)
            fputc('\n', o->progress);
        *e = sh->err;
        return e->code;
    }
    if (o->progress)
        progress_done(&pr, sh->rows_done);
    return 0;
}

struct split_arg {
    struct load_shared *sh;
    char *owned[MAX_STMTS];
};

static int collect_stmt(const char *stmt, void *arg)
{
    struct split_arg *a = arg;

    if (a->sh->nstmts >= MAX_STMTS)
        return -1;
    a->owned[a->sh->nstmts] = strdup(stmt);
    if (!a->owned[a->sh->nstmts])
        return -1;
    a->sh->stmts[a->sh->nstmts] = a->owned[a->sh->nstmts];
    a->sh->nstmts++;
    return 0;
}

struct exec_arg {
    struct db_conn *c;
    struct err *e;
};

static int exec_one(const char *stmt, void *arg)
{
    struct exec_arg *a = arg;

    return db_exec_sql(a->c, stmt, a->e) < 0 ? -1 : 0;
}

/* Run one piece of procedures.sql unless it holds only comments and blanks. */
static int exec_piece(struct db_conn *c, const char *start, size_t len, struct err *e)
{
    char *piece = strndup(start, len);
    const char *p = piece;
    int has_sql = 0, rc = 0;

    if (!piece)
        return err_set(e, E_FAIL, "out of memory");
    while (*p && !has_sql) {
        p += strspn(p, " \t\r\n");
        if (p[0] == '-' && p[1] == '-')
            p += strcspn(p, "\n");
        else if (*p)
            has_sql = 1;
    }
    if (has_sql)
        rc = db_exec_sql(c, piece, e);
    free(piece);
    return rc;
}

int load_install_procedures(struct db_conn *c, const char *dialect, struct err *e)
{
    const char *procs = schema_sql(dialect, "procedures"), *p, *mark;
    int rc;

    if (!procs)
        return 0;
    /* Pieces separated by a line "-- go" run one by one (a dialect whose
     * driver takes one statement per call); without the marker the file is
     * one script (PostgreSQL: the function bodies hold semicolons). */
    for (p = procs; (mark = strstr(p, "\n-- go\n")) != NULL; p = mark + 7)
        if ((rc = exec_piece(c, p, (size_t)(mark - p), e)) < 0)
            return err_prefix(e, "installing the server-side functions");
    if ((rc = exec_piece(c, p, strlen(p), e)) < 0)
        return err_prefix(e, "installing the server-side functions");
    return 0;
}

/* The nine TPC-C tables, then the load's bookkeeping. */
static const char *const schema_names[] = { "warehouse", "district", "customer",
                                            "history",   "new_order", "orders",
                                            "order_line", "item",    "stock",
                                            "tpcc_meta", "tpcc_load_step" };
#define N_TPCC_TABLES 9

/* Tables of the TPC-C schema present on connection c (0..9), from the
 * driver's catalog (ODBC: SQLTables) or the dialect's schema_tables (libpq);
 * *bookkeeping (when not NULL): 1 when tpcc_meta and tpcc_load_step are
 * both there, 0 when not, -1 when the catalog cannot tell. */
static int count_tables(struct load_shared *sh, struct db_conn *c, int64_t *n, int *bookkeeping,
                        struct err *e)
{
    int found[sizeof(schema_names) / sizeof(schema_names[0])] = { 0 }, nf = 0, rc;

    *n = 0;
    rc = db_tables(c, sh->ad.sql[A_SCHEMA_TABLES], schema_names,
                   c->ops->tables ? (int)(sizeof(found) / sizeof(found[0])) : N_TPCC_TABLES, found,
                   &nf, e);
    if (rc < 0)
        return rc;
    if (!c->ops->tables) {
        *n = nf;
        if (bookkeeping)
            *bookkeeping = -1;
        return 0;
    }
    for (int i = 0; i < N_TPCC_TABLES; i++)
        *n += found[i];
    if (bookkeeping)
        *bookkeeping = found[N_TPCC_TABLES] && found[N_TPCC_TABLES + 1];
    return 0;
}

/* The standard types a dialect's tables.sql names on its line "-- types:
 * A B C", each one the DBMS must report (ODBC: SQLGetTypeInfo): else
 * E_USAGE naming the type, before a table is created. */
static int check_types(struct db_conn *c, const char *dialect, const char *tables,
                       struct err *e)
{
    const char *line = strstr(tables, "-- types: ");
    const char *names[16];
    char buf[256];
    int n = 0, found[16];

    if (!line)
        return 0;
    snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(line + 10, "\n"), line + 10);
    for (char *t = buf; *t && n < 16;) {
        size_t len = strcspn(t, " ");
        if (len)
            names[n++] = t;
        t += len;
        while (*t == ' ')
            *t++ = '\0';
    }
    if (db_types(c, names, n, found, e) < 0)
        return err_prefix(e, "reading the DBMS's types");
    for (int i = 0; i < n; i++)
        if (!found[i])
            return err_set(e, E_USAGE,
                           "the %s dialect's tables need type %s, which DBMS '%s' does not "
                           "report (SQLGetTypeInfo): use a dialect of its own (schema.dialect)",
                           dialect, names[i], c->server_name);
    return 0;
}

/* 1 when stmt is "DROP TABLE name" and the catalog (ODBC) has no table
 * name: a DBMS whose SQLSTATE for it is generic (SQLite: HY000). */
static int dropped_absent(struct db_conn *c, const char *stmt)
{
    const char *p = stmt + strspn(stmt, " \t\r\n");
    const char *one[1];
    char name[64];
    int found = 0, n = 0;
    struct err ignore;
    size_t len;

    if (!c->ops->tables || strncasecmp(p, "DROP TABLE ", 11) != 0)
        return 0;
    p += 11;
    p += strspn(p, " ");
    len = strcspn(p, " ;\r\n");
    if (len == 0 || len >= sizeof(name))
        return 0;
    memcpy(name, p, len);
    name[len] = '\0';
    one[0] = name;
    return db_tables(c, NULL, one, 1, &found, &n, &ignore) == 0 && n == 0;
}

/* One statement of drop.sql in its own transaction; a table that is not
 * there (undefined table: 42P01, 42S02, or not in the catalog) is passed
 * over, so a partial schema drops even in a dialect without DROP ... IF
 * EXISTS.  A deadlock (a part waiting for the plan reads the bookkeeping
 * tables while part 1 drops them) is tried again: it left nothing behind. */
static int drop_one(const char *stmt, void *arg)
{
    struct exec_arg *a = arg;
    struct err ignore;
    int tries = 0;

    for (;;) {
        if (db_begin(a->c, a->e) == 0 && db_exec_sql(a->c, stmt, a->e) == 0 &&
            db_commit(a->c, a->e) == 0)
            return 0;
        db_rollback(a->c, &ignore);
        if (a->e->code != E_RETRY || ++tries >= DROP_TRIES)
            break;
        err_clear(a->e);
    }
    if (strcmp(a->e->sqlstate, "42P01") == 0 || strcmp(a->e->sqlstate, "42S02") == 0 ||
        dropped_absent(a->c, stmt)) {
        err_clear(a->e);
        return 0;
    }
    return -1;
}

/* Drop (when asked) and create the tables on connection c; record the plan
 * (lp not NULL: part 1's, with part 1 joined, warehouses first..last). */
static int create_schema(struct load_shared *sh, struct db_conn *c, const struct loadpart *lp,
                         int first, int last, struct err *e)
{
    const struct load_opts *o = sh->o;
    struct exec_arg ea = { .c = c, .e = e };
    const char *tables = schema_sql(o->dialect, "tables");
    const char *drop = schema_sql(o->dialect, "drop");
    int64_t n = 0;
    int rc;

    if (!tables || !drop)
        return err_set(e, E_USAGE, "dialect '%s' has no tables.sql/drop.sql", o->dialect);
    if ((rc = count_tables(sh, c, &n, NULL, e)) < 0 ||
        (rc = check_types(c, o->dialect, tables, e)) < 0)
        return rc;
    if (n > 0 && !o->drop)
        return err_set(e, E_USAGE,
                       "the database already holds a TPC-C schema (%lld of 9 tables): "
                       "run 'tpccbench load --drop' to replace it, or 'tpccbench load --resume' "
                       "to continue a load that failed",
                       (long long)n);
    /* One statement at a time: not every driver runs scripts. */
    if (o->drop && n > 0 && sql_split(drop, drop_one, &ea) != 0)
        return err_prefix(e, "dropping the old schema");
    if ((rc = db_begin(c, e)) < 0)
        return rc;
    if (sql_split(tables, exec_one, &ea) != 0) {
        struct err ignore;
        db_rollback(c, &ignore);
        return err_prefix(e, "creating the tables");
    }
    if ((rc = load_install_procedures(c, o->dialect, e)) < 0 ||
        (lp && (rc = loadpart_create(c, &sh->lp, lp, first, last, sh->date, e)) < 0)) {
        struct err ignore;
        db_rollback(c, &ignore);
        return rc;
    }
    return step_commit(sh, c, "plan", 0, e);
}

/* load --resume: what the failed load was (its plan: warehouses, seed) and
 * which of its steps committed.  0 with *fresh = 1 when there is no schema at
 * all (the load starts from the beginning). */
static int read_steps(struct load_shared *sh, struct db_conn *c, struct load_opts *eff,
                      struct done_steps *done, int *fresh, struct err *e)
{
    int64_t n;
    int rc, have_plan = 0, keep = -1;

    *fresh = 0;
    if ((rc = count_tables(sh, c, &n, &keep, e)) < 0)
        return rc;
    if (n == 0) {
        *fresh = 1;
        return 0;
    }
    if (keep == 0)
        return err_set(e, E_USAGE,
                       "cannot resume: the schema has no load bookkeeping (tpcc_meta, "
                       "tpcc_load_step are not both in the catalog); run 'tpccbench load "
                       "--drop' to load again");
    if ((rc = db_query(c, sh->ad.sql[A_META_GET], NULL, 0, e)) < 0)
        return err_prefix(e, "reading tpcc_meta");
    n = db_next(c);
    if ((rc = db_end_reads(c, e)) < 0)
        return rc;
    if (n == 1)
        return err_set(e, E_USAGE,
                       "the load completed already: nothing to resume "
                       "(run 'tpccbench load --drop' to load again)");
    if ((rc = db_query(c, sh->ad.sql[A_STEPS_GET], NULL, 0, e)) < 0)
        return err_set(e, E_USAGE,
                       "cannot resume: the schema has no load steps (%s); run "
                       "'tpccbench load --drop' to load again",
                       e->msg);
    while (db_next(c) == 1) {
        int len;
        const char *name = db_col_text(c, 0, &len);
        if (strncmp(name, "plan", 4) == 0 && len == 4) {
            eff->warehouses = (int)db_col_int(c, 1);
            eff->seed = (uint64_t)db_col_int(c, 2);
            sh->load_epoch = db_col_int(c, 4);
            have_plan = 1;
            continue;
        }
        if (done->n == done->cap) {
            int cap = done->cap ? done->cap * 2 : 64;
            char **nn = realloc(done->names, (size_t)cap * sizeof(*nn));
            if (!nn)
                return err_set(e, E_FAIL, "out of memory");
            done->names = nn;
            done->cap = cap;
        }
        if (!(done->names[done->n] = strndup(name, (size_t)len)))
            return err_set(e, E_FAIL, "out of memory");
        done->n++;
    }
    if ((rc = db_end_reads(c, e)) < 0)
        return rc;
    if (!have_plan || eff->warehouses < 1)
        return err_set(e, E_USAGE,
                       "cannot resume: the failed load left no plan in "
                       "tpcc_load_step; run 'tpccbench load --drop' to load again");
    return 0;
}

/* 1 when done holds a step of table's per-warehouse units ("copy:stock:3"). */
static int done_per_warehouse(const struct done_steps *d, int table)
{
    char prefix[48];
    size_t n = (size_t)snprintf(prefix, sizeof(prefix), "copy:%s:", tpcc_table_name(table));

    for (int i = 0; i < d->n; i++)
        if (strncmp(d->names[i], prefix, n) == 0)
            return 1;
    return 0;
}

/* The bulk-load units of warehouses first..last (and item, with item) not in
 * done; *rows = the rows they will load.  With sh->whole_tables a table is
 * one unit, unless a load before committed steps of it warehouse by
 * warehouse (a resumed load of the text path): those go on as they were. */
static int make_units(struct load_shared *sh, int first, int last, int item,
                      const struct done_steps *done, int64_t *rows)
{
    /* Biggest first, so the last units to finish are small ones. */
    static const int per_wh[] = { T_STOCK,  T_ORDER_LINE, T_CUSTOMER, T_HISTORY,
                                  T_ORDERS, T_NEW_ORDER,  T_DISTRICT, T_WAREHOUSE };
    static const int by_size[] = { T_STOCK,  T_ORDER_LINE, T_CUSTOMER, T_HISTORY,   T_ORDERS,
                                   T_ITEM,   T_NEW_ORDER,  T_DISTRICT, T_WAREHOUSE };
    int n = 0, skipped = 0, whole[T_NTABLES] = { 0 };
    char step[64];

    *rows = 0;
    sh->w_first = first;
    sh->w_last = last;
    for (size_t k = 0; sh->whole_tables && k < sizeof(by_size) / sizeof(by_size[0]); k++) {
        struct unit u = { by_size[k], 0, 1 };
        if (done_per_warehouse(done, u.table) || (u.table == T_ITEM && !item) ||
            (u.table != T_ITEM && last < first))
            continue;
        whole[u.table] = 1;
        unit_step(&u, step, sizeof(step));
        if (done_has(done, step)) {
            skipped++;
            continue;
        }
        sh->units[n++] = u;
        *rows += tpcc_table_rows(u.table, u.table == T_ITEM ? 1 : last - first + 1);
    }
    /* w = 0 stands for the item table; then the warehouses of the range. */
    for (int w = item ? 0 : first; w <= last; w = w ? w + 1 : first)
        for (size_t k = 0; k < (w ? sizeof(per_wh) / sizeof(per_wh[0]) : 1); k++) {
            struct unit u = { w ? per_wh[k] : T_ITEM, w, 0 };
            if (whole[u.table])
                continue;
            unit_step(&u, step, sizeof(step));
            if (done_has(done, step)) {
                skipped++;
                continue;
            }
            sh->units[n++] = u;
            *rows += tpcc_table_rows(u.table, 1);
        }
    sh->nunits = n;
    return skipped;
}

static double since_s(uint64_t t0)
{
    return (double)(clock_us() - t0) / 1e6;
}

/* "warehouses 3-4 of 4", "warehouse 2 of 2", "no warehouse (4 parts, 2 warehouses)". */
static void range_text(const struct load_opts *o, const struct load_stats *st, char *buf,
                       size_t len)
{
    if (st->w_last < st->w_first)
        snprintf(buf, len, "no warehouse (%d parts, %d warehouse%s)", o->parts, o->warehouses,
                 o->warehouses == 1 ? "" : "s");
    else if (st->w_last == st->w_first)
        snprintf(buf, len, "warehouse %d of %d", st->w_first, o->warehouses);
    else
        snprintf(buf, len, "warehouses %d-%d of %d", st->w_first, st->w_last, o->warehouses);
}

/*
 * The schema phase of a part (o->parts > 1).  Part 1 creates the schema and
 * the plan (or, resuming, finds its own plan, or none and starts afresh);
 * every other part, and part 1 resuming, waits for the plan of its run and
 * joins it, then takes the warehouses, seed and date from it.  Resuming, it
 * reads the steps committed before into done, as load --resume does.
 */
static int part_schema(struct load_shared *sh, struct load_opts *eff, struct done_steps *done,
                       struct load_stats *st, struct err *e)
{
    const struct load_opts *o = eff;
    struct db_conn *c = sh->conns[0];
    struct loadpart lp = {
        .k = o->part_k,
        .n = o->parts,
        .run_id = o->run_id,
        .warehouses = o->warehouses,
        .seed = o->seed,
        .resume = o->resume,
        .timeout_us = o->part_timeout_us,
        .progress = o->progress,
    };
    struct loadpart_plan plan;
    int create = o->part_k == 1 && !o->resume;
    int rc;

    if (o->part_k == 1 && o->resume) {
        char seen[512];
        int64_t n = 0;

        if ((rc = loadpart_read(c, &sh->lp, &sh->ad, 1, &plan, seen, sizeof(seen), e)) < 0)
            return err_prefix(e, "reading the plan of run '%s'", o->run_id);
        if (rc == 0 && (rc = count_tables(sh, c, &n, NULL, e)) < 0)
            return rc;
        if (plan.run_id[0] && (strcmp(plan.run_id, o->run_id) != 0 || plan.parts != o->parts))
            return err_set(e, E_USAGE,
                           "cannot resume part 1/%d of run '%s': the database holds the load of "
                           "run '%s' in %d parts; give that run's --run-id and --part, or start "
                           "again with --drop",
                           o->parts, o->run_id, plan.run_id, plan.parts);
        if (!plan.run_id[0] && n > 0)
            return err_set(e, E_USAGE,
                           "cannot resume part 1/%d of run '%s': %s; run 'tpccbench load "
                           "--resume' without --part to continue a load of one process, or start "
                           "again with --drop",
                           o->parts, o->run_id, seen);
        if (!plan.run_id[0]) {
            create = 1;
            if (o->progress)
                fprintf(o->progress, "resume: no TPC-C schema here yet: loading from the start\n");
        }
    }
    if (create) {
        uint64_t t0 = clock_us();
        part_range(1, o->parts, o->warehouses, &st->w_first, &st->w_last);
        lp.resume = 0;
        if ((rc = create_schema(sh, c, &lp, st->w_first, st->w_last, e)) < 0)
            return rc;
        eff->resume = 0;
        st->joined = 1;
        if (o->progress)
            fprintf(o->progress, "schema   created %s tables and the plan of run '%s' in %.2f s\n",
                    o->dialect, o->run_id, since_s(t0));
        return 0;
    }
    /* The range as this part was told, until the plan says otherwise (resume). */
    part_range(o->part_k, o->parts, o->warehouses, &st->w_first, &st->w_last);
    if ((rc = loadpart_wait_join(c, &sh->lp, &sh->ad, &lp, &plan, &st->wait_s, e)) < 0)
        return rc;
    st->joined = 1;
    eff->warehouses = plan.warehouses;
    eff->seed = plan.seed;
    sh->load_epoch = plan.epoch;
    snprintf(sh->date, sizeof(sh->date), "%s", plan.date);
    part_range(o->part_k, o->parts, o->warehouses, &st->w_first, &st->w_last);
    if (o->resume) {
        int fresh;
        if ((rc = read_steps(sh, c, eff, done, &fresh, e)) < 0)
            return rc;
        st->resumed = 1;
        if (o->progress)
            fprintf(o->progress,
                    "resume: part %d/%d, %d warehouse%s, seed %llu: %d steps "
                    "committed before\n",
                    o->part_k, o->parts, o->warehouses, o->warehouses == 1 ? "" : "s",
                    (unsigned long long)o->seed, done->n);
    }
    if (o->progress)
        fprintf(o->progress, "part %d/%d of run '%s': joined after %.1f s\n", o->part_k, o->parts,
                o->run_id, st->wait_s);
    return 0;
}

/* What the phases of one load share. */
struct load {
    struct load_opts eff;   /* the options in force: a part's plan or a resume may change them */
    struct load_shared sh;  /* what the jobs share (sh.o is &eff) */
    struct split_arg sa;    /* the index and analyze statements, split */
    struct done_steps done; /* steps a resumed load committed before */
    struct load_stats *st;  /* the caller's figures */
    int nconn;              /* connections open in sh.conns */
};

/* The load's warehouses and seed as the figures and the live endpoint say them. */
static void say_scale(struct load *l)
{
    const struct load_opts *o = &l->eff;

    l->st->warehouses = o->warehouses;
    l->st->seed = o->seed;
    if (o->live)
        __atomic_store_n(&o->live->warehouses, o->warehouses, __ATOMIC_RELAXED);
}

/* The load's path as the driver found it (the record's load.path). */
static void load_path_of(const struct db_conn *c, struct load_stats *st)
{
    if (c->caps.known) {
        snprintf(st->path, sizeof(st->path), "%s", c->caps.load_path);
        snprintf(st->path_why, sizeof(st->path_why), "%s", c->caps.load_why);
    } else {
        snprintf(st->path, sizeof(st->path), "bulk (driver %.16s)", c->ops->name);
    }
}

/* Connect: the admin statements and run.jobs connections. */
static int load_connect(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    int rc;

    if ((rc = admin_dialect_load(&l->sh.ad, o->dialect, e)) < 0)
        return rc;
    if (!(l->sh.conns = calloc((size_t)o->jobs, sizeof(*l->sh.conns))))
        return err_set(e, E_FAIL, "out of memory");
    set_phase(o, l->st, LOAD_CONNECT);
    for (; l->nconn < o->jobs; l->nconn++)
        if ((rc = db_connect(o->ops, NULL, o->args, &l->sh.conns[l->nconn], e)) < 0)
            return rc;
    load_path_of(l->sh.conns[0], l->st);
    return 0;
}

/* A load of one process resumed: the steps committed before, the plan's scale. */
static int load_resume(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    int fresh, rc;

    if ((rc = read_steps(&l->sh, l->sh.conns[0], &l->eff, &l->done, &fresh, e)) < 0)
        return rc;
    l->st->resumed = !fresh;
    l->eff.resume = !fresh;
    l->eff.drop = 0;
    if (o->progress && fresh)
        fprintf(o->progress, "resume: no TPC-C schema here yet: loading from the start\n");
    if (o->progress && !fresh)
        fprintf(o->progress, "resume: %d warehouse%s, seed %llu: %d steps committed before\n",
                o->warehouses, o->warehouses == 1 ? "" : "s", (unsigned long long)o->seed,
                l->done.n);
    say_scale(l);
    return 0;
}

/*
 * Schema: the tables created (one process, or part 1), or this part joined
 * to the plan, or a resumed load's steps read.  Leaves eff's scale as the
 * load will run it and this part's warehouse range in st.
 */
static int load_schema(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    struct load_stats *st = l->st;
    uint64_t t0;
    int rc;

    set_phase(o, st, LOAD_SCHEMA);
    t0 = clock_us();
    l->sh.load_epoch = (int64_t)time(NULL);
    clock_format(l->sh.date, sizeof(l->sh.date), "%Y-%m-%d %H:%M:%S", l->sh.load_epoch);
    st->part_k = o->parts > 1 ? o->part_k : 1;
    st->parts = o->parts > 1 ? o->parts : 1;
    st->w_first = 1;
    st->w_last = o->warehouses;
    if (o->parts > 1) {
        if ((rc = loadpart_dialect_load(&l->sh.lp, o->dialect, e)) < 0 ||
            (rc = part_schema(&l->sh, &l->eff, &l->done, st, e)) < 0)
            return rc;
        say_scale(l);
        if (o->progress) {
            char range[96];
            range_text(o, st, range, sizeof(range));
            fprintf(o->progress, "part %d/%d of run '%s': %s%s\n", o->part_k, o->parts, o->run_id,
                    range, o->part_k == 1 ? ", and the item table" : "");
        }
    } else if (o->resume && (rc = load_resume(l, e)) < 0) {
        return rc;
    }
    if (o->parts <= 1 && !o->resume) {
        if ((rc = create_schema(&l->sh, l->sh.conns[0], NULL, 0, 0, e)) < 0)
            return rc;
        if (o->progress)
            fprintf(o->progress, "schema   created %s tables in %.2f s\n", o->dialect, since_s(t0));
    }
    st->schema_s = since_s(t0);
    return 0;
}

/*
 * The copy's paths: binary COPY where the driver takes it; a table per
 * transaction (TRUNCATE, COPY FREEZE) for a load of one process of at most
 * LOAD_WHOLE_MAX_JOBS jobs; neither with load.copy text.
 */
static void copy_paths(struct load *l)
{
    const struct load_opts *o = &l->eff;
    const struct db_ops *ops = l->sh.conns[0]->ops;
    int can = ops->bulk_begin_how ? ops->bulk_how : 0;

    if (!l->sh.conns[0]->caps.known && (o->copy_text || !(can & DB_BULK_BINARY)))
        l->st->paths |= LOAD_PATH_TEXT;
    if (o->copy_text)
        return;
    if (can & DB_BULK_BINARY) {
        l->sh.how = DB_BULK_BINARY;
        l->st->paths |= LOAD_PATH_BINARY;
    }
    if ((can & (DB_BULK_TRUNCATE | DB_BULK_FREEZE)) == (DB_BULK_TRUNCATE | DB_BULK_FREEZE) &&
        o->parts <= 1 && o->jobs <= LOAD_WHOLE_MAX_JOBS)
        l->sh.whole_tables = 1;
}

/*
 * Copy: the generator seeded (it depends on the seed only, so resumed units
 * hold the rows the failed load would have written) and every unit's rows
 * sent by the jobs.  Leaves the rows, bytes and times per table in st.
 */
static int load_copy(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    struct load_shared *sh = &l->sh;
    struct load_stats *st = l->st;
    int64_t expect_rows = 0;
    uint64_t t0;
    struct rng r;
    int rc;

    sh->gen.seed = o->seed;
    rng_init_stream(&r, o->seed, 0xC0FFEE, 0, 0);
    nurand_c_load(&r, &sh->gen.c_load);
    st->c_load = sh->gen.c_load;
    /* One date for every row of the load, a resumed one too: the plan's; in
     * every part the text part 1 formatted (time zones may differ). */
    if (o->parts > 1 && sh->date[0])
        snprintf(sh->gen.now, sizeof(sh->gen.now), "%s", sh->date);
    else
        clock_format(sh->gen.now, sizeof(sh->gen.now), "%Y-%m-%d %H:%M:%S", sh->load_epoch);
    if (!(sh->units = calloc((size_t)(1 + 8 * o->warehouses), sizeof(*sh->units))))
        return err_set(e, E_FAIL, "out of memory");
    set_phase(o, st, LOAD_COPY);
    copy_paths(l);
    st->steps_skipped =
        make_units(sh, st->w_first, st->w_last, st->part_k == 1, &l->done, &expect_rows);
    for (int i = 0; i < sh->nunits; i++)
        if (sh->units[i].whole)
            st->paths |= LOAD_PATH_WHOLE;
    t0 = clock_us();
    rc = run_phase(sh, copy_job, "copy", expect_rows, "rows", e);
    st->copy_s = since_s(t0);
    memcpy(st->table_s, sh->table_s, sizeof(st->table_s));
    memcpy(st->rows, sh->rows, sizeof(st->rows));
    st->bytes = sh->bytes;
    st->rows_binary = sh->rows_binary;
    st->rows_whole = sh->rows_whole;
    return rc;
}

/*
 * A part's range is committed: the last part to get here builds the rest.
 * Returns 1 when that is this part, 0 when another's (this part is done),
 * or the failure.
 */
static int load_claim(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    struct load_stats *st = l->st;
    struct loadpart_end end;
    int rc;

    if ((rc = loadpart_finish(l->sh.conns[0], &l->sh.lp, o->part_k, o->parts, &end, e)) < 0)
        return rc;
    st->indexer = end.indexer;
    st->parts_copied = end.ncopied;
    snprintf(st->parts_missing, sizeof(st->parts_missing), "%s", end.missing);
    if (end.indexer != o->part_k) {
        if (o->progress && end.indexer)
            fprintf(o->progress,
                    "part %d/%d: range committed; keys, indexes and ANALYZE are part %d's, "
                    "the last to finish its copy\n",
                    o->part_k, o->parts, end.indexer);
        else if (o->progress)
            fprintf(o->progress,
                    "part %d/%d: range committed (%d of %d parts; still copying: %s); keys, "
                    "indexes and ANALYZE are left to the last part to finish its copy\n",
                    o->part_k, o->parts, end.ncopied, o->parts, end.missing);
        set_phase(o, st, LOAD_DONE);
        return 0;
    }
    if (o->progress)
        fprintf(o->progress,
                "part %d/%d: the last of %d parts to finish its copy: keys, indexes and "
                "ANALYZE are this part's\n",
                o->part_k, o->parts, o->parts);
    return 1;
}

/* Index: the dialect's session settings on every connection, then indexes.sql
 * (steps a resumed load committed are skipped). */
static int load_index(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    struct load_shared *sh = &l->sh;
    uint64_t t0;
    int rc;

    set_phase(o, l->st, LOAD_INDEX);
    if (schema_sql(o->dialect, "load_session"))
        for (int i = 0; i < l->nconn; i++) {
            struct exec_arg ea = { .c = sh->conns[i], .e = e };
            if (sql_split(schema_sql(o->dialect, "load_session"), exec_one, &ea) != 0)
                return err_prefix(e, "load_session.sql");
        }
    if (sql_split(schema_sql(o->dialect, "indexes"), collect_stmt, &l->sa) != 0)
        return err_set(e, E_FAIL, "reading indexes.sql of dialect '%s' failed", o->dialect);
    for (int i = 0; i < sh->nstmts; i++) {
        char step[32];
        snprintf(step, sizeof(step), "index:%d", i);
        sh->stmt_done[i] = done_has(&l->done, step);
        l->st->steps_skipped += sh->stmt_done[i];
    }
    sh->step_kind = "index";
    t0 = clock_us();
    rc = run_phase(sh, stmt_job, "index", sh->nstmts, "indexes", e);
    l->st->index_s = since_s(t0);
    return rc;
}

/* Analyze: the dialect's statistics statements, biggest tables first. */
static int load_analyze(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    struct load_shared *sh = &l->sh;
    uint64_t t0;
    int rc;

    set_phase(o, l->st, LOAD_ANALYZE);
    for (int i = 0; i < sh->nstmts; i++)
        free(l->sa.owned[i]);
    memset(&l->sa.owned, 0, sizeof(l->sa.owned));
    memset(sh->stmt_done, 0, sizeof(sh->stmt_done));
    sh->nstmts = 0;
    sh->step_kind = NULL;
    if (sql_split(schema_sql(o->dialect, "analyze"), collect_stmt, &l->sa) != 0)
        return err_set(e, E_FAIL, "reading analyze.sql of dialect '%s' failed", o->dialect);
    t0 = clock_us();
    rc = run_phase(sh, stmt_job, "analyze", sh->nstmts, "tables", e);
    l->st->analyze_s = since_s(t0);
    return rc;
}

/* The load's facts into tpcc_meta: what makes the database a complete load. */
static int load_meta(struct load *l, struct err *e)
{
    const struct load_opts *o = &l->eff;
    struct db_conn *c = l->sh.conns[0];
    struct db_param p[5] = { DBP_INT(o->warehouses), DBP_INT((int64_t)o->seed),
                             DBP_INT(l->st->c_load.c_last), DBP_INT(l->st->c_load.c_id),
                             DBP_INT(l->st->c_load.ol_i_id) };
    int rc;

    if ((rc = db_begin(c, e)) == 0 && (rc = db_query(c, l->sh.ad.sql[A_META_INSERT], p, 5, e)) == 0)
        rc = db_commit(c, e);
    if (rc == 0)
        set_phase(o, l->st, LOAD_DONE);
    return rc;
}

/*
 * A load, phase by phase: connect, schema (or a part joined, or a resume),
 * copy, then (one process, or the part that claims it) index, analyze and
 * tpcc_meta.  Every path ends in the one release below.
 */
int load_run(const struct load_opts *opts, struct load_stats *st, struct err *e)
{
    struct load l;
    uint64_t t_all = clock_us();
    int rc;

    memset(&l, 0, sizeof(l));
    memset(st, 0, sizeof(*st));
    l.eff = *opts;
    l.st = st;
    l.sa.sh = &l.sh;
    l.sh.o = &l.eff;
    pthread_mutex_init(&l.sh.lock, NULL);
    err_clear(&l.sh.err);
    say_scale(&l);
    if ((rc = load_connect(&l, e)) == 0 && (rc = load_schema(&l, e)) == 0 &&
        (rc = load_copy(&l, e)) == 0 && (l.eff.parts <= 1 || (rc = load_claim(&l, e)) == 1) &&
        (rc = load_index(&l, e)) == 0 && (rc = load_analyze(&l, e)) == 0)
        rc = load_meta(&l, e);
    st->total_s = since_s(t_all);
    for (int i = 0; i < l.sh.nstmts; i++)
        free(l.sa.owned[i]);
    for (int i = 0; i < l.nconn; i++)
        db_close(l.sh.conns[i]);
    dialect_release(&l.sh.ad);
    dialect_release(&l.sh.lp);
    done_release(&l.done);
    free(l.sh.conns);
    free(l.sh.units);
    pthread_mutex_destroy(&l.sh.lock);
    return rc;
}
