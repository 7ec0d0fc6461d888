/*
 * durab.h - TPC-C's durability test (clause 3.5): the mix run on the
 * config's terminals, every transaction the database acknowledged kept in
 * memory with what it wrote, the database failed in the middle of it by
 * the caller's crash, recovered by the caller's restart, and then every
 * acknowledged transaction looked up.  Spec logic only: how a server is
 * crashed and restarted (a SIGKILL, a power loss on tpccbench-lazyfs, a
 * user's command) is the caller's (cmd/acidcrash.c), and so are the
 * printing and the record.
 */
#ifndef TPCC_DURAB_H
#define TPCC_DURAB_H

#include <stdint.h>

#include "core/err.h"
#include "tpcc/acid.h"
#include "tpcc/check.h"

/* What fails (acid_crash.kind). */
enum acid_crash_kind {
    ACID_CRASH_KILL = 1, /* the server's processes die, the OS and its cache survive */
    ACID_CRASH_POWER,    /* power loss: what the server had not made durable is gone */
    ACID_CRASH_COMMAND,  /* a user's server: acid.crash_command, then acid.restart_command */
};

/* Name of a crash kind: "kill", "power", "command". */
const char *acid_crash_name(int kind);

/*
 * The failure and the recovery, done by the caller.  crash() returns once
 * every process of the server is gone (and, for a power loss, what was
 * not durable dropped); restart() once the server was started again by
 * its normal procedure, or E_FAIL with why (its log's last lines) when it
 * does not come back.  Both called from acid_durability's thread.
 */
struct acid_crash {
    int kind; /* enum acid_crash_kind */
    int (*crash)(void *ctx, struct err *e);
    int (*restart)(void *ctx, struct err *e);
    void *ctx;
};

/* The types with something to look up (acid_dur.by_type). */
enum acid_dur_type { ACID_DUR_NEW_ORDER = 0, ACID_DUR_PAYMENT, ACID_DUR_DELIVERY, ACID_DUR_NTYPES };

/* Name of an acid_dur_type in run.json: "new_order", "payment", "delivery". */
const char *acid_dur_type_key(int t);

struct acid_dur_counts {
    int64_t acknowledged;      /* committed, as the database said */
    int64_t present;           /* of those, found after the recovery */
    int64_t lost;              /* of those, not found: LOST */
    int64_t in_flight;         /* sent, no answer when the crash came */
    int64_t in_flight_present; /* of those, found (either is allowed) */
};

/* The first acknowledged transaction found lost (the earliest acknowledged). */
struct acid_dur_lost {
    int found;        /* 0: none lost */
    int type;         /* enum acid_dur_type */
    int w, d;         /* its warehouse; district (New-Order, Payment, a Delivery's first lost) */
    int o_id;         /* New-Order, Delivery: the order */
    int c_w, c_d;     /* Payment: the customer's warehouse and district */
    int64_t amount_cents; /* Payment */
    double acked_s;   /* when it was acknowledged, seconds from the mix's start */
};

struct acid_dur {
    int durable;         /* 1: the server came back, nothing lost, the conditions hold */
    int came_back;       /* 1: restarted and took a connection */
    double window_s;     /* the window the crash was drawn in */
    double crash_at_s;   /* the crash, seconds from the mix's start (as planned) */
    int terminals;
    struct acid_dur_counts total, by_type[ACID_DUR_NTYPES];
    int64_t read_only;   /* Order-Status and Stock-Level acknowledged (nothing to look up) */
    int64_t rolled_back; /* New-Orders rolled back as the spec asks (none can be lost) */
    int64_t failed;      /* transactions that failed before the crash (retryable or not) */
    struct acid_dur_lost first_lost;
    double recovery_connect_s;   /* crash to the first accepted connection, -1 never */
    double recovery_new_order_s; /* crash to the first committed New-Order, -1 never */
    char settings[256];  /* durability settings not at their default ("" none or unknown) */
    char why[1024];      /* not durable: why (the server's log when it did not come back) */
    int check_ran;       /* 1: the consistency conditions ran */
    struct check_result check;
};

/*
 * The durability test on s (its dialect, mode, level, warehouses, seed;
 * terminals, window_us and crash_at_us): the mix for up to window_us on
 * s->terminals connections without think time, k's crash at crash_at_us
 * from its start (0: a random instant in the middle half of the window,
 * to 0.1 s), k's restart, then the look-ups, the consistency conditions
 * and the recovery times into r.  Returns 0 with r filled (r->durable
 * says the verdict; a server that did not come back is a verdict too),
 * or negative with e when the test could not run (connect, statements)
 * before the crash.  Writes as the mix does.
 */
int acid_durability(const struct acid_setup *s, const struct acid_crash *k, struct acid_dur *r,
                    struct err *e);

#endif
