/*
 * answer.c: a kind's answer as fields, and the field list every kind fills.
 */
#include "service/answer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mjver.h"
#include "core/knobs.h"

static struct ans_field *next_field(struct ans_list *l, const char *name, enum ans_type type)
{
	struct ans_field *f = &l->fields[l->count++];

	f->name = name;
	f->type = type;
	f->real = 0;
	f->integer = 0;
	f->text = NULL;
	return f;
}

void ans_add_real(struct ans_list *l, const char *name, double value)
{
	struct ans_field *f = next_field(l, name, isfinite(value) ? ANS_REAL : ANS_NULL);

	/* 0, not -0: the sign of a zero means nothing in an answer (a slip of -0.0 m) */
	f->real = value == 0 ? 0.0 : value;
	if (!isfinite(value))
		l->diverged = 1;
}

void ans_add_null(struct ans_list *l, const char *name)
{
	next_field(l, name, ANS_NULL);
}

void ans_add_integer(struct ans_list *l, const char *name, long value, enum ans_type type)
{
	next_field(l, name, type)->integer = value;
}

void ans_add_string(struct ans_list *l, const char *name, const char *value)
{
	next_field(l, name, ANS_STRING)->text = value;
}

void ans_add_real_if(struct ans_list *l, const char *name, double value, int present)
{
	if (present && isfinite(value))
		ans_add_real(l, name, value);
	else
		ans_add_null(l, name);
}

void ans_add_release(struct ans_list *l, int mujoco)
{
	ans_add_string(l, "mujoco", core_mjver_name(mujoco));
	ans_add_string(l, "core_version", CORE_VERSION);
}

void ans_add_tail(struct ans_list *l, int solref_fallback, int mujoco)
{
	ans_add_integer(l, "solref_fallback", solref_fallback, ANS_BOOL);
	ans_add_integer(l, "diverged", l->diverged, ANS_BOOL);
	ans_add_release(l, mujoco);
}

int ans_parse(const struct ans_kind *kind, json_t *body, void **request, struct err *err)
{
	void *req = malloc(kind->request_size);

	if (!req)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (kind->point(body, "", req, err) != 0) {
		free(req);
		return -1;
	}
	*request = req;
	return 0;
}

int ans_answer(const struct ans_kind *kind, const void *request, json_t **answer, struct err *err)
{
	void *result = malloc(kind->result_size);

	if (!result)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	kind->compute(request, result);
	*answer = ans_to_json(kind, result);
	free(result);
	return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

json_t *ans_field_json(const struct ans_field *f)
{
	switch (f->type) {
	case ANS_REAL:
		return json_real(f->real);
	case ANS_INTEGER:
		return json_integer(f->integer);
	case ANS_BOOL:
		return json_boolean(f->integer);
	case ANS_STRING:
		return json_string(f->text);
	default:
		return json_null();
	}
}

json_t *ans_to_json(const struct ans_kind *kind, const void *result)
{
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = kind->fields(result, fields), i;
	json_t *obj = json_object();

	for (i = 0; obj && i < n; i++) {
		if (json_object_set_new(obj, fields[i].name, ans_field_json(&fields[i])) != 0) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

json_t *ans_with_release(json_t *obj, int mujoco)
{
	if (obj &&
	    (json_object_set_new(obj, "mujoco", json_string(core_mjver_name(mujoco))) != 0 ||
	        json_object_set_new(obj, "core_version", json_string(CORE_VERSION)) != 0)) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}
