// hold_scene.mjs: hold_scene.h's random hold scenes ported to JavaScript for
// mjref_js_hold_gen.mjs: the same splitmix64 sequence (in BigInt) and the same draws in
// the same order. V8's Math.exp and Math.log may differ from glibc's in the last bit, so
// a draw can differ from the C one in its last bit: a table's scenes are the numbers it
// prints, which test_hold reads back, not the seed.
const M64 = (1n << 64n) - 1n;

export const TABLE = 0, LIVE = 1, WIDE = 2;

export function rng(seed) {
  return { s: BigInt.asUintN(64, BigInt(seed)) };
}

export function uniform(r, lo, hi) {
  r.s = (r.s + 0x9E3779B97F4A7C15n) & M64;
  let z = r.s;
  z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
  z ^= z >> 31n;
  return lo + (hi - lo) * (Number(z >> 11n) / 9007199254740992.0);
}

export const logUniform = (r, lo, hi) => Math.exp(uniform(r, Math.log(lo), Math.log(hi)));

export function pick(r, n) {
  const k = Math.trunc(uniform(r, 0, n));
  return k < n ? k : n - 1;
}

export const geomDefault = () => ({
  solref: [0.02, 1], solimp: [0.9, 0.95, 0.001, 0.5, 2], condim: 3,
  friction: [1, 0.005, 0.0001], margin: 0, gap: 0, solmix: 1, priority: 0,
});

// hold_scene_draw_geoms: the object's and the pads' contact parameters
export function drawGeoms(r, rules) {
  const condims = [3, 4, 6];
  const object = geomDefault();
  const g = geomDefault();
  if (uniform(r, 0, 1) < 0.8) {
    g.solref[0] = logUniform(r, 0.002, 0.05);
    g.solref[1] = uniform(r, rules === WIDE ? 0.2 : 0.5, 2);
  } else {
    g.solref[0] = -logUniform(r, 1e3, 1e5);
    g.solref[1] = -logUniform(r, 10, 300);
  }
  g.solimp[0] = uniform(r, 0.5, 0.95);
  g.solimp[1] = uniform(r, g.solimp[0], 0.99);
  g.solimp[2] = logUniform(r, 1e-4, 0.01);
  g.solimp[3] = uniform(r, 0.1, 0.9);
  g.solimp[4] = uniform(r, 1, 4);
  g.condim = condims[pick(r, 3)];
  g.friction[0] = uniform(r, 0.3, 1.5);
  g.friction[1] = logUniform(r, 1e-4, 0.02);
  g.friction[2] = logUniform(r, 1e-5, 1e-3);
  if (uniform(r, 0, 1) < 0.5) {
    g.priority = 1;
  } else {
    g.solmix = logUniform(r, 0.2, 5);
    object.solmix = logUniform(r, 0.2, 5);
    object.condim = condims[pick(r, 3)];
    object.friction[0] = uniform(r, 0.3, 1.5);
    if (g.solref[0] > 0) {
      object.solref[0] = logUniform(r, 0.002, 0.05);
      object.solref[1] = uniform(r, 0.5, 2);
    }
  }
  if (rules !== TABLE && uniform(r, 0, 1) < 0.2) {
    g.margin = uniform(r, 0, 0.002);
    g.gap = uniform(r, 0, 1) < 0.5 ? uniform(r, 0, g.margin) : 0;
  }
  return { object, pad: g };
}

// hold_scene_draw_pads: [half-sizes, mass]
export const drawPads = (r) =>
  [[uniform(r, 0.003, 0.01), uniform(r, 0.01, 0.03), uniform(r, 0.1, 0.3)],
    logUniform(r, 0.02, 0.2)];

// hold_scene_slide: the contact's sliding friction
export const slide = (object, pad) => pad.priority > object.priority ? pad.friction[0]
  : Math.max(pad.friction[0], object.friction[0]);

// hold_scene_draw: the fields of struct hold_scene
export function draw(r, rules) {
  const s = { noslip: 0, implicit: 0, discrete: 0 };
  s.radius = uniform(r, 0.01, 0.04);
  s.mass = logUniform(r, 0.03, 0.5);
  Object.assign(s, drawGeoms(r, rules));
  [s.padSize, s.padMass] = drawPads(r);
  s.timestep = uniform(r, 0.001, 0.005);
  s.gravity = 9.81;
  s.impratio = uniform(r, 0, 1) < 0.3 ? 1 : uniform(r, 1, 10);
  s.elliptic = (uniform(r, 0, 1) < 0.5) === (rules !== LIVE);
  if (rules === LIVE) s.implicit = uniform(r, 0, 1) >= 0.75 ? 1 : 0;
  s.grip = s.mass * s.gravity / (2 * slide(s.object, s.pad)) *
    logUniform(r, rules === WIDE ? 1.1 : 2, 50);
  s.duration = 0.5;
  return s;
}

// hold_scene_noslip: 1-10
export const noslip = (r) => 1 + pick(r, 10);

// C's %.17g: P significant digits, exponent form when the rounded exponent is < -4 or
// >= P, trailing zeros dropped. toExponential and toFixed round the exact binary value.
export function g17(x) {
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

// One geom's record fields (the tables' "object" and "pad" lines) and MJCF attributes.
export const geomFields = (g) => [g.solref[0], g.solref[1], ...g.solimp].map(g17).join(' ') +
  ` ${g.condim} ` + [...g.friction, g.margin, g.gap, g.solmix].map(g17).join(' ') +
  ` ${g.priority}`;

export const geomXml = (g) => ` solref="${g17(g.solref[0])} ${g17(g.solref[1])}"` +
  ` solimp="${g.solimp.map(g17).join(' ')}" condim="${g.condim}"` +
  ` friction="${g.friction.map(g17).join(' ')}" margin="${g17(g.margin)}"` +
  ` gap="${g17(g.gap)}" solmix="${g17(g.solmix)}" priority="${g.priority}"`;

// discrete: whether refsafe replaced one of the step's contact rows. Its efc_KBIP is then
// K' = 1/(h^2 imp) (docs/hold.md), so h^2 K imp is 1 to rounding; a row MuJoCo keeps has
// h^2 K imp < 1, and an elliptic friction row K = 0. The margin 1e-9 is far above the
// few ulps of that product and far below any kept row's distance from 1 in these draws.
export function replacedRow(m, d) {
  const kbip = d.efc_KBIP, h = m.opt.timestep;
  for (let i = 0; i < d.nefc; i++) {
    const K = kbip[4 * i], imp = kbip[4 * i + 2];
    if (K > 0 && Math.abs(h * h * K * imp - 1) < 1e-9) return true;
  }
  return false;
}

// The tables' creep: step the scene on tall pads (model m, data d of module M) until the
// object's speed settles (changes by <= 1e-11 relative per step for 50 steps; with noslip
// 1e-9 relative + 1e-15 m/s), at most 20000 steps. A slow mode passes the per-step test
// early (a speed 1.8e-6 short of its limit was seen "settled" at step 59): step on to
// 4000 steps (or ten times as far), and call it settled when the last 50 steps pass the
// test again. regular(d), when given, must hold at every step (the scene is still the one
// the table describes), else the run stops unsettled. Returns [settled 0|1, -qvel[2],
// steps run].
export function settleCreep(M, m, d, noslip, regular) {
  const MAX = 20000, REL = noslip ? 1e-9 : 1e-11, ABS = noslip ? 1e-15 : 0, RUN = 50;
  let prev = d.qvel[2], settled = 0, k, ok = true;
  const step = () => {
    M.mj_step(m, d);
    const v = d.qvel[2];
    settled = Math.abs(v - prev) <= REL * Math.abs(prev) + ABS ? settled + 1 : 0;
    prev = v;
    if (regular && !regular(d)) ok = false;
  };
  for (k = 1; k <= MAX && settled < RUN && ok; k++) step();
  const end = settled >= RUN && ok ? Math.min(MAX, Math.max(4000, 10 * k)) : 0;
  for (; k <= end && ok; k++) step();
  return [settled >= RUN && ok ? 1 : 0, -d.qvel[2], k - 1];
}
