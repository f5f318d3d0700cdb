/*
 * calreq.c: validation of calibration setups and measurement uploads.
 *
 * The setup reuses the scene request's validation (request.h) by renaming: "geom"
 * is the scene's floor and "object" its body, so every rule and default of a scene
 * applies; errors found there are reported at the calibration's own paths.
 */
#include "calib/calreq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "base/field.h"
#include "base/questions.h"
#include "fit/knobs.h"
#include "calib/knobs.h"

static const char *const list_names[3] = {"drops", "presses", "trajectories"};

/* The attributes a <default><geom> of MuJoCo 2.2.2 takes besides those of the contact
 * (solref, solimp, condim, friction, margin, gap, solmix, priority): kept as given and
 * written into the snippet, so the pasted class is the robot's pad geom whole. */
static const char *const mjcf_only[] = {"type", "contype", "conaffinity", "group", "size",
    "material", "rgba", "mass", "density", "shellinertia", "fromto", "pos", "quat", "axisangle",
    "xyaxes", "zaxis", "euler", "hfield", "mesh", "fitscale", "fluidshape", "fluidcoef", "user",
    NULL};

/* Append text to out (size bytes, NUL-terminated): -1 when it does not fit. */
static int append_text(char *out, size_t size, const char *text)
{
	size_t n = strlen(out), m = strlen(text);

	if (n + m + 1 > size)
		return -1;
	memcpy(out + n, text, m + 1);
	return 0;
}

/*
 * Why UTF-8 text s (a JSON string: jansson hands over valid UTF-8) cannot go into an XML
 * attribute as it is, or NULL when it can: XML 1.0 forbids the control characters but tab,
 * LF and CR, the surrogates and U+FFFE/U+FFFF, and an attribute's tab, LF and CR would be
 * read back as spaces; DEL is refused with the controls. Escaping cannot carry any of
 * these (&#1; is no better), so a setup holding one is refused.
 */
static const char *xml_unfit(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned long c;

	while (*u) {
		if (*u < 0x80) {
			c = *u++;
		} else if ((*u & 0xe0) == 0xc0 && u[1]) {
			c = ((unsigned long)(*u & 0x1f) << 6) | (u[1] & 0x3f);
			u += 2;
		} else if ((*u & 0xf0) == 0xe0 && u[1] && u[2]) {
			c = ((unsigned long)(*u & 0x0f) << 12) |
			    ((unsigned long)(u[1] & 0x3f) << 6) | (u[2] & 0x3f);
			u += 3;
		} else if ((*u & 0xf8) == 0xf0 && u[1] && u[2] && u[3]) {
			u += 4; /* U+10000 on: XML characters */
			continue;
		} else {
			return "must be UTF-8 text";
		}
		if (c < 0x20 || c == 0x7f)
			return "must not hold control characters (XML 1.0 forbids them)";
		if ((c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
			return "must not hold U+D800 to U+DFFF, U+FFFE or U+FFFF (XML 1.0 forbids "
			       "them)";
	}
	return NULL;
}

/* The XML text of one MJCF attribute's JSON value (number, array of numbers, or string of
 * characters XML takes) appended to out, escaped; -1 with err (at path) otherwise. */
static int mjcf_value(const json_t *v, const char *path, char *out, size_t size, struct err *err)
{
	char num[JTEXT_REAL_MAX];
	const char *t, *why;
	size_t i;
	json_t *x;

	if (json_is_number(v)) {
		if (!isfinite(json_number_value(v)))
			return err_set(err, ERR_BAD_VALUE, path, "must be a finite number");
		jtext_shortest(json_number_value(v), num);
		return append_text(out, size, num);
	}
	if (json_is_array(v)) {
		json_array_foreach (v, i, x) {
			if (!json_is_number(x) || !isfinite(json_number_value(x)))
				return err_set(err,
				    json_is_number(x) ? ERR_BAD_VALUE : ERR_BAD_TYPE, path,
				    "must be an array of finite numbers");
			jtext_shortest(json_number_value(x), num);
			if ((i > 0 && append_text(out, size, " ") != 0) ||
			    append_text(out, size, num) != 0)
				return -1;
		}
		return 0;
	}
	if (!json_is_string(v))
		return err_set(err, ERR_BAD_TYPE, path,
		    "must be a string (the MJCF attribute's text), a number or an array of "
		    "numbers");
	if ((why = xml_unfit(json_string_value(v))) != NULL)
		return err_set(err, ERR_BAD_VALUE, path, "%s", why);
	for (t = json_string_value(v); *t; t++) {
		char one[2] = {*t, '\0'};
		const char *esc = *t == '&' ? "&amp;"
		    : *t == '<'             ? "&lt;"
		    : *t == '>'             ? "&gt;"
		    : *t == '"'             ? "&quot;"
		    : *t == '\''            ? "&apos;"
		                            : one;

		if (append_text(out, size, esc) != 0)
			return -1;
	}
	return 0;
}

/* Move the MJCF-only attributes of geom (an object) to *taken, rendered into attrs
 * (' name="value"' each). */
static int take_mjcf_attributes(
    json_t *geom, json_t **taken, char *attrs, size_t size, struct err *err)
{
	char path[ERR_PATH_MAX];
	size_t i;

	attrs[0] = '\0';
	*taken = json_object();
	if (!*taken)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	for (i = 0; mjcf_only[i]; i++) {
		json_t *v = json_object_get(geom, mjcf_only[i]);

		if (!v)
			continue;
		snprintf(path, sizeof path, "/geom/%s", mjcf_only[i]);
		if (append_text(attrs, size, " ") != 0 ||
		    append_text(attrs, size, mjcf_only[i]) != 0 ||
		    append_text(attrs, size, "=\"") != 0 ||
		    mjcf_value(v, path, attrs, size, err) != 0 ||
		    append_text(attrs, size, "\"") != 0) {
			if (err->code == ERR_NONE)
				err_set(err, ERR_TOO_LARGE, path,
				    "the pad's MJCF attributes take at most %zu bytes", size - 1);
			return -1;
		}
		json_object_set(*taken, mjcf_only[i], v);
		json_object_del(geom, mjcf_only[i]);
	}
	return 0;
}

/* The pad class's values for every member the request's geom omits. */
static int pad_defaults(json_t *geom)
{
	json_t *v;
	int rc = 0;

	if (!json_object_get(geom, "solref")) {
		v = json_pack("[f, f]", CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO);
		rc |= json_object_set_new(geom, "solref", v);
	}
	if (!json_object_get(geom, "condim"))
		rc |= json_object_set_new(geom, "condim", json_integer(CALIB_PAD_CONDIM));
	if (!json_object_get(geom, "friction")) {
		v = json_pack("[f, f, f]", CALIB_PAD_FRICTION_SLIDE, CALIB_PAD_FRICTION_SPIN,
		    CALIB_PAD_FRICTION_ROLL);
		rc |= json_object_set_new(geom, "friction", v);
	}
	if (!json_object_get(geom, "priority"))
		rc |= json_object_set_new(geom, "priority", json_integer(CALIB_PAD_PRIORITY));
	return rc;
}

/* A scene error's path in the calibration's names: /floor -> /geom, /body -> /object,
 * and /duration -> /option/timestep: a setup has no duration, it is checked as a scene
 * of the default duration, so too many steps means too small a timestep. */
static void rename_path(struct err *err)
{
	static const char *const from[] = {"/floor", "/body", "/duration"};
	static const char *const to[] = {"/geom", "/object", "/option/timestep"};
	char path[ERR_PATH_MAX];
	size_t i, n;

	for (i = 0; i < sizeof from / sizeof from[0]; i++) {
		n = strlen(from[i]);
		if (strncmp(err->path, from[i], n) == 0 && (err->path[n] == '/' || !err->path[n])) {
			snprintf(path, sizeof path, "%s%s", to[i], err->path + n);
			snprintf(err->path, sizeof err->path, "%s", path);
			return;
		}
	}
}

int calreq_setup_parse(json_t *v, struct calreq_setup *out, json_t **canonical, struct err *err)
{
	static const char *const known[] = {"geom", "object", "option", "class", NULL};
	const struct questions *q = questions_bound(err);
	struct field_ctx c;
	json_t *scene = NULL, *geom = NULL, *option = NULL, *canon = NULL, *sj = NULL;
	json_t *attrs = NULL;
	const char *cls = "";
	json_t *cv;
	int rc = -1;

	if (!q || field_root(&c, v, "", err) != 0 || field_known(&c, known) != 0)
		return -1;
	cv = json_object_get(v, "class");
	if (cv) {
		if (!json_is_string(cv))
			return field_fail(&c, "class", -1, ERR_BAD_TYPE, "must be a string");
		cls = json_string_value(cv);
		if (strlen(cls) == 0 || strlen(cls) >= CALREQ_CLASS_MAX ||
		    strpbrk(cls, "\"<>&'") != NULL)
			return field_fail(&c, "class", -1, ERR_BAD_VALUE,
			    "must be 1 to %d characters without quotes, <, > or &",
			    CALREQ_CLASS_MAX - 1);
		/* written into the fit's MJCF as it is: only characters XML takes */
		if (xml_unfit(cls))
			return field_fail(&c, "class", -1, ERR_BAD_VALUE, "%s", xml_unfit(cls));
	}
	/* the scene request this setup is, with the pad class's and SO-101's defaults */
	geom =
	    json_object_get(v, "geom") ? json_deep_copy(json_object_get(v, "geom")) : json_object();
	option = json_object_get(v, "option") ? json_deep_copy(json_object_get(v, "option"))
	                                      : json_object();
	scene = json_object();
	if (!geom || !option || !scene) {
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
		goto out;
	}
	if (json_is_object(geom) &&
	    take_mjcf_attributes(
	        geom, &attrs, out->mjcf_attributes, sizeof out->mjcf_attributes, err) != 0)
		goto out;
	if (json_is_object(geom) && pad_defaults(geom) != 0) {
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
		goto out;
	}
	if (json_is_object(option) && !json_object_get(option, "timestep"))
		json_object_set_new(option, "timestep", json_real(CALIB_DEFAULT_TIMESTEP));
	json_object_set(scene, "floor", geom);
	json_object_set(scene, "option", option);
	if (json_object_get(v, "object"))
		json_object_set(scene, "body", json_object_get(v, "object"));
	if (q->scene_parse(scene, &out->scene, canonical ? &sj : NULL, err) != 0) {
		rename_path(err);
		goto out;
	}
	snprintf(out->mjcf_class, sizeof out->mjcf_class, "%s", cls);
	if (canonical) {
		canon = sj
		    ? json_pack("{s:O, s:O, s:O}", "geom", json_object_get(sj, "floor"), "object",
		          json_object_get(sj, "body"), "option", json_object_get(sj, "option"))
		    : NULL;
		if (canon && attrs &&
		    json_object_update(json_object_get(canon, "geom"), attrs) != 0) {
			json_decref(canon);
			canon = NULL;
		}
		if (canon && *cls && json_object_set_new(canon, "class", json_string(cls)) != 0) {
			json_decref(canon);
			canon = NULL;
		}
		if (!canon) {
			err_set(err, ERR_INTERNAL, NULL, "out of memory");
			goto out;
		}
		*canonical = canon;
	}
	rc = 0;
out:
	json_decref(attrs);
	json_decref(sj);
	json_decref(scene);
	json_decref(geom);
	json_decref(option);
	return rc;
}

/* A finite number member into *out, which keeps its value when absent and optional. */
static int number(const struct field_ctx *c, const char *key, int required, double *out)
{
	if (required && field_require(c, key) != 0)
		return -1;
	return field_number(c, key, out);
}

static json_t *parse_drop(const struct field_ctx *c)
{
	static const char *const known[] = {"height", "rebound", "sigma", NULL};
	double height = 0, rebound = 0, sigma = 0;

	if (field_known(c, known) != 0 || number(c, "height", 1, &height) != 0 ||
	    number(c, "rebound", 1, &rebound) != 0 || number(c, "sigma", 0, &sigma) != 0)
		return NULL;
	if (!(height > 0 && height <= CALIB_MAX_DROP_HEIGHT)) {
		field_fail(c, "height", -1, ERR_BAD_VALUE, "must be > 0 and <= %g m, not %s",
		    CALIB_MAX_DROP_HEIGHT, JTEXT_NUM(height));
		return NULL;
	}
	if (!(rebound >= 0 && rebound <= height)) {
		field_fail(c, "rebound", -1, ERR_BAD_VALUE,
		    "must be >= 0 and at most the drop height %s, not %s", JTEXT_NUM(height),
		    JTEXT_NUM(rebound));
		return NULL;
	}
	if (!(sigma >= 0)) {
		field_fail(c, "sigma", -1, ERR_BAD_VALUE, "must be > 0 (0: the default), not %s",
		    JTEXT_NUM(sigma));
		return NULL;
	}
	return json_pack("{s:f, s:f, s:f}", "height", height, "rebound", rebound, "sigma", sigma);
}

/* A press's force is the total on the pad, the object's weight included (the fit's model
 * is the object resting under it): below the weight it is no press at all, most likely
 * the applied force alone (issue #29). Relative slack for a weight typed to fewer digits
 * than m*g prints with. */
#define PRESS_WEIGHT_SLACK 1e-6

static json_t *parse_press(const struct field_ctx *c, const struct calreq_setup *setup)
{
	const double weight = setup->scene.mass * setup->scene.option.gravity;
	static const char *const known[] = {"force", "deflection", "sigma", NULL};
	double force = 0, deflection = 0, sigma = 0;

	if (field_known(c, known) != 0 || number(c, "force", 1, &force) != 0 ||
	    number(c, "deflection", 1, &deflection) != 0 || number(c, "sigma", 0, &sigma) != 0)
		return NULL;
	if (!(force >= 0 && force <= CALIB_MAX_PRESS_FORCE)) {
		field_fail(c, "force", -1, ERR_BAD_VALUE, "must be >= 0 and <= %g N, not %s",
		    CALIB_MAX_PRESS_FORCE, JTEXT_NUM(force));
		return NULL;
	}
	if (force < weight * (1 - PRESS_WEIGHT_SLACK)) {
		field_fail(c, "force", -1, ERR_BAD_VALUE,
		    "%s N is below the object's weight m*g = %s N: force is the total normal force "
		    "on the pad, the weight included (add m*g to the applied force)",
		    JTEXT_NUM(force), JTEXT_NUM(weight));
		return NULL;
	}
	if (!(fabs(deflection) <= CALIB_MAX_DEFLECTION)) {
		field_fail(c, "deflection", -1, ERR_BAD_VALUE, "must be within +-%g m, not %s",
		    CALIB_MAX_DEFLECTION, JTEXT_NUM(deflection));
		return NULL;
	}
	if (!(sigma >= 0)) {
		field_fail(c, "sigma", -1, ERR_BAD_VALUE, "must be > 0 (0: the default), not %s",
		    JTEXT_NUM(sigma));
		return NULL;
	}
	return json_pack(
	    "{s:f, s:f, s:f}", "force", force, "deflection", deflection, "sigma", sigma);
}

/* A finite-number array member (copied into a new JSON array of reals). */
static json_t *reals_member(const struct field_ctx *c, const char *key, size_t *n)
{
	json_t *a = json_object_get(c->obj, key), *copy, *v;
	size_t i;

	if (field_require(c, key) != 0)
		return NULL;
	if (!json_is_array(a)) {
		field_fail(c, key, -1, ERR_BAD_TYPE, "must be an array of numbers");
		return NULL;
	}
	*n = json_array_size(a);
	if (*n > CALIB_MAX_SAMPLES) {
		field_fail(
		    c, key, -1, ERR_TOO_LARGE, "%zu samples: at most %d", *n, CALIB_MAX_SAMPLES);
		return NULL;
	}
	copy = json_array();
	json_array_foreach (a, i, v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v))) {
			field_fail(c, key, (long)i,
			    json_is_number(v) ? ERR_BAD_VALUE : ERR_BAD_TYPE,
			    "must be a finite number");
			json_decref(copy);
			return NULL;
		}
		json_array_append_new(copy, json_real(json_number_value(v)));
	}
	return copy;
}

static json_t *parse_trajectory(const struct field_ctx *c, double timestep)
{
	static const char *const known[] = {"t", "z", "sigma", NULL};
	json_t *t = NULL, *z = NULL, *out = NULL;
	double sigma = 0, span;
	size_t nt = 0, nz = 0, i, lowest = 0;

	if (field_known(c, known) != 0 || number(c, "sigma", 0, &sigma) != 0)
		return NULL;
	if (!(sigma >= 0)) {
		field_fail(c, "sigma", -1, ERR_BAD_VALUE, "must be > 0 (0: the default), not %s",
		    JTEXT_NUM(sigma));
		return NULL;
	}
	if (!(t = reals_member(c, "t", &nt)) || !(z = reals_member(c, "z", &nz)))
		goto out;
	if (nt != nz) {
		field_fail(c, "z", -1, ERR_BAD_VALUE, "has %zu samples but t has %zu", nz, nt);
		goto out;
	}
	if (nt < 3) {
		field_fail(c, "t", -1, ERR_BAD_VALUE, "needs at least 3 samples, not %zu", nt);
		goto out;
	}
	for (i = 1; i < nt; i++) {
		if (!(json_real_value(json_array_get(t, i)) >
		        json_real_value(json_array_get(t, i - 1)))) {
			field_fail(c, "t", (long)i, ERR_BAD_VALUE, "times must increase strictly");
			goto out;
		}
		if (json_real_value(json_array_get(z, i)) <
		    json_real_value(json_array_get(z, lowest)))
			lowest = i;
	}
	if (lowest < 2) {
		field_fail(c, "z", -1, ERR_BAD_VALUE,
		    "needs at least 2 samples before the lowest one (the fall before the impact)");
		goto out;
	}
	span = json_real_value(json_array_get(t, nt - 1)) - json_real_value(json_array_get(t, 0));
	if (!(span / timestep <= CALIB_MAX_TRAJECTORY_STEPS / 2.0)) {
		field_fail(c, "t", -1, ERR_TOO_LARGE, "spans %.3g s: at most %g timesteps", span,
		    CALIB_MAX_TRAJECTORY_STEPS / 2.0);
		goto out;
	}
	out = json_pack("{s:O, s:O, s:f}", "t", t, "z", z, "sigma", sigma);
out:
	json_decref(t);
	json_decref(z);
	return out;
}

int calreq_upload_parse(
    json_t *v, const struct calreq_setup *setup, json_t **upload, struct err *err)
{
	static const char *const known[] = {"drops", "presses", "trajectories", NULL};
	static const long limits[3] = {CALIB_MAX_DROPS, CALIB_MAX_PRESSES, CALIB_MAX_TRAJECTORIES};
	struct field_ctx c;
	json_t *out = json_object();
	int k;

	if (!out)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	if (field_root(&c, v, "", err) != 0 || field_known(&c, known) != 0)
		goto fail;
	for (k = 0; k < 3; k++) {
		json_t *items = json_object_get(v, list_names[k]), *list = json_array(), *item;
		char path[ERR_PATH_MAX];
		size_t i;

		if (!list || json_object_set_new(out, list_names[k], list) != 0) {
			err_set(err, ERR_INTERNAL, NULL, "out of memory");
			goto fail;
		}
		if (!items)
			continue;
		if (!json_is_array(items)) {
			field_fail(&c, list_names[k], -1, ERR_BAD_TYPE, "must be an array");
			goto fail;
		}
		if ((long)json_array_size(items) > limits[k]) {
			field_fail(&c, list_names[k], -1, ERR_TOO_LARGE,
			    "at most %ld per calibration", limits[k]);
			goto fail;
		}
		json_array_foreach (items, i, item) {
			struct field_ctx m;
			json_t *parsed;

			field_path(&c, list_names[k], path);
			snprintf(path + strlen(path), sizeof path - strlen(path), "/%zu", i);
			if (field_root(&m, item, path, err) != 0)
				goto fail;
			parsed = k == 0 ? parse_drop(&m)
			    : k == 1    ? parse_press(&m, setup)
			                : parse_trajectory(&m, setup->scene.option.timestep);
			if (!parsed || json_array_append_new(list, parsed) != 0) {
				if (err->code == ERR_NONE)
					err_set(err, ERR_INTERNAL, NULL, "out of memory");
				goto fail;
			}
		}
	}
	*upload = out;
	return 0;
fail:
	json_decref(out);
	return -1;
}

static double real_at(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

int calreq_data(const json_t *all, struct calreq_data *out, struct err *err)
{
	const json_t *drops = json_object_get(all, "drops"),
	             *presses = json_object_get(all, "presses");
	const json_t *trajs = json_object_get(all, "trajectories");
	size_t nd = json_array_size(drops), np = json_array_size(presses);
	size_t nt = json_array_size(trajs), samples = 0, i, j, at = 0;

	memset(out, 0, sizeof *out);
	if (nd > CALIB_MAX_DROPS || np > CALIB_MAX_PRESSES || nt > CALIB_MAX_TRAJECTORIES)
		return err_set(err, ERR_TOO_LARGE, NULL,
		    "a calibration holds at most %d drops, %d presses and %d trajectories",
		    CALIB_MAX_DROPS, CALIB_MAX_PRESSES, CALIB_MAX_TRAJECTORIES);
	for (i = 0; i < nt; i++)
		samples += json_array_size(json_object_get(json_array_get(trajs, i), "t"));
	out->drops = calloc(nd + 1, sizeof *out->drops);
	out->presses = calloc(np + 1, sizeof *out->presses);
	out->trajectories = calloc(nt + 1, sizeof *out->trajectories);
	out->samples = calloc(2 * samples + 1, sizeof *out->samples);
	if (!out->drops || !out->presses || !out->trajectories || !out->samples)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	for (i = 0; i < nd; i++) {
		const json_t *d = json_array_get(drops, i);
		out->drops[i].height = real_at(d, "height");
		out->drops[i].rebound = real_at(d, "rebound");
		out->drops[i].sigma = real_at(d, "sigma");
	}
	for (i = 0; i < np; i++) {
		const json_t *p = json_array_get(presses, i);
		out->presses[i].force = real_at(p, "force");
		out->presses[i].deflection = real_at(p, "deflection");
		out->presses[i].sigma = real_at(p, "sigma");
	}
	for (i = 0; i < nt; i++) {
		const json_t *tr = json_array_get(trajs, i);
		const json_t *t = json_object_get(tr, "t"), *z = json_object_get(tr, "z");
		size_t n = json_array_size(t);
		double *ts = out->samples + at, *zs = out->samples + at + n;

		for (j = 0; j < n; j++) {
			ts[j] = json_number_value(json_array_get(t, j));
			zs[j] = json_number_value(json_array_get(z, j));
		}
		out->trajectories[i].t = ts;
		out->trajectories[i].z = zs;
		out->trajectories[i].n = n;
		out->trajectories[i].sigma = real_at(tr, "sigma");
		at += 2 * n;
	}
	out->data.drops = out->drops;
	out->data.ndrops = nd;
	out->data.presses = out->presses;
	out->data.npresses = np;
	out->data.trajectories = out->trajectories;
	out->data.ntrajectories = nt;
	return 0;
}

void calreq_data_free(struct calreq_data *d)
{
	free(d->drops);
	free(d->presses);
	free(d->trajectories);
	free(d->samples);
	memset(d, 0, sizeof *d);
}
