#!/bin/sh
# test_wasm.sh: the official MuJoCo WebAssembly builds 3.12.0, 3.13.0 and 3.14.0, run live
# under node on random rest, drop and stability scenes (Euler, implicitfast, discrete;
# refsafe on and off; timeconst from a tenth of the timestep), against the contact core
# (tests/test_mjref_discrete, within 1e-6 relative, 1e-9 m for lengths), and on the MJCF
# files of tests/fixtures/mjcf/ against the model layer (tests/mjref/mjref_js_model.mjs,
# tests/test_model_wasm: geoms, pairs and their mixed parameters, rests). Fails, never
# skips, when node or the builds are missing: `npm ci` in tests/mjref installs them, as
# package-lock.json pins them (tests/run-all.sh does).
#
# Then the hold scene (tests/mjref/mjref_js_hold_gen.mjs, Euler, noslip and discrete) in
# the same builds, against the hold core (tests/test_hold given the tables: 1e-6 relative,
# 1e-10 m and m/s floors).
#
# Then grasps (issue 48: capsules, boxes, joint damping, armature, frictionloss, position
# servos; tests/mjref/mjref_js_grasp_gen.mjs) and MuJoCo issue #3328's grasp in the same
# builds, against the hold core (tests/test_grasp given the tables, 1e-6 relative).
#
# WASM_SEED, WASM_SCENES, WASM_HOLD_SCENES and WASM_GRASP_SCENES choose other scenes (the
# committed tables are seed 1).
set -eu
: "${srcdir:=.}"
node=${NODE:-node}
mjref=$srcdir/tests/mjref
# the builds npm ci put beside the scripts; distcheck's tarball has none and is handed the
# source tree's (MJREF_NODE_MODULES, as the browser suite's BROWSER_NODE_MODULES)
modules=${MJREF_NODE_MODULES:-$mjref/node_modules}
seed=${WASM_SEED:-20261203}
scenes=${WASM_SCENES:-60}
if ! command -v "$node" >/dev/null 2>&1; then
	echo "FAIL: no node ($node): install Debian's nodejs (deploy/setup-debian.sh)" >&2
	exit 1
fi
for alias in mj3120 mj3130 mj3140; do
	if [ ! -f "$modules/$alias/package.json" ]; then
		echo "FAIL: no MuJoCo WebAssembly build $alias in $modules:" \
			"run 'npm ci --no-audit --no-fund' in tests/mjref" >&2
		exit 1
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# node resolves the builds from the script's folder: a copy beside a link to them
cp "$mjref/mjref_js_discrete.mjs" "$mjref/mjref_js_hold_gen.mjs" "$mjref/hold_scene.mjs" \
	"$mjref/mjref_js_model.mjs" "$mjref/mjref_js_grasp_gen.mjs" "$mjref/grasp_scene.mjs" "$tmp/"
ln -s "$(cd "$modules" && pwd)" "$tmp/node_modules"
for version in 3.12.0 3.13.0 3.14.0; do
	"$node" "$tmp/mjref_js_discrete.mjs" "$version" "$seed" "$scenes" >"$tmp/$version.txt"
done
echo "seed $seed, $scenes scenes per release"
./tests/test_mjref_discrete "$tmp/3.12.0.txt" "$tmp/3.13.0.txt" "$tmp/3.14.0.txt"
# the hold (the pinch): WASM_HOLD_SCENES Euler, as many with noslip, and four times as
# many under discrete (3.13.0 on; half with noslip, half with timeconst 0.1-2 timesteps,
# where refsafe replaces rows) of the hold tables' wide draws, stepped in each build and
# checked scene for scene by tests/test_hold as its committed tables; seed + 1, as the
# committed hold tables are seed 20261203
hold=${WASM_HOLD_SCENES:-4}
hold_seed=$((seed + 1))
"$node" "$tmp/mjref_js_hold_gen.mjs" -m mj3120 -s "$hold_seed" -n "$hold" -N "$hold" \
	>"$tmp/hold-3.12.0.txt"
for alias in mj3130 mj3140; do
	"$node" "$tmp/mjref_js_hold_gen.mjs" -m $alias -s "$hold_seed" -n "$hold" -N "$hold" \
		-D $((2 * hold)) -S $((2 * hold)) >"$tmp/hold-$alias.txt"
done
echo "hold: seed $hold_seed, $hold Euler, $hold noslip and $((4 * hold)) discrete draws" \
	"(half of them stiff: timeconst 0.1-2 timesteps) per release"
./tests/test_hold "$tmp/hold-3.12.0.txt" "$tmp/hold-mj3130.txt" "$tmp/hold-mj3140.txt"
# grasps: WASM_GRASP_SCENES draws of the grasp tables' kind in each build (every integrator
# it has), seed + 2 (the committed grasp tables are seed + 1), and issue #3328's grasp
grasp=${WASM_GRASP_SCENES:-12}
grasp_seed=$((seed + 2))
for alias in mj3120 mj3130 mj3140; do
	"$node" "$tmp/mjref_js_grasp_gen.mjs" -m $alias -s "$grasp_seed" -n "$grasp" \
		>"$tmp/grasp-$alias.txt"
	"$node" "$tmp/mjref_js_grasp_gen.mjs" -m $alias -x >"$tmp/issue3328-$alias.txt"
done
echo "grasp: seed $grasp_seed, $grasp draws per release, and MuJoCo issue #3328's grasp"
./tests/test_grasp "$tmp/grasp-mj3120.txt" "$tmp/grasp-mj3130.txt" "$tmp/grasp-mj3140.txt" \
	"$tmp/issue3328-mj3120.txt" "$tmp/issue3328-mj3130.txt" "$tmp/issue3328-mj3140.txt"
# the model files: the committed tables' list, so a file added there is run here too
files=$(sed -n 's/^file \([^ ]*\) .*/\1/p' "$srcdir/tests/fixtures/mjcf/wasm-3.14.0.txt")
for version in 3.12.0 3.13.0 3.14.0; do
	# shellcheck disable=SC2086 # one word per file name
	"$node" "$tmp/mjref_js_model.mjs" "$version" "$srcdir/tests/fixtures/mjcf" $files \
		>"$tmp/model-$version.txt"
done
exec ./tests/test_model_wasm "$tmp/model-3.12.0.txt" "$tmp/model-3.13.0.txt" \
	"$tmp/model-3.14.0.txt"
