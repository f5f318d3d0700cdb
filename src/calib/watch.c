/*
 * watch.c: watch URLs (see watch.h).
 */
#include "calib/watch.h"

#include <stdio.h>
#include <string.h>

#include "base/calstore.h"
#include "calib/knobs.h"

int calwatch_init(struct calstore *cs, struct calwatch *w, struct err *err)
{
	_Static_assert(crypto_auth_KEYBYTES == CALSTORE_SECRET_BYTES, "the watch key is a secret");
	if (sodium_init() < 0)
		return err_set(err, ERR_INTERNAL, NULL, "libsodium cannot start");
	return cs->secret(cs->ctx, "watch", w->key, err);
}

int calwatch_lifetime(long long requested, const char *path, long long *granted, struct err *err)
{
	if (requested < 0)
		return err_set(err, ERR_BAD_VALUE, path,
		    "a watch URL lives from 1 to %d seconds (0: the default, %d)",
		    CALIB_WATCH_MAX_S, CALIB_WATCH_TTL_S);
	*granted = requested == 0           ? CALIB_WATCH_TTL_S
	    : requested > CALIB_WATCH_MAX_S ? CALIB_WATCH_MAX_S
	                                    : requested;
	return 0;
}

static void watch_mac(const struct calwatch *w, long long id, const char *token_id,
    long long issued, long long expires, unsigned char mac[crypto_auth_BYTES])
{
	char message[128];
	int n = snprintf(message, sizeof message, "contactd-watch:%lld:%s:%lld:%lld", id, token_id,
	    issued, expires);

	crypto_auth(mac, (const unsigned char *)message, (unsigned long long)n, w->key);
}

void calwatch_sign(const struct calwatch *w, long long id, const char *token_id, long long issued,
    long long expires, char param[CALWATCH_PARAM_MAX])
{
	unsigned char mac[crypto_auth_BYTES];
	char hex[2 * crypto_auth_BYTES + 1];

	watch_mac(w, id, token_id, issued, expires, mac);
	sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
	snprintf(param, CALWATCH_PARAM_MAX, "%lld.%lld.%s.%s", issued, expires, token_id, hex);
}

int calwatch_verify(const struct calwatch *w, const char *param, long long id, long long now,
    char token_id[AUTH_ID_HEX + 1], long long *expires, struct err *err)
{
	unsigned char mac[crypto_auth_BYTES], given[crypto_auth_BYTES];
	char canonical[CALWATCH_PARAM_MAX];
	long long issued;
	int used = 0;
	size_t bin = 0;

	/* Only the spelling calwatch_sign() writes: sscanf() and sodium_hex2bin() would also
	 * take "+5", "05" and upper-case hex, other URLs for the same signature. */
	if (sscanf(param, "%lld.%lld.%16[0-9a-f].%n", &issued, expires, token_id, &used) != 3 ||
	    used == 0 || strlen(token_id) != AUTH_ID_HEX ||
	    snprintf(canonical, sizeof canonical, "%lld.%lld.%s.", issued, *expires, token_id) !=
	        used ||
	    strncmp(canonical, param, (size_t)used) != 0 ||
	    strspn(param + used, "0123456789abcdef") != 2 * sizeof given ||
	    param[used + 2 * sizeof given] != '\0' ||
	    sodium_hex2bin(
	        given, sizeof given, param + used, strlen(param + used), NULL, &bin, NULL) != 0 ||
	    bin != sizeof given)
		return err_set(err, ERR_UNAUTHORIZED, NULL, "malformed watch URL");
	watch_mac(w, id, token_id, issued, *expires, mac);
	if (crypto_verify_32(mac, given) != 0)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "the watch URL's signature does not hold");
	if (*expires - issued > CALIB_WATCH_MAX_S)
		return err_set(err, ERR_UNAUTHORIZED, NULL,
		    "the watch URL lives longer than the %d s this server allows",
		    CALIB_WATCH_MAX_S);
	if (*expires <= now)
		return err_set(err, ERR_UNAUTHORIZED, NULL, "the watch URL has expired");
	return 0;
}
