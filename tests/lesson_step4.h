/*
 * lesson_step4.h: the seed lesson's Build it, Step 4 table (d = 0.95, h = 0.002):
 * timeconst, dampratio and refsafe -> h*omega and growth per step, as printed (2 and
 * 3 decimals). The core's and the service's tests both check it; the printed digits
 * are the tolerance.
 */
#ifndef CONTACTD_TESTS_LESSON_STEP4_H
#define CONTACTD_TESTS_LESSON_STEP4_H

struct lesson_step4_row {
	double tc, dr;
	int refsafe;
	double h_omega, growth;
};

static const struct lesson_step4_row lesson_step4[] = {
    {0.0005, 1.00, 0, 4.00, 22.314},
    {0.0010, 1.00, 0, 2.00, 6.464},
    {0.0020, 1.00, 0, 1.00, 1.618},
    {0.0030, 1.00, 0, 0.67, 0.699},
    {0.0010, 1.00, 1, 0.50, 0.750},
    {0.0200, 0.10, 1, 1.00, 0.894},
    {0.0200, 0.07, 1, 1.43, 0.894},
    {0.0200, 0.05, 1, 2.00, 1.740},
};

#define LESSON_STEP4_ROWS (sizeof lesson_step4 / sizeof lesson_step4[0])

#endif
