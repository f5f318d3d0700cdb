/*
 * vary.c: a query's request with one field changed by JSON Pointer or alias.
 */
#include "service/vary.h"

#include <stdio.h>
#include <string.h>

#include "base/jsonptr.h"
#include "tunables.h"

/* An alias and its pointer in a scene request (rest, drop), a stability request and
 * a hold request (where the pads' geom, priority 1 in MuJoCo, sets the contact's
 * solref, solimp and friction); NULL where the request has no such field. */
static const struct alias {
	const char *name, *scene, *stability, *hold;
} aliases[] = {
    {"timeconst", "/geom/solref/0", "/solref/0", "/pad/solref/0"},
    {"dampratio", "/geom/solref/1", "/solref/1", "/pad/solref/1"},
    {"timestep", "/option/timestep", "/option/timestep", "/option/timestep"},
    {"d0", "/geom/solimp/0", "/solimp/0", "/pad/solimp/0"},
    {"dwidth", "/geom/solimp/1", "/solimp/1", "/pad/solimp/1"},
    {"width", "/geom/solimp/2", "/solimp/2", "/pad/solimp/2"},
    {"midpoint", "/geom/solimp/3", "/solimp/3", "/pad/solimp/3"},
    {"power", "/geom/solimp/4", "/solimp/4", "/pad/solimp/4"},
    {"impedance", NULL, "/impedance", NULL},
    {"mass", "/body/mass", NULL, "/object/mass"},
    {"height", "/height", NULL, NULL},
    {"duration", "/duration", NULL, "/duration"},
    {"gravity", "/option/gravity", NULL, "/option/gravity"},
    {"impratio", "/option/impratio", NULL, "/option/impratio"},
    {"friction", "/geom/friction/0", NULL, "/pad/friction/0"},
    {"margin", "/geom/margin", NULL, NULL},
    {"gap", "/geom/gap", NULL, NULL},
    {"grip_force", NULL, NULL, "/grip_force"},
    {"cone", NULL, NULL, "/option/cone"},
    {"size", NULL, NULL, "/object/size"},
    {"pad_mass", NULL, NULL, "/pad/mass"},
    {"slip_limit", NULL, NULL, "/slip_limit"},
};

#define NALIASES (sizeof aliases / sizeof aliases[0])

int vary_query(const struct field_ctx *c, const char *key, enum svc_endpoint *out)
{
	const char *names[SVC_ENDPOINT_COUNT];
	enum svc_endpoint rows[SVC_ENDPOINT_COUNT];
	int count = 0, e, choice = 0;

	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		if (svc_endpoints[e].point) {
			names[count] = svc_endpoints[e].name;
			rows[count++] = (enum svc_endpoint)e;
		}
	}
	if (field_require(c, key) != 0 || field_choice(c, key, names, count, &choice) != 0)
		return -1;
	*out = rows[choice];
	return 0;
}

int vary_set(enum svc_endpoint query, json_t *v, const char *ptr, json_t *value, const char *where,
    struct err *err)
{
	if (ans_request_expose(query, v, ptr, err) != 0)
		return -1;
	return jptr_set(v, ptr, value, where, err);
}

int vary_alias(
    size_t index, const char **name, const char **scene, const char **stability, const char **hold)
{
	if (index >= NALIASES)
		return -1;
	if (name)
		*name = aliases[index].name;
	if (scene)
		*scene = aliases[index].scene;
	if (stability)
		*stability = aliases[index].stability;
	if (hold)
		*hold = aliases[index].hold;
	return 0;
}

int vary_is_floor(const char *ptr)
{
	return strncmp(ptr, "/floor/", 7) == 0;
}

/* The pointer of alias name for the query; NULL when there is none. *known is 1
 * when name is an alias at all. */
static const char *alias_pointer(enum svc_endpoint query, const char *name, int *known)
{
	size_t i;

	*known = 0;
	for (i = 0; i < NALIASES; i++) {
		if (strcmp(aliases[i].name, name) == 0) {
			*known = 1;
			return query == SVC_STABILITY ? aliases[i].stability
			    : query == SVC_HOLD       ? aliases[i].hold
			                              : aliases[i].scene;
		}
	}
	return NULL;
}

/* The aliases of the query, comma-separated, into buf. */
static void alias_list(enum svc_endpoint query, char *buf, size_t size)
{
	size_t i, n = 0;
	int known;

	buf[0] = '\0';
	for (i = 0; i < NALIASES && n < size; i++)
		if (alias_pointer(query, aliases[i].name, &known))
			n += (size_t)snprintf(
			    buf + n, size - n, "%s%s", n ? ", " : "", aliases[i].name);
}

int vary_pointer(enum svc_endpoint query, json_t *base, const struct field_ctx *c, const char *key,
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
			    svc_endpoint_name(query), names);
	}
	if (strlen(resolved) >= ERR_PATH_MAX)
		return err_set(
		    c->err, ERR_BAD_VALUE, where, "is longer than %d bytes", ERR_PATH_MAX - 1);
	/* every field exists in the canonical base (once exposed), so a pointer that
	 * names nothing is a typo */
	scratch = json_deep_copy(base);
	if (!scratch)
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	rc = ans_request_expose(query, scratch, resolved, c->err);
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
