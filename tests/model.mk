# The model layer (issue 30): a user's MJCF against libmujoco 2.2.2 on the files of
# tests/fixtures/mjcf/ (their sources in its README.md): geoms, masses, pairs, rests.
check_PROGRAMS += tests/test_model_mj
TESTS += tests/test_model_mj
tests_test_model_mj_SOURCES = tests/test_model_mj.c
tests_test_model_mj_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(XML_CFLAGS) $(JANSSON_CFLAGS) \
	-DFIXTURE_DIR='"$(abs_top_srcdir)/tests/fixtures/mjcf"'
tests_test_model_mj_LDADD = $(MODEL_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS) -lm
EXTRA_DIST += tests/fixtures/mjcf/README.md tests/fixtures/mjcf/hand-classes.xml \
	tests/fixtures/mjcf/hand-rest.xml tests/fixtures/mjcf/hand-rest-bodies.xml \
	tests/fixtures/mjcf/so101-2.2.2.xml tests/fixtures/mjcf/so101-scene_box-2.2.2.xml \
	tests/fixtures/mjcf/so101-implicitfast.xml tests/fixtures/mjcf/so101-scene_box-implicitfast.xml \
	tests/fixtures/mjcf/mujoco-humanoid.xml tests/fixtures/mjcf/mujoco-slider_crank.xml \
	tests/fixtures/mjcf/mujoco-arm26.xml tests/fixtures/mjcf/hand-releases.xml
# The model endpoint's handler: refusals naming file, line and element; limits; warnings.
check_PROGRAMS += tests/test_model
TESTS += tests/test_model
tests_test_model_SOURCES = tests/test_model.c tests/svc_test.c tests/svc_test.h
tests_test_model_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_model_LDADD = $(SERVICE_TEST_LIBS) -lm
# The model layer under 3.12.0, 3.13.0 and 3.14.0 against the official WebAssembly builds'
# tables (tests/mjref/mjref_js_model.mjs); tests/test_wasm.sh reruns the builds live.
check_PROGRAMS += tests/test_model_wasm
TESTS += tests/test_model_wasm
tests_test_model_wasm_SOURCES = tests/test_model_wasm.c
tests_test_model_wasm_CFLAGS = $(AM_CFLAGS) $(XML_CFLAGS) $(JANSSON_CFLAGS) \
	-DFIXTURE_DIR='"$(abs_top_srcdir)/tests/fixtures/mjcf"'
tests_test_model_wasm_LDADD = $(MODEL_LIBS) -lm
EXTRA_DIST += tests/fixtures/mjcf/wasm-3.12.0.txt tests/fixtures/mjcf/wasm-3.13.0.txt \
	tests/fixtures/mjcf/wasm-3.14.0.txt tests/mjref/mjref_js_model.mjs
# Grasps in a user's MJCF as hold questions (issue 48): MuJoCo #3328's and the SO-101's
# values read field by field, equivalent MJCF giving the same question, refusals and
# differences named, and the question answered by POST /v1/hold.
check_PROGRAMS += tests/test_model_grasp
TESTS += tests/test_model_grasp
tests_test_model_grasp_SOURCES = tests/test_model_grasp.c tests/svc_test.c tests/svc_test.h
tests_test_model_grasp_CFLAGS = $(SERVICE_TEST_CFLAGS) $(XML_CFLAGS) \
	-DFIXTURE_DIR='"$(abs_top_srcdir)/tests/fixtures/mjcf"'
tests_test_model_grasp_LDADD = $(SERVICE_TEST_LIBS) $(XML_LIBS) -lm
EXTRA_DIST += tests/fixtures/mjcf/grasp-3328.xml tests/fixtures/mjcf/grasp-so101.xml
