/* drop.js: the drop page: one /v1/drop with "trajectory": true, plotted with its
 * metrics (peak penetration, rebound, the floor). A drop that gains energy or diverges
 * is flagged. The form lives in the URL; a second MuJoCo release can be drawn beside
 * the first; earlier drops can stay as overlays. */
'use strict';

const $ = (id) => document.getElementById(id);

const metricNames = [
	['peak_penetration', 'Peak penetration (m)'],
	['rebound', 'Rebound (m)'],
	['max_height', 'Highest after release (m)'],
	['final_penetration', 'Final penetration (m)'],
	['jitter', 'Jitter over the last 0.5 s (m)'],
	['energy_gain', 'Energy gain (rebound > height)'],
	['steps', 'Steps'],
	['solref_fallback', 'solref replaced by the default'],
	['diverged', 'Diverged'],
];
const formIds = ['shape', 'size', 'mass', 'timeconst', 'dampratio', 'height', 'duration', 'timestep',
    'integrator', 'refsafe', 'mujoco', 'compare', 'overlay', 'extra'];

const state = {last: null, compare: null, overlays: []};

function readRequest() {
	const tc = CD.number('timeconst'), dr = CD.number('dampratio');
	const option = {timestep: CD.number('timestep'), refsafe: $('refsafe').checked,
	    integrator: $('integrator').value};
	if ($('mujoco').value)
		option.mujoco = $('mujoco').value;
	const form = {
		body: {shape: $('shape').value, size: CD.number('size'), mass: CD.number('mass')},
		geom: {solref: [tc, dr]},
		option,
		height: CD.number('height'),
		duration: CD.number('duration'),
	};
	return Object.assign(CD.merge(form, CD.jsonObject('extra')), {trajectory: true});
}

/* The SO-101 gripper's pad as the floor under its 2 cm, 100 g object, dropped 5 cm. */
const so101 = {body: {shape: 'sphere', size: 0.02, mass: 0.1}, floor: CD.so101.pad, option: CD.so101.option,
    height: 0.05};

/* Put a whole drop request into the page: the fields the form has into the form (the
 * others back to their defaults, which are the API's), everything else into the JSON
 * box, so readRequest() asks exactly this request. */
function setRequest(request) {
	const r = JSON.parse(JSON.stringify(request));
	delete r.trajectory;
	for (const id of formIds) {
		const el = $(id);
		if (['mujoco', 'compare', 'overlay'].includes(id))
			continue;
		if (el.type === 'checkbox')
			el.checked = el.defaultChecked;
		else if (el.tagName === 'SELECT')
			el.value = [...el.options].find((o) => o.defaultSelected) ? [...el.options].find((o) => o.defaultSelected).value
			    : el.options[0].value;
		else
			el.value = el.defaultValue;
	}
	const take = (obj, key, id, ok) => {
		if (obj && ok(obj[key])) {
			$(id).value = String(obj[key]);
			delete obj[key];
		}
	};
	const num = (v) => typeof v === 'number' && Number.isFinite(v);
	take(r.body, 'shape', 'shape', (v) => v === 'box' || v === 'sphere');
	take(r.body, 'size', 'size', num);
	take(r.body, 'mass', 'mass', num);
	if (r.geom && Array.isArray(r.geom.solref) && r.geom.solref.length === 2 && r.geom.solref.every(num)) {
		$('timeconst').value = String(r.geom.solref[0]);
		$('dampratio').value = String(r.geom.solref[1]);
		delete r.geom.solref;
	}
	take(r, 'height', 'height', num);
	take(r, 'duration', 'duration', num);
	take(r.option, 'timestep', 'timestep', num);
	take(r.option, 'integrator', 'integrator', (v) => [...$('integrator').options].some((o) => o.value === v));
	if (r.option && typeof r.option.refsafe === 'boolean') {
		$('refsafe').checked = r.option.refsafe;
		delete r.option.refsafe;
	}
	take(r.option, 'mujoco', 'mujoco', (v) => [...$('mujoco').options].some((o) => o.value === v));
	for (const k of ['body', 'geom', 'option'])
		if (r[k] && typeof r[k] === 'object' && !Object.keys(r[k]).length)
			delete r[k];
	$('extra').value = Object.keys(r).length ? JSON.stringify(r, null, 1) : '';
}

function showMetrics(answer) {
	const dl = $('metrics');
	dl.textContent = '';
	for (const [key, label] of metricNames) {
		const dt = document.createElement('dt');
		dt.textContent = label;
		const dd = document.createElement('dd');
		dd.id = 'm-' + key;
		dd.textContent = CD.fmt(answer[key], 6);
		if ((key === 'energy_gain' || key === 'diverged') && answer[key] === true)
			dd.className = 'bad';
		dl.append(dt, dd);
	}
}

/* What makes this drop unphysical, in words; empty when nothing does. */
function problems(req, answer) {
	const out = [];
	if (answer.diverged)
		out.push('the simulation diverged (some values were not finite)');
	if (answer.energy_gain)
		out.push('it gained energy: it rose to ' + CD.fmt(answer.max_height) + ' m after a drop from ' +
		    CD.fmt(req.height) + ' m. The contact spring is unstable at this timestep (see the stability ' +
		    'map): raise timeconst or dampratio, turn refsafe on, or shorten the timestep');
	return out;
}

function trajectory(answer) {
	const tr = answer.trajectory;
	return tr.t.map((t, i) => ({x: t, y: tr.z[i]}));
}

function draw() {
	const {answer} = state.last;
	const path = trajectory(answer);
	const tr = answer.trajectory;
	const t1 = tr.t[tr.t.length - 1] || 0;
	const cmp = state.compare;
	const level = (y, label, color, dash) => ({type: 'line', label, data: [{x: 0, y}, {x: t1, y}],
	    borderColor: color, backgroundColor: color, borderDash: dash, borderWidth: 1.5, pointRadius: 0});
	const datasets = [{type: 'line', label: 'bottom height z (m)' + (cmp ? ', MuJoCo ' + answer.mujoco : ''),
	    data: path, borderColor: CD.colors[0], backgroundColor: CD.colors[0], borderWidth: 1.5, pointRadius: 0,
	    spanGaps: false}];
	datasets.push(level(0, 'floor (z = 0)', '#444', []));
	if (answer.peak_penetration !== null)
		datasets.push(level(-answer.peak_penetration, 'peak penetration', CD.colors[1], [5, 3]));
	if (answer.rebound)
		datasets.push(level(answer.rebound, 'rebound', CD.colors[2], [2, 2]));
	if (cmp)
		datasets.push({type: 'line', label: 'bottom height z (m), MuJoCo ' + cmp.answer.mujoco,
		    data: trajectory(cmp.answer), borderColor: CD.colors[3], backgroundColor: CD.colors[3],
		    borderWidth: 2, borderDash: [6, 4], pointRadius: 0, cdCompare: true, order: -1});
	state.overlays.forEach((o, k) => datasets.push({type: 'line', label: o.label, data: o.data,
	    borderColor: CD.colors[(k + 4) % CD.colors.length], backgroundColor: CD.colors[(k + 4) % CD.colors.length],
	    borderWidth: 1, borderDash: [2, 3], pointRadius: 0, cdOverlay: true}));
	const old = window.contactd.charts.drop;
	if (old)
		old.destroy();
	window.contactd.charts.drop = new Chart($('chart'), {
		type: 'line', data: {datasets}, plugins: [CDZoom], options: CD.chartOptions({
		    scales: {x: {type: 'linear', title: {display: true, text: 'time (s)'}},
		        y: {type: 'linear', title: {display: true, text: 'bottom height (m)'}}},
		    plugins: {legend: {position: 'bottom'}, tooltip: {callbacks: {
		        label: (c) => c.dataset.label.replace(/ \(m\)/, '') + ': ' + CD.fmt(c.raw.y) + ' m at ' +
		            CD.fmt(c.raw.x) + ' s'}}}})});
	CD.describe('chart', 'Bottom height over ' + CD.fmt(t1) + ' s, ' + path.length +
	    ' points; peak penetration ' + CD.fmt(answer.peak_penetration) + ' m, rebound ' +
	    CD.fmt(answer.rebound) + ' m' + (cmp ? '; dashed: MuJoCo ' + cmp.answer.mujoco : '') +
	    (state.overlays.length ? '; ' + state.overlays.length + ' earlier drops overlaid' : ''));
}

function saveState() {
	CD.writeHash(CD.formValues(formIds));
}

const run = CD.runner('status', readRequest, async (req, current) => {
	saveState();
	$('request').textContent = JSON.stringify(req, null, 2);
	state.asked = req;
	CD.status('status', 'Simulating…');
	const compareTo = $('compare').value;
	const creq = compareTo && compareTo !== req.option.mujoco
	    ? Object.assign({}, req, {option: Object.assign({}, req.option, {mujoco: compareTo})}) : null;
	const [answer, canswer] = await Promise.all([CD.api('v1/drop', req), creq ? CD.api('v1/drop', creq) : null]);
	if (!current())
		return;
	if ($('overlay').checked && state.last)
		state.overlays.push({label: 'earlier: timeconst ' + state.last.req.geom.solref[0] + ' s, dampratio ' +
		    state.last.req.geom.solref[1] + ', height ' + state.last.req.height + ' m',
		    data: trajectory(state.last.answer)});
	state.overlays = state.overlays.slice(-6);
	state.last = {req, answer};
	state.compare = creq ? {request: creq, answer: canswer} : null;
	window.contactd.answers.drop = {request: req, answer};
	window.contactd.answers.dropCompare = state.compare;
	draw();
	showMetrics(answer);
	const bad = problems(req, answer);
	$('warning').hidden = bad.length === 0;
	$('warning').textContent = bad.length ? 'Not a physical drop: ' + bad.join('; ') + '.' : '';
	let text = answer.steps + ' steps, ' + answer.trajectory.t.length + ' points plotted' +
	    (answer.diverged ? '; the simulation diverged' : '') + (answer.energy_gain ? '; energy gained' : '') + '.';
	if (state.compare)
		text += JSON.stringify(answer.trajectory) === JSON.stringify(canswer.trajectory)
		    ? ' MuJoCo ' + compareTo + ' drops the same (dashed line on top).'
		    : ' MuJoCo ' + compareTo + ' differs (dashed).';
	CD.status('status', text, bad.length ? 'error' : 'ok');
});

$('form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	run();
});
$('clear-overlays').addEventListener('click', () => {
	state.overlays = [];
	if (state.last)
		draw();
});
CD.toolbar('tools', {name: 'drop', status: 'status', chart: () => window.contactd.charts.drop,
    data: () => {
	    if (!state.last)
		    throw new Error('nothing dropped yet');
	    const a = state.last.answer;
	    return {json: a, csv: CD.csv(['t', 'z'], a.trajectory.t.map((t, i) => [t, a.trajectory.z[i]]))};
    },
    request: () => ({endpoint: 'v1/drop', body: state.last ? state.last.req : readRequest()}),
    stem: () => {
	    const r = state.last ? state.last.req : readRequest();
	    const b = r.body || {};
	    return [b.shape, b.size + 'm', b.mass + 'kg', 'h' + r.height].join('-');
    }});
$('preset-so101').addEventListener('click', () => {
	setRequest(so101);
	run();
});

(async () => {
	const s = CD.readHash();
	let linked = null;
	try {
		linked = s.request ? JSON.parse(s.request) : null;
	} catch (e) {
		CD.status('status', 'The address\'s request is not JSON: ' + e.message, 'error');
	}
	await CD.releases(['mujoco', 'compare'], [s.mujoco || (linked && linked.option && linked.option.mujoco), s.compare]);
	CD.setFormValues(formIds, s);
	/* a link from a sweep cell carries the whole request */
	if (linked && typeof linked === 'object')
		setRequest(linked);
	run();
})();
