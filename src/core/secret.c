/*
 * secret.c - redaction of passwords in connection strings and messages,
 * scrubbing of one known password, and wiping memory (see secret.h).
 *
 * The redaction errs on the side of hiding too much: a value it cannot
 * delimit exactly (an unterminated quote, a bare ODBC value) is masked up to
 * where it could end.  It must not print, allocate, or keep a pointer.
 */
#include "core/secret.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Output under construction: at most len - 1 bytes and a NUL. */
struct out {
    char *buf;  /* caller's buffer */
    size_t len; /* its size */
    size_t n;   /* bytes written so far */
};

static void put(struct out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n && o->n + 1 < o->len; i++)
        o->buf[o->n++] = s[i];
}

static int is_key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Lowercase copy of s (n bytes) into low; 0 when it does not fit. */
static int lower(const char *s, size_t n, char *low, size_t cap)
{
    if (n == 0 || n >= cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    low[n] = '\0';
    return 1;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);

    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* 1 when a connection-string key names a secret.  *_env keys (our own
 * password_env) name a variable, not a value. */
static int secret_key(const char *k, size_t n)
{
    char low[64];

    if (!lower(k, n, low, sizeof(low)) || ends_with(low, "_env"))
        return 0;
    return strcmp(low, "pwd") == 0 || strstr(low, "password") || strstr(low, "passwd") ||
           strstr(low, "passphrase") || strstr(low, "secret");
}

int secret_setting_name(const char *name)
{
    static const char *const tails[] = { "password",           "passwd", "pwd",  "passphrase",
                                         "passphrase_command", "secret", "_auth" };
    char low[128];

    if (!name || !lower(name, strlen(name), low, sizeof(low)))
        return 0;
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
        if (ends_with(low, tails[i]))
            return 1;
    return 0;
}

/*
 * At p = "://": when the authority holds user:PASSWORD@, copy up to the ':'
 * and the mask, and return how far that got (the '@' is copied by the
 * caller); else 0.  The authority is taken up to a blank, a quote, '?' or
 * '#' and its last '@', so a password holding '/' or '@' is masked whole.
 */
static size_t uri_at(const char *p, struct out *o, int *count)
{
    const char *a = p + 3, *end, *at = NULL, *colon = NULL;

    if (strncmp(p, "://", 3) != 0)
        return 0;
    for (end = a; *end && !strchr("?#\"' \t\r\n", *end); end++)
        if (*end == '@')
            at = end;
    if (!at)
        return 0;
    for (const char *q = a; q < at && !colon; q++)
        if (*q == ':')
            colon = q;
    if (!colon)
        return 0;
    put(o, p, (size_t)(colon + 1 - p));
    put(o, SECRET_MASK, strlen(SECRET_MASK));
    (*count)++;
    return (size_t)(at - p);
}

/* End of a value that starts with quote q ('\'', '"': backslash escapes;
 * '{': "}}" is a literal '}'), past the closing quote; the end of the
 * string when it is not closed. */
static const char *quoted_end(const char *v)
{
    const char *s = v + 1;

    if (*v == '{') {
        while (*s) {
            if (*s == '}' && s[1] == '}')
                s += 2;
            else if (*s++ == '}')
                break;
        }
        return s;
    }
    while (*s && *s != *v)
        s += s[0] == '\\' && s[1] ? 2 : 1;
    return *s ? s + 1 : s;
}

/*
 * At p: when a secret key starts here (at a word boundary) followed by '=',
 * copy the key and '=' and the mask, and return how far the value went;
 * else 0.  A bare value ends at a blank, ';' or '&' (libpq, URI queries), or
 * in ODBC syntax (key pwd, after a ';', or a ';' further on the line) only at
 * ';' or the end of the line: ODBC values may hold blanks.
 */
static size_t keyval_at(const char *in, const char *p, struct out *o, int *count)
{
    const char *q = p, *v, *s, *b;
    size_t klen;
    int odbc;

    if (p > in && is_key_char(p[-1]))
        return 0;
    while (is_key_char(*q))
        q++;
    klen = (size_t)(q - p);
    while (*q == ' ' || *q == '\t')
        q++;
    if (klen == 0 || *q != '=' || !secret_key(p, klen))
        return 0;
    for (v = q + 1; *v == ' ' || *v == '\t'; v++)
        ;
    if (*v == '{' || *v == '\'' || *v == '"') {
        s = quoted_end(v);
    } else {
        for (b = p; b > in && (b[-1] == ' ' || b[-1] == '\t'); b--)
            ;
        odbc = (klen == 3 && strncasecmp(p, "pwd", 3) == 0) || (b > in && b[-1] == ';');
        for (s = v; !odbc && *s && *s != '\n'; s++)
            if (*s == ';')
                odbc = 1;
        for (s = v; *s && *s != ';' && *s != '\n' && *s != '\r'; s++)
            if (!odbc && (*s == ' ' || *s == '\t' || *s == '&'))
                break;
    }
    put(o, p, (size_t)(v - p));
    put(o, SECRET_MASK, strlen(SECRET_MASK));
    (*count)++;
    return (size_t)(s - p);
}

int secret_redact(const char *in, char *out, size_t len)
{
    struct out o = { out, len, 0 };
    const char *p = in ? in : "";
    int count = 0;

    while (*p) {
        size_t n = uri_at(p, &o, &count);
        if (n == 0)
            n = keyval_at(in, p, &o, &count);
        if (n == 0) {
            put(&o, p, 1);
            n = 1;
        }
        p += n;
    }
    if (len > 0)
        out[o.n] = '\0';
    return count;
}

int secret_scrub(char *text, const char *secret)
{
    size_t n, m = strlen(SECRET_MASK);
    int count = 0;

    if (!text || !secret || (n = strlen(secret)) < SECRET_SCRUB_MIN)
        return 0;
    /* n > m: the text only shrinks. */
    for (char *p = strstr(text, secret); p; p = strstr(p + m, secret)) {
        memcpy(p, SECRET_MASK, m);
        memmove(p + m, p + n, strlen(p + n) + 1);
        count++;
    }
    return count;
}

int secret_clean(char *text, size_t cap, const char *secret)
{
    char tmp[2048];
    size_t n;
    int count;

    if (!text || cap == 0)
        return 0;
    count = secret_scrub(text, secret);
    count += secret_redact(text, tmp, cap < sizeof(tmp) ? cap : sizeof(tmp));
    n = strlen(tmp);
    memcpy(text, tmp, n + 1);
    secret_wipe(tmp, sizeof(tmp));
    return count;
}

int secret_env_name_ok(const char *name)
{
    if (!name || !(isalpha((unsigned char)*name) || *name == '_'))
        return 0;
    for (const char *p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return 0;
    return 1;
}

void secret_wipe(void *p, size_t n)
{
    if (!p)
        return;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))
    explicit_bzero(p, n);
#else
    for (volatile unsigned char *q = p; n > 0; n--)
        *q++ = 0;
#endif
}
