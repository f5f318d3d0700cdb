/*
 * idem.c: Idempotency-Key parsing, fingerprints and replays (see idem.h).
 */
#include "calib/idem.h"

#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "calib/knobs.h"

/* Is c a visible ASCII character (VCHAR, RFC 5234)? */
static int visible(char c)
{
	return (unsigned char)c > 0x20 && (unsigned char)c < 0x7f;
}

/* The sf-string's text between the quotes at v[0] and v[end - 1], unescaped, into key; its
 * length, or 0 when it is not one (RFC 8941 3.3.3: only \" and \\ escapes, printable). */
static size_t quoted_key(const char *v, size_t end, char *key, size_t size)
{
	size_t n = 0, i;

	for (i = 1; i + 1 < end; i++) {
		if (v[i] == '\\') {
			if (i + 2 >= end || (v[i + 1] != '"' && v[i + 1] != '\\'))
				return 0;
			i++;
		} else if (v[i] == '"' || (v[i] != ' ' && !visible(v[i]))) {
			return 0;
		}
		if (n + 1 >= size)
			return 0;
		key[n++] = v[i];
	}
	return n;
}

int calidem_key(const char *v, char *key, size_t size, struct err *err)
{
	size_t n = 0, end;

	if (!v)
		return 0;
	/* the blanks around a field value are not the value's (RFC 9110 5.5); libmicrohttpd
	 * drops the leading ones only */
	v += strspn(v, " \t");
	end = strlen(v);
	while (end > 0 && (v[end - 1] == ' ' || v[end - 1] == '\t'))
		end--;
	if (end >= 2 && v[0] == '"' && v[end - 1] == '"') {
		n = quoted_key(v, end, key, size);
	} else {
		/* the bare key most clients send (a uuid): the same key as its quoted spelling, so
		 * neither DQUOTE nor backslash, which only an sf-string can hold */
		for (; n < end && n + 1 < size && visible(v[n]) && v[n] != '"' && v[n] != '\\'; n++)
			key[n] = v[n];
		if (n < end)
			n = 0;
	}
	key[n] = '\0';
	if (n == 0 || n > CALIB_IDEMPOTENCY_KEY_MAX)
		return err_set(err, ERR_BAD_TYPE, "",
		    "Idempotency-Key must be 1 to %d visible ASCII characters, bare (no '\"' or "
		    "'\\') or a quoted string (RFC 8941); abc and \"abc\" are the same key",
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
