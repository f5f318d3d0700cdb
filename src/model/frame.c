/*
 * frame.c: MuJoCo's orientation attributes as quaternions (user_util.cc's conversions),
 * and the bodies' frames in the world at qpos0 (frame.h).
 */
#include "model/frame.h"

#include <math.h>
#include <string.h>

void mframe_mul(const double a[4], const double b[4], double out[4])
{
	double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
	    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
	    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
	    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
	memcpy(out, r, sizeof r);
}

static void quat_normalize(double q[4])
{
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	int i;
	if (n < 1e-15) {
		q[0] = 1;
		q[1] = q[2] = q[3] = 0;
		return;
	}
	for (i = 0; i < 4; i++)
		q[i] /= n;
}

void mframe_mat(const double q[4], double mat[9])
{
	double w = q[0], x = q[1], y = q[2], z = q[3];
	mat[0] = w * w + x * x - y * y - z * z;
	mat[1] = 2 * (x * y - w * z);
	mat[2] = 2 * (x * z + w * y);
	mat[3] = 2 * (x * y + w * z);
	mat[4] = w * w - x * x + y * y - z * z;
	mat[5] = 2 * (y * z - w * x);
	mat[6] = 2 * (x * z - w * y);
	mat[7] = 2 * (y * z + w * x);
	mat[8] = w * w - x * x - y * y + z * z;
}

/* The rotation of frame axes x, y, z (the columns of a rotation matrix) as a quaternion. */
static void frame_quat(const double x[3], const double y[3], const double z[3], double q[4])
{
	double m[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
	double t = m[0] + m[4] + m[8];
	if (t > 0) {
		double s = 0.5 / sqrt(t + 1);
		q[0] = 0.25 / s;
		q[1] = (m[7] - m[5]) * s;
		q[2] = (m[2] - m[6]) * s;
		q[3] = (m[3] - m[1]) * s;
	} else if (m[0] > m[4] && m[0] > m[8]) {
		double s = 2 * sqrt(1 + m[0] - m[4] - m[8]);
		q[0] = (m[7] - m[5]) / s;
		q[1] = 0.25 * s;
		q[2] = (m[1] + m[3]) / s;
		q[3] = (m[2] + m[6]) / s;
	} else if (m[4] > m[8]) {
		double s = 2 * sqrt(1 + m[4] - m[0] - m[8]);
		q[0] = (m[2] - m[6]) / s;
		q[1] = (m[1] + m[3]) / s;
		q[2] = 0.25 * s;
		q[3] = (m[5] + m[7]) / s;
	} else {
		double s = 2 * sqrt(1 + m[8] - m[0] - m[4]);
		q[0] = (m[3] - m[1]) / s;
		q[1] = (m[2] + m[6]) / s;
		q[2] = (m[5] + m[7]) / s;
		q[3] = 0.25 * s;
	}
	quat_normalize(q);
}

void mframe_z_to(const double v[3], double q[4])
{
	double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	double d[3] = {v[0] / n, v[1] / n, v[2] / n};
	double axis[3] = {-d[1], d[0], 0}, s = sqrt(axis[0] * axis[0] + axis[1] * axis[1]);
	double a;

	if (s < 1e-10) {
		/* along z: identity, or a half turn about x */
		q[0] = d[2] < 0 ? 0 : 1;
		q[1] = d[2] < 0 ? 1 : 0;
		q[2] = q[3] = 0;
		return;
	}
	a = acos(fmax(-1, fmin(1, d[2])));
	q[0] = cos(a / 2);
	q[1] = sin(a / 2) * axis[0] / s;
	q[2] = sin(a / 2) * axis[1] / s;
	q[3] = 0;
}

int mframe_orientation(
    xmlNodePtr el, int degree, const char *eulerseq, double q[4], struct err *err)
{
	double v[6], unit = degree ? M_PI / 180 : 1;
	int n, i;

	q[0] = 1;
	q[1] = q[2] = q[3] = 0;
	if ((n = mjcf_reals(el, "quat", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0) {
		memcpy(q, v, 4 * sizeof *v);
		quat_normalize(q);
		return 0;
	}
	if ((n = mjcf_reals(el, "axisangle", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0) {
		double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), a = v[3] * unit;
		if (len < 1e-15)
			return mjcf_fail(el, err, "axisangle's axis is zero");
		q[0] = cos(a / 2);
		for (i = 0; i < 3; i++)
			q[i + 1] = sin(a / 2) * v[i] / len;
		return 0;
	}
	if ((n = mjcf_reals(el, "euler", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0) {
		for (i = 0; i < 3; i++) {
			char ax = eulerseq[i];
			double a = v[i] * unit, t[4] = {cos(a / 2), 0, 0, 0};
			t[1 +
			    (ax == 'x' || ax == 'X'          ? 0
			            : ax == 'y' || ax == 'Y' ? 1
			                                     : 2)] = sin(a / 2);
			if (ax >= 'a')
				mframe_mul(q, t, q); /* intrinsic: about the rotated axis */
			else
				mframe_mul(t, q, q);
		}
		quat_normalize(q);
		return 0;
	}
	if ((n = mjcf_reals(el, "xyaxes", v, 6, 1, err)) < 0)
		return -1;
	if (n > 0) {
		double *x = v, *y = v + 3, z[3], d, nx, ny;
		nx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
		for (i = 0; i < 3; i++)
			x[i] /= nx;
		d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
		for (i = 0; i < 3; i++)
			y[i] -= d * x[i];
		ny = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
		if (!(nx > 1e-15) || !(ny > 1e-15))
			return mjcf_fail(el, err, "xyaxes are degenerate");
		for (i = 0; i < 3; i++)
			y[i] /= ny;
		z[0] = x[1] * y[2] - x[2] * y[1];
		z[1] = x[2] * y[0] - x[0] * y[2];
		z[2] = x[0] * y[1] - x[1] * y[0];
		frame_quat(x, y, z, q);
		return 0;
	}
	if ((n = mjcf_reals(el, "zaxis", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0) {
		if (!(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > 1e-30))
			return mjcf_fail(el, err, "zaxis is zero");
		mframe_z_to(v, q);
	}
	return 0;
}

int mframe_identity(xmlNodePtr el, int *identity, struct err *err)
{
	double v[6];
	int n;

	*identity = 1;
	if ((n = mjcf_reals(el, "quat", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0 && !(v[0] > 0 && v[1] == 0 && v[2] == 0 && v[3] == 0))
		*identity = 0;
	if ((n = mjcf_reals(el, "euler", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0 && (v[0] != 0 || v[1] != 0 || v[2] != 0))
		*identity = 0;
	if ((n = mjcf_reals(el, "axisangle", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0 && v[3] != 0)
		*identity = 0;
	if ((n = mjcf_reals(el, "zaxis", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0 && !(v[0] == 0 && v[1] == 0 && v[2] > 0))
		*identity = 0;
	if ((n = mjcf_reals(el, "xyaxes", v, 6, 1, err)) < 0)
		return -1;
	if (n > 0 && !(v[0] > 0 && v[1] == 0 && v[2] == 0 && v[3] == 0 && v[4] > 0 && v[5] == 0))
		*identity = 0;
	return 0;
}

void mframe_world(struct mdl_model *m)
{
	int b, i;

	for (b = 1; b < m->nbody; b++) {
		struct mdl_body *body = &m->bodies[b];
		const struct mdl_body *p = &m->bodies[body->parent];
		double r[9];

		mframe_mat(p->xquat, r);
		for (i = 0; i < 3; i++)
			body->xpos[i] = p->xpos[i] + r[3 * i] * body->pos[0] +
			    r[3 * i + 1] * body->pos[1] + r[3 * i + 2] * body->pos[2];
		mframe_mul(p->xquat, body->quat, body->xquat);
		quat_normalize(body->xquat);
	}
}
