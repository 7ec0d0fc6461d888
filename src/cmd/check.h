/*
 * check.h - the check command's pieces that bench reuses.
 */
#ifndef TPCC_CMD_CHECK_H
#define TPCC_CMD_CHECK_H

#include <jansson.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "tpcc/check.h"

int check_with_session(struct session *s, unsigned mask, struct check_result *r, struct err *e);
void check_print(FILE *out, const struct check_result *r);
json_t *check_json(const struct check_result *r);

#endif
