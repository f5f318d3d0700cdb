/* hold.js: the hold page: the creep of a pinched sphere against the grip force or
 * impratio, one line per friction cone (pyramidal, elliptic), for one MuJoCo release
 * or two side by side. Each release is one /v1/sweep of the hold question over a grid
 * (the axis field x the cone); the lines are its rows. `holds` false (it slips past the
 * slip limit within the duration, or falls, as MuJoCo steps it) draws a hollow marker.
 * The form lives in the URL. */
'use strict';

const $ = (id) => document.getElementById(id);

const formIds = ['axis', 'from', 'to', 'points', 'logx', 'mass', 'size', 'friction', 'grip_force',
    'impratio', 'timeconst', 'timestep', 'duration', 'mujoco', 'compare', 'extra'];
const cones = ['pyramidal', 'elliptic'];
const state = {runs: [], logY: false};

/* The hold request every point starts from, for one release. */
function baseRequest(release) {
	const option = {impratio: CD.number('impratio'), timestep: CD.number('timestep')};
	if (release)
		option.mujoco = release;
	return CD.merge({
		object: {size: CD.number('size'), mass: CD.number('mass')},
		pad: {solref: [CD.number('timeconst'), 1], friction: [CD.number('friction'), 0.005, 0.0005]},
		grip_force: CD.number('grip_force'),
		option,
		duration: CD.number('duration'),
	}, CD.jsonObject('extra'));
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

/* {cone: [{x, y, holds}]} of a hold sweep's answer (the columns name the fields). */
function lines(answer) {
	const col = (name) => answer.columns.indexOf(name);
	const x = 0, cone = 1, creep = col('creep_velocity'), holds = col('holds');
	const out = {pyramidal: [], elliptic: []};
	for (const row of answer.rows)
		out[row[cone]].push({x: row[x], y: row[creep], holds: row[holds]});
	return out;
}

function draw() {
	const datasets = [];
	const two = state.runs.length > 1;
	state.runs.forEach((run, r) => {
		const byCone = lines(run.answer);
		cones.forEach((cone, c) => {
			const color = CD.colors[2 * r + c];
			const data = byCone[cone].map((p) => ({x: p.x, y: p.y}));
			datasets.push({type: 'line', label: cone + ' cone, MuJoCo ' + run.release, data,
			    borderColor: color, backgroundColor: color,
			    pointBackgroundColor: byCone[cone].map((p) => (p.holds === false ? '#fff' : color)),
			    borderDash: r ? [6, 4] : [], borderWidth: 2, pointRadius: 3.5, spanGaps: false,
			    cdCone: cone, cdRelease: run.release, cdHolds: byCone[cone].map((p) => p.holds)});
		});
	});
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
		            CD.valueText(xKey, c.raw.x) +
		            (c.dataset.cdHolds[c.dataIndex] === false ? ' (does not hold)' : '')}}}})});
	CD.describe('chart', yTitle + ' against ' + xTitle + ': ' + datasets.length + ' lines (' +
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
	    (slipping ? slipping + ' do not hold (hollow markers).' : 'every point holds.'), 'ok');
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
    request: () => ({endpoint: 'v1/sweep', body: sweepRequest($('mujoco').value)}),
    log: (on) => {
	    state.logY = on;
	    saveState();
	    if (state.runs.length)
		    draw();
    }});

(async () => {
	const s = CD.readHash();
	await CD.releases(['mujoco', 'compare'], [s.mujoco, s.compare]);
	/* two releases side by side unless the address says otherwise: the oldest against the default */
	if (s.compare === undefined && $('compare').options.length > 2)
		$('compare').value = $('compare').options[$('compare').options.length - 1].value;
	restoreState(s);
	run();
})();
