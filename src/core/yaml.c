/*
 * yaml.c - YAML text into a tree of nodes that remember their line and
 * column (yaml.h), shared by the config and the study file.
 *
 * libyaml's event parser builds the tree; aliases are refused (so no alias
 * expansion and no "billion laughs"), so are tags (which would change a
 * value's meaning behind the reader's back), and the input size, depth and
 * node count are bounded.  Syntax errors say where an unclosed bracket or
 * quote was opened and, where libyaml's wording does not, what to do.  What
 * the keys mean is the readers' business: nothing here knows a key.  The
 * messages say "config" where they were first written for it, and the
 * study file gets the same words; only opening, reading and the size name
 * the kind of file the caller says.  Nothing here prints or exits.
 */
#include "core/yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

/* Bounds on what an input may make us build (the size: YTREE_MAX_FILE_SIZE in yaml.h). */
#define YTREE_MAX_DEPTH 32
#define YTREE_MAX_NODES 10000

/* ---- quoting ---- */

/*
 * Write s (len bytes, may hold any byte) into buf as a double-quoted string
 * with control characters escaped, cut after YTREE_QUOTE_MAX bytes with "...".
 * Input is valid UTF-8 (libyaml checks it), so a cut backs off to a
 * character boundary.
 */
const char *ytree_quote(const char *s, size_t len, char *buf, size_t size)
{
    size_t o = 0, shown = len > YTREE_QUOTE_MAX ? YTREE_QUOTE_MAX : len;

    /* Do not cut a multi-byte character in two (at most 3 continuation bytes). */
    for (int back = 0; back < 3 && shown < len && shown > 0; back++) {
        if (((unsigned char)s[shown] & 0xC0) != 0x80)
            break;
        shown--;
    }
    buf[o++] = '"';
    for (size_t i = 0; i < shown && o + 8 < size; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)ch;
        } else if (ch == '\n') {
            buf[o++] = '\\';
            buf[o++] = 'n';
        } else if (ch == '\t') {
            buf[o++] = '\\';
            buf[o++] = 't';
        } else if (ch < 0x20 || ch == 0x7F) {
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
        } else {
            buf[o++] = (char)ch;
        }
    }
    if (shown < len && o + 4 < size) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

/* Same as ytree_quote() but without the surrounding quotes, for keys in 'a.b'. */
const char *ytree_quote_bare(const char *s, size_t len, char *buf, size_t size)
{
    size_t n;

    ytree_quote(s, len, buf, size);
    n = strlen(buf);
    memmove(buf, buf + 1, n - 2);
    buf[n - 2] = '\0';
    return buf;
}

/* ---- the node tree ---- */

/* State of one parse: the text, the tree being built, where errors go. */
struct reader {
    const char *name;                          /* file name for messages */
    const char *text;                          /* the whole input */
    size_t len;                                /* its length in bytes */
    struct ytree_node *root;                   /* the document's top node, NULL until seen */
    struct ytree_node *stack[YTREE_MAX_DEPTH]; /* open mappings and sequences */
    int depth;                                 /* entries used in stack */
    int nnodes;                                /* nodes built so far */
    int ndocs;                                 /* documents seen */
    struct err *e;
};

void ytree_free(struct ytree_node *n)
{
    while (n) {
        struct ytree_node *next = n->next;
        ytree_free(n->first);
        free(n->text);
        free(n);
        n = next;
    }
}

const char *ytree_where(const char *name, const struct ytree_node *n, char *buf, size_t size)
{
    snprintf(buf, size, "%s:%d:%d", name, n->line, n->col);
    return buf;
}

int ytree_is_empty(const struct ytree_node *n)
{
    return n->kind == YTREE_SCALAR && n->plain && n->len == 0;
}

static int oom(struct err *e)
{
    return err_set(e, E_FAIL, "out of memory while reading the config");
}

/* The explicit tag of a node event ("tag:yaml.org,2002:str" for !!str), or NULL. */
static const char *event_tag(const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return (const char *)ev->data.scalar.tag;
    case YAML_MAPPING_START_EVENT:
        return (const char *)ev->data.mapping_start.tag;
    case YAML_SEQUENCE_START_EVENT:
        return (const char *)ev->data.sequence_start.tag;
    default:
        return NULL;
    }
}

/*
 * Tags are refused like aliases: one such as !!binary or !!float would
 * change what a value means while the loader reads only its text.
 */
static int tag_error(struct reader *ld, const yaml_event_t *ev, int line, int col)
{
    static const char core[] = "tag:yaml.org,2002:";
    const char *tag = event_tag(ev);
    char q[YTREE_QUOTE_SIZE];
    int shorthand = !strncmp(tag, core, sizeof(core) - 1);

    if (shorthand)
        tag += sizeof(core) - 1;
    return err_set(ld->e, E_USAGE,
                   "%s:%d:%d: YAML tags such as '%s%s' are not supported; write the value "
                   "without it",
                   ld->name, line, col, shorthand ? "!!" : "",
                   ytree_quote_bare(tag, strlen(tag), q, sizeof(q)));
}

/* Turn one libyaml event into a node, or reject it. */
static int on_event(struct reader *ld, const yaml_event_t *ev)
{
    int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
    enum ytree_kind kind;
    struct ytree_node *n;

    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++ld->ndocs > 1)
            return err_set(ld->e, E_USAGE,
                           "%s:%d:%d: the config file must hold a single YAML document (a second "
                           "one starts here)",
                           ld->name, line, col);
        return 0;
    case YAML_ALIAS_EVENT: {
        const char *anchor = (const char *)ev->data.alias.anchor;
        char q[YTREE_QUOTE_SIZE];
        return err_set(ld->e, E_USAGE,
                       "%s:%d:%d: YAML aliases such as '*%s' are not supported; write the value "
                       "out in full",
                       ld->name, line, col, ytree_quote_bare(anchor, strlen(anchor), q, sizeof(q)));
    }
    default:
        break;
    }
    if (event_tag(ev))
        return tag_error(ld, ev, line, col);

    switch (ev->type) {
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        ld->depth--;
        return 0;
    case YAML_SCALAR_EVENT:
        kind = YTREE_SCALAR;
        break;
    case YAML_MAPPING_START_EVENT:
        kind = YTREE_MAP;
        break;
    case YAML_SEQUENCE_START_EVENT:
        kind = YTREE_SEQ;
        break;
    default:
        return 0;
    }

    if (++ld->nnodes > YTREE_MAX_NODES)
        return err_set(ld->e, E_USAGE,
                       "%s:%d:%d: the config holds more than %d keys and values; is this the "
                       "right file?",
                       ld->name, line, col, YTREE_MAX_NODES);
    if (kind != YTREE_SCALAR && ld->depth == YTREE_MAX_DEPTH)
        return err_set(ld->e, E_USAGE, "%s:%d:%d: the config nests deeper than %d levels", ld->name,
                       line, col, YTREE_MAX_DEPTH);

    n = calloc(1, sizeof(*n));
    if (!n)
        return oom(ld->e);
    n->kind = kind;
    n->line = line;
    n->col = col;
    if (kind == YTREE_SCALAR) {
        n->len = ev->data.scalar.length;
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        n->text = malloc(n->len + 1);
        if (!n->text) {
            free(n);
            return oom(ld->e);
        }
        memcpy(n->text, ev->data.scalar.value, n->len);
        n->text[n->len] = '\0';
    }

    /* Hang the node on the open container, or make it the root. */
    if (ld->depth == 0) {
        ld->root = n;
    } else {
        struct ytree_node *parent = ld->stack[ld->depth - 1];
        if (parent->last)
            parent->last->next = n;
        else
            parent->first = n;
        parent->last = n;
    }
    if (kind != YTREE_SCALAR)
        ld->stack[ld->depth++] = n;
    return 0;
}

/*
 * Position of a reader error: libyaml gives a byte offset only (no mark), so
 * count lines and characters up to it, as the scanner would: in UTF-8 or, for
 * a file with a UTF-16 byte order mark, in 16-bit units, not counting the
 * byte order mark itself.
 */
static void offset_to_mark(const char *text, size_t len, size_t off, yaml_encoding_t enc, int *line,
                           int *col)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;

    *line = 1;
    *col = 1;
    if (off > len)
        off = len;
    if (enc == YAML_UTF16LE_ENCODING || enc == YAML_UTF16BE_ENCODING) {
        int lo = enc == YAML_UTF16LE_ENCODING ? 0 : 1;
        for (i = 2; i + 1 < off + 1 && i + 1 < len; i += 2) {
            unsigned unit = (unsigned)s[i + lo] | (unsigned)s[i + 1 - lo] << 8;
            if (unit == '\n') {
                ++*line;
                *col = 1;
            } else if (unit < 0xDC00 || unit > 0xDFFF) {
                ++*col; /* a low surrogate ends a character counted at its high half */
            }
        }
        return;
    }
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    for (; i < off; i++) {
        if (s[i] == '\n') {
            ++*line;
            *col = 1;
        } else if ((s[i] & 0xC0) != 0x80) {
            ++*col;
        }
    }
}

/* The first byte of the character at 1-based line:col of UTF-8 text, or -1 when not found. */
static int char_at(const char *text, size_t len, int line, int col)
{
    size_t i = 0;

    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    for (int l = 1; l < line && i < len; i++) {
        if (text[i] == '\n')
            l++;
    }
    for (int c = 1; i < len && text[i] != '\n'; i++) {
        if (((unsigned char)text[i] & 0xC0) == 0x80)
            continue;
        if (c++ == col)
            return (unsigned char)text[i];
    }
    return -1;
}

/*
 * What to do about a libyaml problem, as the end of the message: libyaml
 * says what it expected, not how to fix the file.  ch is the character at
 * the problem's position (-1 when unknown).  Returns "" when there is no
 * advice better than the problem itself.  col is the problem's column.
 */
static const char *syntax_hint(const char *problem, const char *context, int ch, int col, char *buf,
                               size_t size)
{
    static const struct {
        const char *problem; /* the start of libyaml's problem text */
        const char *hint;
    } hints[] = {
        { "found a tab character", "indent with spaces: YAML does not allow tabs there" },
        { "mapping values are not allowed",
          "put a value holding ': ' in quotes, or check the indentation" },
        { "did not find expected key", "check the indentation of this line and the one above" },
        { "did not find expected ',' or '}'",
          "close the '{' with '}', or put ',' between entries" },
        { "did not find expected ',' or ']'", "close the '[' with ']', or put ',' between items" },
        { "did not find expected node content", "a value is missing here" },
        { "did not find expected '-' indicator", "a list item must start with '- '" },
        { "found unknown escape character",
          "in double quotes write a backslash as '\\\\', or use single quotes" },
        { "found undefined tag handle", "YAML tags are not supported: remove it" },
        { "did not find expected <document start>", "the file must hold a single YAML mapping" },
        { "found incompatible YAML document", "remove the %YAML line" },
        { "found duplicate %YAML directive", "remove the %YAML lines" },
        { "control characters are not allowed", "the config must be plain text: remove it" },
        { "invalid", "save the file as UTF-8 text" },
        { "incomplete UTF", "save the file as UTF-8 text" },
        { "expected low surrogate", "save the file as UTF-8 text" },
        { "unexpected low surrogate", "save the file as UTF-8 text" },
    };

    /* libyaml drops a possible key longer than 1024 characters, then trips on its ':'. */
    if (!strncmp(problem, "mapping values are not allowed", 30) && col > 1024)
        return "a key must be shorter than 1024 characters";
    if (!strcmp(problem, "found unexpected end of stream") && context &&
        strstr(context, "quoted scalar"))
        return "close the quote";
    if (!strcmp(problem, "found unexpected end of stream"))
        return "the file ends in the middle of a value";
    if (!strcmp(problem, "found character that cannot start any token")) {
        if (ch == '\t')
            return "indent with spaces: YAML does not allow tabs there";
        if (ch > 0x20 && ch < 0x7F) {
            snprintf(buf, size, "'%c' cannot start a plain value: put the value in quotes", ch);
            return buf;
        }
        return "put the value in quotes";
    }
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
        if (!strncmp(problem, hints[i].problem, strlen(hints[i].problem)))
            return hints[i].hint;
    }
    return "";
}

/*
 * " in the flow mapping that starts at 1:9" from libyaml's context ("while
 * parsing a flow mapping"), so an unclosed bracket or quote is found where
 * it was opened.  Block mappings and sequences are left out: their start is
 * usually the top of the file, which tells nothing.
 */
static void where_started(const yaml_parser_t *p, char *buf, size_t size)
{
    const char *what = p->context, *sp;

    buf[0] = '\0';
    if (!what || strstr(what, "block mapping") || strstr(what, "block collection") ||
        (p->context_mark.line == p->problem_mark.line &&
         p->context_mark.column == p->problem_mark.column))
        return;
    /* "while parsing a flow mapping" -> "flow mapping" */
    if (!strncmp(what, "while ", 6) && (sp = strchr(what + 6, ' ')) != NULL) {
        what = sp + 1;
        if (!strncmp(what, "a ", 2))
            what += 2;
        else if (!strncmp(what, "an ", 3))
            what += 3;
    }
    snprintf(buf, size, " in the %s that starts at %d:%d", what, (int)p->context_mark.line + 1,
             (int)p->context_mark.column + 1);
}

static int yaml_error(struct reader *ld, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "unknown problem", *hint;
    char value[16] = "", context[96] = "", hbuf[96];
    int line, col, ch = -1;

    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return oom(ld->e);
    case YAML_READER_ERROR:
        offset_to_mark(ld->text, ld->len, p->problem_offset, p->encoding, &line, &col);
        if (p->problem_value >= 0)
            snprintf(value, sizeof(value), " (0x%02x)", (unsigned)p->problem_value);
        break;
    default:
        line = (int)p->problem_mark.line + 1;
        col = (int)p->problem_mark.column + 1;
        if (p->encoding == YAML_UTF8_ENCODING)
            ch = char_at(ld->text, ld->len, line, col);
        where_started(p, context, sizeof(context));
        break;
    }
    /* NUL bytes mostly come from UTF-16 or UTF-32 without a byte order mark, or a binary file. */
    if (p->error == YAML_READER_ERROR && p->problem_value == 0)
        hint = "a NUL byte: save the file as UTF-8 text";
    else
        hint = syntax_hint(problem, p->context, ch, col, hbuf, sizeof(hbuf));
    return err_set(ld->e, E_USAGE, "%s:%d:%d: YAML syntax error: %s%s%s%s%s", ld->name, line, col,
                   problem, value, context, *hint ? ": " : "", hint);
}

/* Parse ld->text into ld->root.  On failure the partial tree is left for the caller to free. */
static int build_tree(struct reader *ld)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int rc = 0;

    if (!yaml_parser_initialize(&p))
        return oom(ld->e);
    yaml_parser_set_input_string(&p, (const unsigned char *)ld->text, ld->len);
    for (;;) {
        yaml_event_type_t type;

        if (!yaml_parser_parse(&p, &ev)) {
            rc = yaml_error(ld, &p);
            break;
        }
        rc = on_event(ld, &ev);
        type = ev.type;
        yaml_event_delete(&ev);
        if (rc != 0 || type == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}

/* Read the file at path (what: "config" or "study") into *buf (heap, one byte past the
 * size limit at most, so that a caller can refuse the size) and *len. */
static int read_file(const char *path, const char *what, char **buf, size_t *len, struct err *e)
{
    char msg[128];
    FILE *f;

    f = fopen(path, "rb");
    if (!f)
        return err_set(e, E_USAGE, "%s: cannot open %s file: %s", path, what,
                       err_errno(errno, msg, sizeof(msg)));
    *buf = malloc(YTREE_MAX_FILE_SIZE + 1);
    if (!*buf) {
        fclose(f);
        return oom(e);
    }
    *len = fread(*buf, 1, YTREE_MAX_FILE_SIZE + 1, f);
    if (ferror(f)) {
        int saved = errno;
        free(*buf);
        *buf = NULL;
        fclose(f);
        return err_set(e, E_USAGE, "%s: cannot read %s file: %s", path, what,
                       err_errno(saved, msg, sizeof(msg)));
    }
    fclose(f);
    return 0;
}

int ytree_load_string(const char *name, const char *text, size_t len, const char *what,
                      struct ytree_node **root, struct err *e)
{
    struct reader ld;
    int rc;

    *root = NULL;
    if (len > YTREE_MAX_FILE_SIZE)
        return err_set(e, E_USAGE,
                       "%s: the %s file is larger than %d bytes; is this the right file?", name,
                       what, YTREE_MAX_FILE_SIZE);
    memset(&ld, 0, sizeof(ld));
    ld.name = name;
    ld.text = text ? text : ""; /* libyaml asserts on a NULL input */
    ld.len = len;
    ld.e = e;
    rc = build_tree(&ld);
    if (rc != 0) {
        ytree_free(ld.root); /* the part built before the error */
        return rc;
    }
    *root = ld.root;
    return 0;
}

int ytree_load_file(const char *path, const char *what, struct ytree_node **root, struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;

    *root = NULL;
    if ((rc = read_file(path, what, &buf, &len, e)) < 0)
        return rc;
    /* One byte past the limit is enough for ytree_load_string() to refuse the size. */
    rc = ytree_load_string(path, buf, len, what, root, e);
    free(buf);
    return rc;
}
