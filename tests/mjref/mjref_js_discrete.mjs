// mjref_js_discrete.mjs: random rest, drop and stability scenes under the Euler,
// implicitfast and discrete integrators, answered by the official MuJoCo WebAssembly
// builds (npm's @mujoco/mujoco, installed under tests/mjref by `npm ci` as the aliases
// mj3120, mj3130, mj3140), written as a table tests/test_mjref_discrete reads.
//
//   node mjref_js_discrete.mjs VERSION SEED SCENES > TABLE     (VERSION 3.12.0, 3.13.0, 3.14.0)
//
// The scenes depend on SEED and SCENES only (the same scenes for every release; under
// 3.12.0, which has no discrete integrator, those scenes are stepped with Euler and say
// so). Format (tests/mjref/README.md): per scene a `scene` line (its inputs), then for a
// drop (`rest` is a drop from height 0) `samples` (per sampled step: its index, MuJoCo's
// centre height, vertical speed and qacc_warmstart before it and height and speed after
// it) and `metrics` (peak penetration, rebound, max height, final penetration, as sim.c
// defines them, and the number of impacts), for a stability scene `growth` (the spectral radius of the
// numerical Jacobian of one mj_step about the resting state), then `end`.
// Every number is printed shortest round-trip (JavaScript's String), read back exactly.
const [version, seedArg = '1', countArg = '60'] = process.argv.slice(2);
const alias = { '3.12.0': 'mj3120', '3.13.0': 'mj3130', '3.14.0': 'mj3140' }[version];
if (!alias) {
  console.error('usage: node mjref_js_discrete.mjs 3.12.0|3.13.0|3.14.0 SEED SCENES');
  process.exit(2);
}
const M = await (await import(alias)).default();
if (M.mj_versionString() !== version) {
  console.error(`${alias} is MuJoCo ${M.mj_versionString()}, not ${version}`);
  process.exit(2);
}
const hasDiscrete = version !== '3.12.0';

// a 31-bit LCG: the same scenes in every run and every release
let rng = Number(seedArg);
const rnd = () => (rng = (rng * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (a) => a[Math.floor(rnd() * a.length)];
const round = (x, digits) => Number(x.toPrecision(digits));

function sceneXml(s) {
  const geom = (margin) => ` solref="${s.solref[0]} ${s.solref[1]}" solimp="${s.solimp.join(' ')}"` +
    ` condim="${s.condim}" friction="${s.f0} 0.005 0.0001" margin="${margin}"`;
  const half = s.shape === 'box' ? s.size[2] : s.size[0];
  return `<mujoco>\n <option timestep="${s.h}" integrator="${s.integrator}" gravity="0 0 -9.81"` +
    ` impratio="${s.impratio}" cone="${s.cone}">\n` +
    `  <flag refsafe="${s.refsafe ? 'enable' : 'disable'}"/>\n </option>\n <worldbody>\n` +
    `  <geom type="plane" size="1 1 .1"${geom(s.marginFloor)}/>\n` +
    `  <body pos="0 0 ${s.height + half}">\n   <freejoint/>\n` +
    (s.shape === 'box' ? `   <geom type="box" size="${s.size.join(' ')}"` : `   <geom type="sphere" size="${s.size[0]}"`) +
    ` mass="${s.mass}"${geom(s.marginBody)}/>\n  </body>\n </worldbody>\n</mujoco>\n`;
}

function sceneLine(i, kind, s) {
  return ['scene', i, kind, s.shape, ...s.size, s.mass, s.h, s.integrator, s.refsafe ? 1 : 0, s.impratio,
    s.cone, s.condim, s.f0, ...s.solref, ...s.solimp, s.marginBody, s.marginFloor, s.height, s.steps].join(' ');
}

// a rest or drop scene: timeconst from h/10 to 20h, refsafe on or off
function randomDrop(kind) {
  const shape = pick(['sphere', 'box']);
  const h = pick([0.001, 0.002, 0.004]);
  const integrator = pick(['discrete', 'discrete', 'Euler', 'implicitfast']);
  const tc = round(h * Math.exp(Math.log(0.1) + rnd() * Math.log(200)), 4);
  const dr = round(0.05 + 1.95 * rnd(), 3);
  const solimp = rnd() < 0.5 ? [0.9, 0.95, 0.001, 0.5, 2]
    : (() => {
      const d0 = round(0.3 + 0.6 * rnd(), 3);
      return [d0, round(Math.min(0.99, d0 + rnd() * (0.99 - d0)), 3), round(0.0002 + 0.005 * rnd(), 3),
        round(0.1 + 0.8 * rnd(), 3), pick([1, 2, 2, 3])];
    })();
  const size = shape === 'sphere' ? [round(0.02 + 0.06 * rnd(), 3), 0, 0]
    : [round(0.02 + 0.06 * rnd(), 3), round(0.02 + 0.06 * rnd(), 3), round(0.02 + 0.06 * rnd(), 3)];
  const condim = shape === 'sphere' && rnd() < 0.5 ? 1 : pick([1, 3, 4]);
  return {
    shape, size, h, integrator, solimp, condim,
    solref: [tc, dr],
    refsafe: rnd() < 0.5,
    impratio: rnd() < 0.7 ? 1 : round(0.5 + 4 * rnd(), 3),
    cone: rnd() < 0.25 ? 'elliptic' : 'pyramidal',
    f0: round(0.5 + rnd(), 3),
    mass: round(0.2 + 2 * rnd(), 3),
    marginBody: rnd() < 0.7 ? 0 : round(0.003 * rnd(), 3),
    marginFloor: 0,
    height: kind === 'rest' ? 0 : round(0.1 * rnd(), 3),
    steps: Math.round(pick([0.5, 1]) / h),
  };
}

// a stability scene: the core's stability answer is for one frictionless row of unit
// inverse weight at a constant impedance, so a 1 kg condim-1 sphere with flat solimp
function randomStability() {
  const h = pick([0.001, 0.002, 0.004]);
  const d = round(0.5 + 0.49 * rnd(), 3);
  return {
    shape: 'sphere', size: [0.05, 0, 0], h, integrator: pick(['discrete', 'discrete', 'Euler']),
    solimp: [d, d, 0.001, 0.5, 2], condim: 1,
    solref: [round(h * Math.exp(Math.log(0.1) + rnd() * Math.log(100)), 4), round(0.05 + 1.95 * rnd(), 3)],
    refsafe: rnd() < 0.5, impratio: 1, cone: 'pyramidal', f0: 1, mass: 1, marginBody: 0, marginFloor: 0,
    height: 0, steps: 3000,
  };
}

function radius2(a, b, c, dd) {
  const ht = 0.5 * (a + dd), det = a * dd - b * c, disc = ht * ht - det;
  if (disc >= 0) { const q = Math.sqrt(disc); return [Math.max(Math.abs(ht + q), Math.abs(ht - q)), disc / (ht * ht)]; }
  return [Math.sqrt(det), disc / (ht * ht)];
}

const JITTER_SAMPLES = 16;
const out = [];
out.push('# contactd MuJoCo discrete reference table, format 1');
out.push(`mujoco ${version}`);
out.push(`generator mjref_js_discrete seed ${seedArg} scenes ${countArg}`);
for (let i = 0; i < Number(countArg); i++) {
  const kind = pick(['rest', 'drop', 'drop', 'stab']);
  const s = kind === 'stab' ? randomStability() : randomDrop(kind);
  if (!hasDiscrete && s.integrator === 'discrete') s.integrator = 'Euler';
  const m = M.MjModel.from_xml_string(sceneXml(s));
  const d = new M.MjData(m);
  if (kind === 'stab') {
    for (let k = 0; k < s.steps; k++) M.mj_step(m, d);
    const z0 = d.qpos[2], v0 = d.qvel[2], pen = s.size[0] - z0;
    // the step is affine while the row stays active and imp flat: deeper and faster down
    // keep it active, and a large perturbation keeps rounding small
    const f = (dz, dv) => {
      M.mj_resetData(m, d); d.qpos[2] = z0 + dz; d.qvel[2] = v0 + dv; M.mj_step(m, d);
      return [d.qpos[2], d.qvel[2]];
    };
    const e = -0.2 * pen, ev = e / s.h;
    const [zb, vb] = f(0, 0), [z1, v1] = f(e, 0), [z2, v2] = f(0, ev);
    const [g, disc] = radius2((z1 - zb) / e, (z2 - zb) / ev, (v1 - vb) / e, (v2 - vb) / ev);
    // near a double eigenvalue the radius is the square root of rounding: leave those out
    if (!(pen > 1e-7) || Math.abs(disc) < 1e-3 || !Number.isFinite(g)) { d.delete(); m.delete(); continue; }
    out.push(sceneLine(i, kind, s), `growth ${g}`, 'end');
  } else {
    const half = s.shape === 'box' ? s.size[2] : s.size[0];
    const every = Math.max(1, Math.floor(s.steps / JITTER_SAMPLES));
    let peak = -Infinity, maxh = -Infinity, rebound = 0, touched = false, bottom = s.height;
    let impacts = 0, inContact = false;
    const samples = [];
    for (let k = 0; k < s.steps; k++) {
      const sample = (k + 1) % every === 0 || k === s.steps - 1;
      const before = [d.qpos[2], d.qvel[2], d.qacc_warmstart[2]];
      M.mj_step(m, d);
      if (sample) samples.push(k, ...before, d.qpos[2], d.qvel[2]);
      if (d.ncon > 0 && !inContact) impacts++;
      inContact = d.ncon > 0;
      bottom = d.qpos[2] - half;
      if (-bottom > peak) peak = -bottom;
      if (bottom > maxh) maxh = bottom;
      if (touched && bottom > rebound) rebound = bottom;
      if (bottom < 0) touched = true;
    }
    out.push(sceneLine(i, kind, s), `samples ${samples.length / 6} ${samples.join(' ')}`,
      `metrics ${peak} ${rebound} ${maxh} ${-bottom} ${impacts}`, 'end');
  }
  d.delete();
  m.delete();
}
console.log(out.join('\n'));
