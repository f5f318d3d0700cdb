/*
 * scene.c: a sphere or flat box on a plane as MuJoCo's exact 1-D problem (spec §9).
 *
 * Every row of the scene has the same pos, impedance, K, B, R and aref, and the
 * Newton minimizer lies on the z axis, so the 6-DOF constraint problem reduces to
 *   a = a0                                  when a0 >= aref (rows satisfied),
 *   a = (m*a0 + N*D*aref) / (m + N*D)       otherwise,
 * with N rows, D = 1/R. Intermediate quantities (imp, K, B, R, aref) use MuJoCo's
 * operation order; the last line is evaluated multiplied through by R, which
 * agrees with MuJoCo's Newton solve to a few ulps (docs/parity.md).
 *
 * Under the discrete integrator (MuJoCo 3.13.0+) the same solve runs with each row's
 * reference spring evaluated at the end of the step: s = 1 + hB + h^2 K imp,
 * aref = (-B v - K imp (r + h v)) / s, R0 = max(R0_Euler / s, R_floor), then the cone's
 * adjustments from that R0; the step itself is Euler's (v += h a, z += h v). Every
 * expression was checked bit for bit against efc_aref / efc_R of the 3.13.0 and 3.14.0
 * WebAssembly builds (docs/releases.md).
 *
 * Under the elliptic cone only each contact's normal row pushes (N = contacts):
 * its friction rows have K = 0 and zero velocity, so their jar is 0, the cone sits
 * in Newton's bottom zone (T = 0, N < 0) and they carry no force.
 */
#include "core/scene.h"

#include <math.h>
#include <stddef.h>

#include "core/mjver.h"
#include "core/knobs.h"

void core_scene_option_default(struct core_scene_option *o)
{
	o->timestep = DEFAULT_TIMESTEP;
	o->refsafe = 1;
	o->gravity = DEFAULT_GRAVITY;
	o->impratio = DEFAULT_IMPRATIO;
	o->integrator = CORE_SCENE_EULER;
	o->cone = CORE_CONE_PYRAMIDAL;
	o->mujoco = core_mjver_default();
}

/* MuJoCo's mju_max, inlined: fmax is a library call on the hot path */
static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

/* I1 + I2 + I3 of the body's principal inertia (MuJoCo's solid sphere and box) */
static double trace_inertia(const struct core_scene *s)
{
	const double *h = s->size;

	if (s->shape == CORE_SCENE_SPHERE)
		return 3 * (0.4 * s->mass * h[0] * h[0]);
	return s->mass / 3 * 2 * (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
}

void core_scene_prepare(const struct core_scene *s, struct core_scene_model *m)
{
	double a;
	double f0;

	core_mjver_rules(s->option.mujoco, &m->rules);
	core_pair_combine(&s->floor, &s->geom, &m->rules, &m->contact);
	core_law_solimp_release(m->contact.solimp, m->rules.power_shortcut, &m->solimp);
	m->discrete = s->option.integrator == CORE_SCENE_DISCRETE;
	/* discrete never clamps timeconst: its refsafe replaces rows per step instead */
	core_law_solref_kb(m->contact.solref, m->solimp.dwidth, s->option.timestep,
	    m->discrete ? 0 : s->option.refsafe, &m->gains);
	m->discrete_refsafe = m->discrete && s->option.refsafe;

	m->mass = s->mass;
	/* body_invweight0: trace of the translational block of J M^-1 J' over 3, the
	 * diagonal coming from M's factorization as 1/m */
	a = 1 / s->mass;
	m->tran = (a + a + a) / 3;
	m->qfrc = -(s->mass * s->option.gravity);
	m->a0 = m->qfrc * a;

	m->contacts = s->shape == CORE_SCENE_SPHERE ? 1 : 4;
	m->half_height = s->shape == CORE_SCENE_SPHERE ? s->size[0] : s->size[2];
	m->cone = s->option.cone;
	m->rows_per_contact = m->contact.condim == 1 ? 1 : 2 * (m->contact.condim - 1);
	m->normal_rows = m->contacts * m->rows_per_contact;
	if (m->cone == CORE_CONE_ELLIPTIC && m->contact.condim > 1) {
		/* one row per dimension; only the normal one pushes */
		m->rows_per_contact = m->contact.condim;
		m->normal_rows = m->contacts;
	}
	m->rows = m->contacts * m->rows_per_contact;

	f0 = m->contact.friction[0];
	m->friction0 = f0;
	/* diagApprox: the pyramid's edges add f0^2 tran; an elliptic normal row is tran */
	m->diag_raw = m->contact.condim == 1 || m->cone == CORE_CONE_ELLIPTIC
	    ? m->tran
	    : m->tran + f0 * f0 * m->tran;
	m->R_floor = max2(MJ_MINVAL, (1 - MJ_MAXIMP) * m->diag_raw / MJ_MAXIMP);
	m->impratio = s->option.impratio;
	/* with impratio 1, R1 == R0 and mu == f0 exactly, so 2*mu*mu is a constant */
	m->pyramid_scale = m->impratio == 1 ? 2 * f0 * f0 : 0;
	m->timestep = s->option.timestep;
	m->integrator = s->option.integrator;
	m->certificate_scale = 1 / (3 * s->mass + trace_inertia(s));
}

int core_scene_detected(const struct core_scene_model *m, double dist)
{
	return dist <= m->contact.detect;
}

/* The cone's adjustment of a normal row's R0 (efc_R of the pyramid's edges). */
static double cone_adjust(const struct core_scene_model *m, double R0)
{
	double R1, mu;

	if (m->rows_per_contact == 1 || m->cone == CORE_CONE_ELLIPTIC)
		return R0; /* frictionless, or an elliptic contact's normal row: no adjustment */
	if (m->pyramid_scale > 0)
		return m->pyramid_scale * R0;
	/* pyramid: every edge gets 2*mu^2*R0 with the impratio-regularized mu */
	R1 = R0 / max2(MJ_MINVAL, m->impratio);
	mu = m->friction0 * sqrt(R1 / R0);
	return 2 * mu * mu * R0;
}

/* R0 of a row at impedance imp: Euler's, or the discrete integrator's for factor s */
static inline double row_R0(const struct core_scene_model *m, double imp, double s)
{
	double R0 = max2(MJ_MINVAL, (1 - imp) * m->diag_raw / imp);

	return m->discrete ? max2(R0 / s, m->R_floor) : R0;
}

double core_scene_row_R(const struct core_scene_model *m, double imp)
{
	struct core_law_discrete d = {0, 0, 1, 0};

	if (m->discrete)
		core_law_discrete_gains(&m->gains, imp, m->timestep, m->discrete_refsafe, &d);
	return cone_adjust(m, row_R0(m, imp, d.s));
}

double core_scene_cone_R(const struct core_scene_model *m, double imp, int j)
{
	const double *f = m->contact.friction;
	double R1;

	if (m->cone != CORE_CONE_ELLIPTIC || j == 0)
		return core_scene_row_R(m, imp);
	R1 = core_scene_row_R(m, imp) / max2(MJ_MINVAL, m->impratio);
	if (j == 1)
		return R1;
	/* R[j]*mu[j]^2 = R[1]*mu[1]^2, in MuJoCo's operation order */
	return R1 * f[0] * f[0] / (f[j - 1] * f[j - 1]);
}

/* Newton's zero-iteration exit (3.11.0+, mj_solPrimal): start from the cheaper of
 * the warmstart and qacc_smooth, and keep it when both the scaled gradient and the
 * scaled duality gap 0.5*grad'*M^-1*grad there are below the tolerance. Every row
 * has the same x = a - aref, so cost and gradient are the 1-D ones. Returns the
 * start when it is certified, else `exact`. */
static double certified_accel(
    const struct core_scene_model *m, double aref, double R, double warm, double exact)
{
	double D = 1 / R, n = m->normal_rows, start, x, grad, scale = m->certificate_scale;
	double xw = warm - aref, xs = m->a0 - aref;
	double cost_warm = 0.5 * (m->mass * warm - m->qfrc) * (warm - m->a0);
	double cost_smooth = 0;

	if (xw < 0)
		cost_warm += n * (0.5 * D * xw * xw);
	if (xs < 0)
		cost_smooth += n * (0.5 * D * xs * xs);
	start = cost_warm > cost_smooth ? m->a0 : warm;
	x = start - aref;
	grad = m->mass * start - m->qfrc + (x < 0 ? n * D * x : 0);
	if (scale * fabs(grad) < MJ_TOLERANCE &&
	    max2(0, 0.5 * scale * (grad * (grad / m->mass))) < MJ_TOLERANCE)
		return start;
	return exact;
}

/* core_scene_accel with an optional warmstart (NULL: the exact minimum) */
static double accel(const struct core_scene_model *m, double z, double vel, const double *warm,
    struct core_scene_contact_state *state)
{
	double dist = z - m->half_height;
	double r, imp, aref, R, acc;
	struct core_law_discrete d = {m->gains.K, m->gains.B, 1, 0};

	if (!(dist < m->contact.includemargin)) {
		if (state) {
			state->active = 0;
			state->replaced = 0;
			state->K = m->gains.K;
			state->B = m->gains.B;
			state->impedance = state->row_R = state->aref = 0;
			state->accel = m->a0;
			state->normal_force = 0;
		}
		return m->a0;
	}
	r = dist - m->contact.includemargin;
	imp = core_law_impedance(r, &m->solimp, NULL);
	if (m->discrete) {
		core_law_discrete_gains(&m->gains, imp, m->timestep, m->discrete_refsafe, &d);
		aref = core_law_aref_discrete(&d, imp, r, vel, m->timestep);
	} else {
		aref = core_law_aref(&m->gains, imp, r, vel);
	}
	R = cone_adjust(m, row_R0(m, imp, d.s));
	if (m->a0 >= aref) {
		acc = m->a0; /* every row satisfied: no force */
	} else {
		/* (m a0 + N D aref) / (m + N D) with D = 1/R, multiplied through by R: one
		 * division on the step's critical path instead of three */
		acc =
		    (m->mass * m->a0 * R + m->normal_rows * aref) / (m->mass * R + m->normal_rows);
	}
	if (warm)
		acc = certified_accel(m, aref, R, *warm, acc);
	if (state) {
		state->active = 1;
		state->replaced = d.replaced;
		state->K = d.K;
		state->B = d.B;
		state->impedance = imp;
		state->row_R = R;
		state->aref = aref;
		state->accel = acc;
		state->normal_force = m->mass * (acc - m->a0);
	}
	return acc;
}

double core_scene_accel(
    const struct core_scene_model *m, double z, double vel, struct core_scene_contact_state *state)
{
	return accel(m, z, vel, NULL, state);
}

/* MuJoCo's mj_RungeKutta with the classic tableau, specialised to (z, vel). */
static void step_rk4(const struct core_scene_model *m, double *z, double *vel)
{
	static const double B[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
	const double h = m->timestep;
	double z0 = *z, v0 = *vel;
	double fv[4], fa[4];
	double dv, da;
	int i;

	fv[0] = v0;
	fa[0] = core_scene_accel(m, z0, v0, NULL);
	for (i = 1; i < 4; i++) {
		/* stage i evaluates at X0 + h*A[i-1]*F[i-1]; the classic tableau has one
		 * nonzero per row: 0.5, 0.5, 1 */
		double w = i == 3 ? 1.0 : 0.5;
		double zi = z0 + h * (fv[i - 1] * w);
		double vi = v0 + (fa[i - 1] * w) * h;
		fv[i] = vi;
		fa[i] = core_scene_accel(m, zi, vi, NULL);
	}
	dv = 0;
	da = 0;
	for (i = 0; i < 4; i++) {
		dv += fv[i] * B[i];
		da += fa[i] * B[i];
	}
	*z = z0 + h * dv;
	*vel = v0 + da * h;
}

void core_scene_step(const struct core_scene_model *m, double *z, double *vel)
{
	if (m->integrator == CORE_SCENE_RK4) {
		step_rk4(m, z, vel);
		return;
	}
	/* semi-implicit Euler: velocity first, then position with the new velocity.
	 * implicit/implicitfast differ only in smooth-force derivatives, which vanish here;
	 * discrete differs only in its rows (accel), its step is this one. */
	core_scene_euler(z, vel, core_scene_accel(m, *z, *vel, NULL), m->timestep);
}

void core_scene_step_warm(
    const struct core_scene_model *m, double *z, double *vel, double *qacc_warmstart)
{
	double acc;

	if (m->integrator == CORE_SCENE_RK4 || !m->rules.newton_certificate) {
		core_scene_step(m, z, vel);
		return;
	}
	acc = accel(m, *z, *vel, qacc_warmstart, NULL);
	*qacc_warmstart = acc;
	*vel += acc * m->timestep;
	*z += m->timestep * *vel;
}

double core_scene_rest_force(const struct core_scene_model *m, double violation)
{
	double imp, R;

	if (violation <= 0)
		return 0;
	imp = core_law_impedance(-violation, &m->solimp, NULL);
	R = core_scene_row_R(m, imp);
	if (m->discrete) {
		/* at rest (v = 0, a = 0) the row pushes D * (-aref) = D * K imp violation / s */
		struct core_law_discrete d;
		core_law_discrete_gains(&m->gains, imp, m->timestep, m->discrete_refsafe, &d);
		return m->normal_rows * (1 / R) * (d.K * imp * violation / d.s);
	}
	return m->normal_rows * (1 / R) * (m->gains.K * imp * violation);
}
