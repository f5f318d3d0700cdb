// mjref_js_hold.mjs: rerun the scenes of a hold reference table (tests/mjref/mjref_hold.c)
// in npm's mujoco-js (the official WebAssembly build) and write a table of the same format.
//
//   node mjref_js_hold.mjs IN_TABLE > OUT_TABLE      (with mujoco-js installed beside it)
//
// Each scene's MJCF is the text mjref_hold.c writes, its numbers copied from IN_TABLE
// token for token (the table prints them as %.17g, as the MJCF does); every answer is
// recomputed here with mjref_hold.c's definitions, and a scene is kept by the same rule
// (tests/mjref/README.md).
import loadMujoco from 'mujoco-js';
import { rerunTable } from './mjref_js_table.mjs';

const SAMPLES = 16;
const SETTLE_MAX = 20000;
const SETTLE_REL = 1e-11;
const SETTLE_RUN = 50;
const NOSLIP_SETTLE_REL = 1e-9;
const NOSLIP_SETTLE_ABS = 1e-15;
const TALL_HZ = '10000'; // 1e4 as %.17g

// C's %.17g: P significant digits, exponent form when the rounded exponent is < -4 or
// >= P, trailing zeros dropped. toExponential and toFixed round the exact binary value.
function g17(x) {
  const P = 17;
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const [mant, e] = x.toExponential(P - 1).split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= P) {
    const m = mant.includes('.') ? mant.replace(/0+$/, '').replace(/\.$/, '') : mant;
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  let s = x.toFixed(P - 1 - exp);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

function geomXml(t) {
  // t: tokens after the tag: solref(2) solimp(5) condim friction(3) margin gap solmix priority
  return ` solref="${t[0]} ${t[1]}" solimp="${t[2]} ${t[3]} ${t[4]} ${t[5]} ${t[6]}"` +
    ` condim="${t[7]}" friction="${t[8]} ${t[9]} ${t[10]}" margin="${t[11]}" gap="${t[12]}"` +
    ` solmix="${t[13]}" priority="${t[14]}"`;
}

// sc: the scene line's tokens; the MJCF as mjref_hold.c's load() writes it, pads hz tall
function sceneXml(sc, object, pad, hz) {
  const [, , radius, mass, hx, hy, , padMass, , timestep, impratio, cone, gravity] = sc;
  const noslip = sc[14] === 'noslip' ? sc[15] : '0';
  const x = Number(radius) + Number(hx);
  let xml = `<mujoco>\n<option timestep="${timestep}" gravity="0 0 ${g17(-Number(gravity))}"` +
    ` impratio="${impratio}" cone="${cone}" noslip_iterations="${noslip}"/>\n<worldbody>\n` +
    `<body pos="0 0 0"><freejoint/>\n<geom type="sphere" size="${radius}" mass="${mass}"` +
    `${geomXml(object)}/>\n</body>\n`;
  for (const side of [-1, 1]) {
    const name = side < 0 ? 'left' : 'right';
    xml += `<body name="${name}" pos="${g17(side * x)} 0 0"><joint name="${name}"` +
      ` type="slide" axis="${-side} 0 0"/>\n<geom type="box" size="${hx} ${hy} ${hz}"` +
      ` mass="${padMass}"${geomXml(pad)}/>\n</body>\n`;
  }
  xml += '</worldbody>\n<actuator><motor joint="left" ctrllimited="false"/>' +
    '<motor joint="right" ctrllimited="false"/></actuator>\n</mujoco>\n';
  return xml;
}

const mujoco = await loadMujoco();
mujoco.FS.mkdir('/mjref');

function load(xml) {
  mujoco.FS.writeFile('/mjref/hold.xml', xml);
  const m = mujoco.MjModel.loadFromXML('/mjref/hold.xml');
  const d = new mujoco.MjData(m);
  return [m, d];
}

let scenes = 0, kept = 0;
rerunTable(process.argv[2], 'contactd MuJoCo hold reference table, format 1', 'mjref_js_hold',
  mujoco, (block, out) => {
  const [line, objectLine, padLine] = block;
  const sc = line.split(' ');
  const object = objectLine.split(' ').slice(1), pad = padLine.split(' ').slice(1);
  scenes++;

  const radius = Number(sc[2]), hz = Number(sc[6]), force = Number(sc[8]);
  const steps = Number(sc[13]);
  const noslip = sc[14] === 'noslip' ? Number(sc[15]) : 0;
  const stride = Math.max(1, Math.trunc(steps / SAMPLES));

  // the run: kept while it stays two face contacts, as mjref_hold.c's run()
  let [m, d] = load(sceneXml(sc, object, pad, sc[6]));
  d.ctrl[0] = force;
  d.ctrl[1] = force;
  const z = [], q = [];
  let regular = true;
  for (let k = 1; k <= steps && regular; k++) {
    mujoco.mj_step(m, d);
    const qp = d.qpos;
    if (!(qp[8] < 0.9 * radius) || !(qp[8] > -0.5 * radius) || !(Math.abs(qp[2]) < hz) ||
        (d.nefc > 0 && d.ncon !== 2))
      regular = false;
    if ((k % stride === 0 || k === steps) && z.length <= SAMPLES) {
      z.push(qp[2]);
      q.push(qp[8]);
    }
  }
  d.delete();
  m.delete();
  if (!regular) {
    process.stderr.write(`scene ${sc[1]} dropped: not two face contacts in ${mujoco.mj_versionString()}\n`);
    return;
  }

  // the steady creep on tall pads
  [m, d] = load(sceneXml(sc, object, pad, TALL_HZ));
  d.ctrl[0] = force;
  d.ctrl[1] = force;
  const rel = noslip ? NOSLIP_SETTLE_REL : SETTLE_REL;
  const abs = noslip ? NOSLIP_SETTLE_ABS : 0;
  let prev = d.qvel[2], settled = 0, k;
  for (k = 1; k <= SETTLE_MAX && settled < SETTLE_RUN; k++) {
    mujoco.mj_step(m, d);
    const v = d.qvel[2];
    settled = Math.abs(v - prev) <= rel * Math.abs(prev) + abs ? settled + 1 : 0;
    prev = v;
  }
  out.push(line, objectLine, padLine);
  out.push(`traj ${stride} ${z.map(g17).join(' ')}`);
  out.push(`pads ${stride} ${q.map(g17).join(' ')}`);
  out.push(`creep ${settled >= SETTLE_RUN ? 1 : 0} ${g17(-d.qvel[2])} ${k - 1}`);
  out.push('end');
  kept++;
  d.delete();
  m.delete();
});
process.stderr.write(`${kept} of ${scenes} scenes kept\n`);
