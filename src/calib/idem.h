/*
 * idem.h: an upload's or a calibration create's Idempotency-Key (IETF httpapi draft): the key
 * as a client sends it, and the fingerprint of what it was sent with. The same key with the
 * same upload to the same calibration, or the same setup for a new one, is a retry: the
 * store keeps the first answer and replays it (struct calstore's upload and
 * calibration_create).
 */
#ifndef CONTACTD_CALIB_IDEM_H
#define CONTACTD_CALIB_IDEM_H

#include <stddef.h>

#include "base/calstore.h"
#include "base/error.h"

/*
 * The key of a header value (NULL: absent, 0 and nothing set) into key (size bytes): an
 * sf-string ("...", RFC 8941; the bare text is refused, as the draft's sf-string is the
 * only spelling) of 1 to CALIB_IDEMPOTENCY_KEY_MAX printable ASCII characters. 1 when
 * given, -1 with ERR_BAD_TYPE when malformed.
 */
int calidem_key(const char *header, char *key, size_t size, struct err *err);

/* The fingerprint of an upload (its canonical text) to calibration id, or with id 0 of a
 * create's canonical setup. */
void calidem_fingerprint(
    long long id, const char *canonical_upload, unsigned char fingerprint[CALSTORE_HASH_BYTES]);

#endif
