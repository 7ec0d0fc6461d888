/*
 * check.c - `tpccbench check`: the TPC-C consistency conditions, pass/fail each.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/check.h"
#include "core/signals.h"
#include "db/dialect.h"
#include "tpcc/admin.h"

static const struct cmd_opt check_opts[] = {
    { "conditions", 0, 1, NULL, "which conditions: all, 1-4, 1,2,5 (default: all that apply)" },
    { NULL, 0, 0, NULL, NULL },
};

json_t *check_json(const struct check_result *r)
{
    json_t *conds = json_object(), *counts = json_object();

    for (int k = 1; k <= CHECK_NCOND; k++) {
        const struct check_cond *c = &r->cond[k - 1];
        char key[8];
        if (!c->ran)
            continue;
        snprintf(key, sizeof(key), "%d", k);
        json_object_set_new(conds, key,
                            json_pack("{s:s, s:b, s:f, s:s}", "text", check_cond_text(r, k), "ok",
                                      c->ok, "seconds", c->seconds, "detail", c->detail));
        if (k == 11)
            json_object_set_new(json_object_get(conds, key), "form",
                                json_string(r->cond11_general ? "generalized" : "spec"));
    }
    if (r->counts_ran)
        for (int t = 0; t < T_NTABLES; t++)
            json_object_set_new(counts, tpcc_table_name(t), json_integer(r->counts[t]));
    json_t *j = json_pack("{s:b, s:i, s:b, s:o, s:o, s:s}", "ok", r->n_failed == 0, "failed",
                          r->n_failed, "fresh", r->fresh, "conditions", conds, "counts", counts,
                          "counts_detail", r->counts_ok || !r->counts_ran ? "" : r->counts_detail);

    if (j && r->keys_ran)
        json_object_set_new(j, "keys", json_pack("{s:b, s:s}", "ok", r->keys_ok, "detail",
                                                 r->keys_ok ? "" : r->keys_detail));
    return j;
}

void check_print(FILE *out, const struct check_result *r)
{
    fprintf(out, "\nconsistency (TPC-C 3.3.2), %d warehouse%s, %s:\n", r->warehouses,
            r->warehouses == 1 ? "" : "s", r->fresh ? "fresh load" : "after transactions");
    for (int k = 1; k <= CHECK_NCOND; k++) {
        const struct check_cond *c = &r->cond[k - 1];
        if (!c->ran)
            continue;
        fprintf(out, "  %-4s %2d  %-66s %6.2fs\n", c->ok ? "ok" : "FAIL", k,
                check_cond_text(r, k), c->seconds);
        if (!c->ok)
            fprintf(out, "            first offender: %s\n", c->detail);
    }
    if (r->counts_ran) {
        fprintf(out, "  %-4s     row counts:", r->counts_ok ? "ok" : "FAIL");
        for (int t = 0; t < T_NTABLES; t++)
            fprintf(out, " %s=%lld", tpcc_table_name(t), (long long)r->counts[t]);
        fprintf(out, "\n");
        if (!r->counts_ok)
            fprintf(out, "            %s\n", r->counts_detail);
    }
    if (r->keys_ran) {
        fprintf(out, "  %-4s     keys: a unique index on each table's key (the catalog, "
                     "SQLStatistics)\n",
                r->keys_ok ? "ok" : "FAIL");
        if (!r->keys_ok)
            fprintf(out, "            %s\n", r->keys_detail);
    }
    fprintf(out, "%s\n", r->n_failed ? "consistency: FAILED" : "consistency: all passed");
}

int check_with_session(struct session *s, unsigned mask, struct check_result *r, struct err *e)
{
    struct dialect ad;
    struct db_conn *c = NULL;
    int rc;

    if ((rc = admin_dialect_load(&ad, s->dialect, e)) < 0)
        return rc;
    if ((rc = db_connect(s->ops, &ad, &s->args, &c, e)) == 0) {
        struct stop_watch w;
        stop_watch_start(&w, c);
        rc = check_run(c, &ad, mask, r, e);
        stop_watch_end(&w);
        db_close(c);
        if (rc < 0 && sig_stop_requested())
            rc = err_set(e, E_INTR, "interrupted");
    }
    dialect_release(&ad);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    struct config cfg;
    struct cmd_args a;
    struct session s;
    struct check_result r;
    unsigned mask = 0;
    const char *list;
    struct err e;
    int rc;

    err_clear(&e);
    if (cmd_parse("check", argc - 1, argv + 1, check_opts, &cfg, &a, &e) < 0)
        return cmd_fail("check", &e);
    if (a.help) {
        cmd_usage(stdout, "check", "[-c FILE] [--conditions LIST]",
                  "Check the TPC-C consistency conditions (clause 3.3.2) and the row counts.\n"
                  "After a fresh load all 12 conditions and exact counts apply; after a run,\n"
                  "condition 11 in its generalized form (2100 + sum(c_delivery_cnt)).\n"
                  "Exit 0 when all hold, 1 when any fails, 2 on bad input.",
                  check_opts);
        return 0;
    }
    if ((list = cmd_extra(&a, "conditions")) && check_parse_mask(list, &mask) < 0) {
        err_set(&e, E_USAGE, "--conditions: '%s' is not a list of conditions 1-12 "
                             "(examples: all, 1-4, 1,2,5)", list);
        return cmd_fail("check", &e);
    }
    sig_install();
    if ((rc = session_open(&s, &cfg, &e)) == 0)
        rc = check_with_session(&s, mask, &r, &e);
    session_close(&s);
    if (rc < 0)
        return cmd_fail("check", &e);
    check_print(stdout, &r);
    return r.n_failed ? 1 : 0;
}
