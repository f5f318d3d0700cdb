/*
 * auth.h: robots' bearer tokens. A token is "<id>.<secret>": the id (16 hex digits)
 * finds the stored record, the secret (64 hex digits, 256 random bits) proves the
 * bearer. Only BLAKE2b-256 (libsodium crypto_generichash) of the secret is stored, and
 * it is compared in constant time (sodium_memcmp). The token is shown once, at creation.
 * No I/O: the store keeps the records (calstore.h).
 */
#ifndef CONTACTD_CALIB_AUTH_H
#define CONTACTD_CALIB_AUTH_H

#include "base/error.h"

#define AUTH_ID_HEX 16
#define AUTH_SECRET_HEX 64
#define AUTH_HASH_BYTES 32
#define AUTH_TOKEN_MAX (AUTH_ID_HEX + 1 + AUTH_SECRET_HEX + 1) /* with the NUL */

struct auth_token {
	char id[AUTH_ID_HEX + 1];
	char secret[AUTH_SECRET_HEX + 1];
	char text[AUTH_TOKEN_MAX]; /* "<id>.<secret>": what the robot sends */
	unsigned char hash[AUTH_HASH_BYTES];
};

/* A new random token and the hash to store. ERR_INTERNAL if libsodium cannot start. */
int auth_token_new(struct auth_token *out, struct err *err);

/*
 * Split an Authorization header "Bearer <id>.<secret>" into id and secret (NUL-
 * terminated, sized as in struct auth_token). ERR_UNAUTHORIZED when header is NULL or
 * malformed; the message never repeats the secret.
 */
int auth_bearer_parse(const char *header, char id[AUTH_ID_HEX + 1],
    char secret[AUTH_SECRET_HEX + 1], struct err *err);

/* The stored hash of a secret. */
void auth_hash(const char *secret, unsigned char hash[AUTH_HASH_BYTES]);

/* 1 when secret hashes to stored (compared in constant time), else 0. */
int auth_verify(const char *secret, const unsigned char stored[AUTH_HASH_BYTES]);

/* 1 when name is a valid robot name: 1..64 of [A-Za-z0-9_.-], not "." or "..". */
int auth_robot_name_ok(const char *name);

#endif
