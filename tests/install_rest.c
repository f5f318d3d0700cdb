/*
 * install_rest.c: a program of a library user, built by tests/install_test.sh against
 * the installed libcontactd through pkg-config (never against the source tree): the
 * rest of a 5 cm, 1 kg sphere on the default contact, under the default release.
 * Prints the library's version (ctd_version) and release, the penetration and the
 * gains, and exits 1 unless they equal, bit for bit, the numbers given as arguments
 * (the `contact rest` answer for the same scene). Then the same question as JSON through
 * ctd_answer(), its status and bytes printed ("answer 200 {...}") for the script to
 * compare with `contact rest`'s. Uses only what contactd.h declares.
 */
#include <contactd.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct ctd_scene scene = {0};
	struct ctd_sim_rest rest;
	static const char request[] =
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.05, \"mass\": 1}, \"height\": 0, "
	    "\"duration\": 0.5}";
	double expected[4];
	char *answer;
	size_t len;
	int i, status;

	if (argc != 5) {
		fprintf(stderr, "usage: %s PENETRATION SETTLED K B\n", argv[0]);
		return 2;
	}
	for (i = 0; i < 4; i++)
		expected[i] = strtod(argv[i + 1], NULL);
	scene.shape = CTD_SCENE_SPHERE;
	scene.size[0] = scene.size[1] = scene.size[2] = 0.05;
	scene.mass = 1;
	ctd_pair_geom_default(&scene.geom);
	scene.floor = scene.geom;
	scene.option.timestep = 0.002;
	scene.option.refsafe = 1;
	scene.option.gravity = 9.81;
	scene.option.impratio = 1;
	scene.option.integrator = CTD_SCENE_EULER;
	scene.option.mujoco = ctd_mjver_default();
	scene.height = 0;
	scene.duration = 0.5;
	ctd_sim_rest_scene(&scene, &rest);
	printf("version %s\n", ctd_version());
	printf("header_version %d.%d.%d\n", CONTACTD_VERSION_MAJOR, CONTACTD_VERSION_MINOR,
	    CONTACTD_VERSION_PATCH);
	printf("release %s: penetration %.17g settled %.17g K %.17g B %.17g\n",
	    ctd_mjver_name(scene.option.mujoco), rest.penetration, rest.settled_penetration, rest.K,
	    rest.B);
	status = ctd_answer("rest", request, sizeof request - 1, &answer, &len);
	if (!answer)
		return 1;
	printf("answer %d %.*s", status, (int)len, answer);
	ctd_answer_free(answer);
	return rest.has_equilibrium && rest.penetration == expected[0] &&
	        rest.settled_penetration == expected[1] && rest.K == expected[2] &&
	        rest.B == expected[3]
	    ? 0
	    : 1;
}
