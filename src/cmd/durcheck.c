/*
 * durcheck.c - the durability verdict's text and record (see durcheck.h),
 * and the check a bench or study step runs after its measured run.
 * Prints only what durcheck_print and durcheck_after_run are asked to.
 */
#include "cmd/durcheck.h"

#include <string.h>

#include "cmd/acidcrash.h"
#include "cmd/check.h"
#include "core/clock.h"
#include "core/fmt.h"
#include "db/managed.h"
#include "tpcc/check.h"
#include "tpcc/txn.h"

static const char *const dur_plural[ACID_DUR_NTYPES] = { "New-Orders", "Payments", "Deliveries" };
static const char *const dur_label[ACID_DUR_NTYPES] = { "new-order", "payment", "delivery" };

/* The verdict's line: "durable: ..." or "NOT DURABLE: ...". */
void durcheck_summary(const struct acid_dur *r, char *buf, size_t cap)
{
    char a[32], b[32], conds[64] = "", types[160] = "";
    int nk = 0, only = 0;

    for (int k = 1; r->check_ran && k <= CHECK_NCOND; k++)
        if (r->check.cond[k - 1].ran && !r->check.cond[k - 1].ok)
            snprintf(conds + strlen(conds), sizeof(conds) - strlen(conds), "%s%d",
                     conds[0] ? ", " : "", k);
    for (int k = 0; k < ACID_DUR_NTYPES; k++)
        if (r->by_type[k].lost) {
            nk++;
            only = k;
            snprintf(types + strlen(types), sizeof(types) - strlen(types), "%s%s %s",
                     types[0] ? ", " : "", dur_label[k],
                     fmt_grouped(a, sizeof(a), r->by_type[k].lost));
        }
    if (r->durable)
        snprintf(buf, cap,
                 "durable: 0 of %s acknowledged transactions lost, recovered in %.1f s, "
                 "%d conditions hold",
                 fmt_grouped(a, sizeof(a), r->total.acknowledged), r->recovery_connect_s,
                 CHECK_NCOND);
    else if (!r->came_back)
        snprintf(buf, cap, "NOT DURABLE: %s", r->why);
    else if (nk == 1)
        snprintf(buf, cap, "NOT DURABLE: %s of %s acknowledged %s lost",
                 fmt_grouped(a, sizeof(a), r->total.lost),
                 fmt_grouped(b, sizeof(b), r->by_type[only].acknowledged), dur_plural[only]);
    else if (nk > 1)
        snprintf(buf, cap, "NOT DURABLE: %s of %s acknowledged transactions lost (%s)",
                 fmt_grouped(a, sizeof(a), r->total.lost),
                 fmt_grouped(b, sizeof(b), r->total.acknowledged), types);
    else
        snprintf(buf, cap, "NOT DURABLE: no acknowledged transaction lost");
    if (r->came_back && conds[0])
        snprintf(buf + strlen(buf), cap - strlen(buf), "%sconsistency conditions %s do not hold",
                 r->durable ? "" : "; ", conds);
    if (!r->durable && r->settings[0])
        snprintf(buf + strlen(buf), cap - strlen(buf), " (%s)", r->settings);
}

static json_t *dur_counts_json(const struct acid_dur_counts *c)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "acknowledged", (json_int_t)c->acknowledged,
                     "present", (json_int_t)c->present, "lost", (json_int_t)c->lost, "in_flight",
                     (json_int_t)c->in_flight, "in_flight_present",
                     (json_int_t)c->in_flight_present);
}

static json_t *dur_lost_json(const struct acid_dur_lost *l)
{
    json_t *j;

    if (!l->found)
        return json_null();
    j = json_pack("{s:s, s:i, s:f}", "type", acid_dur_type_key(l->type), "w", l->w,
                  "acknowledged_s", l->acked_s);
    if (l->type == ACID_DUR_PAYMENT) {
        json_object_set_new(j, "d", json_integer(l->d));
        json_object_set_new(j, "c_w", json_integer(l->c_w));
        json_object_set_new(j, "c_d", json_integer(l->c_d));
        json_object_set_new(j, "amount_cents", json_integer(l->amount_cents));
    } else {
        json_object_set_new(j, "d", json_integer(l->d));
        json_object_set_new(j, "o_id", json_integer(l->o_id));
    }
    return j;
}

/* run.json's acid.durability. */
json_t *durcheck_json(const struct acid_dur *r, int kind, const char *summary)
{
    json_t *by = json_object(), *j;

    for (int k = 0; k < ACID_DUR_NTYPES; k++)
        json_object_set_new(by, acid_dur_type_key(k), dur_counts_json(&r->by_type[k]));
    j = json_pack("{s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "crash", acid_crash_name(kind),
                  "crash_at_s", r->crash_at_s, "acknowledged", (json_int_t)r->total.acknowledged,
                  "present", (json_int_t)r->total.present, "lost", (json_int_t)r->total.lost,
                  "in_flight", (json_int_t)r->total.in_flight, "in_flight_present",
                  (json_int_t)r->total.in_flight_present, "by_type", by, "first_lost",
                  dur_lost_json(&r->first_lost));
    json_object_set_new(
        j, "recovery_s",
        r->came_back ? json_pack("{s:f, s:o}", "connection", r->recovery_connect_s, "new_order",
                                 r->recovery_new_order_s >= 0 ? json_real(r->recovery_new_order_s)
                                                              : json_null())
                     : json_null());
    json_object_set_new(j, "conditions", r->check_ran ? check_json(&r->check) : json_null());
    json_object_set_new(j, "durable", json_boolean(r->durable));
    json_object_set_new(j, "summary", json_string(summary));
    json_object_set_new(j, "window_s", json_real(r->window_s));
    json_object_set_new(j, "terminals", json_integer(r->terminals));
    json_object_set_new(j, "settings", json_string(r->settings));
    return j;
}

void durcheck_print(FILE *out, const struct acid_dur *r, int kind, const char *summary)
{
    char a[32], b[32], c[32], d[32], f[32];

    fprintf(out,
            "durability (clause 3.5): crash %s at %.1f s of a %.1f s window, %d terminals "
            "without think time (for the verdict, not for throughput)\n",
            acid_crash_name(kind), r->crash_at_s, r->window_s, r->terminals);
    for (int k = 0; k < ACID_DUR_NTYPES; k++) {
        const struct acid_dur_counts *n = &r->by_type[k];
        if (!r->came_back)
            break;
        fprintf(out, "  %-9s %s acknowledged, %s present, %s lost; in flight %s (%s present)\n",
                dur_label[k], fmt_grouped(a, sizeof(a), n->acknowledged),
                fmt_grouped(b, sizeof(b), n->present), fmt_grouped(c, sizeof(c), n->lost),
                fmt_grouped(d, sizeof(d), n->in_flight),
                fmt_grouped(f, sizeof(f), n->in_flight_present));
    }
    if (r->first_lost.found) {
        const struct acid_dur_lost *l = &r->first_lost;
        if (l->type == ACID_DUR_PAYMENT)
            fprintf(out,
                    "  first lost: payment (%.2f at w %d, d %d for a customer of w %d, d %d), "
                    "acknowledged at %.2f s\n",
                    (double)l->amount_cents / 100.0, l->w, l->d, l->c_w, l->c_d, l->acked_s);
        else
            fprintf(out, "  first lost: %s (order w %d, d %d, o_id %d), acknowledged at %.2f s\n",
                    dur_label[l->type], l->w, l->d, l->o_id, l->acked_s);
    }
    if (r->came_back)
        fprintf(out,
                "  recovery: a connection %.1f s after the crash, a New-Order committed "
                "%.1f s after it; %s read-only and %s rolled-back transactions not looked up\n",
                r->recovery_connect_s, r->recovery_new_order_s,
                fmt_grouped(a, sizeof(a), r->read_only), fmt_grouped(b, sizeof(b), r->rolled_back));
    if (r->check_ran && r->check.n_failed)
        check_print(out, &r->check);
    fprintf(out, "%s\n", summary);
}

int durcheck_usable(const struct config *cfg, struct err *e)
{
    if (!cfg->acid.durability)
        return 0;
    if (!cfg->database.managed && cfg->acid.durability == ACID_CRASH_POWER)
        return err_set(e, E_USAGE,
                       "acid.durability: power is for the private server "
                       "(database.managed): on this server give kill with "
                       "acid.crash_command (for a power loss, its data directory "
                       "on tpccbench-lazyfs and the command writing crash to the "
                       "mount's .lazyfs-ctl: docs/acid.md)");
    return acid_crash_check(cfg->acid.durability, e);
}

/* The check's mix, as acid's durability test sets it up from the config. */
static void durcheck_setup(struct session *s, const struct config *cfg, char *level,
                           char *level_why, struct acid_setup *set)
{
    *set = (struct acid_setup){
        .ops = s->ops,
        .args = &s->args,
        .dialect = s->dialect,
        .isolation = cfg->run.isolation,
        .isolation_set = cfg->run.isolation_set,
        .level = level,
        .level_why = level_why,
        .mode = txn_mode_resolve(cfg->run.mode, s->dialect),
        .warehouses = cfg->schema.warehouses,
        .seed = cfg->run.seed ? (uint64_t)cfg->run.seed : clock_wall_us(),
        .terminals = cfg->run.virtual_users,
        .window_us = cfg->acid.durability_window_us,
        .crash_at_us = 0,
        .back_bound_us = cfg->acid.restart_timeout_us,
    };
}

int durcheck_after_run(struct session *s, const struct config *cfg, const char *dir, json_t **out,
                       struct err *e)
{
    static struct acid_dur r;
    struct acid_crasher cr;
    struct acid_crash k;
    struct acid_setup set;
    char level[ACID_LEVEL_LEN] = "", level_why[ACID_LEVEL_LEN] = "", summary[1400];
    char datadir[4096];
    int kind = cfg->acid.durability, rc;

    *out = NULL;
    if (!s->managed && !cfg->acid.crash_command[0]) {
        printf("durability: not run: needs acid.crash_command (only the private server, "
               "database.managed, is crashed by tpccbench itself)\n");
        *out = json_pack("{s:s, s:s}", "verdict", "not run", "why",
                         "needs acid.crash_command: only the private server "
                         "(database.managed) is crashed by tpccbench itself");
        return 0;
    }
    if (!s->managed)
        kind = ACID_CRASH_COMMAND;
    memset(&r, 0, sizeof(r));
    durcheck_setup(s, cfg, level, level_why, &set);
    snprintf(datadir, sizeof(datadir), "%s", s->managed ? s->mpg.datadir : "");
    fprintf(stderr, "durability check: crash %s in a %.0f s mix on %d terminals\n",
            acid_crash_name(kind), (double)set.window_us / 1e6, set.terminals);
    if ((rc = acid_crasher_begin(&cr, s, kind, dir, &k, e)) == 0)
        rc = acid_durability(&set, &k, &r, e);
    acid_crasher_end(&cr);
    /* Power stopped the server on the mount: the next step needs it back on its own directory. */
    if (s->managed && !s->mpg.started && datadir[0]) {
        struct err e2;
        if (managed_start(&s->mpg, datadir, cfg->database.port, cfg->database.password_env, &e2) <
            0) {
            if (rc == 0)
                rc = err_set(e, e2.code, "after the durability check: %s", e2.msg);
        }
        managed_conninfo(&s->mpg, s->conninfo, sizeof(s->conninfo));
    }
    if (rc < 0)
        return err_prefix(e, "durability check");
    durcheck_summary(&r, summary, sizeof(summary));
    durcheck_print(stdout, &r, kind, summary);
    *out = durcheck_json(&r, kind, summary);
    return 0;
}
