/*
 * secret.h - keeping passwords out of everything tpccbench writes or says.
 *
 * The password lives in one place (struct session, read from the
 * environment variable named by database.password_env) and reaches the
 * drivers only through struct db_connect_args.  Text that may quote it on its
 * way out - a driver's error message echoing a connection string, a server
 * setting such as primary_conninfo, a connection string in a record - goes
 * through these functions first:
 *
 *   secret_redact()  replaces any password in connection-string syntax,
 *                    whoever's it is: libpq key=value (quoted values too),
 *                    URIs (scheme://user:PASSWORD@host, ?password=...),
 *                    ODBC (PWD=...; PWD={a;b}} c});
 *   secret_scrub()   replaces every occurrence of one known password;
 *   secret_clean()   both, in place.
 *
 * Nothing here prints, allocates or keeps a pointer.
 */
#ifndef TPCC_SECRET_H
#define TPCC_SECRET_H

#include <stddef.h>

/* What a redacted password reads as. */
#define SECRET_MASK "***"

/* Shorter known passwords are not scrubbed from free text: a password of one
 * to three characters ("on", "tpc") would mangle every message without
 * hiding anything. */
#define SECRET_SCRUB_MIN 4

/*
 * Copy in to out (len bytes, always NUL-terminated, truncated when short)
 * with every password replaced by SECRET_MASK.  A password is the value of a
 * key whose name says so (password, passwd, pwd, sslpassword, passphrase,
 * secret, ..., but not *_env), in key=value syntax with a bare, 'quoted' (libpq,
 * backslash escapes), "quoted" or {braced} (ODBC, }} escapes) value, or the
 * part between ':' and '@' after "://".  Returns how many were replaced.
 */
int secret_redact(const char *in, char *out, size_t len);

/* Replace every occurrence of secret in text (NUL-terminated) by SECRET_MASK,
 * in place; nothing when secret is NULL or shorter than SECRET_SCRUB_MIN.
 * Returns how many were replaced. */
int secret_scrub(char *text, const char *secret);

/* secret_scrub(text, secret), then secret_redact() of text in place (cap is
 * the size of the buffer text is in).  Returns how many were replaced. */
int secret_clean(char *text, size_t cap, const char *secret);

/* 1 when a server setting's name says its value is a secret
 * (ssl_passphrase_command, wsrep_sst_auth, ...): record it as SECRET_MASK. */
int secret_setting_name(const char *name);

/* 1 when name can be an environment variable's name: a letter or '_', then
 * letters, digits and '_' (so a password typed in its place is refused). */
int secret_env_name_ok(const char *name);

/* Zero n bytes at p in a way the compiler cannot drop as a dead store. */
void secret_wipe(void *p, size_t n);

#endif
