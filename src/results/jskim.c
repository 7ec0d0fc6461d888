/*
 * jskim.c - a JSON file read without the values the reader does not use
 * (see jskim.h).  The scanner follows strings, brackets, keys and colons
 * only; numbers, literals and the insides of cut or wholly kept values are
 * passed over byte by byte without being parsed.  Reads one file; no output.
 */
#include "results/jskim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"

/* The deepest nesting followed; deeper text is copied as it is. */
#define JSKIM_DEPTH 32

/* One level of nesting being read. */
struct jskim_level {
    int obj;         /* 1: an object, 0: an array */
    const char *key; /* the key of its member being read (objects; in the input), NULL: none */
    size_t klen;
};

/* The bytes the scanner stops at, by what it is doing: STRING inside a string, NEST
 * passing over a value, TOP reading members, SCALAR passing over a number or literal. */
enum { IN_STRING = 1, IN_NEST = 2, IN_TOP = 4, IN_SCALAR = 8 };
static const unsigned char stop[256] = {
    ['"'] = IN_STRING | IN_NEST | IN_TOP,
    ['\\'] = IN_STRING,
    ['{'] = IN_NEST | IN_TOP,
    ['['] = IN_NEST | IN_TOP,
    ['}'] = IN_NEST | IN_TOP | IN_SCALAR,
    [']'] = IN_NEST | IN_TOP | IN_SCALAR,
    [','] = IN_TOP | IN_SCALAR,
    [':'] = IN_TOP,
    [' '] = IN_SCALAR,
    ['\t'] = IN_SCALAR,
    ['\r'] = IN_SCALAR,
    ['\n'] = IN_SCALAR,
};

/* The first index from i whose byte stops the scanner at where, or len. */
static size_t skip_to(const char *in, size_t len, size_t i, unsigned char where)
{
    while (i < len && !(stop[(unsigned char)in[i]] & where))
        i++;
    return i;
}

/* The index just past the string that opens at in[i], or 0 when it does not end. */
static size_t str_end(const char *in, size_t len, size_t i)
{
    for (i = skip_to(in, len, i + 1, IN_STRING); i < len; i = skip_to(in, len, i + 1, IN_STRING)) {
        if (in[i] == '\\')
            i++;
        else
            return i + 1;
    }
    return 0;
}

/* The index just past the value that starts at in[i], or 0 when it does not end. */
static size_t value_end(const char *in, size_t len, size_t i)
{
    int depth = 0;

    if (i >= len)
        return 0;
    if (in[i] == '"')
        return str_end(in, len, i);
    if (in[i] != '{' && in[i] != '[')
        return skip_to(in, len, i, IN_SCALAR);
    for (; (i = skip_to(in, len, i, IN_NEST)) < len; i++) {
        char c = in[i];
        if (c == '"') {
            size_t e = str_end(in, len, i);
            if (!e)
                return 0;
            i = e - 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* The member being read at st[0..depth) against path pat: 2 at or under it, 1 on the way to it
 * (an object holding it), 0 neither. */
static int on_path(const struct jskim_level *st, int depth, const char *pat)
{
    for (int l = 0; l < depth; l++) {
        size_t k = 0;
        if (pat[0] == '*' && (pat[1] == '.' || !pat[1])) {
            k = 1;
        } else {
            if (!st[l].obj || !st[l].key)
                return 0;
            while (k < st[l].klen && pat[k] == st[l].key[k])
                k++;
            if (k != st[l].klen || (pat[k] != '.' && pat[k]))
                return 0;
        }
        if (!pat[k])
            return 2;
        pat += k + 1;
    }
    return 1;
}

/* What becomes of the member being read: 2 kept whole, 1 looked into, 0 cut. */
static int fate(const struct jskim_level *st, int depth, const char *const *keep, int n_keep)
{
    int f = 0;

    for (int k = 0; k < n_keep && f < 2; k++) {
        int o = on_path(st, depth, keep[k]);
        f = o > f ? o : f;
    }
    return f;
}

size_t jskim_cut(const char *in, size_t len, const char *const *keep, int n_keep, char *out)
{
    struct jskim_level st[JSKIM_DEPTH];
    size_t i = 0, mark = 0, w = 0;
    int depth = 0, want_key = 0;

    while ((i = skip_to(in, len, i, IN_TOP)) < len) {
        char c = in[i];
        if (c == '"') {
            size_t e = str_end(in, len, i);
            if (!e)
                break;
            if (want_key) {
                st[depth - 1].key = in + i + 1;
                st[depth - 1].klen = e - i - 2;
                want_key = 0;
            }
            i = e;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == JSKIM_DEPTH)
                break;
            st[depth].obj = c == '{';
            st[depth++].key = NULL;
            want_key = c == '{';
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                break;
            depth--;
            want_key = 0;
        } else if (c == ',') {
            want_key = depth > 0 && st[depth - 1].obj;
        } else if (c == ':' && depth > 0 && st[depth - 1].obj) {
            int f = fate(st, depth, keep, n_keep);
            size_t v = i + 1, e;
            if (f == 1) {
                i++;
                continue;
            }
            while (v < len && (in[v] == ' ' || in[v] == '\t' || in[v] == '\r' || in[v] == '\n'))
                v++;
            if (!(e = value_end(in, len, v)))
                break;
            /* Cut only what "null" is shorter than: the text never grows. */
            if (f == 0 && e - v > 4) {
                memcpy(out + w, in + mark, v - mark);
                w += v - mark;
                memcpy(out + w, "null", 4);
                w += 4;
                mark = e;
            }
            i = e;
            continue;
        }
        i++;
    }
    memcpy(out + w, in + mark, len - mark);
    return w + len - mark;
}

/* The whole of file path into a heap buffer (*len bytes); NULL with je's text on failure. */
static char *read_all(const char *path, size_t *len, json_error_t *je)
{
    char eb[128], *buf = NULL;
    struct stat st;
    size_t got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0 || fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
        snprintf(je->text, sizeof(je->text), "cannot read '%s': %s", path,
                 fd < 0 || !buf ? err_errno(fd < 0 ? errno : ENOMEM, eb, sizeof(eb)) : "fstat");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break; /* shorter than it was: parse what there is */
        got += (size_t)r;
    }
    close(fd);
    *len = got;
    return buf;
}

json_t *jskim_load_file(const char *path, const char *const *keep, int n_keep, size_t flags,
                        json_error_t *je)
{
    size_t len = 0, n;
    char *in, *out;
    json_t *doc;

    memset(je, 0, sizeof(*je));
    je->line = -1;
    if (!(in = read_all(path, &len, je)))
        return NULL;
    if (!(out = malloc(len + 1))) {
        free(in);
        snprintf(je->text, sizeof(je->text), "out of memory");
        return NULL;
    }
    n = jskim_cut(in, len, keep, n_keep, out);
    doc = json_loadb(out, n, flags, je);
    /* The cut text's lines are not the file's: say where the file itself is wrong. */
    if (!doc)
        doc = json_loadb(in, len, flags, je);
    free(out);
    free(in);
    return doc;
}
