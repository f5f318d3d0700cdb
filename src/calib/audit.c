/*
 * audit.c: the audit use case: a calibration's measurements at a given pad (see audit.h).
 */
#include "calib/audit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/field.h"
#include "calib/calreq.h"
#include "calib/cases.h"
#include "calib/setup.h"
#include "fit/audit.h"
#include "calib/knobs.h"

int calaudit_check(const double solref[2], struct err *err)
{
	if (!(isfinite(solref[0]) && solref[0] > 0 && solref[0] <= CALIB_AUDIT_TIMECONST_MAX))
		return err_set(err, ERR_BAD_VALUE, "/solref/0",
		    "timeconst must be a finite number of seconds > 0 and <= %g",
		    CALIB_AUDIT_TIMECONST_MAX);
	if (!(isfinite(solref[1]) && solref[1] > 0 && solref[1] <= CALIB_AUDIT_DAMPRATIO_MAX))
		return err_set(err, ERR_BAD_VALUE, "/solref/1",
		    "dampratio must be a finite number > 0 and <= %g", CALIB_AUDIT_DAMPRATIO_MAX);
	return 0;
}

int calaudit_parse(json_t *body, double solref[2], struct err *err)
{
	static const char *const known[] = {"solref", NULL};
	struct field_ctx c;

	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0 ||
	    field_require(&c, "solref") != 0 || field_numbers(&c, "solref", 2, solref) != 0)
		return -1;
	return calaudit_check(solref, err);
}

/* Put value at key of o (stolen); *ok cleared on failure. */
static void put(json_t *o, const char *key, json_t *value, int *ok)
{
	if (!o || !value || json_object_set_new(o, key, value) != 0)
		*ok = 0;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *point_json(
    const struct audit_point *pt, const char *k0, double v0, const char *k1, double v1, int *ok)
{
	json_t *o = json_object();

	put(o, k0, json_real(v0), ok);
	put(o, k1, json_real(v1), ok);
	put(o, "sigma", json_real(pt->sigma), ok);
	put(o, "model", real_or_null(pt->model), ok);
	put(o, "residual", real_or_null(pt->residual), ok);
	put(o, "contribution", real_or_null(pt->contribution), ok);
	return o;
}

/* The answer of evaluation a of data (calibration id, the newest fit fit_id or null). */
static json_t *answer_json(
    long long id, const struct calib_data *data, const struct audit_result *a, json_t *fit_id)
{
	json_t *root = json_object(), *drops = json_array(), *presses = json_array(),
	       *trajs = json_array(), *sol = json_array();
	int ok = root && drops && presses && trajs && sol;
	size_t i;

	if (sol &&
	    (json_array_append_new(sol, json_real(a->timeconst)) != 0 ||
	        json_array_append_new(sol, json_real(a->dampratio)) != 0))
		ok = 0;
	for (i = 0; ok && i < a->ndrops; i++)
		if (json_array_append_new(drops,
		        point_json(&a->drops[i], "height", data->drops[i].height, "rebound",
		            data->drops[i].rebound, &ok)) != 0)
			ok = 0;
	for (i = 0; ok && i < a->npresses; i++)
		if (json_array_append_new(presses,
		        point_json(&a->presses[i], "force", data->presses[i].force, "deflection",
		            data->presses[i].deflection, &ok)) != 0)
			ok = 0;
	for (i = 0; ok && i < a->ntrajectories; i++) {
		const struct audit_traj *t = &a->traj[i];
		json_t *o = json_object();

		put(o, "samples", json_integer((json_int_t)data->trajectories[i].n), &ok);
		put(o, "fitted", json_integer((json_int_t)t->fitted), &ok);
		put(o, "sigma", json_real(t->sigma), &ok);
		put(o, "release_time", real_or_null(t->release_time), &ok);
		put(o, "release_height", real_or_null(t->release_height), &ok);
		put(o, "rms", real_or_null(t->rms), &ok);
		put(o, "max", real_or_null(t->max_abs), &ok);
		put(o, "contribution", real_or_null(t->contribution), &ok);
		if (json_array_append_new(trajs, o) != 0)
			ok = 0;
	}
	put(root, "calibration", json_integer(id), &ok);
	put(root, "solref", sol, &ok);
	put(root, "measurements", json_integer((json_int_t)a->n), &ok);
	put(root, "chi2", real_or_null(a->chi2), &ok);
	put(root, "drops", drops, &ok);
	put(root, "presses", presses, &ok);
	put(root, "trajectories", trajs, &ok);
	put(root, "fit_id", fit_id, &ok);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* The newest done fit's releases, when it has one per trajectory: a new array of 2 * n
 * doubles (NAN where not given), else NULL. */
static double *stored_releases(const json_t *fit, size_t n)
{
	const json_t *trajs = json_object_get(json_object_get(fit, "residuals"), "trajectories");
	double *r;
	size_t j;

	if (n == 0 || json_array_size(trajs) != n || !(r = malloc(2 * n * sizeof *r)))
		return NULL;
	for (j = 0; j < n; j++) {
		const json_t *t = json_array_get(trajs, j);
		const json_t *t0 = json_object_get(t, "release_time");
		const json_t *h = json_object_get(t, "release_height");

		r[2 * j] = json_is_number(t0) ? json_number_value(t0) : NAN;
		r[2 * j + 1] = json_is_number(h) ? json_number_value(h) : NAN;
	}
	return r;
}

int calaudit_evaluate(struct calstore *cs, const struct caltoken_principal *p, long long id,
    const double solref[2], json_t **answer, struct err *err)
{
	char owner[CALSTORE_NAME_MAX];
	struct calreq_setup setup;
	struct calreq_data data;
	struct audit_result *a = NULL;
	json_t *all = NULL, *fit = NULL, *fit_id;
	double *releases = NULL;
	const char *state;
	int rc = -1;

	*answer = NULL;
	memset(&data, 0, sizeof data);
	if (calcase_visible(cs, p, id, owner, err) != 0 || calaudit_check(solref, err) != 0 ||
	    calsetup_get(cs, id, &setup, NULL, err) != 0 ||
	    cs->measurements(cs->ctx, id, &all, err) != 0 || calreq_data(all, &data, err) != 0 ||
	    !(fit = calcase_latest_fit(cs, id, NULL, err)))
		goto out;
	state = json_string_value(json_object_get(fit, "state"));
	if (state && strcmp(state, "done") == 0)
		releases = stored_releases(fit, data.data.ntrajectories);
	if (audit_solref(&setup.scene, &data.data, solref[0], solref[1], releases, &a, err) != 0)
		goto out;
	fit_id = json_is_object(fit) ? json_incref(json_object_get(fit, "id")) : json_null();
	*answer = answer_json(id, &data.data, a, fit_id);
	if (!*answer) {
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
		goto out;
	}
	rc = 0;
out:
	audit_free(a);
	free(releases);
	json_decref(fit);
	json_decref(all);
	calreq_data_free(&data);
	return rc;
}
