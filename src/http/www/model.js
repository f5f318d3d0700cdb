/* model.js: the model page: a pasted MJCF file, or uploaded files (a main file and the
 * files it includes), sent to /v1/model; its pairs with their mixed parameters and
 * warnings, its bodies with their rests, and per pair links that open it as a rest
 * (a sweep of the rest over timeconst), a drop or a stability question (the stability
 * map around it), the pair's parameters filled in; and its grasps, each opened on the Hold
 * page as the hold question the model's values make (or why there is none). */
'use strict';

const $ = (id) => document.getElementById(id);

/* at most this many rows drawn (an answer holds up to 20,000 pairs) */
const MAX_ROWS = 2000;
const state = {files: null, last: null};

/* The main file of uploaded files: one no other file includes (else the first). */
function guessMain(files) {
	const names = Object.keys(files);
	const included = new Set();
	for (const text of Object.values(files))
		for (const m of text.matchAll(/<include\s+file\s*=\s*["']([^"']+)["']/g))
			included.add(m[1]);
	return names.find((n) => !included.has(n)) || names[0];
}

$('files').addEventListener('change', async () => {
	const chosen = [...$('files').files];
	const sel = $('main-file');
	sel.textContent = '';
	const pasted = document.createElement('option');
	pasted.value = '';
	pasted.textContent = 'pasted text';
	sel.appendChild(pasted);
	if (!chosen.length) {
		state.files = null;
		sel.disabled = true;
		return;
	}
	const files = {};
	for (const f of chosen)
		files[f.name] = await f.text();
	state.files = files;
	for (const name of Object.keys(files)) {
		const o = document.createElement('option');
		o.value = name;
		o.textContent = name;
		sel.appendChild(o);
	}
	sel.value = guessMain(files);
	sel.disabled = false;
	CD.status('status', chosen.length + ' file' + (chosen.length > 1 ? 's' : '') + ' read; main file ' +
	    sel.value + '. Read the model to see its pairs.');
});

function readRequest() {
	let req;
	if (state.files && $('main-file').value)
		req = {main: $('main-file').value, files: state.files};
	else {
		const xml = $('xml').value;
		if (!xml.trim())
			throw new Error('Paste an MJCF file or upload one');
		req = {main: 'model.xml', files: {'model.xml': xml}};
	}
	if ($('mujoco').value)
		req.mujoco = $('mujoco').value;
	return req;
}

/* ---- the questions a pair opens ---- */

function geomLabel(answer, id) {
	const g = answer.geoms[id];
	return (g.name ? g.name : 'geom ' + id) + ' (' + g.type + ')';
}

/* The body a pair's rest or drop is asked for: its sphere or box geom (one on a body
 * that has a rest first), the body's mass; a pair of other shapes keeps the API's
 * default body (said in the link's title). */
function bodyOf(answer, pair) {
	const ids = [pair.geom1, pair.geom2].filter((id) => answer.geoms[id].type !== 'plane');
	const shaped = ids.filter((id) => ['sphere', 'box'].includes(answer.geoms[id].type) && answer.geoms[id].size);
	const id = shaped.find((k) => { const b = answer.bodies[answer.geoms[k].body - 1]; return b && b.rest; }) ??
	    shaped[0];
	if (id === undefined)
		return {body: null, geom: null};
	const g = answer.geoms[id];
	const b = g.body > 0 ? answer.bodies[g.body - 1] : null;
	const mass = b && Number.isFinite(b.mass) && b.mass > 0 ? b.mass : Number.isFinite(g.mass) && g.mass > 0 ? g.mass : 1;
	return {body: {shape: g.type, size: g.type === 'sphere' ? g.size[0] : g.size.slice(), mass}, geom: id,
	    rest: b && b.rest && b.rest.pair === answer.pairs.indexOf(pair) ? b.rest : null};
}

/* The pair as a scene: its mixed parameters on the body's geom, which wins by priority;
 * the floor adds no margin or gap (the pair's are mixed already, in every release). */
function sceneOf(answer, pair) {
	const o = answer.option;
	const g = o.gravity;
	const gravity = g[0] === 0 && g[1] === 0 ? -g[2] : Math.hypot(g[0], g[1], g[2]);
	const {body, rest} = bodyOf(answer, pair);
	const scene = {
		geom: {solref: pair.solref.slice(), solimp: pair.solimp.slice(), condim: pair.condim,
		    friction: [pair.friction[0], pair.friction[2], pair.friction[3]], margin: pair.margin,
		    gap: pair.gap, priority: 1},
		floor: {margin: 0, gap: 0},
		option: {timestep: o.timestep, integrator: o.integrator, refsafe: o.refsafe, cone: o.cone,
		    impratio: o.impratio, gravity, mujoco: answer.mujoco},
	};
	if (body)
		scene.body = body;
	return {scene, height: rest ? rest.drop : 0.1, defaultBody: !body};
}

function links(answer, pair) {
	const {scene, height, defaultBody} = sceneOf(answer, pair);
	const tc = pair.solref[0];
	const direct = tc <= 0;
	const drop = Object.assign({}, scene, {height, duration: 2});
	const rest = Object.assign({}, scene, {duration: 2});
	const around = (x) => [direct ? x * 4 : x / 4, direct ? x / 4 : x * 4].map((v) => Number(v.toPrecision(6)));
	const [lo, hi] = around(tc);
	const h = answer.option.timestep;
	const stability = {solref: pair.solref.slice(), solimp: pair.solimp.slice(),
	    option: {timestep: h, refsafe: answer.option.refsafe, integrator: answer.option.integrator,
	        cone: answer.option.cone, mujoco: answer.mujoco}};
	const hash = (o) => new URLSearchParams(o).toString();
	return {
		rest: 'sweep.html#' + hash({query: 'rest', base: JSON.stringify(rest), mujoco: answer.mujoco, path1: '/geom/solref/0',
		    from1: lo, to1: hi, count1: 12, log1: direct ? '0' : '1', use2: '0'}),
		drop: 'drop.html#' + hash({request: JSON.stringify(drop)}),
		stability: 'sweep.html#' + hash({query: 'stability', base: JSON.stringify(stability), mujoco: answer.mujoco,
		    path1: '/solref/0', from1: direct ? lo : Math.min(lo, h / 2), to1: hi, count1: 12, log1: direct ? '0' : '1',
		    use2: direct ? '0' : '1', path2: '/solref/1', from2: 0.05, to2: 2, count2: 12, log2: '1'}),
		note: defaultBody ? 'neither geom is a sphere or a box: the API\'s default body' : '',
	};
}

/* ---- drawing ---- */

function cell(tr, text, cls) {
	const td = tr.insertCell();
	td.textContent = text;
	if (cls)
		td.className = cls;
	return td;
}

function drawPairs(answer) {
	const table = $('pairs');
	table.textContent = '';
	const columns = ['#', 'geom1', 'geom2', 'condim', 'friction', 'solref', 'solimp (d0, dmax, width)', 'margin (m)',
	    'gap (m)', 'timeconst used (s)', 'growth per step', 'warnings', 'open as'];
	const head = table.createTHead().insertRow();
	for (const c of columns) {
		const th = document.createElement('th');
		th.scope = 'col';
		th.textContent = c;
		if (['geom1', 'geom2', 'warnings', 'open as'].includes(c))
			th.className = 'text';
		head.appendChild(th);
	}
	const body = table.createTBody();
	const only = $('only-warned').checked;
	let drawn = 0;
	answer.pairs.forEach((p, i) => {
		if ((only && !p.warnings.length) || drawn >= MAX_ROWS)
			return;
		drawn++;
		const tr = body.insertRow();
		tr.dataset.pair = String(i);
		cell(tr, String(i));
		cell(tr, geomLabel(answer, p.geom1), 'text');
		cell(tr, geomLabel(answer, p.geom2), 'text');
		cell(tr, String(p.condim));
		cell(tr, [p.friction[0], p.friction[2], p.friction[3]].map((v) => CD.fmt(v)).join(', '));
		cell(tr, p.solref.map((v) => CD.fmt(v)).join(', '));
		cell(tr, p.solimp.slice(0, 3).map((v) => CD.fmt(v)).join(', '));
		cell(tr, CD.fmt(p.margin));
		cell(tr, CD.fmt(p.gap));
		cell(tr, CD.fmt(p.timeconst_used));
		cell(tr, CD.fmt(p.growth));
		const w = cell(tr, '', 'warn');
		if (p.warnings.length) {
			const ul = document.createElement('ul');
			for (const x of p.warnings) {
				const li = document.createElement('li');
				li.dataset.code = x.code;
				li.textContent = x.code + ': ' + x.message + '. Fix: ' + x.fix + '.';
				ul.appendChild(li);
			}
			w.appendChild(ul);
		}
		const l = links(answer, p);
		const td = cell(tr, '', 'links text');
		for (const kind of ['rest', 'drop', 'stability']) {
			const a = document.createElement('a');
			a.href = l[kind];
			a.textContent = kind;
			a.className = 'open-' + kind;
			a.setAttribute('aria-label', 'pair ' + i + ' as a ' + kind + ' question');
			if (l.note && kind !== 'stability')
				a.title = l.note;
			td.appendChild(a);
		}
	});
	return drawn;
}

function drawBodies(answer) {
	const rows = answer.bodies.map((b) => [b.name || 'body ' + b.id, b.mass,
	    b.rest ? b.rest.penetration : null, b.rest ? b.rest.settled_penetration : null,
	    b.rest ? b.rest.drop : null, b.rest ? 'pair ' + b.rest.pair : b.why]);
	const table = $('bodies');
	table.textContent = '';
	const head = table.createTHead().insertRow();
	for (const c of ['body', 'mass (kg)', 'rest penetration (m)', 'after 2 s (m)', 'drop (m)', 'answer']) {
		const th = document.createElement('th');
		th.scope = 'col';
		th.textContent = c;
		head.appendChild(th);
	}
	const tb = table.createTBody();
	for (const r of rows) {
		const tr = tb.insertRow();
		r.forEach((v, k) => cell(tr, k === 0 || k === 5 ? String(v) : CD.fmt(v, 6), k === 0 || k === 5 ? 'text' : ''));
	}
}

/* ---- grasps: the hold questions the model's grasps are ---- */

/* The Hold page's address for a grasp's question: the question whole (the Hold page fills
 * its boxes from it, the shape, the size, the pads' joint and actuator, and its JSON box
 * with what the form lacks), the model's release, and the chart's axis: a servo is drawn
 * against impratio (a grip force is a motor's), a motor against its grip force around the
 * model's. */
function holdLink(answer, grasp) {
	const q = grasp.hold;
	const servo = q.pad.actuator && q.pad.actuator.type === 'position';
	const form = {question: JSON.stringify(q), mujoco: answer.mujoco};
	if (servo)
		Object.assign(form, {axis: 'impratio', from: 1, to: 100, logx: '1'});
	else
		Object.assign(form, {axis: 'grip_force', from: q.grip_force / 4, to: q.grip_force * 4, logx: '1'});
	return 'hold.html#' + new URLSearchParams(form).toString();
}

function drawGrasps(answer) {
	const list = $('grasps');
	list.textContent = '';
	const grasps = answer.grasps || [];
	$('grasps-none').hidden = grasps.length > 0;
	const name = (id) => (answer.bodies[id - 1] && answer.bodies[id - 1].name) || 'body ' + id;
	for (const g of grasps) {
		const li = document.createElement('li');
		li.dataset.object = String(g.object);
		const head = document.createElement('p');
		const pads = g.pads.filter((p) => p !== null).map(name);
		head.textContent = name(g.object) + (pads.length ? ' between ' + pads.join(' and ') : '') + ': ' +
		    (g.hold ? (g.exact ? 'the hold question exactly' : 'the nearest hold question') : 'no hold question');
		li.appendChild(head);
		const lines = [];
		if (g.why)
			lines.push(['why', g.why]);
		for (const d of g.differences)
			lines.push(['differs', d]);
		for (const n of g.notes)
			lines.push(['note', n]);
		if (g.refused)
			lines.push(['refused', 'POST /v1/hold refuses it today: ' + g.refused]);
		if (lines.length) {
			const ul = document.createElement('ul');
			for (const [kind, text] of lines) {
				const item = document.createElement('li');
				item.className = 'grasp-' + kind;
				item.textContent = kind + ': ' + text;
				ul.appendChild(item);
			}
			li.appendChild(ul);
		}
		if (g.hold) {
			const a = document.createElement('a');
			a.href = holdLink(answer, g);
			a.className = 'open-hold';
			a.textContent = 'open as a hold question';
			a.setAttribute('aria-label', 'the grasp of ' + name(g.object) + ' as a hold question');
			li.appendChild(a);
			const pre = document.createElement('pre');
			pre.className = 'grasp-request';
			pre.textContent = JSON.stringify(g.hold, null, 2);
			li.appendChild(pre);
		}
		list.appendChild(li);
	}
}

function draw() {
	const {answer} = state.last;
	const o = answer.option;
	const dl = $('option');
	dl.textContent = '';
	for (const [k, v] of [['MuJoCo release', answer.mujoco], ['timestep (s)', o.timestep], ['integrator', o.integrator],
	    ['cone', o.cone], ['impratio', o.impratio], ['refsafe', o.refsafe]]) {
		const dt = document.createElement('dt');
		dt.textContent = k;
		const dd = document.createElement('dd');
		dd.textContent = CD.fmt(v, 6);
		dl.append(dt, dd);
	}
	$('notes').hidden = !answer.notes.length;
	$('notes').textContent = answer.notes.join(' ');
	const drawn = drawPairs(answer);
	drawBodies(answer);
	drawGrasps(answer);
	const warned = answer.pairs.filter((p) => p.warnings.length).length;
	const rests = answer.bodies.filter((b) => b.rest).length;
	CD.status('status', answer.geoms.length + ' geoms, ' + answer.pairs.length + ' pairs (' + warned +
	    ' with warnings), ' + rests + ' rest' + (rests === 1 ? '' : 's') + ' answered, as MuJoCo ' + answer.mujoco +
	    (drawn < (($('only-warned').checked ? warned : answer.pairs.length)) ? '; the first ' + drawn + ' shown' : ''), 'ok');
}

const run = CD.runner('status', readRequest, async (req, current) => {
	$('request').textContent = JSON.stringify(req, null, 2);
	CD.status('status', 'Reading the model…');
	const answer = await CD.api('v1/model', req);
	if (!current())
		return;
	state.last = {request: req, answer};
	window.contactd.answers.model = state.last;
	draw();
});

$('form').addEventListener('submit', (e) => {
	e.preventDefault();
	run();
});
$('only-warned').addEventListener('change', () => {
	if (state.last)
		draw();
});

(async () => {
	await CD.releases(['mujoco'], [null]);
	window.contactd.answers.modelReady = true;
})();
