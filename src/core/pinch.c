/*
 * pinch.c: the hold scene's model, and its mirror-symmetric step as MuJoCo's
 * two-unknown problem (docs/hold.md).
 *
 * By the mirror symmetry x -> -x (and y -> -y) the object's only motion is along z
 * and both pads move alike, so one step's constraint problem has two unknowns:
 * the object's vertical acceleration az and the pads' joint acceleration ap (toward
 * the object). Per contact of a pad (the right one; the left is its mirror image; a
 * capsule or box has 2 or 4 identical contacts per pad) the rows are:
 *
 *   pyramidal, 2*(condim-1) rows of R = Rpy:
 *     the sliding pair along z:  J = (-f, -1) and (+f, -1)   (C0 +- f*C_z)
 *     every other pair:          J = (0, -1), twice           (their tangent part is 0)
 *   elliptic, condim rows:
 *     row 0 (normal): J = (0, -1), R0;  the z tangent row: J = (-1, 0), R1 = R0/impratio;
 *     the other tangent rows have J = 0 and aref = 0 (K = 0, no velocity), so x = 0.
 *
 * and each pad joint's frictionloss row, J = (0, 1). The pad's own forces (its actuator,
 * its damping) enter qacc_smooth, and the integrator's implicit part the metric
 * (discrete) or the velocity update (Euler with damping, implicit, implicitfast). The
 * step's qacc is MuJoCo's Newton solver's, replayed on the two unknowns (newton.h).
 */
#include "core/pinch.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/knobs.h"
#include "core/newton.h"

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

/* How the integrator takes the pads' velocity-dependent forces (joint damping, the
 * servo's kv): Euler takes joint damping implicitly after the constraint solve (qM + h
 * damping) and kv explicitly; implicit and implicitfast take both after the solve
 * (qM - h qDeriv); discrete takes both inside the solve, its metric qM - h qDeriv. */
static void prepare_integrator(const struct core_hold *h, struct core_pinch_model *m)
{
	enum core_scene_integrator in = h->option.integrator;

	m->implicit_damping = m->damping > 0;
	m->implicit_kv = m->position && m->kv > 0 && in != CORE_SCENE_EULER;
	m->kv_dropped_at_bound = m->rules.clamped_no_derivative;
	m->implicit_in_solve = in == CORE_SCENE_DISCRETE;
	/* implicit and implicitfast always step the velocity by (qM - h qDeriv)^-1
	 * (qfrc_smooth + qfrc_constraint), Euler only with joint damping */
	m->implicit_update = in == CORE_SCENE_IMPLICIT || in == CORE_SCENE_IMPLICITFAST;
}

/* Each pad joint's frictionloss row: MuJoCo's default solreffriction (0.02, 1) and
 * solimpfriction (0.9, 0.95, 0.001, 0.5, 2) at violation 0, its diagApprox the joint's
 * dof_invweight0. */
static void prepare_frictionloss(const struct core_hold *h, struct core_pinch_model *m)
{
	static const double solref[2] = {0.02, 1}, solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};
	struct core_law_solimp si;
	struct core_law_gains g;
	/* dof_invweight0: 1/(mass + armature) in 2.2.x; from 3.0.0 a slide-only body's
	 * joint takes 1/mass, as its body does (measured: 2.2.2, 3.12.0-3.14.0) */
	double imp, dof_weight = m->rules.simple_body_invweight ? 1 / h->pad_mass : 1 / m->pad_mass;

	m->floss = h->joint.frictionloss;
	core_law_solimp_release(solimp, m->rules.power_shortcut, &si);
	/* refsafe clamps its timeconst, but not under discrete (3.13.0, 3.14.0 measured) */
	core_law_solref_kb(solref, si.dwidth, h->option.timestep,
	    h->option.integrator == CORE_SCENE_DISCRETE ? 0 : h->option.refsafe, &g);
	imp = core_law_impedance(0, &si, NULL);
	m->floss_B = g.B;
	m->floss_R = max2(MJ_MINVAL, (1 - imp) * dof_weight / imp);
}

/* The object's body_inertia about the world's x, y and z (MuJoCo's geom inertia of a
 * solid of uniform density: user_objects.cc; the capsule's axis lies along y) */
static void object_inertia(const struct core_hold *h, double I[3])
{
	double m = h->mass, r = h->size[0];

	if (h->shape == CORE_HOLD_BOX) {
		double x2 = h->size[0] * h->size[0], y2 = h->size[1] * h->size[1],
		       z2 = h->size[2] * h->size[2];

		I[0] = m / 3 * (y2 + z2);
		I[1] = m / 3 * (x2 + z2);
		I[2] = m / 3 * (x2 + y2);
	} else if (h->shape == CORE_HOLD_CAPSULE) {
		double height = 2 * h->size[1];
		double sm = m * 4 * r / (4 * r + 3 * height), cm = m - sm;
		double perp = cm * (3 * r * r + height * height) / 12, axis = cm * r * r / 2;
		double si = 2 * sm * r * r / 5;

		perp += si + sm * height * (3 * r + 2 * height) / 8;
		axis += si;
		I[0] = I[2] = perp;
		I[1] = axis;
	} else {
		I[0] = I[1] = I[2] = 0.4 * m * r * r;
	}
}

/* The trace of the object's body_inertia I, for the solver's scale (a box's summed as
 * one expression, as the grasp tables were first matched with) */
static double inertia_trace(const struct core_hold *h, const double I[3])
{
	if (h->shape == CORE_HOLD_BOX)
		return 2 * h->mass / 3 *
		    (h->size[0] * h->size[0] + h->size[1] * h->size[1] + h->size[2] * h->size[2]);
	return h->shape == CORE_HOLD_CAPSULE ? 2 * I[0] + I[1] : 3 * I[0];
}

/* The object's part of J qM^-1 J' for a contact's first row (discrete's R weight):
 * its translation, and its rotation by the lever p x d of the row's direction d at the
 * contact p. Elliptic (and condim 1): d = x, p = (., py, pz), levers pz about y and py
 * about z: a capsule's contacts at its segment's ends (y = +-half-length), a box's at
 * the faces' overlap's corners, whose pz the object's height moves once the pads' edge
 * clips it (*pz2: the factor of pz^2; discrete_weight). Pyramidal: d = x + mu y (the
 * first edge), p on the axis for a sphere, whose lever mu px about z depends on the
 * contact's distance (*px2: the factor of px^2). A capsule's or box's pyramid edges
 * differ from contact to contact (their levers px mu +- py): not modelled. */
static double row0_object_weight(const struct core_hold *h, const struct core_pinch_model *m,
    const double I[3], double *px2, double *pz2)
{
	double mu = m->contact.friction[0], py = 0;

	*px2 = *pz2 = 0;
	if (m->contact.condim > 1 && m->cone == CORE_CONE_PYRAMIDAL) {
		*px2 = mu * mu / I[2];
		return (1 + mu * mu) / h->mass;
	}
	if (h->shape == CORE_HOLD_CAPSULE) {
		py = h->size[1];
	} else if (h->shape == CORE_HOLD_BOX) {
		py = h->size[1] < h->pad_size[1] ? h->size[1] : h->pad_size[1];
		*pz2 = 1 / I[1];
	}
	return 1 / h->mass + py * py / I[2];
}

/* The R of MuJoCo's largest impedance, from the rows' raw diagApprox at translational
 * weight tran (the pyramid's tran + f0^2 tran) */
static double weight_floor(const struct core_pinch_model *m, double tran)
{
	double f0 = m->contact.friction[0];
	double diag = m->contact.condim == 1 || m->cone == CORE_CONE_ELLIPTIC
	    ? tran
	    : tran + f0 * f0 * tran;

	return max2(MJ_MINVAL, (1 - MJ_MAXIMP) * diag / MJ_MAXIMP);
}

void core_pinch_prepare(const struct core_hold *h, struct core_pinch_model *m)
{
	double a, b;
	int condim;

	core_mjver_rules(h->option.mujoco, &m->rules);
	/* the sphere has the smaller geom type: it is MuJoCo's geom1 */
	core_pair_combine(&h->object, &h->pad, &m->rules, &m->contact);
	core_law_solimp_release(m->contact.solimp, m->rules.power_shortcut, &m->solimp);
	m->discrete = h->option.integrator == CORE_SCENE_DISCRETE;
	/* discrete never clamps timeconst: its refsafe replaces a too-stiff row per step */
	core_law_solref_kb(m->contact.solref, m->solimp.dwidth, h->option.timestep,
	    m->discrete ? 0 : h->option.refsafe, &m->gains);
	m->discrete_refsafe = m->discrete && h->option.refsafe;
	m->cone = h->option.cone;
	m->mass = h->mass;
	m->pad_mass = h->pad_mass + h->joint.armature;
	m->contacts = core_hold_contacts_per_pad(h);
	m->position = h->actuator.type == CORE_HOLD_POSITION;
	m->grip_force = h->grip_force;
	m->kp = h->actuator.kp;
	m->kv = h->actuator.kv;
	m->squeeze = h->actuator.squeeze;
	m->forcelimited = h->actuator.forcelimited;
	m->force_lo = h->actuator.forcerange[0];
	m->force_hi = h->actuator.forcerange[1];
	m->damping = h->joint.damping;
	prepare_integrator(h, m);
	m->a0_object = -(h->mass * h->option.gravity) * (1 / h->mass);
	{
		int clamped;

		m->a0_pad = core_pinch_drive(m, 0, 0, &clamped) / m->pad_mass;
	}
	/* body_invweight0: the free object's (a+a+a)/3; a pad on one slide joint has only
	 * the x entry of its translational block, 1/MP, so (1/MP + 0 + 0)/3; from 3.0.0 a
	 * body with no rotational dof takes 1/mass, without the armature */
	a = 1 / h->mass;
	b = 1 / m->pad_mass;
	m->tran = (a + a + a) / 3 + (m->rules.simple_body_invweight ? 1 / h->pad_mass : (b + 0 + 0) / 3);
	prepare_frictionloss(h, m);
	m->impratio = h->option.impratio;
	m->slide = m->contact.friction[0];
	m->radius = core_hold_half_width(h);
	m->box = h->shape == CORE_HOLD_BOX;
	m->box_hz = m->box ? h->size[2] : 0;
	m->pad_margin = h->pad.margin;
	m->pad_gap = h->pad.gap;
	m->obj_aamm = h->object.margin + (m->rules.aamm_gap ? h->object.gap : 0);
	m->pad_aamm = h->pad.margin + (m->rules.aamm_gap ? h->pad.gap : 0);
	m->half_x = h->pad_size[0];
	m->fall_z = h->pad_size[2];
	m->rest_dist = core_hold_half_width(h) + h->pad_size[0];
	m->timestep = h->option.timestep;
	m->R_floor = weight_floor(m, m->tran);
	/* a solid sphere's body_inertia and MuJoCo's meaninertia: qM's diagonal is the
	 * object's m, m, m, I, I, I and the pads' MP, MP */
	m->inertia = 0.4 * h->mass * h->size[0] * h->size[0];
	{
		double I[3];

		object_inertia(h, I);
		m->inertia_trace = inertia_trace(h, I);
		m->row0_object = row0_object_weight(h, m, I, &m->row0_px2, &m->row0_pz2);
	}
	m->newton_era = core_newton_era(h->option.mujoco);
	m->islands = m->rules.solver_islands && h->noslip_iterations == 0;
	m->meaninertia = (h->mass * 3 + m->inertia * 3 + m->pad_mass * 2) / 8;
	m->noslip_iterations = h->noslip_iterations;
	m->noslip_tolerance = CORE_HOLD_NOSLIP_TOLERANCE;
	{
		const double M[CORE_PINCH_DOF] = {
		    h->mass, h->mass, m->inertia, m->pad_mass, m->pad_mass};
		const double a0[CORE_PINCH_DOF] = {0, m->a0_object, 0, m->a0_pad, m->a0_pad};
		int i;

		for (i = 0; i < CORE_PINCH_DOF; i++) {
			m->dof_mass[i] = M[i];
			m->dof_inv_mass[i] = 1 / M[i];
			m->dof_accel0[i] = a0[i];
		}
	}
	condim = m->contact.condim;
	if (condim == 1)
		m->rows_per_pad = 1;
	else
		m->rows_per_pad = m->cone == CORE_CONE_ELLIPTIC ? condim : 2 * (condim - 1);
}

int core_pinch_start_asymmetric(const struct core_pinch_model *m)
{
	/* both pads' contacts start at the same dist (mjc_SphereBox's arithmetic is
	 * mirror-exact), with the pads' centres at -/+(R + HX) */
	double x0 = m->rest_dist;

	if (!(core_pinch_dist(m, 0) < m->contact.includemargin))
		return 0;
	return !(core_pinch_paired(m, 0, 0, -x0) && core_pinch_paired(m, 1, 0, x0));
}

void core_pinch_start(struct core_pinch_state *s)
{
	s->z = s->vz = s->q = s->vq = 0;
	s->replaced = 0;
	s->qacc_warm[0] = s->qacc_warm[1] = 0;
}

/* A row's R0 from (1 - imp) diag / imp: Euler's, or the discrete integrator's for the
 * cache's factor s (scene.c's row_R0) */
static inline double row_R0(
    const struct core_pinch_model *m, const struct core_pinch_cache *c, double raw)
{
	double R0 = max2(MJ_MINVAL, raw);

	return m->discrete ? max2(R0 / c->s, m->R_floor) : R0;
}

static void make_rows_of_dist(const struct core_pinch_model *m, double dist, double rr,
    double imp, struct core_pinch_cache *c)
{
	double tran = m->tran;
	double f0 = m->contact.friction[0];
	double R0, R1, mu;
	int condim = m->contact.condim;
	struct core_pinch_rows *r = &c->r;

	memset(r, 0, sizeof *r);
	c->valid = 1;
	c->dist = dist;
	c->K = m->gains.K;
	c->B = m->gains.B;
	c->s = 1;
	c->replaced = 0;
	if (m->discrete) {
		struct core_law_discrete d;

		core_law_discrete_gains(&m->gains, imp, m->timestep, m->discrete_refsafe, &d);
		c->K = d.K;
		c->B = d.B;
		c->s = d.s;
		c->replaced = d.replaced;
	}
	c->Kimp = c->K * imp;
	/* an elliptic friction row keeps the unreplaced B (refsafe replaces spring rows) */
	c->sB = 1 + m->timestep * m->gains.B;
	c->spring = m->gains.K * imp * rr;
	c->imp = imp;
	r->elliptic = m->cone == CORE_CONE_ELLIPTIC && condim > 1;
	r->f = condim > 1 ? m->contact.friction[1] : 0;
	if (condim == 1) {
		R0 = row_R0(m, c, (1 - imp) * tran / imp);
		r->plain = 1;
		r->D = 1 / R0;
	} else if (r->elliptic) {
		R0 = row_R0(m, c, (1 - imp) * tran / imp);
		R1 = R0 / max2(MJ_MINVAL, m->impratio);
		/* impratio 1: R1 = R0 exactly, so sqrt(R1 / R0) = 1 */
		mu = m->impratio == 1 ? f0 : f0 * sqrt(R1 / R0);
		r->mu = mu;
		r->D = 1 / R0;
		r->Dt = 1 / R1;
		r->plain = 0;
	} else {
		R0 = row_R0(m, c, (1 - imp) * (tran + f0 * f0 * tran) / imp);
		if (m->impratio == 1) {
			mu = f0;
		} else {
			R1 = R0 / max2(MJ_MINVAL, m->impratio);
			mu = f0 * sqrt(R1 / R0);
		}
		r->mu = mu;
		r->D = 1 / (2 * mu * mu * R0);
		r->plain = 2 * (condim - 2);
	}
	c->R0 = R0;
}

/* The rows of a state whose contact is active at distance dist (cache: the previous
 * distance's, refreshed when dist differs). */
static void make_rows(const struct core_pinch_model *m, double dist, double vz, double vq,
    struct core_pinch_rows *r, double *imp_out, double *R0_out, struct core_pinch_cache *cache)
{
	double B = m->gains.B, spring;

	if (!(cache->valid && cache->dist == dist)) {
		double rr = dist - m->contact.includemargin;
		double imp = core_law_impedance(rr, &m->solimp, NULL);

		/* past the impedance's width (or at a repeating one) every row but the spring
		 * is the cached distance's: the same inputs give the same numbers */
		if (cache->valid && cache->imp == imp) {
			cache->dist = dist;
			cache->spring = m->gains.K * imp * rr;
		} else {
			make_rows_of_dist(m, dist, rr, imp, cache);
		}
	}
	*r = cache->r;
	spring = cache->spring;
	if (m->discrete) {
		/* the reference at the end of the step (core_law_aref_discrete) */
		double Bd = cache->B, Kimp = cache->Kimp, sd = cache->s, h = m->timestep;
		double rr = dist - m->contact.includemargin, v;

		v = -vq;
		r->aref_n = (-Bd * v - Kimp * (rr + h * v)) / sd;
		if (r->elliptic) {
			/* a friction row has no spring (K = 0) and is never replaced: its B is
			 * the gains' own, its s 1 + h B */
			r->aref_t = -B * (-vz) / cache->sB;
		} else if (m->contact.condim > 1) {
			v = -vq - r->f * vz;
			r->aref_p = (-Bd * v - Kimp * (rr + h * v)) / sd;
			v = -vq + r->f * vz;
			r->aref_m = (-Bd * v - Kimp * (rr + h * v)) / sd;
		}
	} else {
		r->aref_n = -B * (-vq) - spring;
		if (r->elliptic) {
			r->aref_t = -B * (-vz) - 0.0;
		} else if (m->contact.condim > 1) {
			r->aref_p = -B * (-vq - r->f * vz) - spring;
			r->aref_m = -B * (-vq + r->f * vz) - spring;
		}
	}
	*imp_out = cache->imp;
	*R0_out = cache->R0;
}

/* The pad's velocity derivative the integrator takes implicitly at this step (MuJoCo's
 * -qDeriv): joint damping, and the servo's kv unless Euler's or dropped at a bound */
static double pad_implicit(const struct core_pinch_model *m, int clamped)
{
	double d = m->implicit_damping ? m->damping : 0;

	if (m->implicit_kv && !(clamped && m->kv_dropped_at_bound))
		d += m->kv;
	return d;
}

/* The frictionloss row of a pad moving at vq, into r (its R and aref: Euler's, or the
 * discrete integrator's end-of-step reference, B / (1 + h B), with R / (1 + h B)) */
static void floss_row(const struct core_pinch_model *m, double vq, struct core_pinch_rows *r)
{
	double B = m->floss_B, R = m->floss_R;

	r->floss = m->floss;
	if (!(m->floss > 0))
		return;
	if (m->discrete) {
		double sB = 1 + m->timestep * B;

		r->floss_R = R / sB;
		r->aref_f = -B * vq / sB;
	} else {
		r->floss_R = R;
		r->aref_f = -B * vq;
	}
	r->floss_D = 1 / r->floss_R;
}

/* The discrete integrator's metric on a pad joint, qM + h D + h^2 K (K: the servo's kp
 * while its force is not clamped, *kq) */
static double pad_metric(const struct core_pinch_model *m, int clamped, double *kq)
{
	double h = m->timestep;

	*kq = m->position && !clamped ? m->kp : 0;
	return m->pad_mass + h * pad_implicit(m, clamped) + h * h * *kq;
}

/*
 * The discrete integrator's weight of a contact's rows (measured in 3.13.0 and 3.14.0,
 * to the last digit of efc_R): MuJoCo scales each contact's R (its floor included) by
 * its first row's J Mt^-1 J' / J qM^-1 J', Mt the pad's metric (pad_metric; only the
 * pads' entries of Mt differ from qM), and the frictionloss row's by qM / Mt. dist: the
 * contact's distance (a sphere's contact sits at r + dist/2 from its centre); pz: a box
 * contact's height above or below the object's centre (box_contact_heights).
 */
static double discrete_weight(const struct core_pinch_model *m, double dist, double pz, double Mt)
{
	double px = m->radius + dist / 2;
	double obj = m->row0_object + m->row0_px2 * (px * px) + m->row0_pz2 * (pz * pz);

	return (obj + 1 / Mt) / (obj + 1 / m->pad_mass);
}

/* A box's contacts sit at the corners of its faces' overlap with the pads' (measured,
 * 3.14.0): the upper pair *top above its centre (at height z), the lower pair *bottom
 * below it, each its half-height until the pads' edge clips it */
static void box_contact_heights(
    const struct core_pinch_model *m, double z, double *top, double *bottom)
{
	double hz = m->box_hz, HZ = m->fall_z;

	*top = HZ - z < hz ? HZ - z : hz;
	*bottom = HZ + z < hz ? HZ + z : hz;
}

/* The rows r of a contact at dist, object height z, pad metric Mt, weighed by the
 * discrete integrator (discrete_weight): where a box's upper and lower contacts sit at
 * different heights, the lower pair takes its own weight (r->halves, D2, Dt2) */
static void discrete_weigh_rows(
    const struct core_pinch_model *m, double dist, double z, double Mt, struct core_pinch_rows *r)
{
	double top = 0, bottom = 0, w, D = r->D, Dt = r->Dt;

	if (m->box)
		box_contact_heights(m, z, &top, &bottom);
	w = discrete_weight(m, dist, top, Mt);
	r->D = D / w;
	r->Dt = Dt / w;
	if (bottom != top) {
		double w2 = discrete_weight(m, dist, bottom, Mt);

		r->halves = 1;
		r->D2 = D / w2;
		r->Dt2 = Dt / w2;
	}
	if (r->floss > 0) {
		r->floss_R *= m->pad_mass / Mt;
		r->floss_D = 1 / r->floss_R;
	}
}

/* The step's constraint problem for MuJoCo's Newton (newton.h): both pads' rows, or,
 * from 3.5.0 with no contact, one pad's frictionloss row alone in its island */
static void newton_problem(
    const struct core_pinch_model *m, const struct core_pinch_rows *r, struct core_newton_problem *p)
{
	int alone = m->islands && !r->active;
	double n = r->n * (alone ? 1 : 2);
	struct core_newton_row *row = p->row;

	p->era = (enum core_newton_era)m->newton_era;
	p->Mz = m->mass;
	p->Mp = r->Mp;
	p->a0z = m->a0_object;
	p->a0p = r->a0p;
	p->pads = alone ? 1 : 2;
	p->with_z = !alone;
	/* qM's diagonal, also under discrete, whose metric (r->Mp) the Gauss term takes
	 * (measured, 3.13.0 and 3.14.0: a frictionloss row leaving its bound stops Newton where
	 * MuJoCo does only so) */
	p->scale = 1 / (alone ? m->pad_mass : m->mass * 3 + m->inertia_trace + 2 * m->pad_mass);
	p->nrows = 0;
	if (r->floss > 0)
		row[p->nrows++] = (struct core_newton_row){.kind = CORE_NEWTON_FRICTION, .w = p->pads,
		    .jp = 1, .aref = r->aref_f, .D = r->floss_D, .R = r->floss_R, .floss = r->floss};
	if (!r->active)
		return;
	if (r->elliptic) {
		double w = r->halves ? n / 2 : n;

		row[p->nrows++] = (struct core_newton_row){.kind = CORE_NEWTON_CONE, .w = w, .jp = -1,
		    .aref = r->aref_n, .D = r->D, .aref_t = r->aref_t, .Dt = r->Dt, .mu = r->mu,
		    .fr = r->f};
		if (r->halves)
			row[p->nrows++] = (struct core_newton_row){.kind = CORE_NEWTON_CONE, .w = w,
			    .jp = -1, .aref = r->aref_n, .D = r->D2, .aref_t = r->aref_t, .Dt = r->Dt2,
			    .mu = r->mu, .fr = r->f};
		return;
	}
	if (r->plain > 0 && r->halves) {
		/* condim 1 (discrete_weigh_rows splits no pyramid) */
		row[p->nrows++] = (struct core_newton_row){.kind = CORE_NEWTON_INEQ,
		    .w = n / 2 * r->plain, .jp = -1, .aref = r->aref_n, .D = r->D};
		row[p->nrows++] = (struct core_newton_row){.kind = CORE_NEWTON_INEQ,
		    .w = n / 2 * r->plain, .jp = -1, .aref = r->aref_n, .D = r->D2};
	} else if (r->plain > 0) {
		row[p->nrows++] = (struct core_newton_row){
		    .kind = CORE_NEWTON_INEQ, .w = n * r->plain, .jp = -1, .aref = r->aref_n, .D = r->D};
	}
	if (r->f > 0) {
		row[p->nrows++] = (struct core_newton_row){
		    .kind = CORE_NEWTON_INEQ, .w = n, .jz = -r->f, .jp = -1, .aref = r->aref_p, .D = r->D};
		row[p->nrows++] = (struct core_newton_row){
		    .kind = CORE_NEWTON_INEQ, .w = n, .jz = r->f, .jp = -1, .aref = r->aref_m, .D = r->D};
	}
}

void core_pinch_step_cached(const struct core_pinch_model *m, struct core_pinch_state *s,
    struct core_pinch_step_state *st, struct core_pinch_cache *cache)
{
	double dist = core_pinch_dist(m, s->q);
	double h = m->timestep, az, ap, drive, qfrc, dv, Mt, floss_force = 0, qz = 0, qp = 0;
	double imp = 0, R0 = 0;
	struct core_pinch_rows r = {0};
	int active = dist < m->contact.includemargin, clamped, via_forces;

	/* qfrc_smooth of the pad joint: its actuator and its damping's passive force */
	drive = core_pinch_drive(m, s->q, s->vq, &clamped);
	qfrc = drive + -m->damping * s->vq;
	dv = pad_implicit(m, clamped);
	Mt = m->pad_mass;
	if (m->implicit_in_solve) {
		/* discrete: the step's velocity and position enter the forces at its end,
		 * linearised: (qM + h D + h^2 K) qacc = qfrc - h K v, K the servo's kp */
		double kq;

		Mt = pad_metric(m, clamped, &kq);
		qfrc += -h * kq * s->vq;
	}
	if (active)
		make_rows(m, dist, s->vz, s->vq, &r, &imp, &R0, cache);
	r.active = active;
	r.n = m->contacts;
	r.Mp = Mt;
	r.a0p = qfrc * (1 / Mt);
	floss_row(m, s->vq, &r);
	if (m->implicit_in_solve && Mt != m->pad_mass)
		discrete_weigh_rows(m, dist, s->z, Mt, &r);
	az = m->a0_object;
	ap = r.a0p;
	/* MuJoCo's Newton, replayed (newton.h): where it stops short of the exact minimiser,
	 * so does qacc, and a velocity from the forces (qM + h D)^-1 (qfrc_smooth +
	 * qfrc_constraint) moves by far more than qacc's gap */
	via_forces = !m->implicit_in_solve && (dv > 0 || m->implicit_update);
	if (active || r.floss > 0) {
		struct core_newton_problem p;

		newton_problem(m, &r, &p);
		az = s->qacc_warm[0];
		ap = s->qacc_warm[1];
		core_newton_solve(&p, &az, &ap, &qz, &qp);
		if (!p.with_z)
			az = m->a0_object;
	}
	if (r.floss > 0) {
		double f = -(ap - r.aref_f) * r.floss_D;

		floss_force = f > r.floss ? r.floss : f < -r.floss ? -r.floss : f;
	}
	if (st) {
		st->active = active;
		st->imp = imp;
		st->K = active ? cache->K : m->gains.K;
		st->B = active ? cache->B : m->gains.B;
		st->replaced = active && cache->replaced;
		st->R_normal = active ? 1 / r.D : 0;
		st->R_friction = active ? (r.elliptic ? 1 / r.Dt : 1 / r.D) : 0;
		st->accel_object = az;
		st->accel_pad = ap;
		/* the pad's joint balance: Mp (ap - a0p) = -(normal force) + frictionloss */
		st->normal_force = r.Mp * (r.a0p - ap) + floss_force;
		st->friction_force = 0.5 * m->mass * (az - m->a0_object);
	}
	s->replaced = active && cache->replaced;
	s->qacc_warm[0] = az;
	s->qacc_warm[1] = ap;
	if (via_forces) {
		/* Euler's damping, implicit(fast)'s qDeriv: (qM + h D)^-1 (qfrc_smooth +
		 * qfrc_constraint) */
		s->vz += h * ((m->mass * m->a0_object + qz) * (1 / m->mass));
		s->vq += h * ((qfrc + qp) / (r.Mp + h * dv));
	} else {
		s->vz += h * az;
		s->vq += h * ap;
	}
	s->z += h * s->vz;
	s->q += h * s->vq;
}

void core_pinch_step(
    const struct core_pinch_model *m, struct core_pinch_state *s, struct core_pinch_step_state *st)
{
	struct core_pinch_cache cache;

	cache.valid = 0;
	core_pinch_step_cached(m, s, st, &cache);
}

/* The steady pad balance: F = (sum of the pad's row forces at rest) as a function of
 * the violation u = includemargin - dist >= 0, minus F. */
struct balance {
	const struct core_pinch_model *m;
};

/* The rows of the steady state at impedance imp: R of the normal (pyramid: every) row
 * and of the tangent rows; the spring rows' K imp, and the factors that turn a row's
 * velocity and violation into its aref, aref = -(Bv * vel + Kr * K imp * r): Euler's
 * B and 1, the discrete integrator's (B + h K imp) / s and 1 / s (core_law_aref_discrete);
 * Bt, the elliptic friction row's aref = -Bt vel: B, or B / (1 + h B) under discrete. */
struct steady_rows {
	double Rn, Rt, Kimp, Bv, Kr, Bt;
};

static void steady_rows_unweighted(
    const struct core_pinch_model *m, double imp, struct steady_rows *o)
{
	double f0 = m->contact.friction[0], R0, R1, mu, h = m->timestep, s = 1;
	double K = m->gains.K, B = m->gains.B;
	int condim = m->contact.condim;

	if (m->discrete) {
		struct core_law_discrete d;

		core_law_discrete_gains(&m->gains, imp, h, m->discrete_refsafe, &d);
		K = d.K;
		B = d.B;
		s = d.s;
	}
	o->Kimp = K * imp;
	o->Bv = m->discrete ? (B + h * o->Kimp) / s : B;
	o->Kr = m->discrete ? 1 / s : 1;
	o->Bt = m->discrete ? m->gains.B / (1 + h * m->gains.B) : m->gains.B;
	if (condim == 1) {
		R0 = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		o->Rn = o->Rt = m->discrete ? max2(R0 / s, m->R_floor) : R0;
		return;
	}
	if (m->cone == CORE_CONE_ELLIPTIC) {
		R0 = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		if (m->discrete)
			R0 = max2(R0 / s, m->R_floor);
		o->Rn = R0;
		o->Rt = R0 / max2(MJ_MINVAL, m->impratio);
		return;
	}
	R0 = max2(MJ_MINVAL, (1 - imp) * (m->tran + f0 * f0 * m->tran) / imp);
	if (m->discrete)
		R0 = max2(R0 / s, m->R_floor);
	R1 = R0 / max2(MJ_MINVAL, m->impratio);
	mu = f0 * sqrt(R1 / R0);
	o->Rn = o->Rt = 2 * mu * mu * R0;
}

/* The drive's force on pads at rest at violation u (joint position u - includemargin),
 * and whether it sits at a forcerange bound (*clamped) */
static double steady_drive(const struct core_pinch_model *m, double u, int *clamped)
{
	return core_pinch_drive(m, u - m->contact.includemargin, 0, clamped);
}

/* steady_rows_unweighted's rows for pads at rest at violation u, impedance imp, with the
 * discrete integrator's weight (discrete_weight) of that rest */
static void steady_rows(
    const struct core_pinch_model *m, double u, double imp, struct steady_rows *o)
{
	steady_rows_unweighted(m, imp, o);
	if (m->implicit_in_solve) {
		int clamped;
		double kq, Mt;

		steady_drive(m, u, &clamped);
		Mt = pad_metric(m, clamped, &kq);
		if (Mt != m->pad_mass) {
			/* the steady creep's object at the pads' centre height */
			double pz = 0, bottom, w;

			if (m->box)
				box_contact_heights(m, 0, &pz, &bottom);
			w = discrete_weight(m, m->contact.includemargin - u, pz, Mt);

			o->Rn *= w;
			o->Rt *= w;
		}
	}
}

static double pad_balance(double u, void *params)
{
	const struct balance *b = params;
	const struct core_pinch_model *m = b->m;
	double imp = core_law_impedance(-u, &m->solimp, NULL);
	struct steady_rows o;
	int rows = m->cone == CORE_CONE_ELLIPTIC ? 1 : m->rows_per_pad;

	int clamped;

	steady_rows(m, u, imp, &o);
	return m->contacts * rows * (o.Kr * o.Kimp * u) / o.Rn - steady_drive(m, u, &clamped);
}

int core_pinch_rest_force(const struct core_pinch_model *m, double *force)
{
	struct balance b = {m};
	double u;
	int clamped;

	if (!m->position) {
		*force = m->grip_force;
		return 0;
	}
	if (!(m->gains.K > 0) || core_law_root_increasing(pad_balance, &b, &u) != 0)
		return -1;
	*force = steady_drive(m, u, &clamped);
	return 0;
}

int core_pinch_steady(
    const struct core_pinch_model *m, double *creep, double *penetration, double *normal_force)
{
	struct balance b = {m};
	double u, imp, spring, f = m->contact.friction[1], load = -m->mass * m->a0_object;
	double v;
	struct steady_rows o;
	int clamped;

	if (m->contact.condim == 1 || !(m->gains.K > 0) || !(m->gains.B > 0))
		return -1;
	if (core_law_root_increasing(pad_balance, &b, &u) != 0)
		return -1;
	imp = core_law_impedance(-u, &m->solimp, NULL);
	steady_rows(m, u, imp, &o);
	/* the normal rows' x at rest: -(K imp u) (discrete: over s) */
	spring = o.Kr * o.Kimp * u;
	if (m->cone == CORE_CONE_ELLIPTIC) {
		/* bottom zone: the z tangent rows carry the load, x_t = Bt*v = load*R1/2 */
		double mu = m->contact.friction[0] * sqrt(o.Rt / o.Rn);
		double xt = load * o.Rt / (2 * m->contacts);

		v = xt / o.Bt;
		if (!(mu * (mu * -spring) + f * xt <= 0))
			return -1;
	} else {
		/* every row active: the z pair's forces differ by 2*D*Bv*f*v per pad */
		v = load * o.Rn / (4 * m->contacts * o.Bv * f * f);
		if (!(spring - o.Bv * f * v > 0))
			return -1;
	}
	*creep = v;
	*penetration = u - m->contact.includemargin;
	*normal_force = steady_drive(m, u, &clamped);
	return 0;
}
