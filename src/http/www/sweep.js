/* sweep.js: the sweep page: builds a /v1/sweep request from the form, draws the answer
 * as lines (one field) or a heat map (two), with the refsafe clamp, the guard gap and,
 * for growth, the stability boundary growth = 1 on a colour scale centred on 1. Rows are
 * drawn as they arrive when the daemon streams them (application/x-ndjson); a plain JSON
 * answer is drawn at once. The form is kept in the URL, a second MuJoCo release can be
 * drawn beside the first, earlier line runs can stay as overlays, and a click on a cell
 * or a point opens that drop on the drop page. */
'use strict';

const presets = {
	'preset-map-damp': {query: 'stability', base: {option: {timestep: 0.002}},
	    f1: ['/solref/0', 0.0005, 0.05, 16, true], f2: ['/solref/1', 0.02, 2, 14, true],
	    metric: 'growth'},
	'preset-map-step': {query: 'stability', base: {solref: [0.02, 0.05]},
	    f1: ['/option/timestep', 0.0005, 0.05, 16, true], f2: ['/solref/0', 0.0005, 0.1, 16, true],
	    metric: 'growth'},
	/* dampratio 1 (critical damping) never rebounds; 0.3 bounces (restitution
	 * exp(-0.3 pi / sqrt(1 - 0.3^2)) = 0.37: 1.4 cm from 10 cm), and stays stable down to the refsafe clamp */
	'preset-rebound': {query: 'drop', base: {body: {shape: 'sphere', size: 0.05, mass: 1},
	    geom: {solref: [0.02, 0.3]}, duration: 1},
	    f1: ['/geom/solref/0', 0.002, 0.05, 20, true], f2: null, metric: 'rebound'},
};
const defaultMetric = {stability: 'growth', drop: 'rebound', rest: 'penetration'};
const formIds = ['query', 'base', 'path1', 'from1', 'to1', 'count1', 'log1', 'use2', 'path2', 'from2',
    'to2', 'count2', 'log2', 'metric', 'mujoco', 'compare', 'overlay'];
const $ = (id) => document.getElementById(id);

function setField(n, f) {
	$('path' + n).value = f[0];
	$('from' + n).value = f[1];
	$('to' + n).value = f[2];
	$('count' + n).value = f[3];
	$('log' + n).checked = f[4];
}

function useSecond(on) {
	$('use2').checked = on;
	for (const id of ['path2', 'from2', 'to2', 'count2', 'log2'])
		$(id).disabled = !on;
}

function applyPreset(p) {
	state.axisLog = {x: null, mapY: null}; /* the preset's spacing decides its axes */
	$('query').value = p.query;
	$('base').value = JSON.stringify(p.base, null, 1);
	setField(1, p.f1);
	useSecond(!!p.f2);
	if (p.f2)
		setField(2, p.f2);
	setMetrics([p.metric], p.metric);
	run();
}

function setMetrics(names, chosen) {
	const sel = $('metric');
	const keep = chosen || sel.value;
	sel.textContent = '';
	for (const n of names) {
		const o = document.createElement('option');
		o.value = n;
		o.textContent = CD.label(n);
		sel.appendChild(o);
	}
	sel.value = names.includes(keep) ? keep : names[0];
}

function readField(n) {
	const log = $('log' + n).checked;
	const from = CD.number('from' + n), to = CD.number('to' + n), count = CD.number('count' + n);
	if (!Number.isInteger(count) || count < 1 || count > 200)
		throw new Error('Points of the ' + (n === 1 ? 'first' : 'second') +
		    ' field must be a whole number from 1 to 200, not ' + $('count' + n).value);
	if (log && !(from > 0 && to > 0))
		throw new Error('logarithmic spacing needs positive ends (field ' + n + ')');
	const path = $('path' + n).value.trim();
	if (!path.startsWith('/'))
		throw new Error('the ' + (n === 1 ? 'first' : 'second') + ' field must be a JSON Pointer such as /solref/0');
	return {path, values: CD.spaced(from, to, count, log), log};
}

function readRequest() {
	let base;
	try {
		base = JSON.parse($('base').value || '{}');
	} catch (e) {
		throw new Error('the base request is not JSON: ' + e.message);
	}
	if (!base || typeof base !== 'object' || Array.isArray(base))
		throw new Error('the base request must be a JSON object');
	const release = $('mujoco').value;
	if (release)
		base.option = Object.assign({}, base.option, {mujoco: release});
	const fields = [readField(1)];
	if ($('use2').checked)
		fields.push(readField(2));
	return {request: {query: $('query').value, base,
	    vary: fields.map((f) => ({path: f.path, values: f.values}))}, fields};
}

/* The same request under another MuJoCo release. */
function withRelease(request, release) {
	const r = JSON.parse(JSON.stringify(request));
	r.base.option = Object.assign({}, r.base.option, {mujoco: release});
	return r;
}

/* The timestep the base request asks for (the clamp line needs it). */
function baseTimestep(req) {
	const o = req.base.option;
	return o && typeof o.timestep === 'number' ? o.timestep : 0.002;
}

const isTimeconst = (p) => /(^|\/)solref\/0$/.test(p);
const isTimestep = (p) => p === '/option/timestep';

/* The refsafe clamp timeconst = 2 * timestep as a line over the chart's axes, or null. */
function clampLine(req, fields, xr, yr) {
	const [fx, fy] = [fields[0].path, fields[1] ? fields[1].path : null];
	const h = baseTimestep(req);
	let pts = null;
	if (fy && isTimestep(fx) && isTimeconst(fy))
		pts = CD.spaced(xr[0], xr[1], 40, fields[0].log).map((x) => ({x, y: 2 * x}));
	else if (fy && isTimeconst(fx) && isTimestep(fy))
		pts = CD.spaced(yr[0], yr[1], 40, fields[1].log).map((y) => ({x: 2 * y, y}));
	else if (isTimeconst(fx))
		pts = [{x: 2 * h, y: yr[0]}, {x: 2 * h, y: yr[1]}];
	else if (fy && isTimeconst(fy))
		pts = [{x: xr[0], y: 2 * h}, {x: xr[1], y: 2 * h}];
	if (!pts)
		return null;
	return {type: 'line', label: 'refsafe clamp: timeconst = 2 × timestep', data: pts,
	    borderColor: '#ffffff', backgroundColor: '#777777', borderDash: [6, 4], borderWidth: 2.5,
	    pointRadius: 0,
	    order: -1, cdClamp: true};
}

function axis(key, log, range) {
	const a = {type: log ? 'logarithmic' : 'linear', title: {display: true, text: CD.label(key)}};
	if (range) {
		a.min = range[0];
		a.max = range[1];
	}
	return a;
}

const numeric = (v) => (typeof v === 'boolean' ? +v : v);

/* Two answers' values of one point differ (beyond the last digits' rounding). */
function differs(a, b) {
	if (a === null || b === null || a === undefined || b === undefined)
		return a !== b;
	return Math.abs(a - b) > 1e-12 * Math.max(Math.abs(a), Math.abs(b));
}

/* A drop row whose numbers are not a physical contact's: it gained energy or diverged. */
function unphysical(cols, row) {
	const e = cols.indexOf('energy_gain'), d = cols.indexOf('diverged');
	return (e >= 0 && row[e] === true) || (d >= 0 && row[d] === true && cols.indexOf('guard_gap') < 0);
}

/* logY: a line chart's y axis is logarithmic; axisLog: the toggles' choices of the first
 * field's axis (x) and of a map's second (mapY), null where the field's spacing decides */
const state = {last: null, compare: null, overlays: [], logY: false, axisLog: {x: null, mapY: null}, draws: 0};

/* Field n's axis (0: x, 1: a map's y) is logarithmic: the toggle's choice, else the
 * field's spacing; never over a value at or below zero, which a log axis cannot show. */
function fieldAxisLog(fields, n) {
	const choice = n ? state.axisLog.mapY : state.axisLog.x;
	return fields[n].values.every((v) => v > 0) && (choice === null ? fields[n].log : choice);
}

/* The toolbar's toggles show the axes drawn; one that cannot be logarithmic is disabled. */
function syncAxisToggles(fields) {
	const heat = fields.length === 2;
	$('tools-logx').checked = fieldAxisLog(fields, 0);
	$('tools-logx').disabled = !fields[0].values.every((v) => v > 0);
	$('tools-log').checked = heat ? fieldAxisLog(fields, 1) : state.logY;
	$('tools-log').disabled = heat && !fields[1].values.every((v) => v > 0);
}

/* A value at a JSON Pointer of a copy of obj, creating objects on the way. */
function setPointer(obj, pointer, value) {
	const keys = pointer.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
	let o = obj;
	for (let i = 0; i < keys.length - 1; i++) {
		if (o[keys[i]] === undefined || o[keys[i]] === null || typeof o[keys[i]] !== 'object')
			o[keys[i]] = /^\d+$/.test(keys[i + 1]) ? [] : {};
		o = o[keys[i]];
	}
	o[keys[keys.length - 1]] = value;
}

/* The drop page's form (its URL state) for one point of the sweep: the base request
 * with the point's values, its solref as the geom's. */
function dropLink(req, point) {
	const r = JSON.parse(JSON.stringify(req.base));
	req.vary.forEach((v, k) => setPointer(r, v.path, point[k]));
	const o = r.option || {}, b = r.body || {};
	const solref = (r.geom && r.geom.solref) || r.solref;
	const s = {};
	if (typeof b.shape === 'string')
		s.shape = b.shape;
	if (b.size !== undefined)
		s.size = Array.isArray(b.size) ? b.size[0] : b.size;
	if (b.mass !== undefined)
		s.mass = b.mass;
	if (Array.isArray(solref)) {
		s.timeconst = solref[0];
		s.dampratio = solref[1];
	}
	for (const k of ['height', 'duration'])
		if (typeof r[k] === 'number')
			s[k] = r[k];
	if (typeof o.timestep === 'number')
		s.timestep = o.timestep;
	if (typeof o.integrator === 'string')
		s.integrator = o.integrator;
	if (typeof o.refsafe === 'boolean')
		s.refsafe = o.refsafe ? '1' : '0';
	if (o.mujoco)
		s.mujoco = o.mujoco;
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(s))
		q.set(k, String(v));
	return 'drop.html#' + q.toString();
}

function openDrop(chart, elements) {
	if (chart.$cdDragged || !elements.length || !state.last)
		return;
	const e = elements.find((k) => chart.data.datasets[k.datasetIndex].cdRun);
	if (!e)
		return;
	const p = chart.data.datasets[e.datasetIndex].data[e.index];
	const point = state.last.fields.length === 2 ? [p.x, p.y] : [p.x];
	location.href = dropLink(state.last.req, point);
}

function draw() {
	const {req, fields, answer} = state.last;
	const metric = $('metric').value;
	const cols = answer.columns;
	const mi = cols.indexOf(metric);
	const old = window.contactd.charts.sweep;
	if (old)
		old.destroy();
	const canvas = $('chart');
	const cmp = state.compare;
	const release = answer.rows.length && cols.indexOf('mujoco') >= 0 ? answer.rows[0][cols.indexOf('mujoco')] : $('mujoco').value;
	let config;
	const heat = fields.length === 2;
	$('colorbar-box').hidden = !heat;
	$('map-key').hidden = !(heat && req.query === 'stability');
	const xName = fields[0].path;
	if (!heat) {
		const rows = (a) => a.rows.map((r) => ({x: r[0], y: numeric(r[mi])}));
		const data = rows(answer);
		const ys = data.map((p) => p.y).filter((y) => y !== null);
		const yr = [Math.min(...ys), Math.max(...ys)];
		const datasets = [{label: CD.label(metric) + (cmp ? ', MuJoCo ' + release : ''), data,
		    borderColor: CD.colors[0], backgroundColor: CD.colors[0], showLine: true, pointRadius: 3,
		    cdRun: true}];
		if (cmp && cmp.answer.columns.indexOf(metric) >= 0) {
			const ci = cmp.answer.columns.indexOf(metric);
			datasets.push({label: CD.label(metric) + ', MuJoCo ' + cmp.release,
			    data: cmp.answer.rows.map((r) => ({x: r[0], y: numeric(r[ci])})), borderColor: CD.colors[1],
			    backgroundColor: CD.colors[1], showLine: true, pointRadius: 3, borderDash: [6, 4],
			    pointStyle: 'rectRot', cdCompare: true, order: -1});
		}
		state.overlays.forEach((o, k) => {
			if (o.map || o.path !== xName || o.metric !== metric)
				return;
			datasets.push({label: o.label, data: o.data, borderColor: CD.colors[(k + 2) % CD.colors.length],
			    backgroundColor: CD.colors[(k + 2) % CD.colors.length], showLine: true, pointRadius: 2,
			    borderWidth: 1, borderDash: [2, 3], cdOverlay: true});
		});
		const flagged = answer.rows.map((r, k) => (unphysical(cols, r) ? data[k] : null)).filter((p) => p && p.y !== null);
		if (flagged.length)
			datasets.push({label: 'energy gained or diverged: not a physical drop', data: flagged,
			    borderColor: '#c00000', backgroundColor: '#c00000', pointStyle: 'crossRot', pointRadius: 8,
			    borderWidth: 2.5, showLine: false, order: -2, cdFlagged: true});
		const clamp = clampLine(req, fields, null, yr);
		if (clamp && yr[0] < yr[1]) {
			clamp.borderColor = CD.colors[1];
			datasets.push(clamp);
		}
		config = {type: 'scatter', data: {datasets}, plugins: [CDZoom], options: CD.chartOptions({
		    onClick: (ev, els, chart) => openDrop(chart, els),
		    scales: {x: axis(xName, fieldAxisLog(fields, 0)), y: axis(metric, state.logY)},
		    plugins: {legend: {position: 'bottom'}, tooltip: {callbacks: {label: (c) => c.dataset.cdClamp
		        ? c.dataset.label : c.dataset.label + ': ' + CD.valueText(xName, c.raw.x) + ' → ' +
		          CD.valueText(metric, c.raw.y)}}}})};
		CD.describe('chart', 'Line chart of ' + CD.label(metric) + ' over ' + CD.label(xName) + ', ' +
		    data.length + ' points, from ' + CD.fmt(yr[0]) + ' to ' + CD.fmt(yr[1]) +
		    (cmp ? '; dashed: MuJoCo ' + cmp.release : ''));
	} else {
		const yName = fields[1].path;
		const gi = cols.indexOf('guard_gap');
		/* outlined: the guard gap of a stability map, or a drop that gained energy or diverged */
		const data = answer.rows.map((r) => ({x: r[0], y: r[1], v: numeric(r[mi]),
		    mark: gi >= 0 ? r[gi] === true : unphysical(cols, r)}));
		const vs = data.map((p) => p.v).filter((v) => v !== null);
		const min = vs.length ? Math.min(...vs) : 0, max = vs.length ? Math.max(...vs) : 1;
		const xv = fields[0].values, yv = fields[1].values;
		const pad = (vals, log) => {
			const a = Math.min(...vals), b = Math.max(...vals);
			if (vals.length < 2)
				return log ? [a / 2, b * 2] : [a - 1, b + 1];
			const s = vals.slice().sort((p, q) => p - q);
			if (log)
				return [a / Math.sqrt(s[1] / s[0]), b * Math.sqrt(s[s.length - 1] / s[s.length - 2])];
			return [a - (s[1] - s[0]) / 2, b + (s[s.length - 1] - s[s.length - 2]) / 2];
		};
		const logX = fieldAxisLog(fields, 0), logY = fieldAxisLog(fields, 1);
		const xr = pad(xv, logX), yr = pad(yv, logY);
		/* growth: blue-white-red centred on 1 with the boundary growth = 1; otherwise a
		 * colour per decade when the values span more than two of them */
		const growth = metric === 'growth' && min > 0;
		const log = !growth && min > 0 && max / min > 100;
		const cellText = (p) => CD.valueText(xName, p.x) + ', ' + CD.valueText(yName, p.y) + ': ' +
		    CD.valueText(metric, p.v) + (growth && p.v !== null ? (p.v > 1 ? ' (unstable)' : ' (stable)') : '') +
		    (p.v === null ? ' (diverged)' : '') + (p.mark ? (gi >= 0 ? ' (guard gap)' : ' (energy gained or diverged)') : '');
		const heatSet = {label: CD.label(metric), heatmap: true, min, max, log, data, pointRadius: 0,
		    markColor: gi >= 0 ? '#ff00aa' : '#c00000',
		    pointHitRadius: 0, backgroundColor: 'rgba(0,0,0,0)', cellText, cdRun: true};
		if (growth) {
			Object.assign(heatSet, {diverging: true, center: 1, contour: 1, contourColor: '#000'});
			if (cmp && cmp.answer.columns.indexOf(metric) >= 0) {
				const ci = cmp.answer.columns.indexOf(metric);
				heatSet.contours = [{data: cmp.answer.rows.map((r) => ({x: r[0], y: r[1], v: r[ci]})),
				    color: '#ff00ff', dash: [7, 5]}];
			}
		}
		/* a second release: a dot in every cell whose value it changes */
		const ci = cmp ? cmp.answer.columns.indexOf(metric) : -1;
		if (ci >= 0) {
			const other = new Map(cmp.answer.rows.map((r) => [r[0] + ',' + r[1], numeric(r[ci])]));
			heatSet.diffs = data.map((p, k) => (differs(p.v, other.get(p.x + ',' + p.y)) ? k : -1)).filter((k) => k >= 0);
		}
		const datasets = [heatSet];
		if (heatSet.diffs && heatSet.diffs.length)
			datasets.push({label: CD.label(metric) + ' differs in MuJoCo ' + cmp.release + ' (' + heatSet.diffs.length +
			    ' cells)', data: [], pointStyle: 'circle', borderColor: '#000', backgroundColor: '#fff', borderWidth: 2});
		const clamp = clampLine(req, fields, xr, yr);
		if (clamp)
			datasets.push(clamp);
		if (growth)
			datasets.push({type: 'line', label: 'growth = 1: stability boundary' + (cmp ? ', MuJoCo ' + release : ''),
			    data: [], borderColor: '#000', backgroundColor: '#000', borderWidth: 3});
		if (growth && heatSet.contours)
			datasets.push({type: 'line', label: 'growth = 1, MuJoCo ' + cmp.release, data: [],
			    borderColor: '#ff00ff', backgroundColor: '#ff00ff', borderWidth: 3, borderDash: [7, 5]});
		/* earlier growth maps over the same two fields: their boundaries */
		if (growth)
			state.overlays.forEach((o, k) => {
				if (!o.map || o.path !== xName + ' ' + yName)
					return;
				const color = ['#00a0a0', '#8a5a00', '#5a3fc0', '#3a8a00', '#c05a00', '#555555'][k % 6];
				heatSet.contours = (heatSet.contours || []).concat([{data: o.data, color, dash: [3, 3]}]);
				datasets.push({type: 'line', label: o.label, data: [], borderColor: color, backgroundColor: color,
				    borderWidth: 3, borderDash: [3, 3], cdOverlay: true});
			});
		if (gi >= 0)
			datasets.push({type: 'line', label: 'guard gap: refsafe on, still unstable', data: [],
			    borderColor: '#ff00aa', backgroundColor: 'rgba(255,0,170,0.15)', borderWidth: 2});
		else if (data.some((p) => p.mark))
			datasets.push({type: 'line', label: 'energy gained or diverged: not a physical drop', data: [],
			    borderColor: '#c00000', backgroundColor: 'rgba(192,0,0,0.15)', borderWidth: 2});
		config = {type: 'scatter', data: {datasets}, plugins: [CDHeatmap, CDZoom],
		    options: CD.chartOptions({
		        interaction: {mode: 'cdCell', intersect: false},
		        onClick: (ev, els, chart) => openDrop(chart, els),
		        scales: {x: axis(xName, logX, xr), y: axis(yName, logY, yr)},
		        plugins: {legend: {position: 'bottom', labels: {filter: (item) => item.datasetIndex > 0}},
		            tooltip: {callbacks: {label: (c) => (c.raw.v === undefined ? c.dataset.label
		                : cellText(c.raw)), footer: () => 'click: open this drop'}}}})};
		cdColorBar('colorbar', min, max, CD.label(metric), log, growth);
		$('cb-min').textContent = CD.fmt(min);
		$('cb-max').textContent = CD.fmt(max);
		$('cb-key').textContent = CD.label(metric) + (growth
		    ? ': blues stable (at most 1), reds unstable (above 1), 1 in the middle; the black line on the map is growth = 1'
		    : log ? ' (logarithmic colour)' : '');
		const gaps = data.filter((p) => p.mark).length;
		const unstable = growth ? data.filter((p) => p.v === null || p.v > 1).length : 0;
		CD.describe('chart', 'Heat map of ' + CD.label(metric) + ' over ' + CD.label(xName) + ' and ' +
		    CD.label(yName) + ', ' + data.length + ' cells, from ' + CD.fmt(min) +
		    ' to ' + CD.fmt(max) + (growth ? ', ' + unstable + ' cells unstable (growth above 1)' : '') +
		    (gi >= 0 ? ', ' + gaps + ' cells in the guard gap' : ''));
	}
	window.contactd.charts.sweep = new Chart(canvas, config);
	syncAxisToggles(fields);
	state.draws++;
	window.contactd.sweepDraws = state.draws;
	CD.table('table', cols, answer.rows, 500);
}

/* ---- reading the answer: streamed (application/x-ndjson) or whole ---- */

let streamDeclared = null;

/* Does this daemon's API description offer the streamed sweep? */
async function sweepStreams() {
	if (streamDeclared === null) {
		try {
			const doc = await CD.api('v1/openapi.json');
			const op = doc.paths['/v1/sweep'] && doc.paths['/v1/sweep'].post;
			streamDeclared = !!(op && JSON.stringify(op.responses || {}).includes('application/x-ndjson'));
		} catch (e) {
			streamDeclared = false;
		}
	}
	return streamDeclared;
}

/* POST /v1/sweep; onRows(answer so far) while rows stream in. Resolves to the whole
 * answer ({columns, query, rows, ...}) either way. */
async function fetchSweep(request, onRows) {
	const declared = await sweepStreams();
	const reply = await fetch('v1/sweep', {method: 'POST', body: JSON.stringify(request),
	    headers: {'Content-Type': 'application/json',
	        Accept: declared ? 'application/x-ndjson' : 'application/x-ndjson, application/json;q=0.9'}});
	const type = reply.headers.get('Content-Type') || '';
	window.contactd.sweepContentType = type;
	const fail = (value, status) => {
		const err = new Error(value && value.message ? value.message : 'HTTP ' + status);
		err.path = value && value.path;
		return err;
	};
	if (!reply.ok || !/^application\/x-ndjson/.test(type)) {
		const text = await reply.text();
		let value = null;
		try {
			value = JSON.parse(text);
		} catch (e) {
			throw fail(null, reply.status);
		}
		if (!reply.ok)
			throw fail(value, reply.status);
		return value;
	}
	const reader = reply.body.getReader();
	const decoder = new TextDecoder();
	let buffered = '', answer = null, done = null, lastDraw = 0;
	const line = (text) => {
		if (!text.trim())
			return;
		const v = JSON.parse(text);
		if (answer === null) {
			if (v.error)
				throw fail(v.error, 200);
			answer = Object.assign({}, v, {rows: []});
		} else if (Array.isArray(v)) {
			answer.rows.push(v);
		} else if (v.error) {
			throw fail(v.error, 200);
		} else if (v.done) {
			done = v;
		}
	};
	for (;;) {
		const {value, done: end} = await reader.read();
		if (value)
			buffered += decoder.decode(value, {stream: true});
		let nl;
		while ((nl = buffered.indexOf('\n')) >= 0) {
			line(buffered.slice(0, nl));
			buffered = buffered.slice(nl + 1);
		}
		if (end)
			break;
		/* redraw at most every 100 ms: a redraw costs more than a row */
		if (answer && answer.rows.length && performance.now() - lastDraw > 100) {
			lastDraw = performance.now();
			onRows(answer);
		}
	}
	line(buffered);
	if (!answer || !done)
		throw new Error('the sweep stream ended early' + (answer ? ' after ' + answer.rows.length + ' rows' : ''));
	if (done.count !== answer.rows.length)
		throw new Error('the sweep stream sent ' + answer.rows.length + ' rows of ' + done.count);
	return answer;
}

/* ---- running ---- */

function saveState() {
	const s = {};
	for (const id of formIds) {
		const el = $(id);
		s[id] = el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value;
	}
	s.logy = state.logY ? '1' : '0';
	/* the axes' toggles only once chosen: until then the fields' spacing decides */
	if (state.axisLog.x !== null)
		s.logx = state.axisLog.x ? '1' : '0';
	if (state.axisLog.mapY !== null)
		s.maplogy = state.axisLog.mapY ? '1' : '0';
	CD.writeHash(s);
}

function restoreState(s) {
	for (const id of formIds) {
		if (s[id] === undefined)
			continue;
		const el = $(id);
		if (el.type === 'checkbox')
			el.checked = s[id] === '1';
		else if (id === 'metric')
			setMetrics([s[id]], s[id]);
		else
			el.value = s[id];
	}
	useSecond($('use2').checked);
	state.logY = s.logy === '1';
	$('tools-log').checked = state.logY;
	state.axisLog = {x: s.logx === undefined ? null : s.logx === '1',
	    mapY: s.maplogy === undefined ? null : s.maplogy === '1'};
}

function overlaySummary(req) {
	return JSON.stringify(req.base).replace(/"/g, '').slice(0, 60);
}

let running = 0;

async function run() {
	let parsed;
	try {
		parsed = readRequest();
	} catch (e) {
		CD.status('status', e.message, 'error');
		return;
	}
	const ticket = ++running;
	saveState();
	CD.status('status', 'Sweeping…');
	$('run').disabled = true;
	const compareTo = $('compare').value;
	try {
		/* the run before this one stays as an overlay when asked */
		if ($('overlay').checked && state.last && state.last.answer.rows.length) {
			const l = state.last, mi = l.answer.columns.indexOf(l.metric);
			const label = 'earlier run ' + (state.overlays.length + 1) + ': ' + overlaySummary(l.req);
			/* a line stays as a line; a growth map as its boundary growth = 1 */
			if (mi >= 0 && l.fields.length === 1)
				state.overlays.push({path: l.fields[0].path, metric: l.metric, label,
				    data: l.answer.rows.map((r) => ({x: r[0], y: numeric(r[mi])}))});
			else if (mi >= 0 && l.metric === 'growth')
				state.overlays.push({path: l.fields[0].path + ' ' + l.fields[1].path, metric: 'growth',
				    map: true, label: label + ', growth = 1',
				    data: l.answer.rows.map((r) => ({x: r[0], y: r[1], v: r[mi]}))});
			state.overlays = state.overlays.slice(-6);
		}
		state.compare = null;
		const progress = (partial) => {
			if (ticket !== running)
				return;
			state.last = {req: parsed.request, fields: parsed.fields, answer: partial};
			setMetrics(partial.columns.slice(parsed.fields.length), $('metric').value ||
			    defaultMetric[parsed.request.query]);
			draw();
			const total = parsed.fields.reduce((n, f) => n * f.values.length, 1);
			CD.status('status', partial.rows.length + ' of ' + total + ' points…');
		};
		const answer = await fetchSweep(parsed.request, progress);
		if (ticket !== running)
			return;
		window.contactd.sweepStreamed = /x-ndjson/.test(window.contactd.sweepContentType);
		let compare = null;
		if (compareTo && compareTo !== (parsed.request.base.option || {}).mujoco) {
			const creq = withRelease(parsed.request, compareTo);
			compare = {release: compareTo, request: creq, answer: await fetchSweep(creq, () => {})};
		}
		if (ticket !== running)
			return;
		const names = answer.columns.slice(parsed.fields.length);
		setMetrics(names, $('metric').value || defaultMetric[parsed.request.query]);
		state.compare = compare;
		state.last = {req: parsed.request, fields: parsed.fields, answer, metric: $('metric').value};
		window.contactd.answers.sweep = {request: parsed.request, answer};
		window.contactd.answers.sweepCompare = compare;
		draw();
		saveState();
		let text = answer.rows.length + ' points of ' + parsed.request.query + '.';
		const bad = answer.rows.filter((r) => unphysical(answer.columns, r)).length;
		if (bad)
			text += ' ' + bad + ' gained energy or diverged (marked in red): not physical drops.';
		if (compare) {
			const same = JSON.stringify(answer.rows.map((r) => r.slice(0, -2))) ===
			    JSON.stringify(compare.answer.rows.map((r) => r.slice(0, -2)));
			text += same ? ' MuJoCo ' + compareTo + ' gives the same answer.'
			             : ' MuJoCo ' + compareTo + ' differs (dashed).';
		}
		CD.status('status', text, bad ? 'error' : 'ok');
	} catch (e) {
		if (ticket === running)
			CD.status('status', CD.errorText(e), 'error');
	} finally {
		if (ticket === running)
			$('run').disabled = false;
	}
}

$('form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	run();
});
$('metric').addEventListener('change', () => {
	if (state.last) {
		state.last.metric = $('metric').value;
		draw();
		saveState();
	}
});
$('use2').addEventListener('change', (ev) => useSecond(ev.target.checked));
/* a field's spacing chosen anew decides its axis again */
$('log1').addEventListener('change', () => {
	state.axisLog.x = null;
});
$('log2').addEventListener('change', () => {
	state.axisLog.mapY = null;
});
$('clear-overlays').addEventListener('click', () => {
	state.overlays = [];
	if (state.last)
		draw();
});
for (const id of Object.keys(presets))
	$(id).addEventListener('click', () => applyPreset(presets[id]));
CD.toolbar('tools', {name: 'sweep', status: 'status', chart: () => window.contactd.charts.sweep,
    data: () => {
	    if (!state.last)
		    throw new Error('nothing swept yet');
	    const a = state.last.answer;
	    return {json: a, csv: CD.csv(a.columns, a.rows)};
    },
    request: () => ({endpoint: 'v1/sweep', body: readRequest().request}),
    log: (on) => {
	    if (state.last && state.last.fields.length === 2)
		    state.axisLog.mapY = on;
	    else
		    state.logY = on;
	    saveState();
	    if (state.last)
		    draw();
    },
    logX: (on) => {
	    state.axisLog.x = on;
	    saveState();
	    if (state.last)
		    draw();
    }});

/* a shared link or a reload restores the form; else the first stability map */
(async () => {
	const s = CD.readHash();
	await CD.releases(['mujoco', 'compare'], [s.mujoco, s.compare]);
	if (s.query) {
		restoreState(s);
		run();
	} else {
		applyPreset(presets['preset-map-damp']);
	}
})();
