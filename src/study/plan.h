/*
 * plan.h - a tuning study as the study file describes it: options, the
 * workload (config keys of run, schema and load), the steps with the server
 * settings each sets and the commands around it, and the order of runs.
 *
 *   study: { name: pg-basics, repeat: 3, order: interleaved, reset: template,
 *            cumulative: true, control: false, on_failure: continue,
 *            restart_command: "systemctl restart postgresql" }
 *   workload: { warehouses: 4, virtual_users: 8, warmup: 30s, duration: 2m }
 *   steps:
 *     - label: baseline
 *     - label: sync-off
 *       set: { synchronous_commit: "off" }
 *       before: "..."            # shell command before each run of the step
 *       after: "..."             # and after it
 *
 * study_plan_load() reads the file (the config's YAML loader: errors are
 * "file:line:col: ..." E_USAGE) and applies the workload keys to a config
 * through cfg_set(), so they obey the config's rules and messages.  Nothing
 * here talks to a server, prints or exits.
 */
#ifndef TPCC_STUDY_PLAN_H
#define TPCC_STUDY_PLAN_H

#include "core/config.h"
#include "core/err.h"

#define STUDY_MAX_STEPS 32
#define STUDY_MAX_SET 32
#define STUDY_MAX_RUNS 1024
#define STUDY_NAME 64   /* a setting's name (PostgreSQL's NAMEDATALEN) */
#define STUDY_VALUE 256
#define STUDY_CMD 1024

enum study_reset { STUDY_RESET_TEMPLATE = 0, STUDY_RESET_LOAD, STUDY_RESET_NONE };

/* One server setting of a step, with where the file says it. */
struct study_setting {
    char name[STUDY_NAME];
    char value[STUDY_VALUE];
    char where[300]; /* "file:line:col" of the value */
};

struct study_step {
    char label[128];
    struct study_setting set[STUDY_MAX_SET]; /* its own settings, in file order */
    int nset;
    char before[STUDY_CMD]; /* "" = none */
    char after[STUDY_CMD];
    char where[300];        /* "file:line:col" of the step */
    int control;            /* 1: the A/A control step (a copy of the baseline) */
};

struct study_plan {
    char path[CFG_STR];
    char name[128];
    int repeat;             /* runs of each step, >= 1 */
    int interleaved;        /* 1: rounds of every step; 0: each step's repeats together */
    int reset;              /* enum study_reset */
    int cumulative;         /* 1: a step keeps the settings of the steps before it */
    int control;            /* 1: the baseline is repeated as a step of its own */
    int on_failure_stop;    /* 1: a failed run stops the study */
    char restart_command[STUDY_CMD]; /* an existing server's restart ("" = none) */
    struct study_step steps[STUDY_MAX_STEPS + 1]; /* + the control */
    int nsteps;
};

/* One run of the study: which step, which repeat (1-based). */
struct study_run {
    int step;
    int repeat;
};

/* Read the study file at path into p, applying its workload to cfg (which holds the
 * config already).  E_USAGE with file:line:col on any error. */
int study_plan_load(struct study_plan *p, struct config *cfg, const char *path, struct err *e);

/*
 * The settings in force at step s, as an ordered list of name = value:
 * cumulative, those of steps 0..s (a later step's value wins); else those of
 * the baseline and step s.  Returns how many were written (at most max).
 */
int study_settings_at(const struct study_plan *p, int s, struct study_setting *out, int max);

/* Every setting name any step sets, once each, in order of appearance. */
int study_all_names(const struct study_plan *p, char (*out)[STUDY_NAME], int max);

/* The order of runs: rounds of steps (interleaved) or each step's repeats together. */
int study_schedule(const struct study_plan *p, struct study_run *out, int max);

/* "template", "load", "none" */
const char *study_reset_name(int reset);

#endif
