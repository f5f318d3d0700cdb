/*
 * auth.c: token generation, hashing and constant-time verification (libsodium).
 */
#include "calib/auth.h"

#include <string.h>

#include <sodium.h>

#define ID_BYTES (AUTH_ID_HEX / 2)
#define SECRET_BYTES (AUTH_SECRET_HEX / 2)
#define ROBOT_NAME_MAX 64

int auth_token_new(struct auth_token *out, struct err *err)
{
	unsigned char id[ID_BYTES], secret[SECRET_BYTES];

	if (sodium_init() < 0)
		return err_set(err, ERR_INTERNAL, NULL, "libsodium cannot start");
	randombytes_buf(id, sizeof id);
	randombytes_buf(secret, sizeof secret);
	sodium_bin2hex(out->id, sizeof out->id, id, sizeof id);
	sodium_bin2hex(out->secret, sizeof out->secret, secret, sizeof secret);
	memcpy(out->text, out->id, AUTH_ID_HEX);
	out->text[AUTH_ID_HEX] = '.';
	memcpy(out->text + AUTH_ID_HEX + 1, out->secret, AUTH_SECRET_HEX + 1);
	auth_hash(out->secret, out->hash);
	sodium_memzero(secret, sizeof secret);
	return 0;
}

static int all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int auth_bearer_parse(
    const char *header, char id[AUTH_ID_HEX + 1], char secret[AUTH_SECRET_HEX + 1], struct err *err)
{
	static const char scheme[] = "Bearer ";
	const char *token;

	if (!header)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "no bearer token (Authorization: Bearer ...)");
	if (strncasecmp(header, scheme, sizeof scheme - 1) != 0)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "the Authorization scheme must be Bearer");
	token = header + sizeof scheme - 1;
	while (*token == ' ')
		token++;
	if (strlen(token) != AUTH_TOKEN_MAX - 1 || token[AUTH_ID_HEX] != '.' ||
	    !all_hex(token, AUTH_ID_HEX) || !all_hex(token + AUTH_ID_HEX + 1, AUTH_SECRET_HEX))
		return err_set(err, ERR_UNAUTHORIZED, NULL, "malformed bearer token");
	memcpy(id, token, AUTH_ID_HEX);
	id[AUTH_ID_HEX] = '\0';
	memcpy(secret, token + AUTH_ID_HEX + 1, AUTH_SECRET_HEX + 1);
	return 0;
}

void auth_hash(const char *secret, unsigned char hash[AUTH_HASH_BYTES])
{
	crypto_generichash(
	    hash, AUTH_HASH_BYTES, (const unsigned char *)secret, strlen(secret), NULL, 0);
}

int auth_verify(const char *secret, const unsigned char stored[AUTH_HASH_BYTES])
{
	unsigned char hash[AUTH_HASH_BYTES];

	auth_hash(secret, hash);
	return sodium_memcmp(hash, stored, AUTH_HASH_BYTES) == 0;
}

int auth_robot_name_ok(const char *name)
{
	size_t n = strlen(name), i;

	/* "." and "..": dot segments in a URL (/v1/robots/../calibrations) */
	if (n == 0 || n > ROBOT_NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		        c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}
