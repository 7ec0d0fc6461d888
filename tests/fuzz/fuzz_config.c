/*
 * fuzz_config.c - libFuzzer target for the config loader: the bytes go to
 * cfg_load_string(), the path cfg_load() takes after reading a file (the
 * YAML tree of core/yaml.c, which the study file is read with too, then the
 * walk of core/config.c), then through cfg_validate() and cfg_set() as a
 * command-line override would.
 * Built and run by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined);
 * not part of `make test`.
 *
 * Besides what the sanitizers catch (overflows, leaks: everything is on the
 * stack or freed by the loader), the loader's contract is checked and a
 * breach aborts, which libFuzzer reports as a crash with the input saved:
 * a load returns 0 or E_USAGE (E_FAIL only for lack of memory); a failed
 * load leaves the config untouched and says what is wrong in a message that
 * starts with the file name; a load that succeeds gives a terminated path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"

#define NAME "fuzz.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void breach(const char *what, const struct err *e)
{
    fprintf(stderr, "fuzz_config: %s (code %d, message \"%s\")\n", what, e->code, e->msg);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config c, before;
    struct err e;
    int rc;

    cfg_defaults(&c);
    before = c;
    err_clear(&e);
    rc = cfg_load_string(&c, NAME, (const char *)data, size, &e);
    if (rc != 0) {
        if (rc != E_USAGE && rc != E_FAIL)
            breach("a failed load returned neither E_USAGE nor E_FAIL", &e);
        if (e.code != rc)
            breach("the error's code differs from the return value", &e);
        if (strncmp(e.msg, NAME ":", sizeof(NAME)) != 0)
            breach("the message does not start with the file name", &e);
        if (memchr(e.msg, '\n', strnlen(e.msg, sizeof(e.msg))))
            breach("the message spans several lines", &e);
        if (memcmp(&c, &before, sizeof(c)) != 0)
            breach("a failed load changed the config", &e);
        return 0;
    }
    if (e.code != E_OK || strcmp(c.path, NAME) != 0)
        breach("a load that succeeded left an error or a wrong path", &e);
    /* What the command line does next: validate, then override a key. */
    if (cfg_validate(&c, &e) != 0 && e.code != E_USAGE)
        breach("cfg_validate failed with a code other than E_USAGE", &e);
    err_clear(&e);
    if (cfg_set(&c, "schema.warehouses", "2", "--warehouses", &e) != 0 || c.schema.warehouses != 2)
        breach("an override after a good load failed", &e);
    return 0;
}
