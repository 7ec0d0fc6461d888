/*
 * config.c - the built-in defaults, the YAML config file and command-line
 * overrides, all mapped onto struct config through one table of keys.
 *
 * Loading is two steps.  First core/yaml.c reads the file into a small tree
 * of nodes that remembers the line and column of every key and value (and
 * refuses aliases, tags, huge input and YAML syntax errors, with its own
 * messages).  Then the tree is walked against key_table[]: each row
 * names a dotted key, its type, where it lives in struct config and its
 * range (a few keys also a setter of their own), so the YAML file, cfg_set()
 * and cfg_validate() share one set of rules and one wording of messages.  A
 * load that fails leaves the config as it was.  Nothing here prints or
 * exits.  Secrets are not kept here: only the name of the environment
 * variable that holds the password; a "password" key, a connection string
 * holding a password (conninfo, dsn) and a password_env that cannot be a
 * variable's name are refused without echoing the value.
 */
#include "core/config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/part.h"
#include "core/secret.h"
#include "core/yaml.h"

#define US_PER_S   INT64_C(1000000)
#define US_PER_DAY (INT64_C(24) * 3600 * US_PER_S)

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* ---- the table of keys ---- */

enum key_type {
    K_STR,        /* char[CFG_STR] */
    K_BOOL,       /* int, 0 or 1 */
    K_INT,        /* int in [min, max] */
    K_I64,        /* int64_t in [min, max] */
    K_DUR,        /* int64_t microseconds in [min, max] */
    K_CHOICE_STR, /* char[CFG_STR], one of choices[].store */
    K_CHOICE_INT, /* int, one of choices[].value */
    K_MIX,        /* int[TX_NTYPES]: a mapping of run.mix.* that sums to 100 */
    K_REAL,       /* double in [min, max] millionths ("0.01"; a rate may end in "/s") */
    K_PART        /* "K/N" into two ints at off (K) and off + sizeof(int) (N), core/part.h */
};

/* One accepted spelling of an enumerated value.  A K_CHOICE_INT word with
 * a negative value is known but refused: store then says why and what to
 * write instead (the message names the key and quotes the word). */
struct choice {
    const char *word;  /* what the user writes (compared case-insensitively) */
    const char *store; /* K_CHOICE_STR: what is stored; K_CHOICE_INT refused: why */
    int value;         /* K_CHOICE_INT: what is stored (< 0: refused) */
    int alias;         /* 1: accepted but not listed in messages */
};

struct setting; /* one value being set (below) */
typedef int (*set_fn)(struct setting *s);

struct key {
    const char *name; /* dotted, as in YAML nesting: "run.duration" */
    enum key_type type;
    size_t off;                   /* offsetof(struct config, ...) */
    int64_t min, max;             /* K_INT, K_I64, K_DUR */
    const struct choice *choices; /* K_CHOICE_*: terminated by a NULL word */
    int has_flag;                 /* 1: setting the key also sets the int at flag_off */
    size_t flag_off;
    set_fn set;       /* the key's own setter, NULL: its type's (setters[]) */
    size_t where_off; /* offsetof(struct config, where.X): where it was set is kept, 0: not */
};

/* The keys with a setter of their own: connection strings, the password's variable. */
static int set_connection(struct setting *s);
static int set_password_env(struct setting *s);
static int set_url(struct setting *s);

/* clang-format off */
static const struct choice driver_choices[] = {
    { "postgres",        "postgres",        0, 0 },
    { "odbc",            "odbc",            0, 0 },
    { "null",            "null",            0, 0 },
    { NULL,              NULL,              0, 0 },
};

static const struct choice delivery_choices[] = {
    { "deferred",        NULL,              0, 0 },
    { "inline",          NULL,              1, 0 },
    { NULL,              NULL,              0, 0 },
};

/* acid.durability: the values are tpcc/durab.h's ACID_CRASH_KILL and _POWER. */
static const struct choice durability_choices[] = {
    { "off",             NULL,              0, 0 },
    { "kill",            NULL,              1, 0 },
    { "power",           NULL,              2, 0 },
    { NULL,              NULL,              0, 0 },
};

static const struct choice mode_choices[] = {
    { "client",          NULL,              RUN_MODE_CLIENT,    0 },
    { "pipeline",        NULL,              RUN_MODE_PIPELINE,  0 },
    { "procedure",       NULL,              RUN_MODE_PROCEDURE, 0 },
    { NULL,              NULL,              0, 0 },
};

/* "simple" is pgbench's -M simple: the simple query protocol carries no
 * parameters, so every value would have to be spliced into the SQL text,
 * which tpccbench never does (ARCHITECTURE.md, Secrets). */
/* load.copy: the fast paths where the driver has them, or text COPY only. */
static const struct choice copy_choices[] = {
    { "fast",            NULL,              0,                  0 },
    { "text",            NULL,              1,                  0 },
    { NULL,              NULL,              0, 0 },
};

static const struct choice statements_choices[] = {
    { "prepared",        NULL,              RUN_STMT_PREPARED,  0 },
    { "unnamed",         NULL,              RUN_STMT_UNNAMED,   0 },
    { "simple",          "is not offered: the simple query protocol takes no bound parameters, "
                         "so every value would be spliced into the SQL text, which tpccbench "
                         "never does; use unnamed (bound parameters, nothing kept on the server "
                         "between transactions: works through a pooler in transaction mode)",
                                            -1,                 1 },
    { NULL,              NULL,              0, 0 },
};

/* Recorded, not acted on: a pooler the user says is in between. */
static const struct choice pooler_choices[] = {
    { "none",            "none",            0, 0 },
    { "pgbouncer",       "pgbouncer",       0, 0 },
    { "pgpool",          "pgpool",          0, 0 },
    { "pgcat",           "pgcat",           0, 0 },
    { "supavisor",       "supavisor",       0, 0 },
    { "rds_proxy",       "rds_proxy",       0, 0 },
    { "odyssey",         "odyssey",         0, 0 },
    { "other",           "other",           0, 0 },
    { "pgpool-ii",       "pgpool",          0, 1 },
    { "rds-proxy",       "rds_proxy",       0, 1 },
    { NULL,              NULL,              0, 0 },
};

/* The underscored spellings are accepted because YAML users reach for them. */
static const struct choice isolation_choices[] = {
    { "read committed",  "read committed",  0, 0 },
    { "repeatable read", "repeatable read", 0, 0 },
    { "serializable",    "serializable",    0, 0 },
    { "read_committed",  "read committed",  0, 1 },
    { "repeatable_read", "repeatable read", 0, 1 },
    { NULL,              NULL,              0, 0 },
};

#define OFF(f) offsetof(struct config, f)
#define KEY(name, type, f, lo, hi, ch) { name, type, OFF(f), lo, hi, ch, 0, 0, NULL, 0 }
/* A mix key also records that the mix was given (run.mix_set). */
#define MIXSET 1, OFF(run.mix_set), NULL, 0
/* No flag and no setter of its own; where the key was set is kept in c->where.f. */
#define WHERE(f) 0, 0, NULL, OFF(where.f)
#define S (CFG_STR - 1)

/*
 * Every key the config accepts.  Sections ("run") and the keys allowed in a
 * section come from the dotted names, in this order, so one row is all it
 * takes to add a key to the file, to cfg_set() and to the messages.
 */
static const struct key key_table[] = {
    KEY("database.driver",       K_CHOICE_STR, database.driver,       0, 0,     driver_choices),
    /* Setting managed records that it was chosen: unset, it follows from conninfo and dsn. */
    { "database.managed", K_BOOL, OFF(database.managed), 0, 1, NULL, 1, OFF(database.managed_set),
      NULL, OFF(where.managed) },
    /* Connection strings hold no password: set_connection refuses one, and no message quotes it. */
    { "database.conninfo", K_STR, OFF(database.conninfo), 0, S, NULL, 0, 0, set_connection,
      OFF(where.conninfo) },
    { "database.dsn", K_STR, OFF(database.dsn), 0, S, NULL, 0, 0, set_connection, OFF(where.dsn) },
    { "database.password_env", K_STR, OFF(database.password_env), 0, S, NULL, 0, 0,
      set_password_env, 0 },
    KEY("database.datadir",      K_STR,        database.datadir,      0, S,     NULL),
    KEY("database.keep_server",  K_BOOL,       database.keep_server,  0, 1,     NULL),
    KEY("database.port",         K_INT,        database.port,         0, 65535, NULL),
    KEY("database.null_service_time", K_DUR,   database.null_service_us, 0, 60 * US_PER_S, NULL),
    KEY("database.pooler",       K_CHOICE_STR, database.pooler,       0, 0,     pooler_choices),
    KEY("schema.warehouses",     K_INT,        schema.warehouses,     1, 100000, NULL),
    KEY("schema.dialect",        K_STR,        schema.dialect,        0, S,     NULL),
    KEY("load.jobs",             K_INT,        load.jobs,             1, 256,   NULL),
    /* Setting the load seed also records that it was chosen, not defaulted. */
    { "load.seed", K_I64, OFF(load.seed), 0, INT64_C(1) << 62, NULL, 1, OFF(load.seed_set),
      NULL, 0 },
    KEY("load.drop",             K_BOOL,       load.drop,             0, 1,     NULL),
    KEY("load.copy",             K_CHOICE_INT, load.copy_text,        0, 1,     copy_choices),
    KEY("run.virtual_users",     K_INT,        run.virtual_users,     1, 10000, NULL),
    KEY("run.terminals",         K_INT,        run.terminals,         0, 1000000, NULL),
    KEY("run.connections",       K_INT,        run.connections,       0, 10000, NULL),
    KEY("run.batch",             K_INT,        run.batch,             1, TXN_BATCH_MAX, NULL),
    KEY("run.workers",           K_INT,        run.workers,           0, 10000, NULL),
    KEY("run.rate",              K_REAL,       run.rate,              0, INT64_C(1000000) * 1000000, NULL),
    KEY("run.time_scale",        K_REAL,       run.time_scale,        1, INT64_C(1000) * 1000000, NULL),
    KEY("run.rampup",            K_DUR,        run.rampup_us,         0, US_PER_DAY, NULL),
    KEY("run.warmup",            K_DUR,        run.warmup_us,         0, US_PER_DAY, NULL),
    KEY("run.duration",          K_DUR,        run.duration_us,       1, US_PER_DAY, NULL),
    /* A mix given replaces the default deck (run.mix_set). */
    { "run.mix", K_MIX, OFF(run.mix), 0, 100, NULL, MIXSET },
    { "run.mix.new_order", K_INT, OFF(run.mix[TX_NEW_ORDER]), 0, 100, NULL, MIXSET },
    { "run.mix.payment", K_INT, OFF(run.mix[TX_PAYMENT]), 0, 100, NULL, MIXSET },
    { "run.mix.order_status", K_INT, OFF(run.mix[TX_ORDER_STATUS]), 0, 100, NULL, MIXSET },
    { "run.mix.delivery", K_INT, OFF(run.mix[TX_DELIVERY]), 0, 100, NULL, MIXSET },
    { "run.mix.stock_level", K_INT, OFF(run.mix[TX_STOCK_LEVEL]), 0, 100, NULL, MIXSET },
    KEY("run.think_time",        K_BOOL,       run.think_time,        0, 1,     NULL),
    KEY("run.max_retries",       K_INT,        run.max_retries,       0, 1000,  NULL),
    KEY("run.delivery_workers",  K_INT,        run.delivery_workers,  0, 64,    NULL),
    KEY("run.delivery",          K_CHOICE_INT, run.delivery_inline,   0, 1,     delivery_choices),
    KEY("run.delivery_queue",    K_INT,        run.delivery_queue,    1, 100000, NULL),
    /* Set, it is the level or a refusal; unset, the weakest the DBMS offers from read committed. */
    { "run.isolation", K_CHOICE_STR, OFF(run.isolation), 0, 0, isolation_choices, 1,
      OFF(run.isolation_set), NULL, 0 },
    KEY("run.seed",              K_I64,        run.seed,              0, INT64_MAX, NULL),
    KEY("run.mode",              K_CHOICE_INT, run.mode,              1, 3,     mode_choices),
    KEY("run.transactions",      K_I64,        run.transactions,      0, INT64_MAX, NULL),
    KEY("run.max_outage",        K_DUR,        run.max_outage_us,     US_PER_S, US_PER_DAY, NULL),
    KEY("run.statements",        K_CHOICE_INT, run.statements,        0, 1,     statements_choices),
    KEY("run.metrics",           K_BOOL,       run.metrics,           0, 1,     NULL),
    KEY("run.metrics_listen",    K_STR,        run.metrics_listen,    0, S,     NULL),
    KEY("run.metrics_devices",   K_STR,        run.metrics_devices,   0, S,     NULL),
    KEY("run.wait_sampling",     K_INT,        run.wait_sampling,     0, 1000,  NULL),
    { "run.part", K_PART, OFF(run.part_k), 1, PART_MAX, NULL, WHERE(part) },
    /* 1 or more when given; the default 0 says "not given" (cfg_validate allows it). */
    { "run.parts", K_INT, OFF(run.parts), 1, PART_MAX, NULL, WHERE(parts) },
    KEY("run.part_timeout",      K_DUR,        run.part_timeout_us,   US_PER_S, US_PER_DAY, NULL),
    KEY("run.run_id",            K_STR,        run.run_id,            0, S,     NULL),
    KEY("run.meet_conninfo",     K_STR,        run.meet_conninfo,     0, S,     NULL),
    /* A scrape URL holds no credentials (set_url); a token comes from the environment. */
    { "run.db_host_metrics", K_STR, OFF(run.db_host_metrics), 0, S, NULL, 0, 0, set_url, 0 },
    { "run.db_host_metrics_auth_env", K_STR, OFF(run.db_host_metrics_auth_env), 0, S, NULL, 0, 0,
      set_password_env, 0 },
    KEY("run.db_host_device",    K_STR,        run.db_host_device,    0, S,     NULL),
    KEY("acid.crash_command",    K_STR,        acid.crash_command,    0, S,     NULL),
    KEY("acid.restart_command",  K_STR,        acid.restart_command,  0, S,     NULL),
    KEY("acid.restart_timeout",  K_DUR,        acid.restart_timeout_us, US_PER_S, US_PER_DAY, NULL),
    KEY("acid.durability",       K_CHOICE_INT, acid.durability,       0, 2,     durability_choices),
    KEY("acid.durability_window", K_DUR,       acid.durability_window_us, US_PER_S, US_PER_DAY, NULL),
    KEY("results.dir",           K_STR,        results.dir,           0, S,     NULL),
    KEY("results.label",         K_STR,        results.label,         0, S,     NULL),
    KEY("results.change",        K_STR,        results.change,        0, S,     NULL),
};

#undef S
#undef WHERE
#undef KEY
/* clang-format on */

#define NKEYS (sizeof(key_table) / sizeof(key_table[0]))

/* K_PART stores N in the int after K. */
_Static_assert(offsetof(struct config, run.part_n) == offsetof(struct config, run.part_k) + sizeof(int),
               "run.part_n must follow run.part_k");

static const char *const tx_names[TX_NTYPES] = {
    "new_order", "payment", "order_status", "delivery", "stock_level",
};

const char *tx_name(enum tx_type t)
{
    if ((int)t < 0 || t >= TX_NTYPES)
        return "unknown";
    return tx_names[t];
}

/* Row whose name is exactly the first len bytes of name, or NULL. */
static const struct key *key_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (strlen(key_table[i].name) == len && memcmp(key_table[i].name, name, len) == 0)
            return &key_table[i];
    }
    return NULL;
}

/* Whether section ("" for the top level) has keys under it in the table. */
static int is_section(const char *section)
{
    size_t n = strlen(section);

    for (size_t i = 0; i < NKEYS; i++) {
        if (strncmp(key_table[i].name, section, n) == 0 && key_table[i].name[n] == '.')
            return 1;
    }
    return 0;
}

/*
 * Write the names allowed directly under section ("" = top level) into buf,
 * comma-separated, in table order: "virtual_users, rampup, ...".
 */
static const char *section_keys(const char *section, char *buf, size_t size)
{
    size_t n = strlen(section), used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < NKEYS; i++) {
        const char *name = key_table[i].name, *part, *end;
        size_t plen;
        int seen = 0;

        if (n) {
            if (strncmp(name, section, n) != 0 || name[n] != '.')
                continue;
            part = name + n + 1;
        } else {
            part = name;
        }
        end = strchr(part, '.');
        plen = end ? (size_t)(end - part) : strlen(part);
        /* Skip a part already listed (run.mix and run.mix.new_order give "mix" once). */
        for (size_t j = 0; j < i && !seen; j++) {
            const char *other = key_table[j].name, *opart;
            if (n && (strncmp(other, section, n) != 0 || other[n] != '.'))
                continue;
            opart = n ? other + n + 1 : other;
            seen = strncmp(opart, part, plen) == 0 && (opart[plen] == '.' || !opart[plen]);
        }
        if (seen)
            continue;
        if (used + plen + 3 > size)
            break;
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%.*s", used ? ", " : "", (int)plen, part);
    }
    return buf;
}

/* ---- quoting and describing ---- */

/* "24h", "90s", "1500ms", "1us": the largest unit that divides exactly. */
static const char *fmt_duration(int64_t us, char *buf, size_t size)
{
    static const struct {
        const char *unit;
        int64_t us;
    } units[] = {
        { "h", 3600 * US_PER_S },
        { "m", 60 * US_PER_S },
        { "s", US_PER_S },
        { "ms", 1000 },
    };

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (us != 0 && us % units[i].us == 0) {
            snprintf(buf, size, "%lld%s", (long long)(us / units[i].us), units[i].unit);
            return buf;
        }
    }
    snprintf(buf, size, "%lldus", (long long)us);
    return buf;
}

/* "postgres, odbc, null": the listed spellings of a choice key. */
static const char *choice_list(const struct choice *ch, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (; ch->word; ch++) {
        if (ch->alias || used >= size)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", ch->word);
    }
    return buf;
}

/*
 * What a key must be, as the middle of "'k' must be <what> (got ...)".
 * Sections and K_MIX list their keys.
 */
static const char *describe(const struct key *k, const char *section, char *buf, size_t size)
{
    char list[640];

    if (!k) {
        snprintf(buf, size, "a mapping with the keys %s",
                 section_keys(section, list, sizeof(list)));
        return buf;
    }
    switch (k->type) {
    case K_STR:
        snprintf(buf, size, "a string");
        break;
    case K_BOOL:
        snprintf(buf, size, "true or false");
        break;
    case K_INT:
    case K_I64:
        snprintf(buf, size, "an integer from %lld to %lld", (long long)k->min, (long long)k->max);
        break;
    case K_DUR:
        snprintf(buf, size, "a duration such as 500ms, 30s, 5m or 1h");
        break;
    case K_CHOICE_STR:
    case K_CHOICE_INT:
        snprintf(buf, size, "one of %s", choice_list(k->choices, list, sizeof(list)));
        break;
    case K_MIX:
        snprintf(buf, size, "a mapping with the keys %s",
                 section_keys(k->name, list, sizeof(list)));
        break;
    case K_REAL:
        snprintf(buf, size, "a number from %.10g to %.10g", (double)k->min / 1e6,
                 (double)k->max / 1e6);
        break;
    case K_PART:
        snprintf(buf, size, "K/N, this process's part K of N parts, such as 2/4");
        break;
    }
    return buf;
}

/* ---- setting one value ---- */

/* One value being set: what the setters share. */
struct setting {
    struct config *c;    /* where it goes */
    const struct key *k; /* its row */
    const char *text;    /* the scalar, len bytes (NUL-terminated) */
    size_t len;
    const char *where;           /* the message prefix: "file:line:col" or an option */
    char got[YTREE_QUOTE_SIZE];  /* the text quoted for messages (a password not shown) */
    int n_passwords;             /* passwords in a connection string's text */
    struct err *e;
};

static void *field(struct config *c, const struct key *k)
{
    return (char *)c + k->off;
}

static int mix_sum(const int *mix)
{
    int sum = 0;

    for (int i = 0; i < TX_NTYPES; i++)
        sum += mix[i];
    return sum;
}

/*
 * "45,43,4,4,4": the whole mix in enum tx_type order, for cfg_set("run.mix").
 * Returns 0, or -1 when the text is not five integers from 0 to 100.
 */
static int parse_mix_list(const char *s, int *mix)
{
    char part[32];

    for (int i = 0; i < TX_NTYPES; i++) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        int64_t v;

        if ((end == NULL) != (i == TX_NTYPES - 1) || n >= sizeof(part))
            return -1;
        memcpy(part, s, n);
        part[n] = '\0';
        if (parse_int64(part, 0, 100, &v) != 0)
            return -1;
        mix[i] = (int)v;
        s = end ? end + 1 : s + n;
    }
    return 0;
}

/* 1 for the keys that hold a connection string (which must hold no password). */
static int is_connection_key(const struct key *k)
{
    return k->set == set_connection;
}

/*
 * Whether s is written as a duration ("1.5h", "30", "250us") whatever its
 * size, so that one too large for parse_duration_us() is reported as out of
 * range rather than as malformed.
 */
static int is_duration_shape(const char *s)
{
    static const char *const units[] = { "", "s", "ms", "us", "m", "h" };

    if (!is_digit(*s))
        return 0;
    while (is_digit(*s))
        s++;
    if (*s == '.') {
        if (!is_digit(*++s))
            return 0;
        while (is_digit(*s))
            s++;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (!strcmp(s, units[i]))
            return 1;
    }
    return 0;
}

/* ---- the setters: one per type of key, and the keys with more to them ---- */

/* "'k' must be <what k is> (got ...)": the message most refusals share. */
static int must_be(const struct setting *s)
{
    char what[720];

    return err_set(s->e, E_USAGE, "%s: '%s' must be %s (got %s)", s->where, s->k->name,
                   describe(s->k, NULL, what, sizeof(what)), s->got);
}

/* The text quoted for messages; a connection string's password is not shown. */
static void quote_got(struct setting *s)
{
    char tmp[CFG_STR], shown[CFG_STR + 64];
    size_t n = s->len < sizeof(tmp) - 1 ? s->len : sizeof(tmp) - 1;

    if (!is_connection_key(s->k)) {
        ytree_quote(s->text, s->len, s->got, sizeof(s->got));
        return;
    }
    /* A password in it is refused by set_connection; no message may quote one. */
    memcpy(tmp, s->text, n);
    tmp[n] = '\0';
    s->n_passwords = secret_redact(tmp, shown, sizeof(shown));
    ytree_quote(shown, strlen(shown), s->got, sizeof(s->got));
    secret_wipe(tmp, sizeof(tmp));
}

/* K_STR: a string of at most max bytes. */
static int set_str(struct setting *s)
{
    char *f = field(s->c, s->k);

    if (s->len > (size_t)s->k->max)
        return err_set(s->e, E_USAGE, "%s: '%s' must be at most %lld bytes long (got %zu)",
                       s->where, s->k->name, (long long)s->k->max, s->len);
    memcpy(f, s->text, s->len);
    f[s->len] = '\0';
    return 0;
}

/* database.conninfo and dsn: a string that holds no password. */
static int set_connection(struct setting *s)
{
    if (s->len > (size_t)s->k->max)
        return set_str(s); /* the length's message first */
    /* Passwords come only from the environment (DESIGN.md): one in a
     * connection string would be in the file, in `ps` for --conninfo,
     * and echoed back by drivers. */
    if (s->n_passwords > 0)
        return err_set(s->e, E_USAGE,
                       "%s: '%s' holds a password (not shown): remove it, and put the "
                       "password in the environment variable named by "
                       "database.password_env",
                       s->where, s->k->name);
    return set_str(s);
}

/* database.password_env: the name of a variable, never the password itself (wiped if it is). */
static int set_password_env(struct setting *s)
{
    int rc = set_str(s);

    if (rc != 0 || s->len == 0 || secret_env_name_ok(field(s->c, s->k)))
        return rc;
    secret_wipe(field(s->c, s->k), CFG_STR);
    return err_set(s->e, E_USAGE,
                   "%s: '%s' must be the name of an environment variable (letters, "
                   "digits and '_'), not the password itself; the value is not shown",
                   s->where, s->k->name);
}

/*
 * run.db_host_metrics: an http:// or https:// URL without credentials.  A
 * user:password@ in it would be in the file, in `ps` for the option and in
 * the record; a token goes in the variable named by
 * run.db_host_metrics_auth_env instead.  The value is not quoted back.
 */
static int set_url(struct setting *s)
{
    const char *t = s->text, *auth, *end;
    int rc = set_str(s);

    if (rc != 0 || s->len == 0)
        return rc;
    if (strncmp(t, "http://", 7) != 0 && strncmp(t, "https://", 8) != 0) {
        ((char *)field(s->c, s->k))[0] = '\0';
        return err_set(s->e, E_USAGE,
                       "%s: '%s' must be an http:// or https:// URL of a node_exporter "
                       "(\"http://db1:9100/metrics\")",
                       s->where, s->k->name);
    }
    auth = strstr(t, "//") + 2;
    end = auth + strcspn(auth, "/?#");
    if (memchr(auth, '@', (size_t)(end - auth))) {
        secret_wipe(field(s->c, s->k), CFG_STR);
        return err_set(s->e, E_USAGE,
                       "%s: '%s' holds credentials (user or password before '@'; not "
                       "shown): remove them, and put a bearer token in the environment "
                       "variable named by run.db_host_metrics_auth_env",
                       s->where, s->k->name);
    }
    return 0;
}

/* K_BOOL: true, yes, on or false, no, off. */
static int set_bool(struct setting *s)
{
    const char *t = s->text;

    if (!strcasecmp(t, "true") || !strcasecmp(t, "yes") || !strcasecmp(t, "on"))
        *(int *)field(s->c, s->k) = 1;
    else if (!strcasecmp(t, "false") || !strcasecmp(t, "no") || !strcasecmp(t, "off"))
        *(int *)field(s->c, s->k) = 0;
    else
        return err_set(s->e, E_USAGE, "%s: '%s' must be true or false (got %s)", s->where,
                       s->k->name, s->got);
    return 0;
}

/* K_INT and K_I64: an integer in [min, max]. */
static int set_int(struct setting *s)
{
    int64_t v;

    if (parse_int64(s->text, s->k->min, s->k->max, &v) != 0)
        return must_be(s);
    if (s->k->type == K_INT)
        *(int *)field(s->c, s->k) = (int)v;
    else
        *(int64_t *)field(s->c, s->k) = v;
    return 0;
}

/* The message for a duration outside [min, max], worded by where the range starts. */
static int duration_range_error(const struct setting *s)
{
    const struct key *k = s->k;
    char a[32], b[32];

    if (k->min <= 0)
        return err_set(s->e, E_USAGE, "%s: '%s' must be a duration of at most %s (got %s)",
                       s->where, k->name, fmt_duration(k->max, b, sizeof(b)), s->got);
    if (k->min == 1)
        return err_set(s->e, E_USAGE, "%s: '%s' must be a duration above 0 and at most %s (got %s)",
                       s->where, k->name, fmt_duration(k->max, b, sizeof(b)), s->got);
    return err_set(s->e, E_USAGE, "%s: '%s' must be a duration from %s to %s (got %s)", s->where,
                   k->name, fmt_duration(k->min, a, sizeof(a)), fmt_duration(k->max, b, sizeof(b)),
                   s->got);
}

/* K_DUR: a duration in [min, max] microseconds. */
static int set_duration(struct setting *s)
{
    const struct key *k = s->k;
    const char *t = s->text;
    char b[32];
    int64_t v;

    if (t[0] == '-' && parse_duration_us(t + 1, &v) == 0 && v > 0)
        return err_set(s->e, E_USAGE,
                       "%s: '%s' must not be negative: give a duration %s %s (got %s)", s->where,
                       k->name, k->min <= 0 ? "from 0 to" : "above 0 and at most",
                       fmt_duration(k->max, b, sizeof(b)), s->got);
    if (parse_duration_us(t, &v) != 0) {
        if (!is_duration_shape(t))
            return must_be(s);
        v = INT64_MAX; /* well-formed but past int64_t: out of range like any large value */
    }
    if (v < k->min || v > k->max)
        return duration_range_error(s);
    *(int64_t *)field(s->c, k) = v;
    return 0;
}

/* K_CHOICE_STR and K_CHOICE_INT: one of the key's words (some known but refused). */
static int set_choice(struct setting *s)
{
    const struct key *k = s->k;
    const struct choice *ch = k->choices;

    while (ch->word && strcasecmp(ch->word, s->text) != 0)
        ch++;
    if (!ch->word)
        return must_be(s);
    if (k->type == K_CHOICE_INT && ch->value < 0)
        return err_set(s->e, E_USAGE, "%s: '%s' %s %s", s->where, k->name, ch->word, ch->store);
    if (k->type == K_CHOICE_STR)
        snprintf(field(s->c, k), CFG_STR, "%s", ch->store);
    else
        *(int *)field(s->c, k) = ch->value;
    return 0;
}

/* K_REAL: a number in [min, max] millionths; a rate may end in "/s". */
static int set_real(struct setting *s)
{
    char tmp[64], *end;
    size_t n = s->len < sizeof(tmp) - 1 ? s->len : sizeof(tmp) - 1;
    double d;

    memcpy(tmp, s->text, n);
    tmp[n] = '\0';
    /* A rate may say its unit. */
    if (n > 2 && !strcmp(tmp + n - 2, "/s"))
        tmp[n - 2] = '\0';
    errno = 0;
    d = strtod(tmp, &end);
    if (!tmp[0] || !is_digit(tmp[0]) || *end || errno == ERANGE || d != d)
        return must_be(s);
    if (d < (double)s->k->min / 1e6 || d > (double)s->k->max / 1e6)
        return must_be(s);
    *(double *)field(s->c, s->k) = d;
    return 0;
}

/* K_PART: "K/N" into two ints (core/part.h words its refusals). */
static int set_part(struct setting *s)
{
    char tmp[64], name[CFG_STR + 64];
    int pk, pn;

    if (s->len >= sizeof(tmp))
        return must_be(s);
    memcpy(tmp, s->text, s->len);
    tmp[s->len] = '\0';
    snprintf(name, sizeof(name), "%s: '%s'", s->where, s->k->name);
    if (part_parse(tmp, name, &pk, &pn, s->e) < 0)
        return E_USAGE;
    ((int *)field(s->c, s->k))[0] = pk;
    ((int *)field(s->c, s->k))[1] = pn;
    return 0;
}

/* K_MIX: "45,43,4,4,4", only from cfg_set() (a YAML mix is a mapping, handled by the walker). */
static int set_mix(struct setting *s)
{
    int mix[TX_NTYPES];

    if (parse_mix_list(s->text, mix) != 0)
        return err_set(s->e, E_USAGE,
                       "%s: '%s' must be five integers from 0 to 100 separated by commas, for "
                       "new_order, payment, order_status, delivery, stock_level (got %s)",
                       s->where, s->k->name, s->got);
    if (mix_sum(mix) != 100)
        return err_set(s->e, E_USAGE, "%s: '%s' must sum to 100 (got %d)", s->where, s->k->name,
                       mix_sum(mix));
    memcpy(field(s->c, s->k), mix, sizeof(mix));
    return 0;
}

/* How a key of each type is set, unless its row names a setter of its own. */
static const set_fn setters[] = {
    [K_STR] = set_str,           [K_BOOL] = set_bool,    [K_INT] = set_int,
    [K_I64] = set_int,           [K_DUR] = set_duration, [K_CHOICE_STR] = set_choice,
    [K_CHOICE_INT] = set_choice, [K_MIX] = set_mix,      [K_REAL] = set_real,
    [K_PART] = set_part,
};

/*
 * Check the scalar text (len bytes) against key k and store it into c.
 * where is the message prefix: "file:line:col" or a command-line origin.
 */
static int set_value(struct config *c, const struct key *k, const char *text, size_t len,
                     const char *where, struct err *e)
{
    struct setting s = { .c = c, .k = k, .text = text, .len = len, .where = where, .e = e };
    int rc;

    quote_got(&s);
    if (memchr(text, '\0', len))
        return err_set(e, E_USAGE, "%s: '%s' must not contain a NUL character (got %s)", where,
                       k->name, s.got);
    if ((rc = (k->set ? k->set : setters[k->type])(&s)) != 0)
        return rc;
    if (k->has_flag)
        *(int *)((char *)c + k->flag_off) = 1;
    /* Remember where the keys that choose the server came from (an empty string: not given). */
    if (k->where_off) {
        char *w = (char *)c + k->where_off;
        if (len == 0)
            w[0] = '\0';
        else
            snprintf(w, CFG_STR, "%s", where);
    }
    return 0;
}

/* The message every "password" key gets, wherever it appears. */
static int password_error(const char *where, const char *name, struct err *e)
{
    return err_set(e, E_USAGE,
                   "%s: '%s' is not allowed: passwords come only from the environment variable "
                   "named by database.password_env",
                   where, name);
}

/* ---- mapping the tree onto the config ---- */

/* State of one walk of the tree (core/yaml.h) onto a config. */
struct loader {
    const char *name; /* file name for messages */
    struct config *c; /* the config being filled (a scratch copy) */
    struct err *e;
};

/* "a mapping", "a sequence" or the quoted scalar, for "(got ...)". */
static const char *node_got(const struct ytree_node *n, char *buf, size_t size)
{
    if (n->kind == YTREE_MAP)
        return "a mapping";
    if (n->kind == YTREE_SEQ)
        return "a sequence";
    return ytree_quote(n->text, n->len, buf, size);
}

static int walk_map(struct loader *ld, const struct ytree_node *map, const char *section);

/* Value of the section or K_MIX key path: must be a mapping (or nothing at all). */
static int walk_section(struct loader *ld, const struct key *k, const char *path,
                        const struct ytree_node *val)
{
    char where[CFG_STR + 32], what[720], got[YTREE_QUOTE_SIZE];
    int rc, sum;

    if (val->kind != YTREE_MAP && !ytree_is_empty(val))
        return err_set(ld->e, E_USAGE, "%s: '%s' must be %s (got %s)",
                       ytree_where(ld->name, val, where, sizeof(where)), path,
                       describe(k, path, what, sizeof(what)), node_got(val, got, sizeof(got)));
    if (!k || k->type != K_MIX)
        return val->kind == YTREE_MAP ? walk_map(ld, val, path) : 0;

    /* A mix in the file replaces the whole mix: a type it leaves out gets 0. */
    memset(field(ld->c, k), 0, sizeof(ld->c->run.mix));
    ld->c->run.mix_set = 1;
    if (val->kind == YTREE_MAP && (rc = walk_map(ld, val, path)) != 0)
        return rc;
    sum = mix_sum(field(ld->c, k));
    if (sum != 100)
        return err_set(ld->e, E_USAGE, "%s: '%s' must sum to 100 (got %d)",
                       ytree_where(ld->name, val, where, sizeof(where)), path, sum);
    return 0;
}

/* Whether the key text is a bare name ([A-Za-z0-9_]+), the only kind the table holds. */
static int is_name(const char *s, size_t len)
{
    if (len == 0 || len > 64)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!(ch == '_' || is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
            return 0;
    }
    return 1;
}

static int unknown_key(const char *where, const char *path, const char *section, struct err *e)
{
    char list[640];

    return err_set(e, E_USAGE, "%s: unknown key '%s' (allowed here: %s)", where, path,
                   section_keys(section, list, sizeof(list)));
}

/* Apply every key: value of map, whose dotted name is section ("" = top). */
static int walk_map(struct loader *ld, const struct ytree_node *map, const char *section)
{
    char where[CFG_STR + 32], path[320], what[720], got[YTREE_QUOTE_SIZE];

    for (const struct ytree_node *key = map->first; key; key = key->next->next) {
        const struct ytree_node *val = key->next, *prev;
        const struct key *k;
        char q[YTREE_QUOTE_SIZE];
        int rc;

        ytree_where(ld->name, key, where, sizeof(where));
        if (key->kind != YTREE_SCALAR)
            return err_set(ld->e, E_USAGE,
                           "%s: keys must be plain names such as 'duration' (got %s)", where,
                           node_got(key, got, sizeof(got)));
        ytree_quote_bare(key->text, key->len, q, sizeof(q));
        snprintf(path, sizeof(path), "%s%s%s", section, *section ? "." : "", q);

        if (!strcasecmp(q, "password"))
            return password_error(where, path, ld->e);

        /* Match the key by its own name only: "mix.payment" under run is not a key. */
        if (!is_name(key->text, key->len))
            return unknown_key(where, path, section, ld->e);
        k = key_find(path, strlen(path));
        if (!k && !is_section(path))
            return unknown_key(where, path, section, ld->e);

        for (prev = map->first; prev != key; prev = prev->next->next) {
            if (prev->kind == YTREE_SCALAR && prev->len == key->len &&
                memcmp(prev->text, key->text, key->len) == 0)
                return err_set(ld->e, E_USAGE, "%s: duplicate key '%s' (first at line %d:%d)",
                               where, path, prev->line, prev->col);
        }

        ytree_where(ld->name, val, where, sizeof(where));
        if (!k || k->type == K_MIX)
            rc = walk_section(ld, k, path, val);
        else if (val->kind != YTREE_SCALAR)
            rc = err_set(ld->e, E_USAGE, "%s: '%s' must be %s (got %s)", where, path,
                         describe(k, NULL, what, sizeof(what)), node_got(val, got, sizeof(got)));
        else
            rc = set_value(ld->c, k, val->text, val->len, where, ld->e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Map root (as ytree_load_*() gave it) onto c, which is unchanged on error. */
static int load_tree(struct config *c, const char *name, const struct ytree_node *root,
                     struct err *e)
{
    struct config scratch = *c;
    struct loader ld = { .name = name, .c = &scratch, .e = e };
    char where[CFG_STR + 32], got[YTREE_QUOTE_SIZE], list[640];
    int rc;

    if (!root || ytree_is_empty(root))
        return err_set(e, E_USAGE, "%s: the config file is empty (expected a mapping with %s)",
                       name, section_keys("", list, sizeof(list)));
    if (root->kind != YTREE_MAP)
        return err_set(e, E_USAGE, "%s: the config file must be a mapping with %s (got %s)",
                       ytree_where(name, root, where, sizeof(where)),
                       section_keys("", list, sizeof(list)), node_got(root, got, sizeof(got)));
    if ((rc = walk_map(&ld, root, "")) != 0)
        return rc;
    snprintf(scratch.path, sizeof(scratch.path), "%s", name);
    *c = scratch;
    return 0;
}

int cfg_load_string(struct config *c, const char *name, const char *text, size_t len, struct err *e)
{
    struct ytree_node *root;
    int rc;

    if ((rc = ytree_load_string(name, text, len, "config", &root, e)) != 0)
        return rc;
    rc = load_tree(c, name, root, e);
    ytree_free(root);
    return rc;
}

int cfg_load(struct config *c, const char *path, struct err *e)
{
    struct ytree_node *root;
    int rc;

    if ((rc = ytree_load_file(path, "config", &root, e)) != 0)
        return rc;
    rc = load_tree(c, path, root, e);
    ytree_free(root);
    return rc;
}

int cfg_key_known(const char *key)
{
    const struct key *k = key_find(key, strlen(key));

    return k != NULL && k->type != K_MIX;
}

/* ---- command-line overrides and cross-checks ---- */

int cfg_set(struct config *c, const char *key, const char *value, const char *origin, struct err *e)
{
    char q[YTREE_QUOTE_SIZE], list[640], section[128];
    const struct key *k;
    const char *dot, *last;

    ytree_quote_bare(key, strlen(key), q, sizeof(q));
    last = strrchr(key, '.');
    if (!strcasecmp(last ? last + 1 : key, "password"))
        return password_error(origin, q, e);

    k = key_find(key, strlen(key));
    if (!k) {
        if (*key && is_section(key))
            return err_set(e, E_USAGE, "%s: '%s' is a section, not a key (keys in it: %s)", origin,
                           q, section_keys(key, list, sizeof(list)));
        /* List the keys of the deepest known section the name starts with. */
        section[0] = '\0';
        for (dot = strchr(key, '.'); dot; dot = strchr(dot + 1, '.')) {
            size_t n = (size_t)(dot - key);
            if (n >= sizeof(section))
                break;
            memcpy(section, key, n);
            section[n] = '\0';
            if (!is_section(section)) {
                /* Back off to the parent, which is known. */
                char *p = strrchr(section, '.');
                if (p)
                    *p = '\0';
                else
                    section[0] = '\0';
                break;
            }
        }
        return err_set(e, E_USAGE, "%s: unknown key '%s' (allowed here: %s)", origin, q,
                       section_keys(section, list, sizeof(list)));
    }
    if (!value)
        return err_set(e, E_USAGE, "%s: '%s' needs a value", origin, q);
    return set_value(c, k, value, strlen(value), origin, e);
}

int cfg_validate(struct config *c, struct err *e)
{
    const char *sep = c->path[0] ? ": " : "", *wm, *wsep;
    char a[32], b[32], got[32];
    int sum;

    /* Ranges again: a caller may have filled fields directly. */
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &key_table[i];
        const char *p = (const char *)c + k->off;
        int64_t v;

        switch (k->type) {
        case K_INT:
        case K_I64:
        case K_DUR:
            v = k->type == K_INT ? *(const int *)(const void *)p
                                 : *(const int64_t *)(const void *)p;
            if (k->off == OFF(run.parts) && v == 0)
                break; /* not given */
            if (v < k->min || v > k->max) {
                if (k->type == K_DUR)
                    return err_set(e, E_USAGE, "%s%s'%s' must be a duration from %s to %s (got %s)",
                                   c->path, sep, k->name, fmt_duration(k->min, a, sizeof(a)),
                                   fmt_duration(k->max, b, sizeof(b)),
                                   fmt_duration(v, got, sizeof(got)));
                return err_set(e, E_USAGE,
                               "%s%s'%s' must be an integer from %lld to %lld (got %lld)", c->path,
                               sep, k->name, (long long)k->min, (long long)k->max, (long long)v);
            }
            break;
        case K_STR:
        case K_CHOICE_STR:
            if (!memchr(p, '\0', CFG_STR))
                return err_set(e, E_USAGE, "%s%s'%s' is not terminated", c->path, sep, k->name);
            break;
        default:
            break;
        }
    }

    sum = mix_sum(c->run.mix);
    if (c->run.mix_set && sum != 100)
        return err_set(e, E_USAGE, "%s%s'run.mix' must sum to 100 (got %d)", c->path, sep, sum);
    if (!strcmp(c->database.driver, "odbc") && !c->database.dsn[0])
        return err_set(e, E_USAGE, "%s%s'database.dsn' must be set when 'database.driver' is odbc",
                       c->path, sep);
    if (!c->database.managed_set)
        c->database.managed = !strcmp(c->database.driver, "postgres") && !c->database.conninfo[0] &&
                              !c->database.dsn[0];
    /* One way to offer load at a time. */
    if (c->run.rate > 0 && c->run.think_time)
        return err_set(e, E_USAGE,
                       "%s%s'run.rate' (an open loop of arrivals) and 'run.think_time' (the spec's "
                       "terminal timing) are two ways to offer load: choose one",
                       c->path, sep);
    if (c->run.time_scale != 1.0 && !c->run.think_time)
        return err_set(e, E_USAGE,
                       "%s%s'run.time_scale' scales keying and think times: it needs "
                       "'run.think_time: true'",
                       c->path, sep);
    /* Messages about managed start where it was set (file position or option). */
    wm = c->where.managed[0] ? c->where.managed : c->path;
    wsep = wm[0] ? ": " : "";
    if (c->database.managed && (c->database.conninfo[0] || c->database.dsn[0])) {
        const char *key = c->database.conninfo[0] ? "database.conninfo" : "database.dsn";
        const char *kw = c->database.conninfo[0] ? c->where.conninfo : c->where.dsn;
        return err_set(e, E_USAGE,
                       "%s%s'database.managed' is true, but '%s' (%s) names a server: managed "
                       "starts a private PostgreSQL and would measure that instead; remove "
                       "'database.managed' to measure the server %s names, or remove '%s'",
                       wm, wsep, key, kw[0] ? kw : "set", key + 9, key);
    }
    if (c->database.managed && strcmp(c->database.driver, "postgres") != 0)
        return err_set(e, E_USAGE,
                       "%s%s'database.managed' needs 'database.driver' postgres (got %s); set "
                       "managed: false to use another driver",
                       wm, wsep, c->database.driver);
    return 0;
}

void cfg_defaults(struct config *c)
{
    /* The spec's 23-card deck (tpcc/deck.h: deck_spec_weights): a mix in
     * percent has no headroom over the minimums of clause 5.2.3. */
    static const int mix[TX_NTYPES] = { 10, 10, 1, 1, 1 };

    memset(c, 0, sizeof(*c));
    snprintf(c->database.driver, CFG_STR, "%s", "postgres");
    c->database.managed = 1;
    c->schema.warehouses = 1;
    c->load.jobs = 2;
    c->load.seed = 1;
    c->run.virtual_users = 4;
    c->run.warmup_us = 5 * US_PER_S;
    c->run.duration_us = 60 * US_PER_S;
    memcpy(c->run.mix, mix, sizeof(mix));
    c->run.max_retries = 10;
    c->run.max_outage_us = 60 * US_PER_S;
    c->run.part_timeout_us = 5 * 60 * US_PER_S;
    c->run.metrics = 1;
    c->run.wait_sampling = 10;
    c->run.batch = 1; /* one transaction per round trip */
    c->run.delivery_workers = 0; /* as many as the connections need (driver.c) */
    c->run.time_scale = 1.0;
    c->run.delivery_queue = 64;
    snprintf(c->run.isolation, CFG_STR, "%s", "read committed");
    c->acid.restart_timeout_us = 60 * US_PER_S;
    c->acid.durability_window_us = 5 * US_PER_S;
    snprintf(c->results.dir, CFG_STR, "%s", "results");
    snprintf(c->results.label, CFG_STR, "%s", "run");
}

const char *run_mode_name(int mode)
{
    switch (mode) {
    case RUN_MODE_CLIENT:
        return "client";
    case RUN_MODE_PIPELINE:
        return "pipeline";
    case RUN_MODE_PROCEDURE:
        return "procedure";
    default:
        return "auto";
    }
}

const char *run_statements_name(int statements)
{
    return statements == RUN_STMT_UNNAMED ? "unnamed" : "prepared";
}

/* ---- small parsers ---- */

int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    const char *p;
    char *end;
    long long v;

    if (!s)
        return -1;
    /* strtoll alone would take spaces, '+' and (with base 0) hex: check the form first. */
    p = s[0] == '-' ? s + 1 : s;
    if (!*p)
        return -1;
    for (; *p; p++) {
        if (!is_digit(*p))
            return -1;
    }
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno == ERANGE || *end != '\0' || end == s)
        return -1;
    if (v < min || v > max)
        return -1;
    *out = (int64_t)v;
    return 0;
}

int parse_duration_us(const char *s, int64_t *out_us)
{
    static const struct {
        const char *unit;
        int64_t us;
    } units[] = {
        { "", US_PER_S }, { "s", US_PER_S },      { "ms", 1000 },
        { "us", 1 },      { "m", 60 * US_PER_S }, { "h", 3600 * US_PER_S },
    };
    int64_t whole = 0, frac = 0, frac_div = 1, unit = 0, v;

    if (!s || !is_digit(*s))
        return -1;
    for (; is_digit(*s); s++) {
        if (whole > (INT64_MAX - (*s - '0')) / 10)
            return -1;
        whole = whole * 10 + (*s - '0');
    }
    if (*s == '.') {
        s++;
        if (!is_digit(*s))
            return -1;
        /* Nine digits are finer than a microsecond for every unit; the rest is cut. */
        for (; is_digit(*s); s++) {
            if (frac_div < INT64_C(1000000000)) {
                frac = frac * 10 + (*s - '0');
                frac_div *= 10;
            }
        }
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (!strcmp(s, units[i].unit)) {
            unit = units[i].us;
            break;
        }
    }
    if (!unit || whole > INT64_MAX / unit)
        return -1;
    v = whole * unit;
    /* frac < 1e9 and unit <= 3.6e9, so frac * unit fits in int64_t. */
    frac = frac * unit / frac_div;
    if (v > INT64_MAX - frac)
        return -1;
    *out_us = v + frac;
    return 0;
}
