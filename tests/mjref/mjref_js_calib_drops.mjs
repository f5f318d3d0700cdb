// mjref_js_calib_drops.mjs: the calibration's drops of one pad under the discrete
// integrator, made by an official MuJoCo WebAssembly build (npm's @mujoco/mujoco, the
// alias mj3140 by default), written as the table tests/test_calib_discrete reads
// (tests/fixtures/calib-discrete-3.14.0.txt).
//
//   node mjref_js_calib_drops.mjs [-m MODULE] TIMECONST DAMPRATIO > TABLE
//
// The scene is the calibration's (tests/mjscene.c's MJCF for mjscene_pad): the SO-101
// pad as a plane (condim 6, friction 1 5e-3 5e-4, priority 1, MuJoCo's default solimp),
// solref TIMECONST DAMPRATIO, under a 2 cm, 100 g sphere with MuJoCo's default geom, at
// timestep 0.005 with refsafe on and integrator="discrete". Drops from rest, the sphere's
// bottom at 0.02 + 0.03 i m (i = 0..7), 400 mj_steps each; the first bounce's apex is
// read off the heights after each step as test_calib_fit's first_apex() reads it: the
// highest bottom after the first penetrating step, until it falls again after leaving
// the pad (bottom > 0); 0 if it never leaves. Every number is printed shortest
// round-trip (JavaScript's String).
const args = process.argv.slice(2);
let moduleName = 'mj3140';
if (args[0] === '-m') {
  moduleName = args[1];
  args.splice(0, 2);
}
const [tc, dr] = args.map(Number);
if (!(tc > 0 && dr > 0)) {
  console.error('usage: node mjref_js_calib_drops.mjs [-m MODULE] TIMECONST DAMPRATIO');
  process.exit(2);
}
const M = await (await import(moduleName)).default();
const R = 0.02, STEPS = 400, DROPS = 8;

function sceneXml(height) {
  return '<mujoco>\n  <option timestep="0.005" gravity="0 0 -9.81" impratio="1"' +
    ' integrator="discrete" cone="pyramidal">\n    <flag refsafe="enable"/>\n  </option>\n' +
    '  <worldbody>\n    <geom type="plane" size="1 1 .1"' +
    ` solref="${tc} ${dr}" solimp="0.9 0.95 0.001 0.5 2" condim="6"` +
    ' friction="1 0.005 0.0005" margin="0" gap="0" solmix="1" priority="1"/>\n' +
    `    <body pos="0 0 ${height + R}">\n      <freejoint/>\n` +
    `      <geom type="sphere" size="${R}" mass="0.1"/>\n    </body>\n  </worldbody>\n</mujoco>\n`;
}

const out = [`# contactd calibration drops, discrete`, `mujoco ${M.mj_versionString()}`,
  `pad ${tc} ${dr}`];
for (let i = 0; i < DROPS; i++) {
  const height = 0.02 + 0.03 * i;
  const m = M.MjModel.from_xml_string(sceneXml(height));
  const d = new M.MjData(m);
  const bottom = [];
  for (let k = 0; k < STEPS; k++) {
    M.mj_step(m, d);
    bottom.push(d.qpos[2] - R);
  }
  d.delete();
  m.delete();
  let apex = 0, touched = false, left = false;
  for (let k = 0; k < STEPS; k++) {
    if (touched) {
      if (left && bottom[k] < bottom[k - 1]) break;
      apex = Math.max(apex, bottom[k]);
      left ||= bottom[k] > 0;
    }
    touched ||= bottom[k] < 0;
  }
  out.push(`drop ${String(height)} ${String(apex)}`);
}
process.stdout.write(out.join('\n') + '\n');
