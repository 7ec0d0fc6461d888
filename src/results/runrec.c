/*
 * runrec.c - a run record being written, and its one writer: runrec_save()
 * writes run.json (record_write_json) and appends its history index line
 * (history_index_append).  Commands set C fields and doc's members; nothing
 * here reads a fact back out of doc.  Also the marking of crashed records,
 * a rewrite of run.json like any other.  Never prints.
 */
#include "results/runrec.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "results/fingerprint.h"
#include "results/history.h"
#include "results/record.h"

int runrec_make_dir(const char *results_dir, const char *label, char *out, size_t len,
                    struct err *e)
{
    runrec_mark_crashed(results_dir);
    return record_make_dir(results_dir, label, out, len, e);
}

/* UTC now as "2024-01-31T12:00:00Z" ("unknown" when the clock cannot say). */
static void utc_now(char *out, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;

    if (!gmtime_r(&now, &tm) || !strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, len, "unknown");
}

int runrec_begin(struct runrec *r, const struct config *cfg, const char *kind, const char *dir)
{
    json_t *config = record_config(cfg), *env = record_environment();
    char hash[64], started[32];

    memset(r, 0, sizeof(*r));
    snprintf(r->dir, sizeof(r->dir), "%s", dir);
    snprintf(r->status, sizeof(r->status), "running");
    r->db_local = -1;
    gethostname(r->hostname, sizeof(r->hostname) - 1);
    /* The environment fingerprint's config hash and the start time (UTC). */
    fingerprint_config_hash(config, hash, sizeof(hash));
    json_object_set_new(env, "config_hash", json_string(hash));
    utc_now(started, sizeof(started));
    /* "process": who writes it, so a reader can tell a crashed run (record_liveness). */
    r->doc = json_pack("{s:o, s:s, s:s, s:s, s:o, s:s, s:s, s:o, s:o}", "tool", record_tool(),
                       "kind", kind, "status", "running", "started", started, "process",
                       record_process(), "label", cfg->results.label, "change",
                       cfg->results.change, "config", config, "environment", env);
    r->env = env;
    r->config = config;
    return r->doc ? 0 : -1;
}

void runrec_adopt(struct runrec *r, json_t *doc, const char *dir)
{
    memset(r, 0, sizeof(*r));
    r->doc = doc;
    r->env = json_object_get(doc, "environment");
    r->config = json_object_get(doc, "config");
    r->db_local = -1;
    snprintf(r->dir, sizeof(r->dir), "%s", dir);
}

void runrec_release(struct runrec *r)
{
    json_decref(r->doc);
    r->doc = NULL;
    r->env = r->config = r->part = r->db_host = NULL;
}

int runrec_save(struct runrec *r, struct err *e)
{
    int rc = record_write_json(r->dir, "run.json", r->doc, e);

    /* Its line goes into the history index beside it, when there is one (a
     * failure only leaves the index stale, which history notices and mends). */
    if (rc == 0)
        history_index_append(r->dir, r->doc, NULL);
    return rc;
}

void runrec_set(struct runrec *r, const char *key, json_t *v)
{
    json_object_set_new(r->doc, key, v);
}

void runrec_status(struct runrec *r, const char *status)
{
    snprintf(r->status, sizeof(r->status), "%s", status);
    json_object_set_new(r->doc, "status", json_string(status));
}

void runrec_error(struct runrec *r, const char *msg)
{
    r->has_error = 1;
    json_object_set_new(r->doc, "error", json_string(msg));
}

void runrec_part(struct runrec *r, int k, json_t *part)
{
    if (!part)
        return;
    r->part_k = k;
    r->part = part;
    json_object_set_new(r->doc, "part", part);
}

void runrec_isolation(struct runrec *r, const char *level)
{
    json_object_set_new(json_object_get(r->config, "run"), "isolation", json_string(level));
}

void runrec_dbms(struct runrec *r, const struct db_ops *ops, const struct db_connect_args *a,
                 const char *dialect)
{
    struct fp_facts f;

    memset(&f, 0, sizeof(f));
    f.local = -1;
    fingerprint_dbms(r->env, ops, a, dialect, &f);
    snprintf(r->datadir, sizeof(r->datadir), "%s", f.datadir);
    snprintf(r->device, sizeof(r->device), "%s", f.device);
    snprintf(r->fstype, sizeof(r->fstype), "%s", f.fstype);
    snprintf(r->db_connection, sizeof(r->db_connection), "%s", f.connection);
    r->db_local = f.local;
}

const char *runrec_datadir(const struct runrec *r)
{
    return r->datadir[0] && strcmp(r->datadir, "unknown") != 0 ? r->datadir : NULL;
}

int runrec_end(struct runrec *r, const char *status, struct err *e)
{
    char ended[32];

    if (status)
        runrec_status(r, status);
    utc_now(ended, sizeof(ended));
    if (strcmp(ended, "unknown") != 0)
        json_object_set_new(r->doc, "ended", json_string(ended));
    return runrec_save(r, e);
}

/* Mark dir/run.json crashed when it says running and its command is gone; 1 when marked. */
static int mark_one(const char *dir)
{
    char path[PATH_MAX], why[160], found[32];
    const char *what;
    struct runrec r;
    json_t *rec;
    struct err e;
    int marked = 0;

    if (snprintf(path, sizeof(path), "%s/run.json", dir) >= (int)sizeof(path) ||
        !record_says_running(path) || !(rec = json_load_file(path, 0, NULL)))
        return 0;
    if (json_is_object(rec) && record_liveness(rec, why, sizeof(why)) == RECORD_CRASHED &&
        strcmp(json_string_value(json_object_get(rec, "status")), "running") == 0) {
        /* "crashed (pid N gone)" -> "pid N gone". */
        what = strncmp(why, "crashed (", 9) == 0 ? why + 9 : why;
        utc_now(found, sizeof(found));
        json_object_set_new(rec, "status", json_string("crashed"));
        json_object_set_new(rec, "crashed",
                            json_pack("{s:s, s:s#, s:I}", "found", found, "why", what,
                                      (int)strcspn(what, ")"), "by_pid", (json_int_t)getpid()));
        runrec_adopt(&r, rec, dir);
        marked = runrec_save(&r, &e) == 0;
        runrec_release(&r);
        return marked;
    }
    json_decref(rec);
    return marked;
}

int runrec_mark_crashed(const char *results_dir)
{
    char dir[PATH_MAX];
    struct dirent *de;
    DIR *d = opendir(results_dir);
    int n = 0;

    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' ||
            snprintf(dir, sizeof(dir), "%s/%s", results_dir, de->d_name) >= (int)sizeof(dir))
            continue;
        n += mark_one(dir);
    }
    closedir(d);
    return n;
}
