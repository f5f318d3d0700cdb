/* traj.c: a trajectory's first impact, its fitted samples and its starting release (traj.h). */
#include "fit/traj.h"

#include <math.h>

#include "fit/problem.h"
#include "fit/knobs.h"

size_t traj_first_impact(const struct calib_trajectory *tr)
{
	double level = CALIB_BOUNCE_SIGMAS * problem_traj_sigma(tr);
	size_t lowest = 0, i;

	for (i = 0; i < tr->n; i++)
		if (!(tr->z[i] > level))
			return i;
	for (i = 1; i < tr->n; i++)
		if (tr->z[i] < tr->z[lowest])
			lowest = i;
	return lowest;
}

/* Why not later samples: a contact beginning within a step gets MuJoCo's full damping impulse
 * at once, so the model jumps as the parameters move a later impact's step (the first's is the
 * release's) and chi^2 becomes a patchwork. Bounced: a sample after the first impact
 * CALIB_BOUNCE_SIGMAS sigma above the pad; back: the next at or below it (a small bounce's noise
 * rarely reaches that far); the samples within three steps before it go too (the spline reaches
 * two steps ahead; noise may hide the first sample in contact). */
size_t traj_fitted(const struct calib_trajectory *tr, double h)
{
	double level = CALIB_BOUNCE_SIGMAS * problem_traj_sigma(tr);
	size_t first = traj_first_impact(tr), up, back, i;

	for (up = first + 1; up < tr->n && !(tr->z[up] > level); up++)
		;
	for (back = up + 1; back < tr->n && tr->z[back] > 0; back++)
		;
	if (back >= tr->n)
		return tr->n; /* no second impact among the samples */
	for (i = first + 1; i < back && tr->t[i] < tr->t[back] - 3 * h; i++)
		;
	return i;
}

void traj_start(const struct calib_trajectory *tr, double g, double h, double *t0, double *H)
{
	size_t first, i, count;
	double tref = tr->t[0], from = -INFINITY;
	int pass;

	*t0 = tr->t[0];
	*H = tr->z[0];
	if (!(g > 0))
		return;
	first = traj_first_impact(tr);
	/* second pass: without the samples before the estimated release (at rest) */
	for (pass = 0; pass < 2; pass++) {
		double st = 0, sy = 0, stt = 0, sty = 0, a, b, det;

		count = 0;
		for (i = 0; i < first; i++) {
			double tau = tr->t[i] - tref, y = tr->z[i] + 0.5 * g * tau * tau;

			if (!(tr->z[i] > 0) || tr->t[i] < from)
				continue;
			st += tau;
			sy += y;
			stt += tau * tau;
			sty += tau * y;
			count++;
		}
		det = (double)count * stt - st * st;
		if (count < 2 || !(fabs(det) > 0))
			return;
		b = ((double)count * sty - st * sy) / det;
		a = (sy - b * st) / (double)count;
		*t0 = tref + b / g + 0.5 * h;
		*H = a + b * b / (2 * g) - g * h * h / 8;
		from = *t0;
	}
}
