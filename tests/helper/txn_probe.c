/*
 * txn_probe.c - run one Order-Status through src/tpcc/txn.c against a real
 * server and print what it read, for tests/t/0036-order-status.sh.
 *
 *   txn_probe --driver postgres --conninfo STR | --driver odbc --dsn STR
 *             [--dialect postgresql] [--password-env VAR]
 *             --mode client|pipeline|procedure --w W --d D (--c C | --last NAME)
 *             [--pause-before os_order_lines --go-file PATH] [--read-committed]
 *
 * The connection is set up as a virtual user's is (session isolation read
 * committed, txn_prepare for the mode).  --pause-before arms the test hook
 * of src/db/db.c: just before that statement is sent the probe prints
 * "paused before NAME" and waits (at most 60 s) until PATH exists, so the
 * test can commit a Delivery between two of Order-Status's statements.
 * --read-committed is the control: the statements of client mode (or the
 * function call of procedure mode) run in a plain transaction at read
 * committed, as Order-Status ran before it took one snapshot, so the test
 * can show that the pause really lets the Delivery in between.
 *
 * Output, one line each: "customer C_ID C_FIRST C_MIDDLE C_LAST C_BALANCE",
 * "order O_ID O_ENTRY_D CARRIER" (NULL when not set), then "line I_ID
 * SUPPLY_W_ID QUANTITY AMOUNT DELIVERY_D" per line (DELIVERY_D NULL or
 * "delivered"; its text differs between sessions, its presence does not).
 * Exit 0, or 1 with the error on stderr, 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "db/db.h"
#include "db/dialect.h"
#include "tpcc/txn.h"

struct probe_opts {
    const char *driver, *conninfo, *dsn, *dialect, *password_env, *mode, *last;
    const char *pause_before, *go_file;
    int w, d, c, read_committed;
};

static int probe_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (!*s || *end || v < 0 || v > 100000)
        return -1;
    *out = (int)v;
    return 0;
}

static int probe_args(int argc, char **argv, struct probe_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->driver = "postgres";
    o->dialect = "postgresql";
    o->password_env = "TPCC_TEST_PASSWORD";
    o->mode = "client";
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(k, "--read-committed")) {
            o->read_committed = 1;
            continue;
        }
        if (!v)
            return -1;
        i++;
        if (!strcmp(k, "--driver"))
            o->driver = v;
        else if (!strcmp(k, "--conninfo"))
            o->conninfo = v;
        else if (!strcmp(k, "--dsn"))
            o->dsn = v;
        else if (!strcmp(k, "--dialect"))
            o->dialect = v;
        else if (!strcmp(k, "--password-env"))
            o->password_env = v;
        else if (!strcmp(k, "--mode"))
            o->mode = v;
        else if (!strcmp(k, "--last"))
            o->last = v;
        else if (!strcmp(k, "--pause-before"))
            o->pause_before = v;
        else if (!strcmp(k, "--go-file"))
            o->go_file = v;
        else if (!strcmp(k, "--w") && probe_int(v, &o->w) == 0)
            continue;
        else if (!strcmp(k, "--d") && probe_int(v, &o->d) == 0)
            continue;
        else if (!strcmp(k, "--c") && probe_int(v, &o->c) == 0)
            continue;
        else
            return -1;
    }
    if (!o->w || !o->d || (!o->c && !o->last) || (o->pause_before && !o->go_file) ||
        (o->pause_before && strcmp(o->pause_before, "os_order_lines") != 0))
        return -1;
    return 0;
}

/* The hook: say where we stopped, then wait for the test's go. */
static void probe_pause(struct db_conn *c, int id, void *arg)
{
    const struct probe_opts *o = arg;
    struct stat st;

    (void)c;
    (void)id;
    printf("paused before %s\n", o->pause_before);
    fflush(stdout);
    for (int i = 0; i < 6000 && stat(o->go_file, &st) != 0; i++)
        clock_sleep_us(10000);
}

static void probe_print(const struct os_output *os)
{
    printf("customer %d %s %s %s %lld\n", os->c_id, os->c_first, os->c_middle, os->c_last,
           (long long)os->c_balance_cents);
    if (os->o_carrier_id)
        printf("order %d %s %d\n", os->o_id, os->o_entry_d, os->o_carrier_id);
    else
        printf("order %d %s NULL\n", os->o_id, os->o_entry_d);
    for (int i = 0; i < os->ol_cnt; i++) {
        const struct os_line *l = &os->lines[i];
        printf("line %d %d %d %lld %s\n", l->i_id, l->supply_w_id, l->quantity,
               (long long)l->amount_cents, l->delivered ? "delivered" : "NULL");
    }
}

/* The control: Order-Status as it ran before, in a plain transaction at the
 * session's read committed, every statement with a snapshot of its own
 * (by c_id; client mode's statements, or procedure mode's one call). */
static int probe_control(struct db_conn *c, const struct probe_opts *o, int mode,
                         struct os_output *os, struct err *e)
{
    const struct db_param cust[] = { DBP_INT(o->w), DBP_INT(o->d), DBP_INT(o->c) };
    int rc;

    memset(os, 0, sizeof(*os));
    if ((rc = db_begin(c, e)) < 0)
        return rc;
    if (mode == RUN_MODE_PROCEDURE) {
        const struct db_param p[] = { DBP_INT(o->w), DBP_INT(o->d), DBP_INT(o->c), DBP_TEXT("") };
        if ((rc = db_exec(c, S_PROC_ORDER_STATUS, p, 4, e)) < 0)
            return rc;
        while (db_next(c) == 1 && os->ol_cnt < NO_MAX_ITEMS) {
            struct os_line *l = &os->lines[os->ol_cnt++];
            os->c_id = (int)db_col_int(c, 0);
            os->o_id = (int)db_col_int(c, 5);
            os->o_carrier_id = db_col_isnull(c, 7) ? 0 : (int)db_col_int(c, 7);
            l->i_id = (int)db_col_int(c, 8);
            l->delivered = !db_col_isnull(c, 12);
        }
        return db_commit(c, e);
    }
    if ((rc = db_exec(c, S_OS_GET_CUSTOMER, cust, 3, e)) < 0)
        return rc;
    os->c_id = o->c;
    if ((rc = db_exec(c, S_OS_LAST_ORDER, cust, 3, e)) < 0)
        return rc;
    if (db_next(c) != 1)
        return err_set(e, E_FAIL, "no order");
    os->o_id = (int)db_col_int(c, 0);
    os->o_carrier_id = db_col_isnull(c, 2) ? 0 : (int)db_col_int(c, 2);
    {
        const struct db_param lines[] = { DBP_INT(o->w), DBP_INT(o->d), DBP_INT(os->o_id) };
        if ((rc = db_exec(c, S_OS_ORDER_LINES, lines, 3, e)) < 0)
            return rc;
    }
    while (db_next(c) == 1 && os->ol_cnt < NO_MAX_ITEMS) {
        struct os_line *l = &os->lines[os->ol_cnt++];
        l->i_id = (int)db_col_int(c, 0);
        l->delivered = !db_col_isnull(c, 4);
    }
    return db_commit(c, e);
}

int main(int argc, char **argv)
{
    struct probe_opts o;
    struct dialect d;
    struct db_connect_args a;
    struct db_conn *c = NULL;
    const struct db_ops *ops;
    struct txn_input in;
    struct txn_output out;
    struct err e;
    int mode, rc;

    if (probe_args(argc, argv, &o) < 0) {
        fprintf(stderr, "usage: txn_probe --conninfo STR | --driver odbc --dsn STR "
                        "--mode M --w W --d D (--c C | --last NAME) [--pause-before STMT "
                        "--go-file PATH] [--read-committed]\n");
        return 2;
    }
    mode = !strcmp(o.mode, "procedure")  ? RUN_MODE_PROCEDURE
           : !strcmp(o.mode, "pipeline") ? RUN_MODE_PIPELINE
                                         : RUN_MODE_CLIENT;
    ops = db_find(o.driver);
    err_clear(&e);
    if (!ops || txn_dialect_load(&d, o.dialect, &e) < 0) {
        fprintf(stderr, "txn_probe: driver '%s' or dialect '%s': %s\n", o.driver, o.dialect, e.msg);
        return 2;
    }
    memset(&a, 0, sizeof(a));
    a.conninfo = o.conninfo ? o.conninfo : "";
    a.dsn = o.dsn ? o.dsn : "";
    a.password = getenv(o.password_env);
    a.app_name = "txn_probe";
    rc = db_connect(ops, &d, &a, &c, &e);
    if (rc == 0)
        rc = db_exec(c, S_ISO_READ_COMMITTED, NULL, 0, &e);
    if (rc == 0)
        rc = db_end_reads(c, &e);
    if (rc == 0)
        rc = txn_prepare(c, mode, &e);
    /* The one pause the test needs: between the order and its lines. */
    if (rc == 0 && o.pause_before)
        db_hook(c, S_OS_ORDER_LINES, probe_pause, &o);
    memset(&out, 0, sizeof(out));
    if (rc == 0 && o.read_committed) {
        rc = probe_control(c, &o, mode, &out.os, &e);
    } else if (rc == 0) {
        memset(&in, 0, sizeof(in));
        in.type = TX_ORDER_STATUS;
        in.u.os.w_id = o.w;
        in.u.os.d_id = o.d;
        in.u.os.by_name = o.last != NULL;
        in.u.os.c_id = o.c;
        if (o.last)
            snprintf(in.u.os.c_last, sizeof(in.u.os.c_last), "%s", o.last);
        rc = txn_exec(c, mode, &in, &out, &e);
    }
    if (rc < 0) {
        fprintf(stderr, "txn_probe: %s%s%s\n", e.msg, e.sqlstate[0] ? " SQLSTATE " : "",
                e.sqlstate);
        db_close(c);
        dialect_release(&d);
        return 1;
    }
    probe_print(&out.os);
    db_close(c);
    dialect_release(&d);
    return 0;
}
