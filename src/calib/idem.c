/*
 * idem.c: Idempotency-Key parsing, fingerprints and replays (see idem.h).
 */
#include "calib/idem.h"

#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "calib/knobs.h"

int calidem_key(const char *v, char *key, size_t size, struct err *err)
{
	size_t n = 0;

	if (!v)
		return 0;
	if (*v == '"') {
		for (v++; *v && *v != '"'; v++) {
			if (*v == '\\' && (v[1] == '"' || v[1] == '\\'))
				v++;
			if (n + 1 >= size || (unsigned char)*v < 0x20 || (unsigned char)*v > 0x7e)
				break;
			key[n++] = *v;
		}
		if (*v != '"' || v[1])
			n = 0;
	} /* else unquoted: refused, as the message says (one spelling per key) */
	key[n] = '\0';
	if (n == 0 || n > CALIB_IDEMPOTENCY_KEY_MAX)
		return err_set(err, ERR_BAD_TYPE, "",
		    "Idempotency-Key must be a quoted string of 1 to %d printable characters",
		    CALIB_IDEMPOTENCY_KEY_MAX);
	return 1;
}

void calidem_fingerprint(
    long long id, const char *canonical_upload, unsigned char fingerprint[CALSTORE_HASH_BYTES])
{
	crypto_generichash_state h;
	char id_text[32];

	snprintf(id_text, sizeof id_text, "%lld", id);
	crypto_generichash_init(&h, NULL, 0, CALSTORE_HASH_BYTES);
	crypto_generichash_update(&h, (const unsigned char *)id_text, strlen(id_text) + 1);
	crypto_generichash_update(
	    &h, (const unsigned char *)canonical_upload, strlen(canonical_upload));
	crypto_generichash_final(&h, fingerprint, CALSTORE_HASH_BYTES);
}

void calidem_make(struct calstore_idem *idem, const char *key, long long id, const char *canonical)
{
	calidem_fingerprint(id, canonical, idem->fingerprint);
	idem->key = key;
	idem->ttl_s = CALIB_IDEMPOTENCY_TTL_S;
}

int calidem_replay(struct calstore *cs, struct calstore_write *w, const struct calstore_idem *idem,
    char **replay, struct err *err)
{
	int same = 0, found = cs->idem_find(w, idem, &same, replay, err);

	if (found > 0 && !same)
		return err_set(err, ERR_BAD_VALUE, NULL,
		    "Idempotency-Key %s was used with another request body", idem->key);
	return found;
}
