// mjref_js_grasp_gen.mjs: write a grasp reference table (tests/mjref/README.md, "The grasp
// tables") from scenes drawn here (grasp_scene.mjs, the port of grasp_scene.h), stepped in
// an official MuJoCo WebAssembly build (npm's @mujoco/mujoco 3.12.0, 3.13.0, 3.14.0).
//
//   node mjref_js_grasp_gen.mjs [-m MODULE] [-n SCENES] [-s SEED] [-F FROM] [-a n|o]
//   node mjref_js_grasp_gen.mjs [-m MODULE] -x
//
// MODULE is the package to import (default @mujoco/mujoco; an npm alias works). Each draw
// takes the integrators the build has (implicitfast from 3.0.0, discrete from 3.13.0), so
// the tables of one seed hold the same scenes but for the integrator. A scene is kept
// unless a pad reaches 0.9 of the object's half-width (crushed: MuJoCo's contacts are no
// longer the pinch's), a pad is thrown off by half of it, or the pads touch each other,
// before the object's centre leaves the pads' faces (|z| > HZ, the fall, which ends the
// run). The record says what MuJoCo's contacts did (per pad, at step 1 and after). -F FROM
// draws the first FROM scenes but neither steps nor prints them. -x steps MuJoCo issue
// #3328's grasp (docs/hold.md) instead, elliptic at impratio 10 and 1 and pyramidal at 1,
// and prints a table of its creeps over the last 2 s (m/s): "issue3328 CONE IMPRATIO V".
// -a n or -a o draws the asymmetric step's scenes (grasp_scene.mjs's asym: a sphere with
// noslip, or a touching start without margin), as test_grasp --write's CLASS does.
//
// tests/test_grasp.c's record() is this file's run() for libmujoco 2.2.2: a change here is
// a change there.
import { rng, g17, geomFields, geomXml, replacedRow, settleCreep } from './hold_scene.mjs';
import { draw, asym, SHAPES, INTEGRATORS } from './grasp_scene.mjs';

const SAMPLES = 16;
const TALL_HZ = 1e4;
const CRUSH = 0.9, THROWN = 0.5;

const args = process.argv.slice(2);
const opt = (flag, fallback) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : fallback;
};
const moduleName = opt('-m', '@mujoco/mujoco');
const scenes = Number(opt('-n', 150));
const seed = opt('-s', '20261204');
const from = Number(opt('-F', 0));
const asymClass = opt('-a', '');

const M = await (await import(moduleName)).default();
const version = M.mj_versionString();
const [major, minor] = version.split('.').map(Number);
const integrators = major < 3 ? 2 : major === 3 && minor < 13 ? 3 : 4;

// tests/mjhold.c's mjhold_xml: the same MJCF, pads hz tall
function objectXml(s) {
  const sz = s.size.map(g17);
  if (s.shape === 0) return `type="sphere" size="${sz[0]}"`;
  if (s.shape === 1) return `type="capsule" size="${sz[0]} ${sz[1]}" euler="90 0 0"`;
  return `type="box" size="${sz.join(' ')}"`;
}

function actuatorXml(s, name) {
  if (!s.position) return `<motor joint="${name}" ctrllimited="false"/>`;
  const kp = g17(s.kp);
  return `<general joint="${name}" gaintype="fixed" biastype="affine" gainprm="${kp}"` +
    ` biasprm="0 ${g17(-s.kp)} ${g17(-s.kv)}" ctrllimited="false"` +
    (s.forcelimited ? ` forcelimited="true" forcerange="${s.forcerange.map(g17).join(' ')}"`
      : ' forcelimited="false"') + '/>';
}

function sceneXml(s, hz) {
  const x = s.size[0] + s.padSize[0];
  let xml = `<mujoco>\n<option timestep="${g17(s.timestep)}" gravity="0 0 ${g17(-s.gravity)}"` +
    ` impratio="${g17(s.impratio)}" cone="${s.elliptic ? 'elliptic' : 'pyramidal'}"` +
    ` noslip_iterations="${s.noslip}" integrator="${INTEGRATORS[s.integrator]}"/>\n` +
    `<worldbody>\n<body pos="0 0 0"><freejoint/>\n<geom ${objectXml(s)}` +
    ` mass="${g17(s.mass)}"${geomXml(s.object)}/>\n</body>\n`;
  for (const side of [-1, 1]) {
    const name = side < 0 ? 'left' : 'right';
    xml += `<body name="${name}" pos="${g17(side * x)} 0 0"><joint name="${name}"` +
      ` type="slide" axis="${-side} 0 0" damping="${g17(s.damping)}"` +
      ` armature="${g17(s.armature)}" frictionloss="${g17(s.frictionloss)}"/>\n` +
      `<geom type="box" size="${g17(s.padSize[0])} ${g17(s.padSize[1])} ${g17(hz)}"` +
      ` mass="${g17(s.padMass)}"${geomXml(s.pad)}/>\n</body>\n`;
  }
  return xml + '</worldbody>\n<actuator>' + actuatorXml(s, 'left') +
    actuatorXml(s, 'right') + '</actuator>\n</mujoco>\n';
}


function load(s, hz) {
  const m = M.MjModel.from_xml_string(sceneXml(s, hz));
  const d = new M.MjData(m);
  const ctrl = s.position ? s.squeeze : s.grip;
  d.ctrl[0] = ctrl;
  d.ctrl[1] = ctrl;
  return [m, d];
}

// the contacts of the state mj_step started from: per pad (geoms 1, 2), all and with
// rows; -1 in [0] when the pads touch each other
function contacts(d) {
  const n = [0, 0, 0, 0];
  const list = d.contact;
  for (let i = 0; i < d.ncon; i++) {
    const c = list.get(i);
    const g = c.geom;
    const pad = g[0] === 0 ? g[1] : g[1] === 0 ? g[0] : 0;
    if (pad === 0) return [-1, 0, 0, 0];
    n[pad - 1]++;
    if (c.efc_address >= 0) n[pad + 1]++;
    c.delete?.();
  }
  list.delete?.();
  return n;
}

// one scene: its record's lines, or null when dropped
function run(s, index) {
  const steps = Math.round(s.duration / s.timestep);
  const stride = Math.max(1, Math.trunc(steps / SAMPLES));
  const w = s.size[0];
  let [m, d] = load(s, s.padSize[2]);
  const z = [], ql = [], qr = [];
  let regular = true, replaced = false, fall = 0, start = null;
  const lo = [Infinity, Infinity], hi = [0, 0];
  for (let k = 1; k <= steps && regular && !fall; k++) {
    M.mj_step(m, d);
    // mj_step's rows are those of the step's start, the step the core calls k
    if (s.integrator === 3 && !replaced) replaced = replacedRow(m, d);
    const n = contacts(d);
    if (k === 1) start = n;
    else if (n[0] >= 0) {
      for (const p of [0, 1]) {
        lo[p] = Math.min(lo[p], n[p]);
        hi[p] = Math.max(hi[p], n[p]);
      }
    }
    const qp = d.qpos;
    if (n[0] < 0 || !(qp[7] < CRUSH * w) || !(qp[8] < CRUSH * w) ||
        !(qp[7] > -THROWN * w) || !(qp[8] > -THROWN * w))
      regular = false;
    if (Math.abs(qp[2]) > s.padSize[2]) fall = k;
    if ((k % stride === 0 || k === steps || fall) && z.length <= SAMPLES) {
      z.push(qp[2]);
      ql.push(qp[7]);
      qr.push(qp[8]);
    }
  }
  d.delete();
  m.delete();
  if (!regular) return null;
  [m, d] = load(s, TALL_HZ);
  // on tall pads too the pads must stay short of the object's centre (MuJoCo's box on
  // 1e4 m pads was seen to be crushed after 10,000 steps of a steady creep)
  const [settled, creep, ran] = settleCreep(M, m, d, s.noslip, (dd) =>
    dd.qpos[7] < CRUSH * w && dd.qpos[8] < CRUSH * w && dd.qpos[7] > -THROWN * w &&
    dd.qpos[8] > -THROWN * w);
  d.delete();
  m.delete();
  const act = s.position
    ? `actuator position ${[s.kp, s.kv, s.squeeze].map(g17).join(' ')} ${s.forcelimited} ` +
      s.forcerange.map(g17).join(' ')
    : `actuator motor ${g17(s.grip)}`;
  return [
    `scene ${index} ${SHAPES[s.shape]} ${s.size.map(g17).join(' ')} ${g17(s.mass)} ${steps}` +
      ` ${INTEGRATORS[s.integrator]} ${s.elliptic ? 'elliptic' : 'pyramidal'}` +
      ` ${[s.timestep, s.impratio, s.gravity].map(g17).join(' ')} ${s.noslip}`,
    `padbox ${[...s.padSize, s.padMass].map(g17).join(' ')}`,
    `joint ${[s.damping, s.armature, s.frictionloss].map(g17).join(' ')}`, act,
    `object ${geomFields(s.object)}`, `pad ${geomFields(s.pad)}`,
    `start ${start.join(' ')}`,
    `contacts ${lo[0] === Infinity ? '0 0 0 0' : `${lo[0]} ${hi[0]} ${lo[1]} ${hi[1]}`}`,
    `traj ${stride} ${z.map(g17).join(' ')}`, `padl ${stride} ${ql.map(g17).join(' ')}`,
    `padr ${stride} ${qr.map(g17).join(' ')}`, `fall ${fall}`,
    `creep ${settled} ${g17(creep)} ${ran}`,
    ...(s.integrator === 3 ? [`replaced ${replaced ? 1 : 0}`] : []), 'end'];
}

// MuJoCo issue #3328's grasp (docs/hold.md): the creep over the last 2 s of 2.5
function issue3328(cone, impratio) {
  const s = { shape: 1, size: [0.004, 0.02, 0], mass: 0.045, padSize: [0.008, 0.03, 0.02],
    padMass: 0.2, damping: 100, armature: 0, frictionloss: 0, position: 1, kp: 20000, kv: 0,
    squeeze: 0.002, forcelimited: 0, forcerange: [0, 0], integrator: 0,
    elliptic: cone === 'elliptic' ? 1 : 0, impratio: Number(impratio), timestep: 0.002,
    gravity: 9.81, noslip: 0 };
  const geom = { solref: [0.02, 1], solimp: [0.9, 0.95, 0.001, 0.5, 2], condim: 3,
    friction: [0.7, 0.005, 0.0001], margin: 0, gap: 0, solmix: 1, priority: 0 };
  s.object = geom;
  s.pad = geom;
  const [m, d] = load(s, s.padSize[2]);
  let z05 = 0;
  for (let k = 1; k <= 1250; k++) {
    M.mj_step(m, d);
    if (k === 250) z05 = d.qpos[2];
  }
  const creep = (z05 - d.qpos[2]) / 2;
  d.delete();
  m.delete();
  return creep;
}

const header = ['# contactd MuJoCo grasp reference table, format 1', `mujoco ${version}`];
if (args.includes('-x')) {
  const lines = [...header, 'generator mjref_js_grasp_gen issue3328'];
  for (const [cone, impratio] of [['elliptic', 10], ['elliptic', 1], ['pyramidal', 1]])
    lines.push(`issue3328 ${cone} ${impratio} ${g17(issue3328(cone, impratio))}`);
  process.stdout.write(lines.join('\n') + '\n');
  process.exit(0);
}

const r = rng(seed);
const out = [...header, `generator mjref_js_grasp_gen seed ${seed} scenes ${scenes}` +
  (asymClass ? ` class ${asymClass}` : '')];
let kept = 0;
for (let i = 0; i < scenes; i++) {
  const s = draw(r, integrators);
  if (asymClass) asym(s, r, asymClass);
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
process.stderr.write(`${kept} of ${scenes} scenes kept\n`);
