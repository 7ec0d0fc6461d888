/*
 * waits.c - the wait sampler's pure parts (see waits.h): a session's
 * sample as an event key and class, the statement text that names its
 * transaction type, the type kept per backend for the rest of its
 * transaction, and the counts by type and event with their JSON.  No
 * server, no locks, nothing printed.
 */
#include "run/waits.h"

#include <stdlib.h>
#include <string.h>

const char *const wait_class_names[WC_N] = { "cpu", "client", "lock", "lwlock",
                                             "io",  "ipc",    "other" };

int wait_key_class(const char *key)
{
    static const struct {
        const char *prefix;
        int cls;
    } k[] = { { "Lock:", WC_LOCK }, { "LWLock:", WC_LWLOCK }, { "IO:", WC_IO },
              { "IPC:", WC_IPC },   { "Client:", WC_CLIENT } };

    if (strcmp(key, "CPU") == 0)
        return WC_CPU;
    if (strcmp(key, "Client") == 0)
        return WC_CLIENT;
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        if (strncmp(key, k[i].prefix, strlen(k[i].prefix)) == 0)
            return k[i].cls;
    return WC_OTHER;
}

int wait_event_key(const char *state, const char *wtype, const char *wevent, char *out,
                   size_t cap)
{
    if (!state)
        return -1;
    if (strcmp(state, "active") == 0) {
        if (!wtype || !wtype[0])
            snprintf(out, cap, "CPU");
        else
            snprintf(out, cap, "%s:%s", wtype, wevent ? wevent : "");
    } else if (strncmp(state, "idle in transaction", 19) == 0) {
        /* The server waits for the driver's next statement. */
        snprintf(out, cap, "Client");
    } else {
        return -1; /* idle, fastpath, disabled: not inside our transaction */
    }
    return wait_key_class(out);
}

void wait_norm(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    int space = 0;

    if (!cap)
        return;
    while (*in && n + 1 < cap) {
        if (in[0] == '-' && in[1] == '-') {
            while (*in && *in != '\n')
                in++;
            space = 1;
            continue;
        }
        if (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\r') {
            space = 1;
            in++;
            continue;
        }
        if (space && n > 0) {
            if (n + 2 >= cap)
                break; /* no room for the space and the word: cut here */
            out[n++] = ' ';
        }
        space = 0;
        out[n++] = *in++;
    }
    while (n > 0 && (out[n - 1] == ';' || out[n - 1] == ' '))
        n--;
    out[n] = '\0';
}

int wait_stmts_add(struct wait_stmts *m, const char *sql, int type)
{
    size_t len = strlen(sql) + 1;
    char *t;

    if (m->n == WAIT_STMTS_MAX || !(t = malloc(len)))
        return -1;
    wait_norm(sql, t, len);
    m->text[m->n] = t;
    m->type[m->n++] = type;
    return 0;
}

void wait_stmts_release(struct wait_stmts *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->text[i]);
    m->n = 0;
}

int wait_stmts_type(const struct wait_stmts *m, const char *query)
{
    char q[2048];
    size_t len;

    wait_norm(query, q, sizeof(q));
    len = strlen(q);
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->text[i], q) == 0)
            return m->type[i];
    /* track_activity_query_size cuts long text: a long enough prefix names it. */
    for (int i = 0; len >= 100 && i < m->n; i++)
        if (strncmp(m->text[i], q, len) == 0)
            return m->type[i];
    return -1;
}

int wait_attr(struct wait_pids *w, int pid, int64_t xact_us, int stmt_type)
{
    int i = 0;

    while (i < w->n && w->p[i].pid != pid)
        i++;
    if (stmt_type >= 0) {
        if (i == w->n) {
            if (w->n == WAIT_PIDS_MAX)
                return stmt_type;
            w->n++;
            w->p[i].pid = pid;
        }
        w->p[i].xact_us = xact_us;
        w->p[i].type = stmt_type;
        return stmt_type;
    }
    /* COMMIT, BEGIN: the type of the same transaction only, never an earlier one's. */
    if (i < w->n && xact_us != 0 && w->p[i].xact_us == xact_us)
        return w->p[i].type;
    return -1;
}

void wait_agg_add(struct wait_agg *a, int type, const char *key)
{
    int i = 0, cls = wait_key_class(key);

    a->cls[cls]++;
    if (type < 0 || type >= TX_NTYPES) {
        a->unattributed++;
        return;
    }
    a->tcls[type][cls]++;
    while (i < a->nev && strcmp(a->ev[i], key) != 0)
        i++;
    if (i == a->nev) {
        if (a->nev == WAIT_EVENTS_MAX) {
            a->dropped++;
            return;
        }
        snprintf(a->ev[a->nev++], WAIT_KEY, "%s", key);
    }
    a->n[i][type]++;
    a->type_samples[type]++;
}

void wait_agg_bg(struct wait_agg *a, const char *name, const char *key)
{
    int i = 0;

    while (i < a->nbg && (strcmp(a->bg_name[i], name) != 0 || strcmp(a->bg_ev[i], key) != 0))
        i++;
    if (i == a->nbg) {
        if (a->nbg == WAIT_BG_MAX) {
            a->dropped++;
            return;
        }
        snprintf(a->bg_name[i], sizeof(a->bg_name[i]), "%s", name);
        snprintf(a->bg_ev[i], WAIT_KEY, "%s", key);
        a->nbg++;
    }
    a->bg_n[i]++;
}

void wait_agg_merge(struct wait_agg *dst, const struct wait_agg *src)
{
    for (int i = 0; i < src->nev; i++) {
        int j = 0;
        while (j < dst->nev && strcmp(dst->ev[j], src->ev[i]) != 0)
            j++;
        if (j == dst->nev) {
            if (dst->nev == WAIT_EVENTS_MAX) {
                for (int t = 0; t < TX_NTYPES; t++)
                    dst->dropped += src->n[i][t];
                continue;
            }
            snprintf(dst->ev[dst->nev++], WAIT_KEY, "%s", src->ev[i]);
        }
        for (int t = 0; t < TX_NTYPES; t++)
            dst->n[j][t] += src->n[i][t];
    }
    for (int t = 0; t < TX_NTYPES; t++)
        dst->type_samples[t] += src->type_samples[t];
    for (int i = 0; i < src->nbg; i++) {
        int j = 0;
        while (j < dst->nbg &&
               (strcmp(dst->bg_name[j], src->bg_name[i]) || strcmp(dst->bg_ev[j], src->bg_ev[i])))
            j++;
        if (j == dst->nbg) {
            if (dst->nbg == WAIT_BG_MAX) {
                dst->dropped += src->bg_n[i];
                continue;
            }
            memcpy(dst->bg_name[j], src->bg_name[i], sizeof(dst->bg_name[j]));
            memcpy(dst->bg_ev[j], src->bg_ev[i], WAIT_KEY);
            dst->nbg++;
        }
        dst->bg_n[j] += src->bg_n[i];
    }
    dst->rounds += src->rounds;
    dst->unattributed += src->unattributed;
    dst->dropped += src->dropped;
    for (int c = 0; c < WC_N; c++) {
        dst->cls[c] += src->cls[c];
        for (int t = 0; t < TX_NTYPES; t++)
            dst->tcls[t][c] += src->tcls[t][c];
    }
}

int wait_agg_top(const struct wait_agg *a, int type, int *out, int k)
{
    int n = 0;

    for (int i = 0; i < a->nev; i++) {
        int at;
        if (!a->n[i][type] || strcmp(a->ev[i], "CPU") == 0)
            continue;
        /* Insertion into the k best so far: most samples first, then by name. */
        for (at = n; at > 0; at--) {
            const int j = out[at - 1];
            if (a->n[j][type] > a->n[i][type] ||
                (a->n[j][type] == a->n[i][type] && strcmp(a->ev[j], a->ev[i]) < 0))
                break;
        }
        if (at >= k)
            continue;
        if (n < k)
            n++;
        memmove(&out[at + 1], &out[at], (size_t)(n - 1 - at) * sizeof(*out));
        out[at] = i;
    }
    return n;
}

json_t *wait_agg_by_type(const struct wait_agg *a)
{
    json_t *o = json_object();

    for (int t = 0; t < TX_NTYPES; t++) {
        json_t *ev = json_object();
        for (int i = 0; i < a->nev; i++)
            if (a->n[i][t])
                json_object_set_new(ev, a->ev[i], json_integer((json_int_t)a->n[i][t]));
        json_object_set_new(o, tx_name((enum tx_type)t),
                            json_pack("{s:I, s:o}", "samples", (json_int_t)a->type_samples[t],
                                      "events", ev));
    }
    return o;
}

json_t *wait_agg_background(const struct wait_agg *a)
{
    json_t *o = json_object();

    for (int i = 0; i < a->nbg; i++) {
        json_t *p = json_object_get(o, a->bg_name[i]);
        if (!p) {
            p = json_pack("{s:I, s:{}}", "samples", (json_int_t)0, "events");
            json_object_set_new(o, a->bg_name[i], p);
        }
        json_object_set_new(p, "samples",
                            json_integer(json_integer_value(json_object_get(p, "samples")) +
                                         (json_int_t)a->bg_n[i]));
        json_object_set_new(json_object_get(p, "events"), a->bg_ev[i],
                            json_integer((json_int_t)a->bg_n[i]));
    }
    return o;
}

/* ------------------------------------------------------------------ */
/* The statements inside the procedures                               */
/* ------------------------------------------------------------------ */

/* The next word of *s into out (lower case; a run of letters, digits and
 * '_', or one other character), comments, white space and "$n"
 * placeholders skipped: 1, or 0 at the end. */
static int next_word(const char **s, char *out, size_t cap)
{
    const char *p = *s;
    size_t n = 0;

    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        /* Constants: "$n" (what the server put for them), numbers, strings;
         * and "?", the ODBC placeholder. */
        if (p[0] == '?') {
            p++;
            continue;
        }
        if ((p[0] == '$' && p[1] >= '0' && p[1] <= '9') || (p[0] >= '0' && p[0] <= '9')) {
            for (p++; (*p >= '0' && *p <= '9') || *p == '.'; p++)
                ;
            continue;
        }
        if (p[0] == '\'') {
            for (p++; *p && *p != '\''; p++)
                ;
            p += *p == '\'';
            continue;
        }
        break;
    }
    if (!*p) {
        *s = p;
        return 0;
    }
    do {
        char ch = *p;
        int word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                   (ch >= '0' && ch <= '9') || ch == '_';
        if (n + 1 < cap)
            out[n++] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
        p++;
        if (!word)
            break;
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            break;
    } while (*p);
    out[n] = '\0';
    *s = p;
    /* MariaDB shows a procedure's variable in a statement it runs as
     * NAME_CONST('p_w', 1): the word is the variable's name. */
    if (strcmp(out, "name_const") == 0 && *p == '(' && p[1] == '\'') {
        const char *q = p + 2;
        for (n = 0; *q && *q != '\'' && n + 1 < cap; q++)
            out[n++] = (*q >= 'A' && *q <= 'Z') ? (char)(*q - 'A' + 'a') : *q;
        out[n] = '\0';
        while (*q && *q != '\'')
            q++;
        q += *q == '\'';
        /* Past its value (a number, or a string) to the closing ')'. */
        while (*q && *q != ')') {
            if (*q == '\'') {
                for (q++; *q && *q != '\''; q++)
                    ;
            }
            q += *q != '\0';
        }
        *s = q + (*q == ')');
        return 1;
    }
    /* NULL, TRUE and FALSE are constants too: the server puts "$n" for them. */
    if (strcmp(out, "null") == 0 || strcmp(out, "true") == 0 || strcmp(out, "false") == 0)
        return next_word(s, out, cap);
    return 1;
}

/* 1 when a and b have the same words, constants left out. */
static int words_equal(const char *a, const char *b)
{
    char aw[128], bw[128];
    int more_a, more_b;

    for (;;) {
        more_a = next_word(&a, aw, sizeof(aw));
        more_b = next_word(&b, bw, sizeof(bw));
        if (!more_a || !more_b)
            return more_a == more_b;
        if (strcmp(aw, bw) != 0)
            return 0;
    }
}

int wait_stmts_type_words(const struct wait_stmts *m, const char *query)
{
    int type = wait_stmts_type(m, query);

    for (int i = 0; type < 0 && i < m->n; i++)
        if (words_equal(m->text[i], query))
            type = m->type[i];
    return type;
}

/* 1 when every word of query is found in body in order; *nwords, how many
 * words query has. */
static int words_in(const char *query, const char *body, int *nwords)
{
    char qw[128], bw[128];
    const char *q = query, *b = body;

    *nwords = 0;
    while (next_word(&q, qw, sizeof(qw))) {
        int found = 0;
        (*nwords)++;
        while (!found && next_word(&b, bw, sizeof(bw)))
            found = strcmp(qw, bw) == 0;
        if (!found)
            return 0;
    }
    return 1;
}

/* The identifier after "FUNCTION " at s into name: its length, 0 when none. */
static size_t func_name(const char *s, char *name, size_t cap)
{
    size_t n = 0;

    while (s[n] && s[n] != '(' && s[n] != ' ' && s[n] != '\n' && n + 1 < cap) {
        name[n] = s[n];
        n++;
    }
    name[n] = '\0';
    return s[n] == '(' ? n : 0;
}

int wait_procs_parse(struct wait_procs *p, const char *sql, const struct wait_stmts *m)
{
    const char *s = sql;

    memset(p, 0, sizeof(*p));
    while (s && p->n < WAIT_PROCS_MAX) {
        const char *f = strstr(s, "FUNCTION "), *pr = strstr(s, "PROCEDURE "), *end;
        char name[64], call[70];
        size_t len;
        int k = p->n;
        if (!f && !pr)
            break;
        s = f && (!pr || f < pr) ? f + 9 : pr + 10;
        /* "DROP FUNCTION IF EXISTS name(...)" names none ("IF"). */
        if (!func_name(s, name, sizeof(name)))
            continue;
        end = strstr(s, "\nCREATE ");
        len = end ? (size_t)(end - s) : strlen(s);
        if (!(p->body[k] = malloc(len + 1)))
            return -1;
        memcpy(p->body[k], s, len);
        p->body[k][len] = '\0';
        snprintf(p->name[k], sizeof(p->name[k]), "%s", name);
        snprintf(call, sizeof(call), "%s(", name);
        p->type[k] = -1;
        for (int i = 0; i < m->n && p->type[k] < 0; i++)
            if (strstr(m->text[i], call))
                p->type[k] = m->type[i];
        p->n++;
    }
    return 0;
}

void wait_procs_release(struct wait_procs *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->body[i]);
    p->n = 0;
}

int wait_procs_type(const struct wait_procs *p, const char *query)
{
    int type = -1, found = 0;

    for (int i = 0; i < p->n; i++) {
        char call[70];
        snprintf(call, sizeof(call), "%s(", p->name[i]);
        if (p->type[i] >= 0 && strstr(query, call))
            return p->type[i];
    }
    for (int i = 0; i < p->n; i++) {
        int nw;
        if (p->type[i] < 0 || !words_in(query, p->body[i], &nw) || nw < 4)
            continue;
        if (found && type != p->type[i])
            return -1;
        type = p->type[i];
        found = 1;
    }
    return type;
}
