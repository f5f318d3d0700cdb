// mjref_js_hold_gen.mjs: write a hold reference table (tests/mjref/README.md, "The hold
// tables") from scenes drawn here, stepped in an official MuJoCo WebAssembly build
// (npm's @mujoco/mujoco 3.12.0, 3.13.0, 3.14.0).
//
//   node mjref_js_hold_gen.mjs [-m MODULE] [-n SCENES] [-N NOSLIP] [-D DISCRETE] [-S STIFF]
//                              [-s SEED] [-F FROM]
//
// MODULE is the package to import (default @mujoco/mujoco; an npm alias works). The
// scenes are hold_scene.h's HOLD_SCENE_WIDE draws (hold_scene.mjs): SCENES with Euler,
// then NOSLIP more continuing the sequence with noslip_iterations 1-10, then DISCRETE
// more with integrator="discrete" (3.13.0+), each drawing noslip 1-10 half the time, then
// STIFF more discrete ones whose pads (priority 1) have a standard solref with timeconst
// from a tenth of the timestep to twice it, where refsafe replaces rows; the
// sequence is the same whatever the build, so every table of one seed and counts holds
// the same draws. A scene is kept by mjref_hold.c's rule (two face contacts whenever
// there are rows), except at step 1: 3.8.0-3.13.0 start with the left pad's contact
// alone when the pads' float32 broadphase ends tie (docs/hold.md), which is the scene
// too. -F FROM draws the first FROM scenes but neither steps nor prints them, so that a
// table's later records can be remade alone (they are those of the whole table). Answers
// as mjref_hold.c's, but the creep is read only after stepping on past its settling
// (settleCreep, hold_scene.mjs); its step count is the steps run. A discrete scene's
// record also says whether refsafe replaced a contact row on some step of the duration
// (the hold answer's refsafe_replaced), read from the build's own rows (replacedRow).
import { rng, draw, noslip as drawNoslip, uniform, g17, WIDE, geomFields, geomXml, replacedRow,
  settleCreep } from './hold_scene.mjs';

const SAMPLES = 16;
const TALL_HZ = 1e4;

const args = process.argv.slice(2);
const opt = (flag, fallback) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : fallback;
};
const moduleName = opt('-m', '@mujoco/mujoco');
const scenes = Number(opt('-n', 100)), noslipScenes = Number(opt('-N', 40));
const discreteScenes = Number(opt('-D', 0)), stiffScenes = Number(opt('-S', 0));
const seed = opt('-s', '20261203');
const from = Number(opt('-F', 0));

const M = await (await import(moduleName)).default();

// mjref_hold.c's load(): the same MJCF, pads hz tall
function sceneXml(s, hz) {
  const x = s.radius + s.padSize[0];
  let xml = `<mujoco>\n<option timestep="${g17(s.timestep)}" gravity="0 0 ${g17(-s.gravity)}"` +
    ` impratio="${g17(s.impratio)}" cone="${s.elliptic ? 'elliptic' : 'pyramidal'}"` +
    ` noslip_iterations="${s.noslip}"${s.discrete ? ' integrator="discrete"' : ''}/>\n` +
    `<worldbody>\n<body pos="0 0 0"><freejoint/>\n<geom type="sphere"` +
    ` size="${g17(s.radius)}" mass="${g17(s.mass)}"${geomXml(s.object)}/>\n</body>\n`;
  for (const side of [-1, 1]) {
    const name = side < 0 ? 'left' : 'right';
    xml += `<body name="${name}" pos="${g17(side * x)} 0 0"><joint name="${name}"` +
      ` type="slide" axis="${-side} 0 0"/>\n<geom type="box"` +
      ` size="${g17(s.padSize[0])} ${g17(s.padSize[1])} ${g17(hz)}"` +
      ` mass="${g17(s.padMass)}"${geomXml(s.pad)}/>\n</body>\n`;
  }
  return xml + '</worldbody>\n<actuator><motor joint="left" ctrllimited="false"/>' +
    '<motor joint="right" ctrllimited="false"/></actuator>\n</mujoco>\n';
}


function load(xml) {
  const m = M.MjModel.from_xml_string(xml);
  const d = new M.MjData(m);
  return [m, d];
}

// one scene: its record's lines, or null when dropped
function run(s, index) {
  const steps = Math.round(s.duration / s.timestep);
  const stride = Math.max(1, Math.trunc(steps / SAMPLES));
  let [m, d] = load(sceneXml(s, s.padSize[2]));
  d.ctrl[0] = s.grip;
  d.ctrl[1] = s.grip;
  const z = [], q = [];
  let regular = true, replaced = false;
  for (let k = 1; k <= steps && regular; k++) {
    M.mj_step(m, d);
    // mj_step's rows are those of the step's start, the step the core calls k
    if (s.discrete && !replaced) replaced = replacedRow(m, d);
    const qp = d.qpos;
    if (!(qp[8] < 0.9 * s.radius) || !(qp[8] > -0.5 * s.radius) ||
        !(Math.abs(qp[2]) < s.padSize[2]) || (k > 1 && d.nefc > 0 && d.ncon !== 2))
      regular = false;
    if ((k % stride === 0 || k === steps) && z.length <= SAMPLES) {
      z.push(qp[2]);
      q.push(qp[8]);
    }
  }
  d.delete();
  m.delete();
  if (!regular) return null;
  [m, d] = load(sceneXml(s, TALL_HZ));
  d.ctrl[0] = s.grip;
  d.ctrl[1] = s.grip;
  const [settled, creep, ran] = settleCreep(M, m, d, s.noslip);
  d.delete();
  m.delete();
  let line = `scene ${index} ` + [s.radius, s.mass, ...s.padSize, s.padMass, s.grip,
    s.timestep, s.impratio].map(g17).join(' ') +
    ` ${s.elliptic ? 'elliptic' : 'pyramidal'} ${g17(s.gravity)} ${steps}`;
  if (s.noslip) line += ` noslip ${s.noslip}`;
  if (s.discrete) line += ' integrator discrete';
  return [line, `object ${geomFields(s.object)}`, `pad ${geomFields(s.pad)}`,
    `traj ${stride} ${z.map(g17).join(' ')}`, `pads ${stride} ${q.map(g17).join(' ')}`,
    `creep ${settled} ${g17(creep)} ${ran}`,
    ...(s.discrete ? [`replaced ${replaced ? 1 : 0}`] : []), 'end'];
}

const r = rng(seed);
const out = ['# contactd MuJoCo hold reference table, format 1', `mujoco ${M.mj_versionString()}`,
  `generator mjref_js_hold_gen seed ${seed} scenes ${scenes} noslip ${noslipScenes}` +
  ` discrete ${discreteScenes}${stiffScenes ? ` stiff ${stiffScenes}` : ''} wide`];
let kept = 0;
const total = scenes + noslipScenes + discreteScenes + stiffScenes;
for (let i = 0; i < total; i++) {
  const s = draw(r, WIDE);
  if (i >= scenes + noslipScenes + discreteScenes) {
    s.discrete = 1;
    s.pad.priority = 1;
    s.pad.solref[0] = s.timestep * Math.exp(uniform(r, Math.log(0.1), Math.log(2)));
    s.pad.solref[1] = uniform(r, 0.3, 2);
    if (uniform(r, 0, 1) < 0.5) s.noslip = drawNoslip(r);
  } else if (i >= scenes + noslipScenes) {
    s.discrete = 1;
    if (uniform(r, 0, 1) < 0.5) s.noslip = drawNoslip(r);
  } else if (i >= scenes) {
    s.noslip = drawNoslip(r);
  }
  if (i < from) continue;
  const rec = run(s, i);
  if (rec) {
    out.push(...rec);
    kept++;
  } else {
    process.stderr.write(`scene ${i} dropped\n`);
  }
}
process.stdout.write(out.join('\n') + '\n');
process.stderr.write(`${kept} of ${total} scenes kept\n`);
