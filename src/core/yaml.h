/*
 * yaml.h - a YAML text or file as a small tree of nodes that remember where
 * they were written: what the config (core/config.c) and the study file
 * (study/plan.c) are read with, each then walking the tree by its own rules.
 *
 * Aliases, tags, several documents, input over YTREE_MAX_FILE_SIZE and deep
 * or huge trees are refused, and syntax errors are explained, all with
 * "name:line:col: ..." (E_USAGE; E_FAIL for lack of memory).  The names
 * start with ytree_, clear of libyaml's own yaml_*.
 */
#ifndef TPCC_YAML_H
#define TPCC_YAML_H

#include <stddef.h>

#include "core/err.h"

/* The largest input accepted, in bytes. */
#define YTREE_MAX_FILE_SIZE (1024 * 1024)

/* Longest part of a scalar quoted back in a message, and the buffer ytree_quote() needs. */
#define YTREE_QUOTE_MAX  64
#define YTREE_QUOTE_SIZE (YTREE_QUOTE_MAX * 4 + 8)

enum ytree_kind { YTREE_SCALAR, YTREE_MAP, YTREE_SEQ };

struct ytree_node {
    enum ytree_kind kind;
    int plain;                       /* scalar written without quotes */
    int line, col;                   /* 1-based position of the node's first character */
    char *text;                      /* scalar: the value, NUL-terminated (may hold NULs too) */
    size_t len;                      /* scalar: length of text in bytes */
    struct ytree_node *first, *last; /* mapping: key, value, key, value...; sequence: items */
    struct ytree_node *next;         /* next sibling */
};

/*
 * Parse YAML text of len bytes (any bytes, NULs too) into *root: NULL for
 * an empty text, which callers refuse in their own words.  name is used in
 * messages in place of a file; what ("config", "study") names the kind of
 * file in the message refusing its size.  On error *root is NULL.  Free the
 * tree with ytree_free().
 */
int ytree_load_string(const char *name, const char *text, size_t len, const char *what,
                      struct ytree_node **root, struct err *e);

/* Read the file at path and parse it as ytree_load_string() does (what: "config" or "study",
 * also in "cannot open config file"). */
int ytree_load_file(const char *path, const char *what, struct ytree_node **root, struct err *e);

void ytree_free(struct ytree_node *n);

/* "name:line:col" of node n into buf, for messages; returns buf. */
const char *ytree_where(const char *name, const struct ytree_node *n, char *buf, size_t size);

/* 1 for a value left out ("key:" with nothing after it), not for "" written in quotes. */
int ytree_is_empty(const struct ytree_node *n);

/*
 * Write s (len bytes, any byte) into buf (YTREE_QUOTE_SIZE bytes at least)
 * as a double-quoted string with control characters escaped, cut after
 * YTREE_QUOTE_MAX bytes with "...".  ytree_quote_bare(): the same without
 * the quotes, for a key inside 'a.b'.  Both return buf.
 */
const char *ytree_quote(const char *s, size_t len, char *buf, size_t size);
const char *ytree_quote_bare(const char *s, size_t len, char *buf, size_t size);

#endif
