// mjref_js_model.mjs: what the official MuJoCo WebAssembly builds (npm's @mujoco/mujoco,
// the aliases mj3120, mj3130, mj3140 of package.json) compile and collide for the MJCF
// files of tests/fixtures/mjcf/, written as a table tests/test_model_wasm reads.
//
//   node mjref_js_model.mjs VERSION DIR FILE... > TABLE     (VERSION 3.12.0, 3.13.0, 3.14.0)
//
// Per file: every geom's contact fields and size (m.geom_*), every body's mass, the pairs
// MuJoCo's collision pipeline lets through its filters with the parameters it gives
// their contacts, and every body's height after MODEL_REST_DURATION (2 s) of the whole
// model stepped from its initial state.
//
// The pairs: every geom's, pair's and body's margin is raised by PAD (the files span
// less than PAD), and every geom but a plane is made a sphere of its bounding radius
// before one mj_kinematics + mj_collision, so each pair the filters (contype/conaffinity,
// weld bodies, the parent filter, <exclude>, <pair>) let through reports a contact. The
// spheres matter: 3.x's box-box collider reports no contact for two boxes apart along
// more than one of its axes whatever the margin (the 61 box-box pairs of the SO-101 scene
// a margin-only probe misses: docs/releases.md). The contact parameters do not depend on
// the geom type; the pair's geom order does (MuJoCo's order is by type), so a pair is
// printed as its contact has it and the reader matches either order.
// Every number is printed shortest round-trip (JavaScript's String), read back exactly.
import fs from 'fs';
import path from 'path';

const PAD = 20;
const DURATION = 2;
const [version, dir, ...files] = process.argv.slice(2);
const alias = { '3.12.0': 'mj3120', '3.13.0': 'mj3130', '3.14.0': 'mj3140' }[version];
if (!alias || !dir || !files.length) {
  console.error('usage: node mjref_js_model.mjs 3.12.0|3.13.0|3.14.0 DIR FILE...');
  process.exit(2);
}
const M = await (await import(alias)).default();
if (M.mj_versionString() !== version) {
  console.error(`${alias} is MuJoCo ${M.mj_versionString()}, not ${version}`);
  process.exit(2);
}
// the files (and what they include) in MuJoCo's virtual file system
M.FS.mkdir('/mjcf');
for (const f of fs.readdirSync(dir))
  if (f.endsWith('.xml')) M.FS.writeFile('/mjcf/' + f, fs.readFileSync(path.join(dir, f), 'utf8'));

const arr = (a, i, n) => Array.from({ length: n }, (_, k) => a[n * i + k]);
const out = ['# contactd MuJoCo model reference table, format 1', `mujoco ${version}`,
  `generator mjref_js_model pad ${PAD} duration ${DURATION}`];
for (const file of files) {
  const m = M.MjModel.from_xml_path('/mjcf/' + file);
  out.push(`file ${file} ngeom ${m.ngeom} nbody ${m.nbody} timestep ${m.opt.timestep}`);
  for (let g = 0; g < m.ngeom; g++)
    out.push(['geom', g, m.geom_type[g], m.geom_bodyid[g], m.geom_condim[g], m.geom_contype[g],
      m.geom_conaffinity[g], m.geom_priority[g], m.geom_solmix[g], ...arr(m.geom_solref, g, 2),
      ...arr(m.geom_solimp, g, 5), ...arr(m.geom_friction, g, 3), m.geom_margin[g], m.geom_gap[g],
      ...arr(m.geom_size, g, 3)].join(' '));
  // the whole model's run
  const d = new M.MjData(m);
  const steps = Math.round(DURATION / m.opt.timestep);
  for (let s = 0; s < steps; s++) M.mj_step(m, d);
  for (let b = 0; b < m.nbody; b++)
    out.push(['body', b, m.body_mass[b], d.xpos[3 * b + 2]].join(' '));
  d.delete();
  // the pairs
  for (let g = 0; g < m.ngeom; g++) {
    m.geom_margin[g] += PAD;
    if (m.geom_type[g] !== 0) m.geom_type[g] = 2, m.geom_size[3 * g] = m.geom_rbound[g];
  }
  for (let k = 0; k < m.npair; k++) m.pair_margin[k] += PAD;
  for (let b = 0; b < m.nbody; b++) m.body_margin[b] += PAD;
  const dp = new M.MjData(m);
  M.mj_kinematics(m, dp);
  M.mj_collision(m, dp);
  const seen = new Set();
  for (let i = 0; i < dp.ncon; i++) {
    const c = dp.contact.get(i);
    const key = `${c.geom1} ${c.geom2}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(['pair', c.geom1, c.geom2, c.dim, ...arr(c.friction, 0, 5), ...arr(c.solref, 0, 2),
        ...arr(c.solreffriction, 0, 2), ...arr(c.solimp, 0, 5), c.includemargin].join(' '));
    }
    c.delete();
  }
  out.push('end');
  dp.delete();
  m.delete();
}
console.log(out.join('\n'));
