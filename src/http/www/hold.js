/* hold.js: the hold page: the creep of a pinched sphere against the grip force or
 * impratio, one line per friction cone (pyramidal, elliptic), for one MuJoCo release
 * or two side by side. Each release is one /v1/sweep of the hold question over a grid
 * (the axis field x the cone); the lines are its rows. `holds` false (it slips past the
 * slip limit within the duration, or falls, as MuJoCo steps it) draws a hollow marker,
 * which the legend names. The form starts at the API's own defaults (HoldRequest's in
 * /v1/openapi.json: a second's run, not a copy that could drift from it), so each point
 * is what POST /v1/hold answers; a table gives each point's verdict, creep and
 * time_to_slip. The form lives in the URL. */
'use strict';

const $ = (id) => document.getElementById(id);

const formIds = ['axis', 'from', 'to', 'points', 'logx', 'mass', 'size', 'friction', 'grip_force',
    'impratio', 'timeconst', 'timestep', 'duration', 'mujoco', 'compare', 'extra'];
const cones = ['pyramidal', 'elliptic'];
const state = {runs: [], logY: false, defaults: null};

/* The form's fields that are HoldRequest fields: their pointers in the request, whose
 * defaults (the OpenAPI document's) fill the form when the address names none. */
const apiFields = {mass: '/object/mass', size: '/object/size', friction: '/pad/friction', grip_force: '/grip_force',
    impratio: '/option/impratio', timeconst: '/pad/solref', timestep: '/option/timestep', duration: '/duration'};

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
	for (const [id, pointer] of Object.entries(apiFields))
		out[id] = schemaDefault(doc, 'HoldRequest', pointer);
	return out;
}

const first = (v) => (Array.isArray(v) ? v[0] : v);

/* The hold request every point starts from, for one release. */
function baseRequest(release) {
	const option = {impratio: CD.number('impratio'), timestep: CD.number('timestep')};
	if (release)
		option.mujoco = release;
	const req = CD.merge({
		object: {size: CD.number('size'), mass: CD.number('mass')},
		pad: {solref: [CD.number('timeconst'), state.defaults.timeconst[1]],
		    friction: [CD.number('friction'), ...state.defaults.friction.slice(1)]},
		grip_force: CD.number('grip_force'),
		option,
		duration: CD.number('duration'),
	}, CD.jsonObject('extra'));
	/* a position servo squeezes by its ctrl: a grip force is a motor's, which the API refuses */
	if (req.pad.actuator && req.pad.actuator.type === 'position')
		delete req.grip_force;
	return req;
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
	return {query: 'hold', base: baseRequest(release),
	    vary: [{path: $('axis').value, values}, {path: 'cone', values: cones}]};
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
}

/* The axis's default range when the axis changes. */
$('axis').addEventListener('change', () => {
	const grip = $('axis').value === 'grip_force';
	$('from').value = 1;
	$('to').value = grip ? 20 : 30;
});

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
	CD.status('status', 'Simulating…');
	const answers = await Promise.all(requests.map((r) => CD.api('v1/sweep', r.body)));
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
		$(id).value = first(v);
	restoreState(s);
	run();
})();
