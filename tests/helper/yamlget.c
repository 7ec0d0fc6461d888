/*
 * yamlget.c - print one value of a YAML file (libyaml), for the TAP tests
 * that check files no program of ours reads: tests/t/0095-deploy.sh on the
 * Kubernetes manifests of deploy/, where neither kubectl nor python can be
 * assumed on a fresh machine.
 *
 *   yamlget FILE DOC PATH      print the scalar at PATH in document DOC (from 0)
 *   yamlget -n FILE DOC PATH   print how many items the sequence or mapping at PATH has
 *   yamlget -n FILE            print how many documents FILE holds
 *
 * PATH is dotted: a mapping's key, or a sequence's index from 0
 * (spec.template.spec.containers.0.name); "\." is a dot inside a key
 * (data.tpcc\.yaml) and "\\" a backslash; "." alone is the document's root.
 * The scalar is printed as it is, then a newline unless it ends with one.
 * The whole file is parsed before anything is printed: a syntax error in
 * any document, or a key that appears twice in one mapping (YAML forbids
 * it; kubectl refuses it), fails the call whatever PATH asks for.
 *
 * Exit 0 printed; 1 nothing at PATH (no such document, key or index: the
 * message names the part of PATH not found); 2 bad arguments, a file that
 * cannot be read or is not YAML (FILE:LINE:COLUMN: what libyaml says), a
 * duplicate key; 3 the node at PATH is of the wrong kind (a sequence or
 * mapping where a scalar was asked for, or -n on a scalar).
 *
 * It reads FILE and writes stdout, nothing else; of the core it uses only
 * err_errno().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "core/err.h"

/* Longest path component, unescaped. */
#define YG_COMPONENT_MAX 256

enum { YG_OK = 0, YG_NOT_FOUND = 1, YG_USAGE = 2, YG_KIND = 3 };

/* The file named on the command line, for messages. */
static const char *yg_file;

static void yg_usage(void)
{
    fprintf(stderr,
            "usage: yamlget FILE DOC PATH      the scalar at PATH in document DOC (from 0)\n"
            "       yamlget -n FILE DOC PATH   how many items the sequence or mapping has\n"
            "       yamlget -n FILE            how many documents FILE holds\n"
            "PATH: dotted keys and indexes (spec.containers.0.name), \"\\.\" a dot in a key, "
            "\".\" the root\n");
}

/* "yamlget: FILE:LINE:COLUMN: message" at node n's start. */
static void yg_err(const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void yg_err(const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "yamlget: %s:%lu:%lu: ", yg_file, (unsigned long)n->start_mark.line + 1,
            (unsigned long)n->start_mark.column + 1);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* An index: digits only, at most 1000000; 0 and *out, else -1. */
static int yg_index(const char *s, size_t len, long *out)
{
    long v = 0;

    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > 1000000)
            return -1;
    }
    *out = v;
    return 0;
}

static const char *yg_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "empty";
    }
}

/*
 * The next component of *p, unescaped into buf, *p moved past it and its
 * dot: its length, or -1 when it is empty, too long, or a dot ends PATH.
 */
static int yg_component(const char **p, char *buf, size_t size)
{
    size_t n = 0;
    const char *s = *p;

    while (*s && *s != '.') {
        if (*s == '\\' && (s[1] == '.' || s[1] == '\\'))
            s++;
        if (n + 1 >= size)
            return -1;
        buf[n++] = *s++;
    }
    buf[n] = '\0';
    if (*s == '.' && !*++s)
        return -1;
    *p = s;
    return n ? (int)n : -1;
}

/* PATH before the component at upto, for messages; "." for the root. */
static void yg_where(const char *path, const char *upto, char *buf, size_t size)
{
    size_t n = (size_t)(upto - path);

    if (n == 0)
        snprintf(buf, size, ".");
    else
        snprintf(buf, size, "%.*s", (int)(n - 1), path);
}

static int yg_same(const yaml_node_t *k, const char *s, size_t len)
{
    return k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == len &&
           memcmp(k->data.scalar.value, s, len) == 0;
}

/* Every mapping of the document, each pair of scalar keys compared (manifests are small). */
static int yg_duplicates(yaml_document_t *doc)
{
    for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++) {
        yaml_node_pair_t *end;

        if (n->type != YAML_MAPPING_NODE)
            continue;
        end = n->data.mapping.pairs.top;
        for (yaml_node_pair_t *a = n->data.mapping.pairs.start; a < end; a++) {
            yaml_node_t *ka = yaml_document_get_node(doc, a->key);

            if (!ka || ka->type != YAML_SCALAR_NODE)
                continue;
            for (yaml_node_pair_t *b = a + 1; b < end; b++) {
                yaml_node_t *kb = yaml_document_get_node(doc, b->key);

                if (yg_same(kb, (const char *)ka->data.scalar.value, ka->data.scalar.length)) {
                    yg_err(kb, "duplicate key '%.*s' (first at line %lu)",
                           (int)ka->data.scalar.length, (const char *)ka->data.scalar.value,
                           (unsigned long)ka->start_mark.line + 1);
                    return YG_USAGE;
                }
            }
        }
    }
    return YG_OK;
}

/* Walk PATH from the root: YG_OK and *out, or an exit code, its message printed. */
static int yg_walk(yaml_document_t *doc, const char *path, yaml_node_t **out)
{
    yaml_node_t *n = yaml_document_get_root_node(doc);
    char comp[YG_COMPONENT_MAX], at[1024];
    const char *p = path;
    long idx, count;
    int len;

    if (strcmp(path, ".") == 0) {
        *out = n;
        return YG_OK;
    }
    while (*p) {
        yaml_node_t *next = NULL;

        yg_where(path, p, at, sizeof(at));
        if ((len = yg_component(&p, comp, sizeof(comp))) < 0) {
            fprintf(stderr,
                    "yamlget: path '%s' must be dotted keys and indexes, none empty or over %d "
                    "characters\n",
                    path, YG_COMPONENT_MAX - 1);
            return YG_USAGE;
        }
        switch (n->type) {
        case YAML_MAPPING_NODE:
            for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
                 pr < n->data.mapping.pairs.top && !next; pr++)
                if (yg_same(yaml_document_get_node(doc, pr->key), comp, (size_t)len))
                    next = yaml_document_get_node(doc, pr->value);
            if (!next) {
                yg_err(n, "no key '%s' in the mapping at '%s'", comp, at);
                return YG_NOT_FOUND;
            }
            break;
        case YAML_SEQUENCE_NODE:
            count = (long)(n->data.sequence.items.top - n->data.sequence.items.start);
            if (yg_index(comp, (size_t)len, &idx) < 0) {
                yg_err(n, "'%s' is not an index, and '%s' is a sequence", comp, at);
                return YG_KIND;
            }
            if (idx >= count) {
                yg_err(n, "no item %ld in the sequence at '%s' (it has %ld)", idx, at, count);
                return YG_NOT_FOUND;
            }
            next = yaml_document_get_node(doc, n->data.sequence.items.start[idx]);
            break;
        default:
            yg_err(n, "'%s' is %s: no '%s' inside it", at, yg_kind(n), comp);
            return YG_KIND;
        }
        if (!next) {
            yg_err(n, "path '%s': libyaml gave no node", path);
            return YG_USAGE;
        }
        n = next;
    }
    *out = n;
    return YG_OK;
}

/* What is asked of node n, written to o: YG_OK, or YG_KIND with the message printed. */
static int yg_print(FILE *o, const yaml_node_t *n, int count, const char *path)
{
    if (count) {
        if (n->type == YAML_SEQUENCE_NODE)
            fprintf(o, "%ld\n", (long)(n->data.sequence.items.top - n->data.sequence.items.start));
        else if (n->type == YAML_MAPPING_NODE)
            fprintf(o, "%ld\n", (long)(n->data.mapping.pairs.top - n->data.mapping.pairs.start));
        else {
            yg_err(n, "'%s' is %s, not a sequence or mapping", path, yg_kind(n));
            return YG_KIND;
        }
        return YG_OK;
    }
    if (n->type != YAML_SCALAR_NODE) {
        yg_err(n, "'%s' is %s, not a scalar (-n counts its items)", path, yg_kind(n));
        return YG_KIND;
    }
    fwrite(n->data.scalar.value, 1, n->data.scalar.length, o);
    if (n->data.scalar.length == 0 || n->data.scalar.value[n->data.scalar.length - 1] != '\n')
        fputc('\n', o);
    return YG_OK;
}

int main(int argc, char **argv)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    const char *path = NULL;
    long want = -1, ndocs = 0;
    int count = 0, rc = YG_NOT_FOUND, bad = 0;
    char *text = NULL;
    size_t text_len = 0;
    FILE *f, *o;

    if (argc > 1 && strcmp(argv[1], "-n") == 0) {
        count = 1;
        argv++;
        argc--;
    }
    if (!(argc == 4 || (count && argc == 2))) {
        yg_usage();
        return YG_USAGE;
    }
    yg_file = argv[1];
    if (argc == 4) {
        path = argv[3];
        if (yg_index(argv[2], strlen(argv[2]), &want) < 0) {
            fprintf(stderr, "yamlget: DOC must be a document's index from 0 (got \"%s\")\n",
                    argv[2]);
            return YG_USAGE;
        }
        if (!*path) {
            fprintf(stderr, "yamlget: PATH is empty: give \".\" for the document's root\n");
            return YG_USAGE;
        }
    }
    if (!(f = fopen(yg_file, "rb"))) {
        char msg[256];

        fprintf(stderr, "yamlget: cannot open '%s': %s\n", yg_file,
                err_errno(errno, msg, sizeof(msg)));
        return YG_USAGE;
    }
    /* What is printed waits for the end of the file: a later error prints nothing. */
    if (!(o = open_memstream(&text, &text_len))) {
        fclose(f);
        fprintf(stderr, "yamlget: out of memory\n");
        return YG_USAGE;
    }
    if (!yaml_parser_initialize(&parser)) {
        fclose(o);
        free(text);
        fclose(f);
        fprintf(stderr, "yamlget: out of memory\n");
        return YG_USAGE;
    }
    yaml_parser_set_input_file(&parser, f);
    for (;;) {
        yaml_node_t *n;

        if (!yaml_parser_load(&parser, &doc)) {
            const yaml_mark_t *m = &parser.problem_mark;

            fprintf(stderr, "yamlget: %s:%lu:%lu: not YAML: %s", yg_file,
                    (unsigned long)m->line + 1, (unsigned long)m->column + 1,
                    parser.problem ? parser.problem : "error");
            if (parser.context)
                fprintf(stderr, " (%s, line %lu)", parser.context,
                        (unsigned long)parser.context_mark.line + 1);
            fputc('\n', stderr);
            bad = 1;
            break;
        }
        /* The end of the stream comes as a document without a root. */
        if (!yaml_document_get_root_node(&doc)) {
            yaml_document_delete(&doc);
            break;
        }
        if (yg_duplicates(&doc) != YG_OK) {
            yaml_document_delete(&doc);
            bad = 1;
            break;
        }
        if (ndocs == want && (rc = yg_walk(&doc, path, &n)) == YG_OK)
            rc = yg_print(o, n, count, path);
        ndocs++;
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    fclose(o);
    if (bad) {
        free(text);
        return YG_USAGE;
    }
    if (!path) {
        printf("%ld\n", ndocs);
        rc = YG_OK;
    } else if (want >= ndocs) {
        fprintf(stderr, "yamlget: %s: no document %ld (it has %ld, counting from 0)\n", yg_file,
                want, ndocs);
        rc = YG_NOT_FOUND;
    } else if (rc == YG_OK) {
        fwrite(text, 1, text_len, stdout);
    }
    free(text);
    return rc;
}
