# Parity with real MuJoCo 2.2.2: the contact core against mj_step on randomised
# scenes, and the seed lesson's tables computed both ways. libmujoco is linked here
# and in bench/ only, never into src/.
MJSCENE_SOURCES = tests/mjscene.c tests/mjscene.h
PARITY_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
PARITY_LIBS = $(CORE_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/test_parity tests/test_lesson
TESTS += tests/test_parity tests/test_lesson

tests_test_parity_SOURCES = tests/test_parity.c $(MJSCENE_SOURCES)
tests_test_parity_CFLAGS = $(PARITY_CFLAGS)
tests_test_parity_LDADD = $(PARITY_LIBS)

tests_test_lesson_SOURCES = tests/test_lesson.c $(MJSCENE_SOURCES)
tests_test_lesson_CFLAGS = $(PARITY_CFLAGS)
tests_test_lesson_LDADD = $(PARITY_LIBS)

EXTRA_DIST += docs/parity.md docs/grading.md

# The core under each MuJoCo release's rules against tables written by real MuJoCo
# builds (tests/mjref/README.md says how they were made); 2.2.2's also against libmujoco.
check_PROGRAMS += tests/test_versions
TESTS += tests/test_versions
tests_test_versions_SOURCES = tests/test_versions.c $(MJSCENE_SOURCES)
tests_test_versions_CFLAGS = $(PARITY_CFLAGS) -DFIXTURE_DIR='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_versions_LDADD = $(PARITY_LIBS)
EXTRA_DIST += tests/fixtures/mujoco-2.2.2.txt tests/fixtures/mujoco-3.3.8.txt \
	tests/fixtures/mujoco-3.5.0.txt tests/fixtures/mujoco-3.9.0.txt \
	tests/fixtures/mujoco-3.12.0.txt \
	tests/mjref/README.md tests/mjref/mjref_gen.c tests/mjref/mjref_js.mjs \
	tests/mjref/mjref_js_table.mjs

# The core against tables of the official WebAssembly builds 3.12.0, 3.13.0 and 3.14.0
# (random rest, drop and stability scenes; Euler, implicitfast and discrete), committed so
# a run without node checks them; tests/test_wasm.sh also runs the builds live.
check_PROGRAMS += tests/test_mjref_discrete
TESTS += tests/test_mjref_discrete tests/test_wasm.sh
tests_test_mjref_discrete_SOURCES = tests/test_mjref_discrete.c
tests_test_mjref_discrete_CFLAGS = $(AM_CFLAGS) -DFIXTURE_DIR='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_mjref_discrete_LDADD = $(CORE_LIBS)
EXTRA_DIST += tests/test_wasm.sh tests/mjref/mjref_js_discrete.mjs tests/mjref/package.json \
	tests/mjref/package-lock.json tests/fixtures/mujoco-discrete-3.12.0.txt \
	tests/fixtures/mujoco-discrete-3.13.0.txt tests/fixtures/mujoco-discrete-3.14.0.txt

# /v1/eval against libmujoco where the lesson's own functions and MuJoCo disagree.
check_PROGRAMS += tests/test_eval_clamps
TESTS += tests/test_eval_clamps
tests_test_eval_clamps_SOURCES = tests/test_eval_clamps.c tests/svc_test.c tests/svc_test.h \
	$(MJSCENE_SOURCES)
tests_test_eval_clamps_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(CHECK_CFLAGS)
tests_test_eval_clamps_LDADD = $(SERVICE_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS) -lm

# The eval functions that have a MuJoCo quantity, through the service, against MuJoCo.
check_PROGRAMS += tests/test_eval_mujoco
TESTS += tests/test_eval_mujoco
tests_test_eval_mujoco_SOURCES = tests/test_eval_mujoco.c tests/svc_test.c tests/svc_test.h \
	$(MJSCENE_SOURCES)
tests_test_eval_mujoco_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(CHECK_CFLAGS)
tests_test_eval_mujoco_LDADD = $(SERVICE_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS) -lm

# The hold scene (issue 21): the core's two-unknown reduction against mj_step of the
# pinch built in libmujoco 2.2.2 (tests/mjhold.c).
check_PROGRAMS += tests/test_hold
TESTS += tests/test_hold
tests_test_hold_SOURCES = tests/test_hold.c tests/mjhold.c tests/mjhold.h tests/mjref/hold_scene.h \
	tests/holdtab.c tests/holdtab.h $(MJSCENE_SOURCES)
tests_test_hold_CFLAGS = $(PARITY_CFLAGS) -DFIXTURE_DIR='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_hold_LDADD = $(PARITY_LIBS)

# The hold scene's release rules of 3.8.0-3.14.0 (issue 28: the one-pad start, discrete),
# on the core alone, against figures of the official WebAssembly builds.
check_PROGRAMS += tests/test_hold_release
TESTS += tests/test_hold_release
tests_test_hold_release_SOURCES = tests/test_hold_release.c
tests_test_hold_release_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_hold_release_LDADD = $(CORE_LIBS) $(CHECK_LIBS) -lm

# POST /v1/hold through the service: answers against libmujoco and the issue's tables,
# defaults and refusals.
check_PROGRAMS += tests/test_hold_service
TESTS += tests/test_hold_service
tests_test_hold_service_SOURCES = tests/test_hold_service.c tests/svc_test.c tests/svc_test.h \
	tests/mjhold.c tests/mjhold.h $(MJSCENE_SOURCES)
tests_test_hold_service_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(CHECK_CFLAGS)
tests_test_hold_service_LDADD = $(SERVICE_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS) -lm
EXTRA_DIST += docs/hold.md tests/mjref/mjref_hold.c tests/mjref/mjref_js_hold.mjs \
	tests/fixtures/hold-2.2.2.txt tests/fixtures/hold-3.3.8.txt tests/fixtures/hold-3.5.0.txt \
	tests/fixtures/hold-3.9.0.txt tests/fixtures/hold-3.12.0.txt \
	tests/fixtures/hold-3.13.0.txt tests/fixtures/hold-3.14.0.txt \
	tests/mjref/hold_scene.mjs tests/mjref/mjref_js_hold_gen.mjs

# Grasps (issue 48): capsules and boxes, joint damping, armature and frictionloss, position
# servos; the hold core against libmujoco 2.2.2 live and the committed grasp tables of
# 2.2.2 and the WebAssembly builds 3.12.0-3.14.0 (tests/mjref/README.md).
check_PROGRAMS += tests/test_grasp
TESTS += tests/test_grasp
tests_test_grasp_SOURCES = tests/test_grasp.c tests/mjhold.c tests/mjhold.h tests/holdtab.c \
	tests/holdtab.h tests/mjref/hold_scene.h tests/mjref/grasp_scene.h $(MJSCENE_SOURCES)
tests_test_grasp_CFLAGS = $(PARITY_CFLAGS) -DFIXTURE_DIR='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_grasp_LDADD = $(PARITY_LIBS)
EXTRA_DIST += tests/fixtures/grasp-2.2.2.txt tests/fixtures/grasp-3.12.0.txt \
	tests/fixtures/grasp-3.13.0.txt tests/fixtures/grasp-3.14.0.txt \
	tests/fixtures/grasp-noslip-2.2.2.txt tests/fixtures/grasp-noslip-3.12.0.txt \
	tests/fixtures/grasp-noslip-3.13.0.txt tests/fixtures/grasp-noslip-3.14.0.txt \
	tests/fixtures/grasp-regress-3.14.0.txt \
	tests/fixtures/grasp-oddmode-2.2.2.txt tests/fixtures/grasp-oddmode-3.12.0.txt \
	tests/fixtures/grasp-oddmode-3.13.0.txt tests/fixtures/grasp-oddmode-3.14.0.txt \
	tests/mjref/grasp_scene.mjs tests/mjref/mjref_js_grasp_gen.mjs
