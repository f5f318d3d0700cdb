// mjref_js.mjs: rerun the scenes of a MuJoCo reference table in npm's mujoco-js
// (the official WebAssembly build) and write a table of the same format.
//
//   node mjref_js.mjs IN_TABLE > OUT_TABLE      (with mujoco-js installed beside it)
//
// The scene and probe inputs are copied from IN_TABLE token for token; every answer
// is recomputed here, with the same definitions as mjref_gen.c (tests/mjref/README.md).
import loadMujoco from 'mujoco-js';
import { rerunTable } from './mjref_js_table.mjs';

const JITTER_WINDOW = 0.5;
const SAMPLES = 16;

// C's %.13g (the tables' answer format), so both generators' tables read alike
function g13(x) {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  if (!Number.isFinite(x)) return String(x);
  const exp = Math.floor(Math.log10(Math.abs(x)));
  let s;
  if (exp < -4 || exp >= 13) {
    s = x.toExponential(12);
    let [mant, e] = s.split('e');
    if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
    const sign = e[0] === '-' ? '-' : '+';
    const digits = e.replace(/^[+-]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  s = x.toPrecision(13);
  if (s.includes('e')) return g13(Number(s)); // toPrecision rounding moved the exponent
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

function g3(x) {
  if (x === 0) return '0';
  const s = x.toExponential(2);
  let [mant, e] = s.split('e');
  mant = mant.replace(/0+$/, '').replace(/\.$/, '');
  const exp = Number(e);
  if (exp < -4 || exp >= 3) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(Number(x.toPrecision(3)));
}

function geomXml(t) {
  // t: tokens after the tag: solref(2) solimp(5) condim friction(3) margin gap solmix priority
  return ` solref="${t[0]} ${t[1]}" solimp="${t[2]} ${t[3]} ${t[4]} ${t[5]} ${t[6]}" condim="${t[7]}"` +
    ` friction="${t[8]} ${t[9]} ${t[10]}" margin="${t[11]}" gap="${t[12]}" solmix="${t[13]}"` +
    ` priority="${t[14]}"`;
}

function offAxis(d) {
  const q = d.qpos, v = d.qvel;
  let worst = 0;
  for (let i = 0; i < 2; i++) worst = Math.max(worst, Math.abs(q[i]), Math.abs(v[i]));
  worst = Math.max(worst, Math.abs(q[3] - 1));
  for (let i = 4; i < 7; i++) worst = Math.max(worst, Math.abs(q[i]));
  for (let i = 3; i < 6; i++) worst = Math.max(worst, Math.abs(v[i]));
  return worst;
}

const mujoco = await loadMujoco();
mujoco.FS.mkdir('/mjref');
rerunTable(process.argv[2], 'contactd MuJoCo reference table, format 2', 'mjref_js', mujoco,
  (block, out) => {
  const line = block[0];
  const sc = line.split(' ');
  const geom = block[1].split(' ').slice(1);
  const floor = block[2].split(' ').slice(1);
  const probes = block.slice(3).filter((l) => l.startsWith('probe ')).map((l) => l.split(' '));

  const [, , shape, sx, sy, sz, mass, timestep, refsafe, impratio, gravity, height, stepsTok] = sc;
  const cone = sc[13] === 'elliptic' ? 'elliptic' : 'pyramidal'; // format 2: the cone ends the line
  const hh = Number(sz);
  const steps = Number(stepsTok);
  const h = Number(timestep);
  const xml = `<mujoco>\n <option timestep="${timestep}" gravity="0 0 ${-Number(gravity)}" impratio="${impratio}" cone="${cone}">\n` +
    `  <flag refsafe="${refsafe === '1' ? 'enable' : 'disable'}"/>\n </option>\n <worldbody>\n` +
    `  <geom type="plane" size="1 1 .1"${geomXml(floor)}/>\n` +
    `  <body pos="0 0 ${Number(height) + hh}">\n   <freejoint/>\n` +
    (shape === 'box' ? `   <geom type="box" size="${sx} ${sy} ${sz}"` : `   <geom type="sphere" size="${sx}"`) +
    ` mass="${mass}"${geomXml(geom)}/>\n  </body>\n </worldbody>\n</mujoco>\n`;
  mujoco.FS.writeFile('/mjref/scene.xml', xml);
  const m = mujoco.MjModel.loadFromXML('/mjref/scene.xml');
  const d = new mujoco.MjData(m);

  out.push(line, `geom ${geom.join(' ')}`, `floor ${floor.join(' ')}`);
  for (const p of probes) {
    mujoco.mj_resetData(m, d);
    d.qpos[2] = Number(p[1]);
    d.qvel[2] = Number(p[2]);
    mujoco.mj_forward(m, d);
    let s = `probe ${p[1]} ${p[2]} ${d.ncon} ${d.nefc}`;
    if (d.ncon > 0) {
      const c = d.contact.get(0);
      s += ` ${g13(c.dist)} ${g13(c.includemargin)} ${c.exclude}`;
      c.delete();
    } else {
      s += ' 0 0 0';
    }
    if (d.nefc > 0) {
      const k = d.efc_KBIP;
      s += ` ${g13(d.efc_pos[0])} ${g13(d.efc_margin[0])} ${g13(k[0])} ${g13(k[1])} ${g13(k[2])}` +
        ` ${g13(d.efc_R[0])} ${g13(d.efc_aref[0])}`;
    } else {
      s += ' 0 0 0 0 0 0 0';
    }
    out.push(`${s} ${g13(d.qacc[2])}`);
  }

  mujoco.mj_resetData(m, d);
  const stride = Math.max(1, Math.ceil(steps / SAMPLES));
  const bottoms = [];
  let peak = -Infinity, maxh = -Infinity, rebound = 0, worst = 0, touched = false;
  let bottom = Number(height);
  let traj = `traj ${stride}`;
  for (let k = 0; k < steps; k++) {
    mujoco.mj_step(m, d);
    const z = d.qpos[2];
    bottom = z - hh;
    bottoms.push(bottom);
    peak = Math.max(peak, -bottom);
    maxh = Math.max(maxh, bottom);
    if (touched && bottom > rebound) rebound = bottom;
    if (bottom < 0) touched = true;
    worst = Math.max(worst, offAxis(d));
    if ((k + 1) % stride === 0 || k + 1 === steps) traj += ` ${g13(z)}`;
  }
  out.push(traj);
  const window = Math.round(JITTER_WINDOW / h);
  const first = steps > window ? steps - window : 0;
  let mean = 0, vr = 0;
  for (let k = first; k < steps; k++) mean += bottoms[k];
  if (steps > first) mean /= steps - first;
  for (let k = first; k < steps; k++) vr += (bottoms[k] - mean) * (bottoms[k] - mean);
  if (steps > first) vr /= steps - first;
  out.push(`metrics ${g13(peak)} ${g13(rebound)} ${g13(maxh)} ${g13(Math.sqrt(vr))} ${g13(-bottom)} ${g3(worst)}`);
  out.push('end');
  d.delete();
  m.delete();
});
