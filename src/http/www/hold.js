/* hold.js: the hold page: the creep of a pinched object (a sphere, a capsule or a box, on
 * pads driven by motors or position servos) against the grip force, the servo's squeeze or
 * impratio, one line per friction cone (pyramidal, elliptic), for one MuJoCo release
 * or two side by side. Each release is one /v1/sweep of the hold question over a grid
 * (the axis field x the cone); the lines are its rows. `holds` false (it slips past the
 * slip limit within the duration, or falls, as MuJoCo steps it) draws a hollow marker,
 * which the legend names. The form starts at the API's own defaults (HoldRequest's in
 * /v1/openapi.json: a second's run, not a copy that could drift from it), so each point
 * is what POST /v1/hold answers; a table gives each point's verdict, creep and
 * time_to_slip. The form lives in the URL; an address with a whole question (the Model
 * page's grasps) fills the form from it. A refused question shows the API's message at the
 * field it names. */
'use strict';

const $ = (id) => document.getElementById(id);

const formIds = ['axis', 'from', 'to', 'points', 'logx', 'shape', 'mass', 'size', 'size1', 'size2',
    'pad_hx', 'pad_hy', 'pad_hz', 'pad_mass', 'friction', 'timeconst', 'damping', 'armature', 'frictionloss',
    'actuator', 'grip_force', 'kp', 'kv', 'squeeze', 'force_lo', 'force_hi',
    'impratio', 'timestep', 'duration', 'mujoco', 'compare', 'extra'];
const cones = ['pyramidal', 'elliptic'];
const state = {runs: [], logY: false, defaults: null};

/* The form's fields that are HoldRequest fields: their pointers in the request, whose
 * defaults (the OpenAPI document's) fill the form when the address names none; [pointer,
 * i] is an array default's element i (else its first). A servo's kp and squeeze have no
 * default (a servo needs them), nor a capsule's or box's size. */
const apiFields = {shape: '/object/shape', mass: '/object/mass', size: '/object/size',
    pad_hx: ['/pad/size', 0], pad_hy: ['/pad/size', 1], pad_hz: ['/pad/size', 2], pad_mass: '/pad/mass',
    friction: '/pad/friction', timeconst: '/pad/solref', damping: '/pad/joint/damping',
    armature: '/pad/joint/armature', frictionloss: '/pad/joint/frictionloss', actuator: '/pad/actuator/type',
    grip_force: '/grip_force', impratio: '/option/impratio', timestep: '/option/timestep', duration: '/duration'};
const pointerOf = (f) => (Array.isArray(f) ? f[0] : f);

/* The size boxes' labels per shape: MJCF's size, in its order. */
const sizeLabels = {sphere: ['Object radius (m)'], capsule: ['Capsule radius (m)', 'Half-length (m)'],
    box: ['Half-size x (m)', 'Half-size y (m)', 'Half-size z (m)']};
const sizeIds = ['size', 'size1', 'size2'];
const jointKeys = ['damping', 'armature', 'frictionloss'];

/* The form's box of a request field (a refusal's pointer, the sweep's "/base" taken off). */
const fieldIds = {'/object/shape': 'shape', '/object/mass': 'mass', '/object/size': 'size', '/object/size/0': 'size',
    '/object/size/1': 'size1', '/object/size/2': 'size2', '/pad/size': 'pad_hx', '/pad/size/0': 'pad_hx',
    '/pad/size/1': 'pad_hy', '/pad/size/2': 'pad_hz', '/pad/mass': 'pad_mass', '/pad/friction/0': 'friction',
    '/pad/solref/0': 'timeconst', '/pad/joint/damping': 'damping', '/pad/joint/armature': 'armature',
    '/pad/joint/frictionloss': 'frictionloss', '/pad/actuator/type': 'actuator', '/grip_force': 'grip_force',
    '/pad/actuator/kp': 'kp', '/pad/actuator/kv': 'kv', '/pad/actuator/squeeze': 'squeeze',
    '/pad/actuator/forcerange': 'force_lo', '/pad/actuator/forcerange/0': 'force_lo',
    '/pad/actuator/forcerange/1': 'force_hi', '/option/impratio': 'impratio', '/option/timestep': 'timestep',
    '/duration': 'duration'};

/* The default of the field at pointer in the schema named root ($refs followed). */
function schemaDefault(doc, root, pointer) {
	let s = doc.components.schemas[root];
	for (const key of pointer.split('/').slice(1)) {
		while (s && s.$ref)
			s = doc.components.schemas[s.$ref.replace(/^.*\//, '')];
		s = s && s.properties ? s.properties[key] : undefined;
	}
	if (!s || s.default === undefined)
		throw new Error('the API description gives no default for HoldRequest ' + pointer);
	return s.default;
}

/* {id: default} of the form's API fields (an array's first element: the form has a box
 * for that one, the others are sent as the API's). */
function readDefaults(doc) {
	const out = {};
	for (const [id, field] of Object.entries(apiFields))
		out[id] = schemaDefault(doc, 'HoldRequest', pointerOf(field));
	return out;
}

/* The value of field (apiFields') in its default v. */
const defaultValue = (field, v) => (Array.isArray(v) ? v[Array.isArray(field) ? field[1] : 0] : v);

/* Show the boxes the shape and the actuator take, each size box labelled as the shape
 * reads it; the axis a drive lacks (a servo's squeeze, a motor's grip force) is not
 * offered, and an axis on it moves to the other drive's (unless keepAxis: the address's
 * axis and range stay as it names them). */
function showInputs(keepAxis) {
	const labels = sizeLabels[$('shape').value] || sizeLabels.sphere;
	$('size-label').textContent = labels[0];
	$('size1-label').textContent = labels[1] || '';
	$('size1-box').hidden = labels.length < 2;
	$('size2-box').hidden = labels.length < 3;
	const servo = $('actuator').value === 'position';
	$('motor-box').hidden = servo;
	$('servo-box').hidden = !servo;
	const axis = $('axis');
	axis.querySelector('option[value="grip_force"]').disabled = servo;
	axis.querySelector('option[value="squeeze"]').disabled = !servo;
	if (!keepAxis && axis.value === (servo ? 'grip_force' : 'squeeze')) {
		axis.value = servo ? 'squeeze' : 'grip_force';
		axisRange();
	}
}

/* The object's size as MJCF reads it: a sphere's radius a number (the canonical form's). */
function objectSize(shape) {
	const n = (sizeLabels[shape] || sizeLabels.sphere).length;
	const size = sizeIds.slice(0, n).map((id) => CD.number(id));
	return shape === 'sphere' ? size[0] : size;
}

/* The pads' joint, left out when plain (all 0), as the canonical request leaves it. */
function padJoint() {
	const joint = {};
	for (const k of jointKeys)
		joint[k] = CD.number(k);
	return jointKeys.some((k) => joint[k] !== 0) ? joint : undefined;
}

/* A position servo ({type, kp, kv, squeeze}, forcerange when a bound is typed); a motor,
 * the default, is left out. */
function padActuator() {
	if ($('actuator').value !== 'position')
		return undefined;
	const a = {type: 'position', kp: CD.number('kp'), kv: CD.number('kv'), squeeze: CD.number('squeeze')};
	if ($('force_lo').value.trim() !== '' || $('force_hi').value.trim() !== '')
		a.forcerange = [CD.number('force_lo'), CD.number('force_hi')];
	return a;
}

/* The hold request of the form's boxes, for one release (the JSON box not merged). */
function formRequest(release) {
	const option = {impratio: CD.number('impratio'), timestep: CD.number('timestep')};
	if (release)
		option.mujoco = release;
	const shape = $('shape').value;
	const pad = {size: ['pad_hx', 'pad_hy', 'pad_hz'].map((id) => CD.number(id)), mass: CD.number('pad_mass')};
	const joint = padJoint(), actuator = padActuator();
	if (joint)
		pad.joint = joint;
	if (actuator)
		pad.actuator = actuator;
	pad.solref = [CD.number('timeconst'), state.defaults.timeconst[1]];
	pad.friction = [CD.number('friction'), ...state.defaults.friction.slice(1)];
	const req = {object: {shape, size: objectSize(shape), mass: CD.number('mass')}, pad};
	if (!actuator)
		req.grip_force = CD.number('grip_force');
	return Object.assign(req, {option, duration: CD.number('duration')});
}

/* The hold request every point starts from, for one release: the form's, the JSON box
 * merged over it. */
function baseRequest(release) {
	const req = CD.merge(formRequest(release), CD.jsonObject('extra'));
	/* a position servo squeezes by its ctrl: a grip force is a motor's, which the API refuses */
	if (req.pad.actuator && req.pad.actuator.type === 'position')
		delete req.grip_force;
	return req;
}

/* What of q differs from mine: its members mine lacks or has otherwise, objects member by
 * member (so merged over mine it is q again, where q has a member). */
function unlike(q, mine) {
	const plain = (v) => v && typeof v === 'object' && !Array.isArray(v);
	const out = {};
	for (const [k, v] of Object.entries(q)) {
		if (plain(v) && plain(mine[k])) {
			const d = unlike(v, mine[k]);
			if (Object.keys(d).length)
				out[k] = d;
		} else if (JSON.stringify(v) !== JSON.stringify(mine[k])) {
			out[k] = v;
		}
	}
	return out;
}

/* Fill the form from a whole hold question q (the Model page's grasp): its boxes from
 * q's fields, the JSON box with the rest, what the form cannot say (the geoms' condim,
 * friction beyond sliding, the option's integrator...), so the page asks q. The cone is
 * what the chart varies, the release the release box's. */
function fillFromQuestion(q) {
	const o = q.object || {}, p = q.pad || {}, opt = q.option || {};
	const a = p.actuator || {type: 'motor'}, joint = p.joint || {};
	const size = o.size === undefined ? [] : [].concat(o.size);
	const set = (id, v) => {
		if (v !== undefined && v !== null)
			$(id).value = v;
	};
	set('shape', o.shape || 'sphere');
	sizeIds.forEach((id, i) => set(id, size[i]));
	set('mass', o.mass);
	['pad_hx', 'pad_hy', 'pad_hz'].forEach((id, i) => set(id, (p.size || [])[i]));
	set('pad_mass', p.mass);
	set('friction', (p.friction || [])[0]);
	set('timeconst', (p.solref || [])[0]);
	for (const k of jointKeys)
		set(k, joint[k] === undefined ? 0 : joint[k]);
	set('actuator', a.type || 'motor');
	set('kp', a.kp);
	set('kv', a.kv === undefined ? 0 : a.kv);
	set('squeeze', a.squeeze);
	set('force_lo', a.forcerange ? a.forcerange[0] : '');
	set('force_hi', a.forcerange ? a.forcerange[1] : '');
	set('grip_force', q.grip_force);
	set('impratio', opt.impratio);
	set('timestep', opt.timestep);
	set('duration', q.duration);
	if (opt.mujoco && [...$('mujoco').options].some((x) => x.value === opt.mujoco))
		$('mujoco').value = opt.mujoco;
	const mine = formRequest($('mujoco').value);
	const rest = unlike(q, mine);
	/* a sphere's [r] is its r */
	if (rest.object && Array.isArray(rest.object.size) && JSON.stringify(rest.object.size) === JSON.stringify([mine.object.size]))
		delete rest.object.size;
	if (rest.object && !Object.keys(rest.object).length)
		delete rest.object;
	if (rest.option) {
		delete rest.option.mujoco;
		delete rest.option.cone;
		if (!Object.keys(rest.option).length)
			delete rest.option;
	}
	$('extra').value = Object.keys(rest).length ? JSON.stringify(rest) : '';
}

/* A refused question (4xx naming a field): the API's message in the status line, with the
 * field's pointer in the hold request and the form's box that sets it, which is marked
 * invalid until the next run. */
function showRefusal(e) {
	const field = String(e.path || '').replace(/^\/base(?=\/|$)/, '');
	const id = fieldIds[field] || (field.startsWith('/vary') ? 'from' : field ? 'extra' : '');
	const where = field ? ' at ' + field + (id ? ' (the form\'s "' + $(id).labels[0].textContent.trim().replace(/\s+/g, ' ') +
	    '")' : '') : '';
	if (id)
		$(id).setAttribute('aria-invalid', 'true');
	window.contactd.answers.holdRefused = {status: e.status, path: field, message: e.message};
	CD.status('status', 'POST /v1/hold refuses this question (HTTP ' + e.status + ')' + where + ': ' + e.message, 'error');
}

/* The SO-101 pad (CD.so101): its solref, friction and option in the form, the rest in
 * the JSON box; the cone is what the chart varies. */
$('preset-so101').addEventListener('click', () => {
	$('timeconst').value = CD.so101.pad.solref[0];
	$('friction').value = CD.so101.pad.friction[0];
	$('timestep').value = CD.so101.option.timestep;
	$('impratio').value = CD.so101.option.impratio;
	$('extra').value = JSON.stringify({pad: {condim: CD.so101.pad.condim, priority: CD.so101.pad.priority}});
	run();
});

/* The sweep of one release: the axis field's values x both cones. */
function sweepRequest(release) {
	const n = Math.round(CD.number('points'));
	if (!(n >= 2 && n <= 200))
		throw new Error('points must be between 2 and 200');
	const lo = CD.number('from'), hi = CD.number('to');
	const values = CD.spaced(lo, hi, n, $('logx').checked);
	/* a servo's squeeze has no alias: its pointer */
	const path = $('axis').value === 'squeeze' ? '/pad/actuator/squeeze' : $('axis').value;
	return {query: 'hold', base: baseRequest(release),
	    vary: [{path, values}, {path: 'cone', values: cones}]};
}

/* {cone: [point]} of a hold sweep's answer (the columns name the fields): a point is
 * {x, y (the creep), and the answer's fields by name}. */
function lines(answer) {
	const out = {pyramidal: [], elliptic: []};
	for (const row of answer.rows) {
		const p = {x: row[0], y: row[answer.columns.indexOf('creep_velocity')]};
		answer.columns.forEach((c, k) => { p[c] = row[k]; });
		out[row[1]].push(p);
	}
	return out;
}

/* When the descent reaches the slip limit: "0.535 s", "3.2 s (extrapolated beyond the
 * 1 s run)", or "never" (time_to_slip null: no steady creep to extrapolate with). */
function slipTime(p, duration) {
	if (p.time_to_slip === null || p.time_to_slip === undefined)
		return p.holds === null ? '— (not reproducible)' : 'never';
	return CD.fmt(p.time_to_slip) + ' s' + (p.time_to_slip_extrapolated ?
	    ' (extrapolated beyond the ' + CD.fmt(duration) + ' s run)' : '');
}

/* POST /v1/hold's verdict on a point in words: holds, slips (past the slip limit at
 * time_to_slip) or falls (off the pads' faces at fall_time). */
function verdict(p) {
	if (p.holds === null)
		return 'not reproducible (holds null)';
	if (p.holds)
		return 'holds';
	if (p.falls)
		return 'falls at ' + CD.fmt(p.fall_time) + ' s';
	return 'slips: past the slip limit at ' + CD.fmt(p.time_to_slip) + ' s';
}

/* The table of points: one row per point of every release and cone. */
function drawTable() {
	const table = $('points-table');
	table.textContent = '';
	const xKey = state.runs[0].answer.columns[0];
	const head = table.createTHead().insertRow();
	for (const [c, text] of [['release', 1], ['cone', 1], [CD.label(xKey), 0], ['verdict', 1],
	    [CD.label('creep_velocity'), 0], ['time to slip', 0], [CD.label('slip'), 0]]) {
		const th = document.createElement('th');
		th.scope = 'col';
		th.textContent = c;
		if (text)
			th.className = 'text';
		head.appendChild(th);
	}
	const body = table.createTBody();
	for (const run of state.runs) {
		const byCone = lines(run.answer);
		for (const cone of cones)
			byCone[cone].forEach((p, i) => {
				const tr = body.insertRow();
				tr.dataset.release = run.release;
				tr.dataset.cone = cone;
				tr.dataset.index = String(i);
				for (const [v, cls] of [[run.release, 'text'], [cone, 'text'], [CD.fmt(p.x), ''],
				    [verdict(p), 'text verdict'], [CD.fmt(p.creep_velocity), 'creep'],
				    [slipTime(p, run.request.base.duration), 'time-to-slip'], [CD.fmt(p.slip), 'slip']]) {
					const td = tr.insertCell();
					td.textContent = v;
					td.className = cls;
				}
			});
	}
}

function draw() {
	const datasets = [];
	const two = state.runs.length > 1;
	state.runs.forEach((run, r) => {
		const byCone = lines(run.answer);
		cones.forEach((cone, c) => {
			const color = CD.colors[2 * r + c];
			const data = byCone[cone].map((p) => ({x: p.x, y: p.y}));
			const duration = run.request.base.duration;
			datasets.push({type: 'line', label: cone + ' cone, MuJoCo ' + run.release, data,
			    borderColor: color, backgroundColor: color,
			    pointBackgroundColor: byCone[cone].map((p) => (p.holds === false ? '#fff' : color)),
			    borderDash: r ? [6, 4] : [], borderWidth: 2, pointRadius: 3.5, spanGaps: false,
			    cdCone: cone, cdRelease: run.release, cdHolds: byCone[cone].map((p) => p.holds),
			    cdSay: byCone[cone].map((p) => verdict(p) + '; time to slip ' + slipTime(p, duration))});
		});
	});
	/* the legend's key to the hollow markers: a dataset with no points */
	datasets.push({type: 'line', label: 'hollow marker: does not hold (slips past the slip limit or falls within the duration)',
	    data: [], borderColor: '#444', backgroundColor: '#fff', pointBackgroundColor: '#fff', borderWidth: 2,
	    pointRadius: 3.5, cdKey: 'hollow'});
	const old = window.contactd.charts.hold;
	if (old)
		old.destroy();
	const xKey = state.runs[0].answer.columns[0];
	const xTitle = CD.label(xKey), yTitle = CD.label('creep_velocity');
	window.contactd.charts.hold = new Chart($('chart'), {
		type: 'line', data: {datasets}, plugins: [CDZoom], options: CD.chartOptions({
		    scales: {x: {type: $('logx').checked ? 'logarithmic' : 'linear', title: {display: true, text: xTitle}},
		        y: {type: state.logY ? 'logarithmic' : 'linear', title: {display: true, text: yTitle}}},
		    plugins: {legend: {position: 'bottom'}, tooltip: {callbacks: {
		        label: (c) => c.dataset.label + ': ' + CD.valueText('creep_velocity', c.raw.y) + ' at ' +
		            CD.valueText(xKey, c.raw.x) + '; ' + c.dataset.cdSay[c.dataIndex]}}}})});
	drawTable();
	CD.describe('chart', yTitle + ' against ' + xTitle + ': ' + (datasets.length - 1) + ' lines (' +
	    cones.join(' and ') + ' cones' + (two ? ', MuJoCo ' + state.runs.map((r) => r.release).join(' and ') : '') + ')');
}

function saveState() {
	CD.writeHash(Object.assign(CD.formValues(formIds), {logy: state.logY ? '1' : '0'}));
}

function restoreState(s) {
	CD.setFormValues(formIds, s);
	state.logY = s.logy === '1';
	$('tools-log').checked = state.logY;
	showInputs(true);
}

/* The axis's default range: grip force 1 to 20 N, impratio 1 to 30, a squeeze from a
 * quarter of the servo's to twice it (0.5 to 4 mm without one). */
function axisRange() {
	const axis = $('axis').value, sq = Number($('squeeze').value);
	const range = {grip_force: [1, 20], impratio: [1, 30],
	    squeeze: sq > 0 ? [sq / 4, sq * 2] : [0.0005, 0.004]}[axis];
	$('from').value = range[0];
	$('to').value = range[1];
}
$('axis').addEventListener('change', axisRange);
$('shape').addEventListener('change', () => showInputs());
$('actuator').addEventListener('change', () => showInputs());

/* The sweeps to ask: one per release drawn. */
function readRequests() {
	const releases = [$('mujoco').value];
	if ($('compare').value && $('compare').value !== $('mujoco').value)
		releases.push($('compare').value);
	return releases.map((rel) => ({release: rel, body: sweepRequest(rel)}));
}

const run = CD.runner('status', readRequests, async (requests, current) => {
	saveState();
	$('request').textContent = requests.map((r) => JSON.stringify(r.body, null, 2)).join('\n\n');
	for (const el of document.querySelectorAll('#form [aria-invalid]'))
		el.removeAttribute('aria-invalid');
	window.contactd.answers.holdRefused = null;
	CD.status('status', 'Simulating…');
	let answers;
	try {
		answers = await Promise.all(requests.map((r) => CD.api('v1/sweep', r.body)));
	} catch (e) {
		if (current() && e.path !== undefined && e.status >= 400 && e.status < 500) {
			showRefusal(e);
			return;
		}
		throw e;
	}
	if (!current())
		return;
	state.runs = requests.map((r, k) => ({release: answers[k].rows[0][answers[k].columns.indexOf('mujoco')],
	    request: r.body, answer: answers[k]}));
	window.contactd.answers.hold = state.runs.map((r) => ({request: r.request, answer: r.answer}));
	draw();
	const slipping = state.runs.reduce((n, r) => n + r.answer.rows.filter(
	    (row) => row[r.answer.columns.indexOf('holds')] === false).length, 0);
	CD.status('status', state.runs.length + ' release' + (state.runs.length > 1 ? 's' : '') + ', ' +
	    state.runs.reduce((n, r) => n + r.answer.rows.length, 0) + ' points; ' +
	    (slipping ? slipping + ' do not hold (hollow markers) within the ' +
	        CD.fmt(state.runs[0].request.base.duration) + ' s run.' : 'every point holds for the ' +
	        CD.fmt(state.runs[0].request.base.duration) + ' s run.'), 'ok');
});

$('form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	run();
});
CD.toolbar('tools', {name: 'hold', status: 'status', chart: () => window.contactd.charts.hold,
    data: () => {
	    if (!state.runs.length)
		    throw new Error('nothing drawn yet');
	    const a = state.runs[0].answer;
	    const rows = [].concat(...state.runs.map((r) => r.answer.rows));
	    return {json: state.runs.map((r) => r.answer), csv: CD.csv(a.columns, rows)};
    },
    /* the units of the answer's columns, as the sweep page's exports have them */
    columns: () => (state.runs.length ? state.runs[0].answer.columns : []),
    request: () => ({endpoint: 'v1/sweep', body: sweepRequest($('mujoco').value)}),
    log: (on) => {
	    state.logY = on;
	    saveState();
	    if (state.runs.length)
		    draw();
    }});

(async () => {
	const s = CD.readHash();
	try {
		state.defaults = readDefaults(await CD.api('v1/openapi.json'));
	} catch (e) {
		CD.status('status', 'The API description did not load, so the API\'s defaults are unknown: ' +
		    CD.errorText(e), 'error');
		return;
	}
	/* the API's default release, no comparison unless the address names one */
	await CD.releases(['mujoco', 'compare'], [s.mujoco, s.compare]);
	for (const [id, v] of Object.entries(state.defaults))
		$(id).value = defaultValue(apiFields[id], v);
	restoreState(s);
	if (s.question) {
		try {
			fillFromQuestion(JSON.parse(s.question));
		} catch (e) {
			CD.status('status', 'The address\'s question is not a hold request: ' + e.message, 'error');
			return;
		}
		showInputs(true);
		saveState();
	}
	run();
})();
