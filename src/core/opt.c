/*
 * opt.c - the command-line parser (see opt.h): getopt_long in glibc's
 * RETURN_IN_ORDER mode (optstring "-:..."), so arguments come back in order
 * between the options and a missing value is told apart from an unknown
 * option; our messages replace getopt's (opterr = 0).
 *
 * Long options are returned by getopt_long as OPT_LONG + their index in the
 * table, short ones as their letter.  Where getopt does not say what it
 * saw (an unknown or ambiguous long name), the element it looked at is read
 * again: in RETURN_IN_ORDER mode nothing is permuted, so that element is
 * argv[optind] as it was before the call.
 */
#include "core/opt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's return for table entry i is OPT_LONG + i: above any letter. */
#define OPT_LONG 0x1000

int opt_init(struct opt_parser *p, const char *cmd, const struct opt_spec *specs, int nspecs,
             int argc, char **argv, struct err *e)
{
    char *s;
    int nlong = 0;

    memset(p, 0, sizeof(*p));
    if (nspecs > OPT_MAX || argc < 0)
        return err_set(e, E_FAIL, "%s: %d options, more than the parser's %d", cmd, nspecs,
                       OPT_MAX);
    p->cmd = cmd;
    p->specs = specs;
    p->nspecs = nspecs;
    s = p->shorts;
    *s++ = '-'; /* RETURN_IN_ORDER: arguments come back as 1, in order */
    *s++ = ':'; /* a missing value is ':', not '?' */
    for (int i = 0; i < nspecs; i++) {
        if (specs[i].name)
            p->longs[nlong++] =
                (struct option){ specs[i].name, specs[i].has_arg ? required_argument : no_argument,
                                 NULL, OPT_LONG + i };
        if (specs[i].short_name) {
            if (!isalnum((unsigned char)specs[i].short_name))
                return err_set(e, E_FAIL, "%s: short option '%c' is not a letter or digit", cmd,
                               specs[i].short_name);
            *s++ = specs[i].short_name;
            if (specs[i].has_arg)
                *s++ = ':';
        }
    }
    *s = '\0';
    p->longs[nlong] = (struct option){ NULL, 0, NULL, 0 };
    p->argv = malloc(((size_t)argc + 2) * sizeof(*p->argv));
    if (!p->argv)
        return err_set(e, E_FAIL, "out of memory");
    /* getopt reads the arguments from argv[1] on; it writes none of them. */
    p->argv[0] = (char *)cmd;
    for (int i = 0; i < argc; i++)
        p->argv[i + 1] = argv[i];
    p->argv[argc + 1] = NULL;
    p->argc = argc + 1;
    /* A new parse: optind = 0 makes glibc start afresh (another parse may
     * have run before in this process), and this first call with no
     * arguments does it now, so optind is 1 and may be moved on by hand
     * (negative_args) before getopt sees the real arguments. */
    opterr = 0;
    optind = 0;
    (void)getopt_long(1, p->argv, p->shorts, p->longs, NULL);
    return 0;
}

void opt_release(struct opt_parser *p)
{
    free(p->argv);
    p->argv = NULL;
}

/* "-1", "-5ms", "-.5": a negative number, not an option. */
static int looks_negative(const char *s)
{
    return s[0] == '-' &&
           (isdigit((unsigned char)s[1]) || (s[1] == '.' && isdigit((unsigned char)s[2])));
}

/* The long name in argv element el ("--name" or "--name=value"): its length. */
static size_t long_name_len(const char *el)
{
    return strcspn(el + 2, "=");
}

/* Element el names table entry i in full (getopt also takes a unique prefix). */
static int long_exact(const struct opt_parser *p, const char *el, int i)
{
    size_t n = long_name_len(el);

    return strncmp(el, "--", 2) == 0 && strlen(p->specs[i].name) == n &&
           strncmp(el + 2, p->specs[i].name, n) == 0;
}

/* An unknown long option, or one abbreviated: say which names it could be. */
static int long_unknown(const struct opt_parser *p, const char *el, struct err *e)
{
    const char *name = el + 2;
    size_t n = long_name_len(el);
    char list[320];
    size_t off = 0;
    int ncand = 0, total = 0;

    if (n == 0)
        return err_set(e, E_USAGE, "unknown option '%s' (see 'tpccbench %s --help')", el, p->cmd);
    for (int i = 0; i < p->nspecs; i++)
        if (p->specs[i].name && strncmp(p->specs[i].name, name, n) == 0)
            total++;
    if (total == 0)
        return err_set(e, E_USAGE, "unknown option '--%.*s' (see 'tpccbench %s --help')", (int)n,
                       name, p->cmd);
    list[0] = '\0';
    for (int i = 0; i < p->nspecs && off < sizeof(list); i++) {
        if (!p->specs[i].name || strncmp(p->specs[i].name, name, n) != 0)
            continue;
        ncand++;
        off += (size_t)snprintf(list + off, sizeof(list) - off, "%s'--%s'",
                                ncand == 1       ? ""
                                : ncand == total ? " or "
                                                 : ", ",
                                p->specs[i].name);
    }
    return err_set(e, E_USAGE,
                   "unknown option '--%.*s' (options are not abbreviated: did you mean %s?)",
                   (int)n, name, list);
}

static int short_index(const struct opt_parser *p, int c)
{
    for (int i = 0; i < p->nspecs; i++)
        if (p->specs[i].short_name && p->specs[i].short_name == c)
            return i;
    return -1;
}

/* "option '-c' needs a file name" / "option '--config' needs a file name". */
static int needs_value(const struct opt_parser *p, int i, int as_long, struct err *e)
{
    const char *needs = p->specs[i].needs ? p->specs[i].needs : "a value";

    if (as_long)
        return err_set(e, E_USAGE, "option '--%s' needs %s", p->specs[i].name, needs);
    return err_set(e, E_USAGE, "option '-%c' needs %s", p->specs[i].short_name, needs);
}

int opt_next(struct opt_parser *p, int *idx, const char **val, struct err *e)
{
    const char *el;
    int at, c, i;

    *idx = -1;
    *val = NULL;
    if (p->ended) {
        if (optind >= p->argc)
            return OPT_END;
        *val = p->argv[optind++];
        return OPT_ARG;
    }
    if (p->negative_args && !p->mid && optind < p->argc && looks_negative(p->argv[optind])) {
        *val = p->argv[optind++];
        return OPT_ARG;
    }
    at = optind;
    el = at < p->argc ? p->argv[at] : "";
    opterr = 0;
    c = getopt_long(p->argc, p->argv, p->shorts, p->longs, NULL);
    /* A short option that did not use up its element: more of the cluster follows. */
    p->mid = c != -1 && c != 1 && c < OPT_LONG && optind == at;
    if (c == -1) {
        p->ended = 1; /* `--` or the end; what follows `--` is arguments */
        return opt_next(p, idx, val, e);
    }
    if (c == 1) {
        *val = optarg;
        return OPT_ARG;
    }
    if (c >= OPT_LONG || ((c == ':' || c == '?') && optopt >= OPT_LONG)) {
        i = (c >= OPT_LONG ? c : optopt) - OPT_LONG;
        if (!long_exact(p, el, i))
            return long_unknown(p, el, e);
        if (c == ':')
            return needs_value(p, i, 1, e);
        if (c == '?')
            return err_set(e, E_USAGE, "option '--%s' takes no value", p->specs[i].name);
        *idx = i;
        *val = p->specs[i].has_arg ? optarg : NULL;
        return OPT_OPTION;
    }
    if (c == ':' && (i = short_index(p, optopt)) >= 0)
        return needs_value(p, i, 0, e);
    if (c == '?' && optopt)
        return err_set(e, E_USAGE, "unknown option '-%c' (see 'tpccbench %s --help')", optopt,
                       p->cmd);
    if (c == '?')
        return long_unknown(p, el, e);
    if ((i = short_index(p, c)) < 0)
        return err_set(e, E_FAIL, "getopt_long returned %d for '%s'", c, el);
    *idx = i;
    *val = p->specs[i].has_arg ? optarg : NULL;
    return OPT_OPTION;
}
