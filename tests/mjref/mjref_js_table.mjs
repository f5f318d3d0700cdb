// mjref_js_table.mjs: what mjref_js.mjs and mjref_js_hold.mjs share. Read a reference
// table, write the new table's title and release, pass its generator line on (marked
// as rerun), and hand each scene block (its lines from `scene` up to, not with, `end`)
// to rerun(block, out), which pushes the scene's new lines onto out, or none to drop it.
import fs from 'node:fs';

export function rerunTable(path, title, rerunBy, mujoco, rerun) {
  const lines = fs.readFileSync(path, 'utf8').split('\n');
  const out = [`# ${title}`, `mujoco ${mujoco.mj_versionString()}`];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith('generator ')) {
      out.push(`${line} rerun-by ${rerunBy}`);
      i++;
      continue;
    }
    if (!line.startsWith('scene ')) {
      i++;
      continue;
    }
    let j = i + 1;
    while (lines[j] !== 'end') j++;
    rerun(lines.slice(i, j), out);
    i = j + 1;
  }
  process.stdout.write(out.join('\n') + '\n');
}
