/*
 * vary.c: a query's request with one field changed by JSON Pointer or alias.
 */
#include "service/vary.h"

#include <stdio.h>
#include <string.h>

#include "base/jsonptr.h"

int vary_query(const struct field_ctx *c, const char *key, const struct svc_endpoint_def **out)
{
	const char *names[SVC_ENDPOINT_COUNT];
	const struct svc_endpoint_def *rows[SVC_ENDPOINT_COUNT];
	int count = 0, e, choice = 0;

	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		if (svc_endpoints[e]->kind) {
			names[count] = svc_endpoints[e]->name;
			rows[count++] = svc_endpoints[e];
		}
	}
	if (field_require(c, key) != 0 || field_choice(c, key, names, count, &choice) != 0)
		return -1;
	*out = rows[choice];
	return 0;
}

int vary_set(const struct ans_kind *kind, json_t *v, const char *ptr, json_t *value,
    const char *where, struct err *err)
{
	if (kind->expose && kind->expose(v, ptr, err) != 0)
		return -1;
	return jptr_set(v, ptr, value, where, err);
}

const char *vary_alias(const struct ans_kind *kind, const char *name)
{
	const struct ans_alias *a;

	for (a = kind->aliases; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a->pointer;
	return NULL;
}

int vary_is_floor(const char *ptr)
{
	return strncmp(ptr, "/floor/", 7) == 0;
}

/* Whether name is an alias of any sweepable kind. */
static int alias_known(const char *name)
{
	int e;

	for (e = 0; e < SVC_ENDPOINT_COUNT; e++)
		if (svc_endpoints[e]->kind && vary_alias(svc_endpoints[e]->kind, name))
			return 1;
	return 0;
}

/* The aliases of kind, comma-separated, into buf. */
static void alias_list(const struct ans_kind *kind, char *buf, size_t size)
{
	const struct ans_alias *a;
	size_t n = 0;

	buf[0] = '\0';
	for (a = kind->aliases; a->name && n < size; a++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", a->name);
}

int vary_pointer(const struct svc_endpoint_def *query, json_t *base, const struct field_ctx *c,
    const char *key, char *ptr, int *is_number)
{
	char where[ERR_PATH_MAX], names[200];
	json_t *value = json_object_get(c->obj, key), *scratch, *target;
	const char *text, *resolved;
	int rc;

	if (!json_is_string(value))
		return field_fail(c, key, -1, ERR_BAD_TYPE,
		    "must be a JSON Pointer (\"/geom/solref/1\") or an alias (\"dampratio\")");
	text = json_string_value(value);
	field_path(c, key, where);
	if (text[0] == '\0')
		return err_set(c->err, ERR_BAD_VALUE, where,
		    "must point at a field of the request, not at the whole of it");
	resolved = text;
	if (text[0] != '/') {
		resolved = vary_alias(query->kind, text);
		alias_list(query->kind, names, sizeof names);
		if (!resolved)
			return err_set(c->err, ERR_BAD_VALUE, where,
			    "\"%.40s\" is %s for a %s request; a JSON Pointer starts with '/', or "
			    "use one of: %s",
			    text,
			    alias_known(text) ? "not an alias"
			                      : "neither a JSON Pointer nor an alias",
			    query->name, names);
	}
	if (strlen(resolved) >= ERR_PATH_MAX)
		return err_set(
		    c->err, ERR_BAD_VALUE, where, "is longer than %d bytes", ERR_PATH_MAX - 1);
	/* every field exists in the canonical base (once exposed), so a pointer that
	 * names nothing is a typo */
	scratch = json_deep_copy(base);
	if (!scratch)
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	rc = query->kind->expose ? query->kind->expose(scratch, resolved, c->err) : 0;
	if (rc == 0)
		rc = jptr_get(scratch, resolved, where, &target, c->err);
	if (rc == 0 && is_number)
		*is_number = json_is_number(target);
	json_decref(scratch);
	if (rc != 0)
		return -1;
	snprintf(ptr, ERR_PATH_MAX, "%s", resolved);
	return 0;
}
