/*
 * error.c: the one error type of contactd (error.h).
 */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One row per code: its stable name (the contract's "error" value) and the status a
 * client of the daemon gets for it, which the CLI and the library report too. */
static const struct {
	const char *name;
	int status;
} err_table[] = {
    [ERR_NONE] = {"none", 200},
    [ERR_BAD_JSON] = {"bad_json", 400},
    [ERR_BAD_TYPE] = {"bad_type", 400},
    [ERR_BAD_VALUE] = {"bad_value", 422},
    [ERR_UNKNOWN_FIELD] = {"unknown_field", 400},
    [ERR_MISSING_FIELD] = {"missing_field", 400},
    [ERR_TOO_LARGE] = {"too_large", 413},
    [ERR_TOO_DEEP] = {"too_deep", 400},
    [ERR_NOT_FOUND] = {"not_found", 404},
    [ERR_METHOD] = {"method_not_allowed", 405},
    [ERR_NOT_ACCEPTABLE] = {"not_acceptable", 406},
    [ERR_UNSUPPORTED_MEDIA] = {"unsupported_media_type", 415},
    [ERR_UNAUTHORIZED] = {"unauthorized", 401},
    [ERR_FORBIDDEN] = {"forbidden", 403},
    [ERR_CONFLICT] = {"conflict", 409},
    [ERR_TIMEOUT] = {"timeout", 408},
    [ERR_BAD_REQUEST] = {"bad_request", 400},
    [ERR_UNAVAILABLE] = {"unavailable", 503},
    [ERR_INTERNAL] = {"internal", 500},
};

static int err_known(enum err_code code)
{
	return (unsigned)code < sizeof err_table / sizeof err_table[0];
}

/* Cut a multi-byte UTF-8 sequence that truncation left incomplete at the end of s,
 * so the text stays valid UTF-8 (jansson refuses anything else). */
static void trim_utf8(char *s)
{
	size_t len = strlen(s), lead = len, need;
	unsigned char c;

	while (lead > 0 && len - lead < 4 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
		lead--;
	if (lead == 0)
		return;
	c = (unsigned char)s[lead - 1];
	if (c < 0x80)
		return;
	need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
	if (len - (lead - 1) < need)
		s[lead - 1] = '\0';
}

int err_set(struct err *e, enum err_code code, const char *path, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	/* snprintf, not strncpy: always NUL-terminated, silently truncated */
	snprintf(e->path, sizeof e->path, "%s", path ? path : "");
	trim_utf8(e->message);
	trim_utf8(e->path);
	return -1;
}

void err_clear(struct err *e)
{
	e->code = ERR_NONE;
	e->message[0] = '\0';
	e->path[0] = '\0';
}

const char *err_name(enum err_code code)
{
	return err_table[err_known(code) ? code : ERR_INTERNAL].name;
}

int err_status(enum err_code code)
{
	return err_table[err_known(code) ? code : ERR_INTERNAL].status;
}

json_t *err_to_json(const struct err *e)
{
	return json_pack(
	    "{s:s, s:s, s:s}", "error", err_name(e->code), "message", e->message, "path", e->path);
}

void err_escape(char *out, size_t size, const char *s, const char *also)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; s && *s && n + 4 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < ' ' || c >= 0x7f || strchr(also, c)) {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		} else {
			out[n++] = (char)c;
		}
	}
	out[n] = '\0';
}

size_t err_to_text_fallback(const struct err *e, char *out, size_t size)
{
	char message[3 * ERR_MESSAGE_MAX], path[3 * ERR_PATH_MAX];
	int n;

	err_escape(message, sizeof message, e->message, "\"\\");
	err_escape(path, sizeof path, e->path, "\"\\");
	n = snprintf(out, size, "{\"error\":\"%s\",\"message\":\"%s\",\"path\":\"%s\"}\n",
	    err_name(e->code), message, path);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
