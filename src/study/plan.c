/*
 * plan.c - the study file (see plan.h): read with the config's YAML tree (core/yaml.h),
 * checked key by key with file:line:col messages, the workload applied to
 * the config through cfg_set() (so a workload key obeys exactly the rules
 * of the same key in a config file), and the order of the runs.
 */
#include "study/plan.h"

#include "core/yaml.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* A scalar's text for a value of key, at most size - 1 bytes. */
static int scalar(const struct study_plan *p, const struct ytree_node *n, const char *key,
                  char *out, size_t size, struct err *e)
{
    char w[320];

    if (n->kind != YTREE_SCALAR)
        return err_set(e, E_USAGE, "%s: '%s' must be a single value (got a %s)",
                       ytree_where(p->path, n, w, sizeof(w)), key,
                       n->kind == YTREE_MAP ? "mapping" : "sequence");
    if (n->len >= size || memchr(n->text, '\0', n->len))
        return err_set(e, E_USAGE, "%s: '%s' must be text of at most %zu bytes",
                       ytree_where(p->path, n, w, sizeof(w)), key, size - 1);
    memcpy(out, n->text, n->len);
    out[n->len] = '\0';
    return 0;
}

static int boolean(const struct study_plan *p, const struct ytree_node *n, const char *key,
                   int *out, struct err *e)
{
    char v[16], w[320];
    int rc;

    if ((rc = scalar(p, n, key, v, sizeof(v), e)) < 0)
        return err_set(e, E_USAGE, "%s: '%s' must be true or false",
                       ytree_where(p->path, n, w, sizeof(w)), key);
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
        *out = 1;
    else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
        *out = 0;
    else
        return err_set(e, E_USAGE, "%s: '%s' must be true or false (got \"%.64s\")",
                       ytree_where(p->path, n, w, sizeof(w)), key, v);
    return 0;
}

/* Whether s is a plain name: letters, digits, '_' (and '.', for a setting's prefix). */
static int plain_name(const char *s, int dots)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || (dots && *s == '.')))
            return 0;
    return 1;
}

/* Check that map is a mapping whose keys are scalars and not repeated. */
static int check_map(const struct study_plan *p, const struct ytree_node *map, const char *what,
                     struct err *e)
{
    char w[320];

    if (map->kind != YTREE_MAP)
        return err_set(e, E_USAGE, "%s: '%s' must be a mapping",
                       ytree_where(p->path, map, w, sizeof(w)), what);
    for (const struct ytree_node *k = map->first; k; k = k->next->next) {
        if (k->kind != YTREE_SCALAR)
            return err_set(e, E_USAGE, "%s: keys must be plain names",
                           ytree_where(p->path, k, w, sizeof(w)));
        for (const struct ytree_node *q = map->first; q != k; q = q->next->next)
            if (q->len == k->len && !memcmp(q->text, k->text, k->len))
                return err_set(e, E_USAGE, "%s: duplicate key '%s' (first at line %d:%d)",
                               ytree_where(p->path, k, w, sizeof(w)), k->text, q->line, q->col);
    }
    return 0;
}

static int study_options(struct study_plan *p, const struct ytree_node *map, struct err *e)
{
    char w[320], v[64];
    int64_t n;
    int rc;

    if ((rc = check_map(p, map, "study", e)) < 0)
        return rc;
    for (const struct ytree_node *k = map->first; k; k = k->next->next) {
        const struct ytree_node *val = k->next;
        const char *key = k->text;

        ytree_where(p->path, val, w, sizeof(w));
        if (!strcmp(key, "name")) {
            if ((rc = scalar(p, val, "study.name", p->name, sizeof(p->name), e)) < 0)
                return rc;
            if (!plain_name(p->name, 0) && strspn(p->name, "abcdefghijklmnopqrstuvwxyz"
                                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
                                               strlen(p->name))
                return err_set(e, E_USAGE,
                               "%s: 'study.name' may hold letters, digits, '_', '.' and '-' only "
                               "(it names the study's folder)",
                               w);
        } else if (!strcmp(key, "repeat")) {
            if ((rc = scalar(p, val, "study.repeat", v, sizeof(v), e)) < 0 ||
                parse_int64(v, 1, 100, &n) < 0)
                return err_set(e, E_USAGE, "%s: 'study.repeat' must be an integer from 1 to 100",
                               w);
            p->repeat = (int)n;
        } else if (!strcmp(key, "order")) {
            if ((rc = scalar(p, val, "study.order", v, sizeof(v), e)) < 0)
                return rc;
            if (!strcmp(v, "interleaved"))
                p->interleaved = 1;
            else if (!strcmp(v, "sequential"))
                p->interleaved = 0;
            else
                return err_set(e, E_USAGE,
                               "%s: 'study.order' must be one of interleaved, sequential (got "
                               "\"%.64s\")",
                               w, v);
        } else if (!strcmp(key, "reset")) {
            if ((rc = scalar(p, val, "study.reset", v, sizeof(v), e)) < 0)
                return rc;
            if (!strcmp(v, "template"))
                p->reset = STUDY_RESET_TEMPLATE;
            else if (!strcmp(v, "load"))
                p->reset = STUDY_RESET_LOAD;
            else if (!strcmp(v, "none"))
                p->reset = STUDY_RESET_NONE;
            else
                return err_set(e, E_USAGE,
                               "%s: 'study.reset' must be one of template, load, none (got "
                               "\"%.64s\")",
                               w, v);
        } else if (!strcmp(key, "cumulative")) {
            if ((rc = boolean(p, val, "study.cumulative", &p->cumulative, e)) < 0)
                return rc;
        } else if (!strcmp(key, "control")) {
            if ((rc = boolean(p, val, "study.control", &p->control, e)) < 0)
                return rc;
        } else if (!strcmp(key, "on_failure")) {
            if ((rc = scalar(p, val, "study.on_failure", v, sizeof(v), e)) < 0)
                return rc;
            if (!strcmp(v, "stop") || !strcmp(v, "continue"))
                p->on_failure_stop = !strcmp(v, "stop");
            else
                return err_set(e, E_USAGE,
                               "%s: 'study.on_failure' must be one of continue, stop (got "
                               "\"%.64s\")",
                               w, v);
        } else if (!strcmp(key, "restart_command")) {
            if ((rc = scalar(p, val, "study.restart_command", p->restart_command,
                             sizeof(p->restart_command), e)) < 0)
                return rc;
        } else {
            return err_set(e, E_USAGE,
                           "%s: unknown key 'study.%.64s' (allowed here: name, repeat, order, "
                           "reset, cumulative, control, on_failure, restart_command)",
                           ytree_where(p->path, k, w, sizeof(w)), key);
        }
    }
    return 0;
}

/* workload: every key of run, schema and load, by its own name. */
static int workload(struct study_plan *p, struct config *cfg, const struct ytree_node *map,
                    struct err *e)
{
    static const char *const sections[] = { "run", "schema", "load" };
    char w[320], full[128], v[CFG_STR];
    int rc;

    if ((rc = check_map(p, map, "workload", e)) < 0)
        return rc;
    for (const struct ytree_node *k = map->first; k; k = k->next->next) {
        const struct ytree_node *val = k->next;
        const char *key = k->text;

        full[0] = '\0';
        if (plain_name(key, 0) && strlen(key) < 64)
            for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]) && !full[0]; i++) {
                snprintf(full, sizeof(full), "%s.%s", sections[i], key);
                if (!cfg_key_known(full) && strcmp(full, "run.mix") != 0)
                    full[0] = '\0';
            }
        if (!full[0])
            return err_set(e, E_USAGE,
                           "%s: unknown key 'workload.%.64s' (the workload takes the keys of the "
                           "config's run, schema and load sections, such as warehouses, "
                           "virtual_users, warmup, duration)",
                           ytree_where(p->path, k, w, sizeof(w)), key);
        ytree_where(p->path, val, w, sizeof(w));
        if (!strcmp(full, "run.mix")) {
            /* A mapping of the five types; a type left out gets 0, as in a config. */
            static const char *const types[] = { "new_order", "payment", "order_status",
                                                 "delivery", "stock_level" };
            char parts[5][16] = { "0", "0", "0", "0", "0" };
            if ((rc = check_map(p, val, "workload.mix", e)) < 0)
                return rc;
            for (const struct ytree_node *t = val->first; t; t = t->next->next) {
                size_t i = 0;
                while (i < 5 && strcmp(t->text, types[i]) != 0)
                    i++;
                if (i == 5)
                    return err_set(e, E_USAGE,
                                   "%s: unknown key 'workload.mix.%.32s' (allowed here: "
                                   "new_order, payment, order_status, delivery, stock_level)",
                                   ytree_where(p->path, t, w, sizeof(w)), t->text);
                if ((rc = scalar(p, t->next, "workload.mix", parts[i], sizeof(parts[i]), e)) < 0)
                    return rc;
            }
            snprintf(v, sizeof(v), "%s,%s,%s,%s,%s", parts[0], parts[1], parts[2], parts[3],
                     parts[4]);
        } else if ((rc = scalar(p, val, full, v, sizeof(v), e)) < 0) {
            return rc;
        }
        if ((rc = cfg_set(cfg, full, v, w, e)) < 0)
            return rc;
    }
    return 0;
}

static int step_of(struct study_plan *p, struct study_step *st, const struct ytree_node *map,
                   struct err *e)
{
    char w[320];
    int rc, have_label = 0;

    ytree_where(p->path, map, w, sizeof(w));
    memcpy(st->where, w, sizeof(st->where) - 1);
    if (map->kind != YTREE_MAP)
        return err_set(e, E_USAGE, "%s: a step must be a mapping with a label (and set, before, "
                                   "after)",
                       st->where);
    if ((rc = check_map(p, map, "steps", e)) < 0)
        return rc;
    for (const struct ytree_node *k = map->first; k; k = k->next->next) {
        const struct ytree_node *val = k->next;
        const char *key = k->text;

        ytree_where(p->path, val, w, sizeof(w));
        if (!strcmp(key, "label")) {
            if ((rc = scalar(p, val, "label", st->label, 65, e)) < 0)
                return rc;
            if (!st->label[0] ||
                strspn(st->label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
                    strlen(st->label))
                return err_set(e, E_USAGE,
                               "%s: a step's 'label' must be 1 to 64 letters, digits, '_', '.' or "
                               "'-' (it names the run folders)",
                               w);
            have_label = 1;
        } else if (!strcmp(key, "set")) {
            if (ytree_is_empty(val))
                continue;
            if ((rc = check_map(p, val, "set", e)) < 0)
                return rc;
            for (const struct ytree_node *s = val->first; s; s = s->next->next) {
                struct study_setting *ss;
                if (st->nset == STUDY_MAX_SET)
                    return err_set(e, E_USAGE, "%s: a step sets at most %d settings",
                                   ytree_where(p->path, s, w, sizeof(w)), STUDY_MAX_SET);
                ss = &st->set[st->nset];
                if (s->len >= sizeof(ss->name) || !plain_name(s->text, 1))
                    return err_set(e, E_USAGE,
                                   "%s: '%.64s' is not a server setting's name (letters, digits, "
                                   "'_' and '.')",
                                   ytree_where(p->path, s, w, sizeof(w)), s->text);
                snprintf(ss->name, sizeof(ss->name), "%s", s->text);
                for (size_t i = 0; ss->name[i]; i++)
                    if (ss->name[i] >= 'A' && ss->name[i] <= 'Z')
                        ss->name[i] = (char)(ss->name[i] - 'A' + 'a');
                if ((rc = scalar(p, s->next, ss->name, ss->value, sizeof(ss->value), e)) < 0)
                    return rc;
                ytree_where(p->path, s->next, w, sizeof(w));
                memcpy(ss->where, w, sizeof(ss->where) - 1);
                st->nset++;
            }
        } else if (!strcmp(key, "before")) {
            if ((rc = scalar(p, val, "before", st->before, sizeof(st->before), e)) < 0)
                return rc;
        } else if (!strcmp(key, "after")) {
            if ((rc = scalar(p, val, "after", st->after, sizeof(st->after), e)) < 0)
                return rc;
        } else {
            return err_set(e, E_USAGE,
                           "%s: unknown key '%.64s' in a step (allowed here: label, set, before, "
                           "after)",
                           ytree_where(p->path, k, w, sizeof(w)), key);
        }
    }
    if (!have_label)
        return err_set(e, E_USAGE, "%s: the step has no 'label'", st->where);
    return 0;
}

int study_plan_load(struct study_plan *p, struct config *cfg, const char *path, struct err *e)
{
    struct ytree_node *root = NULL;
    const struct ytree_node *steps = NULL;
    char w[320];
    int rc;

    memset(p, 0, sizeof(*p));
    snprintf(p->path, sizeof(p->path), "%s", path);
    snprintf(p->name, sizeof(p->name), "study");
    p->repeat = 1;
    p->interleaved = 1;
    p->cumulative = 1;
    if ((rc = ytree_load_file(path, "study", &root, e)) < 0)
        return rc;
    if (!root || ytree_is_empty(root) || root->kind != YTREE_MAP) {
        ytree_free(root);
        return err_set(e, E_USAGE,
                       "%s: a study file must be a mapping with the keys study, workload, steps",
                       path);
    }
    if ((rc = check_map(p, root, "the study file", e)) < 0)
        goto out;
    for (const struct ytree_node *k = root->first; k && rc == 0; k = k->next->next) {
        if (!strcmp(k->text, "study"))
            rc = ytree_is_empty(k->next) ? 0 : study_options(p, k->next, e);
        else if (!strcmp(k->text, "workload"))
            rc = ytree_is_empty(k->next) ? 0 : workload(p, cfg, k->next, e);
        else if (!strcmp(k->text, "steps"))
            steps = k->next;
        else
            rc = err_set(e, E_USAGE,
                         "%s: unknown key '%.64s' (allowed here: study, workload, steps)",
                         ytree_where(p->path, k, w, sizeof(w)), k->text);
    }
    if (rc < 0)
        goto out;
    if (!steps || steps->kind != YTREE_SEQ || !steps->first) {
        rc = err_set(e, E_USAGE,
                     "%s: 'steps' must be a list of steps, the first the baseline "
                     "(- label: baseline)",
                     steps ? ytree_where(p->path, steps, w, sizeof(w)) : path);
        goto out;
    }
    for (const struct ytree_node *s = steps->first; s; s = s->next) {
        if (p->nsteps == STUDY_MAX_STEPS) {
            rc = err_set(e, E_USAGE, "%s: a study has at most %d steps",
                         ytree_where(p->path, s, w, sizeof(w)), STUDY_MAX_STEPS);
            goto out;
        }
        if ((rc = step_of(p, &p->steps[p->nsteps], s, e)) < 0)
            goto out;
        for (int j = 0; j < p->nsteps; j++)
            if (!strcmp(p->steps[j].label, p->steps[p->nsteps].label)) {
                rc = err_set(e, E_USAGE, "%s: label '%s' is used by step %d already",
                             p->steps[p->nsteps].where, p->steps[j].label, j + 1);
                goto out;
            }
        p->nsteps++;
    }
    if (p->control) {
        struct study_step *c = &p->steps[p->nsteps];
        *c = p->steps[0];
        snprintf(c->label, sizeof(c->label), "%.56s-control", p->steps[0].label);
        c->control = 1;
        p->nsteps++;
    }
    if ((int64_t)p->nsteps * p->repeat > STUDY_MAX_RUNS)
        rc = err_set(e, E_USAGE, "%s: more than %d runs", path, STUDY_MAX_RUNS);
out:
    ytree_free(root);
    return rc;
}

/* Put name = value into out[0..*n) (replacing an earlier value). */
static void put(struct study_setting *out, int *n, int max, const struct study_setting *s)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(out[i].name, s->name)) {
            out[i] = *s;
            return;
        }
    if (*n < max)
        out[(*n)++] = *s;
}

int study_settings_at(const struct study_plan *p, int s, struct study_setting *out, int max)
{
    int n = 0;

    for (int i = 0; i <= s && i < p->nsteps; i++) {
        /* The control is the baseline again; a non-cumulative step adds to the baseline only. */
        if (p->steps[s].control && i > 0)
            break;
        if (!p->cumulative && i > 0 && i < s)
            continue;
        if (p->steps[i].control)
            continue;
        for (int k = 0; k < p->steps[i].nset; k++)
            put(out, &n, max, &p->steps[i].set[k]);
    }
    return n;
}

int study_all_names(const struct study_plan *p, char (*out)[STUDY_NAME], int max)
{
    int n = 0;

    for (int i = 0; i < p->nsteps; i++)
        for (int k = 0; k < p->steps[i].nset; k++) {
            int seen = 0;
            for (int j = 0; j < n && !seen; j++)
                seen = !strcmp(out[j], p->steps[i].set[k].name);
            if (!seen && n < max)
                snprintf(out[n++], STUDY_NAME, "%s", p->steps[i].set[k].name);
        }
    return n;
}

int study_schedule(const struct study_plan *p, struct study_run *out, int max)
{
    int n = 0;

    for (int a = 0; a < (p->interleaved ? p->repeat : p->nsteps); a++)
        for (int b = 0; b < (p->interleaved ? p->nsteps : p->repeat) && n < max; b++) {
            out[n].step = p->interleaved ? b : a;
            out[n].repeat = (p->interleaved ? a : b) + 1;
            n++;
        }
    return MIN(n, max);
}

const char *study_reset_name(int reset)
{
    return reset == STUDY_RESET_LOAD ? "load" : reset == STUDY_RESET_NONE ? "none" : "template";
}
