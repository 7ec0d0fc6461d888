/*
 * jskim.h - read a JSON file without the parts the reader does not use.
 * A run record is about 250 KB, most of it latency histograms that
 * `history` never looks at; parsing all of it into jansson values for each
 * of 10,000 records took most of history's time.  jskim copies the text
 * keeping only the members on the paths given, every other member's value
 * cut to `null` (a small hand scanner that only follows strings and
 * brackets, so a cut value is passed over, never parsed), and jansson
 * parses what is left: the few kilobytes the reader uses.
 *
 * A path names object members by key from the top, '*' standing for any
 * key or array element: "run.transactions.*.p90_ms".  A member on a path is
 * kept whole ("config.run": all of it); the objects on the way to one are
 * kept with only those members ("run" with "run.notpm" and no other); all
 * other members stay, with null as their value.  A key holding an escape
 * (\") or a '.' is never matched.  What is cut is not checked: a record
 * damaged only inside a cut value reads as whole.
 *
 * No output; reads the file named.
 */
#ifndef TPCC_JSKIM_H
#define TPCC_JSKIM_H

#include <jansson.h>
#include <stddef.h>

/*
 * Copy JSON text in[0..len) into out (len bytes at least) keeping the
 * members on the paths keep[0..n_keep) (see above), the value of every
 * other member made null (a value of 4 bytes or fewer is left as it is);
 * the length written.  Text that is not well-formed where the scanner looks
 * (an unterminated string, nesting deeper than 32) is copied as it is from
 * there on, for the parser to refuse.
 */
size_t jskim_cut(const char *in, size_t len, const char *const *keep, int n_keep, char *out);

/*
 * The JSON of file path, parsed (flags as json_loadb's) with only the
 * members on keep[0..n_keep) (jskim_cut); NULL with *je filled when it
 * cannot be read or parsed (the error's line and text are then those of
 * the whole file).
 */
json_t *jskim_load_file(const char *path, const char *const *keep, int n_keep, size_t flags,
                        json_error_t *je);

#endif
