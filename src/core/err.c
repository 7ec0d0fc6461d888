/*
 * err.c - filling struct err.  Nothing here prints or exits.
 */
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err_clear(struct err *e)
{
    if (!e)
        return;
    e->code = E_OK;
    e->sqlstate[0] = '\0';
    e->msg[0] = '\0';
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return code;
    e->code = code;
    e->sqlstate[0] = '\0';
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return code;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
    char head[256];
    size_t hn, mn;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(head, sizeof(head), fmt, ap);
    va_end(ap);
    /* Shift the message right and put "head: " in front, truncating the tail. */
    hn = strlen(head);
    if (hn + 2 >= sizeof(e->msg))
        hn = sizeof(e->msg) - 3;
    mn = strnlen(e->msg, sizeof(e->msg) - 1);
    if (hn + 2 + mn >= sizeof(e->msg))
        mn = sizeof(e->msg) - 1 - hn - 2;
    memmove(e->msg + hn + 2, e->msg, mn);
    memcpy(e->msg, head, hn);
    e->msg[hn] = ':';
    e->msg[hn + 1] = ' ';
    e->msg[hn + 2 + mn] = '\0';
    return e->code;
}

const char *err_errno(int errnum, char *buf, size_t len)
{
    /* GNU strerror_r may return a static string instead of filling buf. */
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    const char *s = strerror_r(errnum, buf, len);
    if (s != buf)
        snprintf(buf, len, "%s", s);
#else
    if (strerror_r(errnum, buf, len) != 0)
        snprintf(buf, len, "error %d", errnum);
#endif
    return buf;
}

int err_exit_code(int code)
{
    switch (code) {
    case E_OK:
        return 0;
    case E_USAGE:
    case E_NOTYET:
        return 2;
    case E_INTR:
        return 130;
    default:
        return 1;
    }
}

const char *err_class_name(int code)
{
    switch (code) {
    case E_OK:
        return "ok";
    case E_RETRY:
        return "retryable";
    case E_CONN:
        return "connection";
    case E_USAGE:
        return "usage";
    case E_INTR:
        return "interrupted";
    case E_NOTYET:
        return "not-yet";
    default:
        return "other";
    }
}
