/*
 * idem.h: an upload's or a calibration create's Idempotency-Key (IETF httpapi draft): the key
 * as a client sends it, the fingerprint of what it was sent with, and what a key seen before
 * decides. The same key with the same upload to the same calibration, or the same setup for a
 * new one, is a retry: the first answer, which the store keeps (struct calstore's idem_keep),
 * is replayed; the key with anything else is refused.
 */
#ifndef CONTACTD_CALIB_IDEM_H
#define CONTACTD_CALIB_IDEM_H

#include <stddef.h>

#include "base/calstore.h"
#include "base/error.h"

/*
 * The key of a header value (NULL: absent, 0 and nothing set) into key (size bytes, at
 * least CALIB_IDEMPOTENCY_KEY_MAX + 2), blanks around the value aside: the draft's
 * sf-string ("...", RFC 8941: printable ASCII, \" and \\ escaped), or the bare text most
 * clients send (visible ASCII without '"' or '\\'); abc and "abc" are the same key. 1 to
 * CALIB_IDEMPOTENCY_KEY_MAX characters. 1 when given, -1 with ERR_BAD_TYPE when malformed.
 */
int calidem_key(const char *header, char *key, size_t size, struct err *err);

/* The fingerprint of an upload (its canonical text) to calibration id, or with id 0 of a
 * create's canonical setup. */
void calidem_fingerprint(
    long long id, const char *canonical_upload, unsigned char fingerprint[CALSTORE_HASH_BYTES]);

/*
 * The key of a request into *idem (key borrowed: it must outlive idem): key, the fingerprint
 * of canonical (an upload's canonical text, to calibration id; or with id 0 a create's
 * canonical setup), and the keys' lifetime, CALIB_IDEMPOTENCY_TTL_S.
 */
void calidem_make(struct calstore_idem *idem, const char *key, long long id, const char *canonical);

/*
 * What idem's key decides in w, a create's or an upload's transaction of cs: 1 with *replay
 * (caller frees) the answer kept with it when it was kept with the same fingerprint (the
 * request is a retry: write nothing), 0 when the key is new (keep it with the answer:
 * idem_keep), -1 with err: ERR_BAD_VALUE when it was kept with another fingerprint (it names
 * another request), or the store's.
 */
int calidem_replay(struct calstore *cs, struct calstore_write *w, const struct calstore_idem *idem,
    char **replay, struct err *err);

#endif
