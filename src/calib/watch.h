/*
 * watch.h: signed, short-lived URLs of a calibration's event stream, for a browser's
 * EventSource, which cannot send Authorization.
 *
 * The URL's parameter is "<issued>.<expires>.<token id>.<mac hex>": the MAC (libsodium
 * crypto_auth, HMAC-SHA-512-256, keyed with the server's secret "watch" of the store) covers
 * the calibration id, the token it was made for and both times. It never holds the token. A
 * URL lives at most CALIB_WATCH_MAX_S: a longer lifetime asked for is clamped to it (the
 * answer says what was granted), and a URL whose signed expiry lies further than that past
 * its signed issue time is refused, whoever signed it.
 */
#ifndef CONTACTD_CALIB_WATCH_H
#define CONTACTD_CALIB_WATCH_H

#include <sodium.h>

#include "base/calstore.h"
#include "base/error.h"
#include "calib/auth.h"

#define CALWATCH_PARAM_MAX 160 /* the parameter's text with its NUL */

/* The signing key. */
struct calwatch {
	unsigned char key[crypto_auth_KEYBYTES];
};

/* Load (on first use: make, durably) the store's watch key into *w. */
int calwatch_init(struct calstore *cs, struct calwatch *w, struct err *err);

/*
 * The lifetime a request for `requested` seconds gets: CALIB_WATCH_TTL_S when requested is 0
 * (none asked), requested clamped to CALIB_WATCH_MAX_S otherwise. requested < 0 is
 * ERR_BAD_VALUE at path.
 */
int calwatch_lifetime(long long requested, const char *path, long long *granted, struct err *err);

/* The parameter for calibration id and token token_id, issued at `issued`, expiring at
 * `expires` (Unix seconds), into param. No cap here: calwatch_lifetime() chose it. */
void calwatch_sign(const struct calwatch *w, long long id, const char *token_id, long long issued,
    long long expires, char param[CALWATCH_PARAM_MAX]);

/*
 * Check a parameter for calibration id at Unix time now: 0 with token_id and *expires filled
 * when its signature holds, its lifetime is within the cap and it has not expired; else
 * ERR_UNAUTHORIZED saying which.
 */
int calwatch_verify(const struct calwatch *w, const char *param, long long id, long long now,
    char token_id[AUTH_ID_HEX + 1], long long *expires, struct err *err);

#endif
