/*
 * vary.c: a query's request with one field changed by JSON Pointer or alias.
 */
#include "service/vary.h"

#include <stdio.h>
#include <string.h>

#include "service/jsonptr.h"
#include "service/request.h"
#include "tunables.h"

static const char *const query_names[] = {
    [ANS_REST] = "rest",
    [ANS_DROP] = "drop",
    [ANS_STABILITY] = "stability",
};

#define NQUERIES ((int)(sizeof query_names / sizeof query_names[0]))

/* An alias and its pointer in a scene request (rest, drop) and a stability request;
 * NULL where the request has no such field. */
static const struct alias {
	const char *name, *scene, *stability;
} aliases[] = {
    {"timeconst", "/geom/solref/0", "/solref/0"},
    {"dampratio", "/geom/solref/1", "/solref/1"},
    {"timestep", "/option/timestep", "/option/timestep"},
    {"d0", "/geom/solimp/0", "/solimp/0"},
    {"dwidth", "/geom/solimp/1", "/solimp/1"},
    {"width", "/geom/solimp/2", "/solimp/2"},
    {"midpoint", "/geom/solimp/3", "/solimp/3"},
    {"power", "/geom/solimp/4", "/solimp/4"},
    {"impedance", NULL, "/impedance"},
    {"mass", "/body/mass", NULL},
    {"height", "/height", NULL},
    {"duration", "/duration", NULL},
    {"gravity", "/option/gravity", NULL},
    {"impratio", "/option/impratio", NULL},
    {"friction", "/geom/friction/0", NULL},
    {"margin", "/geom/margin", NULL},
    {"gap", "/geom/gap", NULL},
};

#define NALIASES (sizeof aliases / sizeof aliases[0])

const char *vary_query_name(enum ans_query query)
{
	return query_names[query];
}

int vary_query(const struct field_ctx *c, const char *key, enum ans_query *out)
{
	int index = 0;

	if (field_require(c, key) != 0 || field_choice(c, key, query_names, NQUERIES, &index) != 0)
		return -1;
	*out = (enum ans_query)index;
	return 0;
}

int vary_parse(
    enum ans_query query, json_t *v, const char *path, struct ans_request *out, struct err *err)
{
	out->query = query;
	if (query == ANS_STABILITY)
		return req_stability_parse(v, path, &out->u.stability, err);
	return req_scene_parse(v, path, query == ANS_DROP ? DEFAULT_HEIGHT : 0, &out->u.scene, err);
}

json_t *vary_request_json(const struct ans_request *r)
{
	if (r->query == ANS_STABILITY)
		return req_stability_json(&r->u.stability);
	return req_scene_json(&r->u.scene);
}

int vary_set(enum ans_query query, json_t *v, const char *ptr, json_t *value, const char *where,
    struct err *err)
{
	if (query != ANS_STABILITY && req_scene_expose(v, ptr, err) != 0)
		return -1;
	return jptr_set(v, ptr, value, where, err);
}

int vary_is_floor(const char *ptr)
{
	return strncmp(ptr, "/floor/", 7) == 0;
}

/* The pointer of alias name for the query; NULL when there is none. *known is 1
 * when name is an alias at all. */
static const char *alias_pointer(enum ans_query query, const char *name, int *known)
{
	size_t i;

	*known = 0;
	for (i = 0; i < NALIASES; i++) {
		if (strcmp(aliases[i].name, name) == 0) {
			*known = 1;
			return query == ANS_STABILITY ? aliases[i].stability : aliases[i].scene;
		}
	}
	return NULL;
}

/* The aliases of the query, comma-separated, into buf. */
static void alias_list(enum ans_query query, char *buf, size_t size)
{
	size_t i, n = 0;
	int known;

	buf[0] = '\0';
	for (i = 0; i < NALIASES && n < size; i++)
		if (alias_pointer(query, aliases[i].name, &known))
			n += (size_t)snprintf(
			    buf + n, size - n, "%s%s", n ? ", " : "", aliases[i].name);
}

int vary_pointer(enum ans_query query, json_t *base, const struct field_ctx *c, const char *key,
    char *ptr, int *is_number)
{
	char where[ERR_PATH_MAX], names[200];
	json_t *value = json_object_get(c->obj, key), *scratch, *target;
	const char *text, *resolved;
	int known, rc;

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
		resolved = alias_pointer(query, text, &known);
		alias_list(query, names, sizeof names);
		if (!resolved)
			return err_set(c->err, ERR_BAD_VALUE, where,
			    "\"%.40s\" is %s for a %s request; a JSON Pointer starts with '/', or "
			    "use one of: %s",
			    text, known ? "not an alias" : "neither a JSON Pointer nor an alias",
			    query_names[query], names);
	}
	if (strlen(resolved) >= ERR_PATH_MAX)
		return err_set(
		    c->err, ERR_BAD_VALUE, where, "is longer than %d bytes", ERR_PATH_MAX - 1);
	/* every field exists in the canonical base (once exposed), so a pointer that
	 * names nothing is a typo */
	scratch = json_deep_copy(base);
	if (!scratch)
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	rc = query != ANS_STABILITY ? req_scene_expose(scratch, resolved, c->err) : 0;
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
