/*
 * test_model_mj.c: the model layer (src/model/) against Debian's libmujoco 2.2.2 on the
 * MJCF files of tests/fixtures/mjcf/ (README.md there names their sources): every
 * geom's fields and body's mass as mj_loadXML compiles them, every geom pair with the
 * parameters mj_collision gives its contacts, and every rest the core answers against a
 * run of the whole model.
 *
 * Pairs from MuJoCo itself: every geom's and pair's margin is raised by PAD (the models
 * span less than 2 PAD), so the broadphase and every narrow-phase function report each
 * pair the filters let through; d->contact then holds each such pair's condim,
 * friction, solref, solimp and includemargin (PAD more than the model's).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "model/mjcf.h"
#include "model/model.h"
#include "model/pairs.h"
#include "model/rest.h"
#include "service/knobs.h"

#define PAD 20.0

/* parameters copied or averaged: MuJoCo's arithmetic is the layer's, so 1 ulp slack */
#define PARAM_TOL 1e-14
/* includemargin read back through + PAD: its rounding (ulp of PAD, 3.6e-15) */
#define MARGIN_TOL 1e-13
/* rest: the bound for the core's rest against the whole model's run */
#define REST_TOL 1e-6

static const char *const fixtures[] = {"hand-classes.xml", "hand-rest.xml",
    "so101-scene_box-2.2.2.xml", "mujoco-humanoid.xml", "mujoco-slider_crank.xml",
    "mujoco-arm26.xml", NULL};

static int close_to(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(1, fmax(fabs(a), fabs(b)));
}

struct loaded {
	struct mjcf_doc doc;
	struct mdl_model m;
	struct mpair_list pairs;
	mjModel *mj;
	char path[1024];
};

static void load(const char *name, struct loaded *l)
{
	struct err err;
	char errbuf[1000] = "";

	snprintf(l->path, sizeof l->path, "%s/%s", FIXTURE_DIR, name);
	err_clear(&err);
	ck_assert_msg(mjcf_load(name, mjcf_disk_reader, (void *)FIXTURE_DIR, &l->doc, &err) == 0,
	    "%s: %s", name, err.message);
	ck_assert_msg(mdl_compile(&l->doc, core_mjver_find("2.2.2"), &l->m, &err) == 0, "%s: %s", name, err.message);
	ck_assert_msg(mpair_list(&l->m, &l->pairs, &err) == 0, "%s: %s", name, err.message);
	l->mj = mj_loadXML(l->path, NULL, errbuf, sizeof errbuf);
	ck_assert_msg(l->mj != NULL, "%s: MuJoCo: %s", name, errbuf);
}

static void unload(struct loaded *l)
{
	mj_deleteModel(l->mj);
	mpair_free(&l->pairs);
	mdl_free(&l->m);
	mjcf_free(&l->doc);
}

static void check_geoms(const char *name, const struct loaded *l)
{
	const mjModel *mj = l->mj;
	int i, k;

	ck_assert_msg(
	    l->m.ngeom == mj->ngeom, "%s: %d geoms, MuJoCo %d", name, l->m.ngeom, mj->ngeom);
	ck_assert_msg(
	    l->m.nbody == mj->nbody, "%s: %d bodies, MuJoCo %d", name, l->m.nbody, mj->nbody);
	for (i = 0; i < mj->ngeom; i++) {
		const struct mdl_geom *g = &l->m.geoms[i];
		const char *mjname = mj_id2name(mj, mjOBJ_GEOM, i);
		ck_assert_msg((int)g->type == mj->geom_type[i], "%s geom %d: type %d, MuJoCo %d",
		    name, i, g->type, mj->geom_type[i]);
		ck_assert_msg(g->body == mj->geom_bodyid[i], "%s geom %d: body", name, i);
		ck_assert_msg(
		    (!g->name && !mjname) || (g->name && mjname && !strcmp(g->name, mjname)),
		    "%s geom %d: name %s, MuJoCo %s", name, i, g->name ? g->name : "-",
		    mjname ? mjname : "-");
		ck_assert_msg(g->condim == mj->geom_condim[i] &&
		        g->contype == mj->geom_contype[i] &&
		        g->conaffinity == mj->geom_conaffinity[i] &&
		        g->priority == mj->geom_priority[i],
		    "%s geom %d: condim/contype/conaffinity/priority", name, i);
		ck_assert_msg(close_to(g->solmix, mj->geom_solmix[i], PARAM_TOL) &&
		        close_to(g->margin, mj->geom_margin[i], PARAM_TOL) &&
		        close_to(g->gap, mj->geom_gap[i], PARAM_TOL),
		    "%s geom %d: solmix/margin/gap", name, i);
		for (k = 0; k < 3; k++) {
			ck_assert_msg(close_to(g->size[k], mj->geom_size[3 * i + k], PARAM_TOL),
			    "%s geom %d size[%d]: %.17g, MuJoCo %.17g", name, i, k, g->size[k],
			    mj->geom_size[3 * i + k]);
			ck_assert_msg(
			    close_to(g->friction[k], mj->geom_friction[3 * i + k], PARAM_TOL),
			    "%s geom %d friction[%d]", name, i, k);
		}
		for (k = 0; k < 2; k++)
			ck_assert_msg(close_to(g->solref[k], mj->geom_solref[2 * i + k], PARAM_TOL),
			    "%s geom %d solref[%d]", name, i, k);
		for (k = 0; k < 5; k++)
			ck_assert_msg(close_to(g->solimp[k], mj->geom_solimp[5 * i + k], PARAM_TOL),
			    "%s geom %d solimp[%d]", name, i, k);
	}
	for (i = 0; i < mj->nbody; i++) {
		const struct mdl_body *b = &l->m.bodies[i];
		ck_assert_msg(
		    b->parent == (i ? mj->body_parentid[i] : -1), "%s body %d parent", name, i);
		ck_assert_msg(b->weld == mj->body_weldid[i], "%s body %d weld %d, MuJoCo %d", name,
		    i, b->weld, mj->body_weldid[i]);
		ck_assert_msg(b->geomadr == (b->geomnum ? mj->body_geomadr[i] : b->geomadr) &&
		        b->geomnum == mj->body_geomnum[i],
		    "%s body %d geoms", name, i);
		/* mass: a body without geoms and inertial gets MuJoCo's 0 (a static one) */
		ck_assert_msg(close_to(b->mass, mj->body_mass[i], 1e-12),
		    "%s body %d mass %.17g, MuJoCo %.17g", name, i, b->mass, mj->body_mass[i]);
	}
}

static const struct mpair_pair *find_pair(const struct loaded *l, int g1, int g2)
{
	int i;
	for (i = 0; i < l->pairs.count; i++)
		if (l->pairs.pairs[i].geom1 == g1 && l->pairs.pairs[i].geom2 == g2)
			return &l->pairs.pairs[i];
	return NULL;
}

static void check_pairs(const char *name, const struct loaded *l)
{
	mjModel *mj = mj_copyModel(NULL, l->mj);
	mjData *d;
	char *seen;
	int i, k, found = 0;

	for (i = 0; i < mj->ngeom; i++)
		mj->geom_margin[i] += PAD;
	for (i = 0; i < mj->npair; i++)
		mj->pair_margin[i] += PAD;
	mj->nconmax = 8 * mj->ngeom * mj->ngeom + 100;
	d = mj_makeData(mj);
	mj_kinematics(mj, d);
	mj_collision(mj, d);
	seen = calloc((size_t)l->pairs.count + 1, 1);
	for (i = 0; i < d->ncon; i++) {
		const mjContact *c = &d->contact[i];
		const struct mpair_pair *p = find_pair(l, c->geom1, c->geom2);
		ck_assert_msg(p != NULL, "%s: MuJoCo collides geoms %d and %d, not listed", name,
		    c->geom1, c->geom2);
		if (!seen[p - l->pairs.pairs]) {
			seen[p - l->pairs.pairs] = 1;
			found++;
		}
		ck_assert_msg(p->condim == c->dim, "%s pair %d-%d: condim %d, MuJoCo %d", name,
		    c->geom1, c->geom2, p->condim, c->dim);
		for (k = 0; k < 5; k++)
			ck_assert_msg(close_to(p->friction[k], c->friction[k], PARAM_TOL),
			    "%s pair %d-%d friction[%d]: %.17g, MuJoCo %.17g", name, c->geom1,
			    c->geom2, k, p->friction[k], c->friction[k]);
		for (k = 0; k < 2; k++)
			ck_assert_msg(close_to(p->solref[k], c->solref[k], PARAM_TOL),
			    "%s pair %d-%d solref[%d]: %.17g, MuJoCo %.17g", name, c->geom1,
			    c->geom2, k, p->solref[k], c->solref[k]);
		for (k = 0; k < 5; k++)
			ck_assert_msg(close_to(p->solimp[k], c->solimp[k], PARAM_TOL),
			    "%s pair %d-%d solimp[%d]", name, c->geom1, c->geom2, k);
		ck_assert_msg(fabs(p->includemargin - (c->includemargin - PAD)) <= MARGIN_TOL,
		    "%s pair %d-%d includemargin %.17g, MuJoCo %.17g", name, c->geom1, c->geom2,
		    p->includemargin, c->includemargin - PAD);
	}
	if (getenv("MODEL_MJ_VERBOSE"))
		printf("%s: %d geoms, %d pairs\n", name, mj->ngeom, found);
	ck_assert_msg(found == l->pairs.count, "%s: %d pairs listed, MuJoCo collides %d", name,
	    l->pairs.count, found);
	free(seen);
	mj_deleteData(d);
	mj_deleteModel(mj);
}

START_TEST(geoms_are_mujocos)
{
	struct loaded l;
	load(fixtures[_i], &l);
	check_geoms(fixtures[_i], &l);
	unload(&l);
}
END_TEST

START_TEST(pairs_are_mujocos)
{
	struct loaded l;
	load(fixtures[_i], &l);
	check_pairs(fixtures[_i], &l);
	unload(&l);
}
END_TEST

/* the whole model stepped for MODEL_REST_DURATION: every answered body's penetration */
START_TEST(rest_is_the_whole_models_run)
{
	struct loaded l;
	struct mrest_body *rest;
	mjData *d;
	long steps, s;
	int b, answered = 0;

	load(fixtures[_i], &l);
	rest = calloc((size_t)l.m.nbody, sizeof *rest);
	mrest_bodies(&l.m, &l.pairs, MODEL_REST_DURATION, rest);
	d = mj_makeData(l.mj);
	steps = lround(MODEL_REST_DURATION / l.mj->opt.timestep);
	for (s = 0; s < steps; s++)
		mj_step(l.mj, d);
	for (b = 1; b < l.m.nbody; b++) {
		const struct mrest_body *r = &rest[b - 1];
		const struct mdl_geom *g;
		double bottom, pen;
		if (!r->answered)
			continue;
		answered++;
		g = &l.m.geoms[r->geom];
		if (getenv("MODEL_MJ_VERBOSE"))
			printf("%s %s: settled %.10g equilibrium %.10g\n", fixtures[_i],
			    l.m.bodies[b].name, r->rest.settled_penetration, r->rest.penetration);
		bottom = d->xpos[3 * b + 2] - (g->type == MDL_SPHERE ? g->size[0] : g->size[2]);
		pen = l.m.geoms[r->plane].pos[2] - bottom;
		ck_assert_msg(close_to(r->rest.settled_penetration, pen, REST_TOL) ||
		        fabs(r->rest.settled_penetration - pen) <= REST_TOL * fabs(pen),
		    "%s body %s: settled %.17g, MuJoCo %.17g", fixtures[_i], l.m.bodies[b].name,
		    r->rest.settled_penetration, pen);
		ck_assert_msg(fabs(r->rest.settled_penetration - pen) <= REST_TOL * fabs(pen),
		    "%s body %s: settled %.17g, MuJoCo %.17g (rel %.3g)", fixtures[_i],
		    l.m.bodies[b].name, r->rest.settled_penetration, pen,
		    fabs(r->rest.settled_penetration - pen) / fabs(pen));
	}
	if (strcmp(fixtures[_i], "hand-rest.xml") == 0)
		ck_assert_int_eq(answered, 7);
	if (strcmp(fixtures[_i], "so101-scene_box-2.2.2.xml") == 0)
		ck_assert_int_eq(answered, 1);
	mj_deleteData(d);
	free(rest);
	unload(&l);
}
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("model_mj");
	TCase *tc = tcase_create("fixtures");
	int n = 0;

	while (fixtures[n])
		n++;
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, geoms_are_mujocos, 0, n);
	tcase_add_loop_test(tc, pairs_are_mujocos, 0, n);
	tcase_add_loop_test(tc, rest_is_the_whole_models_run, 0, n);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(model_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
