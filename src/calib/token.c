/*
 * token.c: the token policy and `contactd token ...` (see token.h).
 */
#include "calib/token.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "calib/events.h"
#include "calib/log.h"
#include "base/jtext.h"
#include "base/knobs.h"

int caltoken_principal(struct calstore *cs, const char *token_id, const char *secret, long long now,
    struct caltoken_principal *p, struct err *err)
{
	struct calstore_token tok;
	int found = cs->token_get(cs->ctx, token_id, &tok, err);

	if (found < 0)
		return -1;
	/* verify even for unknown ids, so the answer takes the same time either way */
	if (found == 0)
		memset(tok.hash, 0, sizeof tok.hash);
	if ((secret && !auth_verify(secret, tok.hash)) || found == 0)
		return err_set(err, ERR_UNAUTHORIZED, NULL, "invalid bearer token %s", token_id);
	if (tok.revoked)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "bearer token %s was revoked", token_id);
	if (tok.expires_at > 0 && tok.expires_at <= now)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "bearer token %s has expired", token_id);
	if (tok.last_used_at < now - CALIB_TOKEN_USE_GRANULARITY_S) {
		struct err ignored;

		/* the use is a hint for the operator: a busy store must not refuse the request */
		if (cs->token_touch(cs->ctx, token_id, now, &ignored) != 0)
			callog("calibration: token %s: %s", token_id, ignored.message);
	}
	snprintf(p->token_id, sizeof p->token_id, "%s", token_id);
	p->role = tok.role;
	snprintf(p->robot, sizeof p->robot, "%s", tok.robot);
	snprintf(p->lab, sizeof p->lab, "%s", tok.lab);
	return 0;
}

int caltoken_authenticate(struct calstore *cs, const char *authorization, long long now,
    struct caltoken_principal *p, struct err *err)
{
	char id[AUTH_ID_HEX + 1], secret[AUTH_SECRET_HEX + 1];
	int rc;

	if (auth_bearer_parse(authorization, id, secret, err) != 0)
		return -1;
	rc = caltoken_principal(cs, id, secret, now, p, err);
	sodium_memzero(secret, sizeof secret);
	return rc;
}

int caltoken_can_see(const struct caltoken_principal *p, const char *owner, const char *owner_lab)
{
	if (p->robot[0])
		return strcmp(p->robot, owner) == 0;
	return owner_lab[0] && strcmp(p->lab, owner_lab) == 0;
}

int caltoken_can_write(const struct caltoken_principal *p, const char *owner, struct err *err)
{
	if (p->role == CALSTORE_ROBOT && strcmp(p->robot, owner) == 0)
		return 0;
	return err_set(err, ERR_FORBIDDEN, NULL, "a viewer's token is read-only");
}

int caltoken_robot_visible(
    struct calstore *cs, const struct caltoken_principal *p, const char *robot, struct err *err)
{
	char lab[CALSTORE_NAME_MAX] = "";

	if (p->robot[0] && strcmp(p->robot, robot) == 0)
		return 0;
	if (!p->robot[0] && cs->robot_lab(cs->ctx, robot, lab, err) < 0)
		return -1;
	if (caltoken_can_see(p, robot, lab))
		return 0;
	return err_set(err, ERR_NOT_FOUND, NULL, "no robot %s", robot);
}

const char *caltoken_close_reason(struct calstore *cs, const char *token_id, long long now)
{
	struct calstore_token tok;
	struct err err;
	int found;

	err_clear(&err);
	found = cs->token_get(cs->ctx, token_id, &tok, &err);
	if (found < 0)
		return NULL;
	if (found == 0)
		return "token_unknown";
	if (tok.revoked)
		return "token_revoked";
	if (tok.expires_at > 0 && tok.expires_at <= now)
		return tok.replaced ? "token_rotated" : "token_expired";
	return NULL;
}

int caltoken_create(struct calstore *cs, enum calstore_role role, const char *robot,
    const char *lab, long long expires_at, struct auth_token *out, struct err *err)
{
	if (auth_token_new(out, err) != 0)
		return -1;
	if (cs->token_create(cs->ctx, role, robot, lab, expires_at, out->id, out->hash, err) != 0) {
		sodium_memzero(out, sizeof *out);
		return -1;
	}
	return 0;
}

int caltoken_rotate(struct calstore *cs, const char *old_id, long long expires_at,
    long long grace_until, struct auth_token *out, struct err *err)
{
	if (auth_token_new(out, err) != 0)
		return -1;
	if (cs->token_rotate(cs->ctx, old_id, out->id, out->hash, expires_at, grace_until, err) !=
	    0) {
		sodium_memzero(out, sizeof *out);
		return -1;
	}
	calevents_token(old_id);
	return 0;
}

int caltoken_revoke(struct calstore *cs, const char *token_id, struct err *err)
{
	if (cs->token_revoke(cs->ctx, token_id, err) != 0)
		return -1;
	calevents_token(token_id);
	return 0;
}

/* ---- contactd token ... ---- */

static const char token_usage[] =
    "usage: contactd token create ROBOT [--lab LAB] [--expires SECONDS]\n"
    "       contactd token create --viewer ROBOT | --viewer --lab LAB [--expires SECONDS]\n"
    "       contactd token rotate TOKEN_ID [--expires SECONDS] [--grace SECONDS]\n"
    "       contactd token revoke TOKEN_ID\n"
    "       contactd token list\n"
    "create and rotate print the token labelled, list a table with ISO 8601 times (UTC);\n"
    "--json prints either as one JSON object (times in Unix seconds), for scripts\n";

/* The id part of a token id or of a whole token (never its secret) into id, or -1. */
static int token_id_arg(const char *arg, char id[AUTH_ID_HEX + 1])
{
	size_t n = strcspn(arg, ".");
	size_t i;

	if (n != AUTH_ID_HEX)
		return -1;
	for (i = 0; i < n; i++)
		if (!((arg[i] >= '0' && arg[i] <= '9') || (arg[i] >= 'a' && arg[i] <= 'f')))
			return -1;
	memcpy(id, arg, AUTH_ID_HEX);
	id[AUTH_ID_HEX] = '\0';
	return 0;
}

/* A new token, shown once: labelled for people, or {"id", "token"} with as_json. */
static void token_print_secret(const struct auth_token *tok, int as_json)
{
	if (as_json)
		printf("{\"id\":\"%s\",\"token\":\"%s\"}\n", tok->id, tok->text);
	else
		printf("token: %s\n"
		       "       the bearer token (Authorization: Bearer TOKEN), shown this once:\n"
		       "       only its hash is stored\n"
		       "id:    %s\n",
		    tok->text, tok->id);
}

/* A time in Unix seconds as ISO 8601 UTC ("2026-12-02T04:20:00Z"), or empty_text for
 * null. Returns buf. */
static const char *token_time_text(const json_t *when, const char *empty_text, char buf[32])
{
	time_t t;
	struct tm tm;

	if (!json_is_integer(when))
		return empty_text;
	t = (time_t)json_integer_value(when);
	if (!gmtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, 32, "%lld", (long long)t);
	return buf;
}

/* The store's token list: one line each under a header, times in ISO 8601 (UTC), "-" for
 * none; or as_json, the list as stored (times in Unix seconds). */
static int token_print_list(const json_t *list, int as_json)
{
	const json_t *t;
	char created[32], expires[32], used[32], revoked[32], *text;
	size_t i;

	if (as_json) {
		text = jtext_line(list);
		if (text)
			fputs(text, stdout);
		free(text);
		return text ? 0 : -1;
	}
	printf("%-16s  %-6s  %-16s  %-12s  %-20s  %-20s  %-20s  %-20s  %s\n", "ID", "ROLE", "ROBOT",
	    "LAB", "CREATED", "EXPIRES", "LAST USED", "REVOKED", "REPLACES");
	json_array_foreach (list, i, t) {
		const char *robot = json_string_value(json_object_get(t, "robot"));
		const char *lab = json_string_value(json_object_get(t, "lab"));
		const char *replaces = json_string_value(json_object_get(t, "replaces"));

		printf("%-16s  %-6s  %-16s  %-12s  %-20s  %-20s  %-20s  %-20s  %s\n",
		    json_string_value(json_object_get(t, "id")),
		    json_string_value(json_object_get(t, "role")), robot ? robot : "-",
		    lab ? lab : "-",
		    token_time_text(json_object_get(t, "created_at"), "-", created),
		    token_time_text(json_object_get(t, "expires_at"), "never", expires),
		    token_time_text(json_object_get(t, "last_used_at"), "-", used),
		    token_time_text(json_object_get(t, "revoked_at"), "-", revoked),
		    replaces ? replaces : "-");
	}
	if (json_array_size(list) == 0)
		printf("(no tokens)\n");
	return 0;
}

/* A whole number of seconds, 1 .. 100 years. */
static int seconds_arg(const char *arg, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 3155760000LL)
		return -1;
	*out = v;
	return 0;
}

int caltoken_command(int argc, char **argv, const struct caltoken_opener *opener)
{
	struct calstore *cs = NULL;
	struct auth_token tok;
	struct err err;
	json_t *list = NULL;
	const char *robot = NULL, *lab = NULL, *verb = argc > 1 ? argv[1] : "";
	char id[AUTH_ID_HEX + 1] = "";
	long long expires = 0, grace = 0, now = (long long)time(NULL);
	int viewer = 0, i, rc = 1, has_expires = 0, as_json = 0;

	err_clear(&err);
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--viewer") == 0) {
			viewer = 1;
		} else if (strcmp(argv[i], "--json") == 0) {
			as_json = 1;
		} else if (strcmp(argv[i], "--lab") == 0 && i + 1 < argc) {
			lab = argv[++i];
		} else if (strcmp(argv[i], "--expires") == 0 && i + 1 < argc) {
			if (seconds_arg(argv[++i], &expires) != 0)
				goto usage;
			has_expires = 1;
		} else if (strcmp(argv[i], "--grace") == 0 && i + 1 < argc) {
			if (seconds_arg(argv[++i], &grace) != 0)
				goto usage;
		} else if (argv[i][0] != '-' && !robot) {
			robot = argv[i];
		} else {
			goto usage;
		}
	}
	if (strcmp(verb, "list") == 0 ? robot || lab || viewer
	        : strcmp(verb, "create") == 0
	        ? (!robot && !(viewer && lab)) || (viewer && robot && lab)
	        : strcmp(verb, "rotate") == 0 || strcmp(verb, "revoke") == 0
	        ? !robot || lab || viewer
	        : 1)
		goto usage;
	if ((strcmp(verb, "rotate") == 0 || strcmp(verb, "revoke") == 0) &&
	    token_id_arg(robot, id) != 0) {
		/* never echo the argument: it may be a whole token, secret and all */
		fprintf(stderr, "contactd: token: not a token id (16 hex digits)\n");
		return 2;
	}
	if ((robot && strcmp(verb, "create") == 0 && !auth_robot_name_ok(robot)) ||
	    (lab && !auth_robot_name_ok(lab))) {
		fprintf(stderr,
		    "contactd: token: robot and lab names are 1-64 of A-Z a-z 0-9 _ . -, not . or "
		    "..\n");
		return 2;
	}
	if (opener->open(opener->ctx, &cs, &err) != 0)
		goto out;
	if (strcmp(verb, "create") == 0 || strcmp(verb, "rotate") == 0) {
		if (strcmp(verb, "create") == 0
		        ? caltoken_create(cs, viewer ? CALSTORE_VIEWER : CALSTORE_ROBOT,
		              viewer && lab ? NULL : robot, lab, has_expires ? now + expires : 0,
		              &tok, &err) != 0
		        : caltoken_rotate(cs, id, has_expires ? now + expires : 0, now + grace,
		              &tok, &err) != 0)
			goto out;
		/* shown once: only its hash is stored */
		token_print_secret(&tok, as_json);
		fflush(stdout);
		sodium_memzero(&tok, sizeof tok);
		rc = 0;
	} else if (strcmp(verb, "revoke") == 0) {
		if (caltoken_revoke(cs, id, &err) != 0)
			goto out;
		printf("revoked %s\n", id);
		rc = 0;
	} else {
		if (cs->token_list(cs->ctx, &list, &err) != 0)
			goto out;
		rc = token_print_list(list, as_json) == 0 ? 0 : 1;
	}
out:
	if (rc == 1 && err.code != ERR_NONE)
		fprintf(stderr, "contactd: token: %s\n", err.message);
	json_decref(list);
	if (cs)
		opener->close(opener->ctx);
	return rc;
usage:
	fputs(token_usage, stderr);
	return 2;
}
