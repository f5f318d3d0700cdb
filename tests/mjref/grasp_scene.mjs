// grasp_scene.mjs: grasp_scene.h's random grasp scenes ported to JavaScript for
// mjref_js_grasp_gen.mjs: the same splitmix64 sequence and the same draws in the same
// order (hold_scene.mjs's, which it reuses). As there, V8's Math.exp and Math.log may
// differ from glibc's in a draw's last bit: a table's scenes are the numbers it prints.
import { uniform, logUniform, pick, drawGeoms, drawPads, slide, noslip, WIDE } from
  './hold_scene.mjs';

export const SHAPES = ['sphere', 'capsule', 'box'];
export const INTEGRATORS = ['Euler', 'implicit', 'implicitfast', 'discrete'];

// grasp_scene_maybe: 0 half the time, else log-uniform
const maybe = (r, lo, hi) => uniform(r, 0, 1) < 0.5 ? 0 : logUniform(r, lo, hi);

// grasp_scene_draw: the fields of struct grasp_scene; integrators as there (2, 3 or 4)
export function draw(r, integrators) {
  const s = { size: [0, 0, 0], position: 0, grip: 0, kp: 0, kv: 0, squeeze: 0,
    forcelimited: 0, forcerange: [0, 0], noslip: 0 };
  s.shape = pick(r, 3);
  s.size[0] = uniform(r, 0.004, 0.03);
  if (s.shape === 1) {
    s.size[1] = uniform(r, 0.005, 0.04);
  } else if (s.shape === 2) {
    s.size = [uniform(r, 0.005, 0.02), uniform(r, 0.005, 0.02), uniform(r, 0.005, 0.02)];
  }
  s.mass = logUniform(r, 0.02, 0.3);
  Object.assign(s, drawGeoms(r, WIDE));
  [s.padSize, s.padMass] = drawPads(r);
  s.damping = maybe(r, 0.1, 200);
  s.armature = maybe(r, 0.001, 0.05);
  s.frictionloss = maybe(r, 0.01, 2);
  s.gravity = 9.81;
  if (uniform(r, 0, 1) < 0.5) {
    s.grip = s.mass * s.gravity / (2 * slide(s.object, s.pad)) * logUniform(r, 1.1, 50);
  } else {
    s.position = 1;
    s.kp = logUniform(r, 200, 5e4);
    s.kv = maybe(r, 0.1, 20);
    s.squeeze = uniform(r, 0.0005, 0.005);
    if (uniform(r, 0, 1) < 1.0 / 3) {
      s.forcelimited = 1;
      s.forcerange[1] = uniform(r, 0.5, 30);
      s.forcerange[0] = -s.forcerange[1];
    }
  }
  s.integrator = pick(r, integrators);
  s.elliptic = uniform(r, 0, 1) < 0.5 ? 1 : 0;
  s.impratio = uniform(r, 0, 1) < 0.3 ? 1 : uniform(r, 1, 10);
  s.timestep = uniform(r, 0.001, 0.005);
  if (uniform(r, 0, 1) < 0.2) s.noslip = noslip(r);
  s.duration = 1;
  return s;
}

// grasp_scene_asym: the asymmetric step's scenes, a draw made a sphere with noslip 1-10
// ('n') or a touching start without margin or gap ('o')
export function asym(s, r, cls) {
  s.shape = 0;
  s.size[1] = 0;
  s.size[2] = 0;
  if (cls === 'n') {
    s.noslip = noslip(r);
    return;
  }
  s.noslip = 0;
  s.object.margin = 0;
  s.object.gap = 0;
  s.pad.margin = 0;
  s.pad.gap = 0;
}
