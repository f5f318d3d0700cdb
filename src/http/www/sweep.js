/* sweep.js: the sweep page: builds a /v1/sweep request from the form, draws the answer
 * as lines (one field) or a heat map (two), with the refsafe clamp and the guard gap. */
'use strict';

const presets = {
	'preset-map-damp': {query: 'stability', base: {option: {timestep: 0.002}},
	    f1: ['/solref/0', 0.0005, 0.05, 16, true], f2: ['/solref/1', 0.02, 2, 14, true],
	    metric: 'growth'},
	'preset-map-step': {query: 'stability', base: {solref: [0.02, 0.05]},
	    f1: ['/option/timestep', 0.0005, 0.05, 16, true], f2: ['/solref/0', 0.0005, 0.1, 16, true],
	    metric: 'growth'},
	'preset-rebound': {query: 'drop', base: {body: {shape: 'sphere', size: 0.05, mass: 1},
	    duration: 1}, f1: ['/geom/solref/0', 0.002, 0.05, 20, true], f2: null, metric: 'rebound'},
};
const defaultMetric = {stability: 'growth', drop: 'rebound', rest: 'penetration'};

function setField(n, f) {
	document.getElementById('path' + n).value = f[0];
	document.getElementById('from' + n).value = f[1];
	document.getElementById('to' + n).value = f[2];
	document.getElementById('count' + n).value = f[3];
	document.getElementById('log' + n).checked = f[4];
}

function applyPreset(p) {
	document.getElementById('query').value = p.query;
	document.getElementById('base').value = JSON.stringify(p.base, null, 1);
	setField(1, p.f1);
	document.getElementById('use2').checked = !!p.f2;
	if (p.f2)
		setField(2, p.f2);
	setMetrics([p.metric], p.metric);
	run();
}

function setMetrics(names, chosen) {
	const sel = document.getElementById('metric');
	const keep = chosen || sel.value;
	sel.textContent = '';
	for (const n of names) {
		const o = document.createElement('option');
		o.value = o.textContent = n;
		sel.appendChild(o);
	}
	sel.value = names.includes(keep) ? keep : names[0];
}

function readField(n) {
	const log = document.getElementById('log' + n).checked;
	const from = CD.number('from' + n), to = CD.number('to' + n);
	if (log && !(from > 0 && to > 0))
		throw new Error('logarithmic spacing needs positive ends (field ' + n + ')');
	return {path: document.getElementById('path' + n).value.trim(),
	    values: CD.spaced(from, to, CD.number('count' + n), log), log};
}

function readRequest() {
	let base;
	try {
		base = JSON.parse(document.getElementById('base').value || '{}');
	} catch (e) {
		throw new Error('the base request is not JSON: ' + e.message);
	}
	const fields = [readField(1)];
	if (document.getElementById('use2').checked)
		fields.push(readField(2));
	return {request: {query: document.getElementById('query').value, base,
	    vary: fields.map((f) => ({path: f.path, values: f.values}))}, fields};
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

function axis(title, log, range) {
	const a = {type: log ? 'logarithmic' : 'linear', title: {display: true, text: title}};
	if (range) {
		a.min = range[0];
		a.max = range[1];
	}
	return a;
}

function draw(req, fields, answer, metric) {
	const cols = answer.columns;
	const mi = cols.indexOf(metric);
	const old = window.contactd.charts.sweep;
	if (old)
		old.destroy();
	const canvas = document.getElementById('chart');
	let config;
	const heat = fields.length === 2;
	document.getElementById('colorbar-box').hidden = !heat;
	document.getElementById('map-key').hidden = !(heat && req.query === 'stability');
	if (!heat) {
		const data = answer.rows.map((r) => ({x: r[0], y: typeof r[mi] === 'boolean' ? +r[mi] : r[mi]}));
		const ys = data.map((p) => p.y).filter((y) => y !== null);
		const yr = [Math.min(...ys), Math.max(...ys)];
		const datasets = [{label: metric, data, borderColor: CD.colors[0],
		    backgroundColor: CD.colors[0], showLine: true, pointRadius: 3}];
		const clamp = clampLine(req, fields, null, yr);
		if (clamp && yr[0] < yr[1]) {
			clamp.borderColor = CD.colors[1];
			datasets.push(clamp);
		}
		config = {type: 'scatter', data: {datasets}, options: CD.chartOptions({
		    scales: {x: axis(fields[0].path, fields[0].log), y: axis(metric, false)}})};
		CD.describe('chart', 'Line chart of ' + metric + ' over ' + fields[0].path + ', ' +
		    data.length + ' points, from ' + CD.fmt(yr[0]) + ' to ' + CD.fmt(yr[1]));
	} else {
		const gi = cols.indexOf('guard_gap');
		const data = answer.rows.map((r) => ({x: r[0], y: r[1],
		    v: typeof r[mi] === 'boolean' ? +r[mi] : r[mi], mark: gi >= 0 && r[gi] === true}));
		const vs = data.map((p) => p.v).filter((v) => v !== null);
		const min = Math.min(...vs), max = Math.max(...vs);
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
		const xr = pad(xv, fields[0].log), yr = pad(yv, fields[1].log);
		/* a colour per decade when the values span more than two of them */
		const log = min > 0 && max / min > 100;
		const datasets = [{label: metric, heatmap: true, min, max, log, data, pointRadius: 0,
		    pointHitRadius: 8, backgroundColor: 'rgba(0,0,0,0)'}];
		const clamp = clampLine(req, fields, xr, yr);
		if (clamp)
			datasets.push(clamp);
		if (gi >= 0)
			datasets.push({type: 'line', label: 'guard gap: refsafe on, still unstable', data: [],
			    borderColor: '#ff00aa', backgroundColor: 'rgba(255,0,170,0.15)', borderWidth: 2});
		config = {type: 'scatter', data: {datasets}, plugins: [CDHeatmap],
		    options: CD.chartOptions({
		        scales: {x: axis(fields[0].path, fields[0].log, xr), y: axis(fields[1].path, fields[1].log, yr)},
		        plugins: {legend: {position: 'bottom', labels: {filter: (item) => item.datasetIndex > 0}},
		            tooltip: {callbacks: {label: (c) => c.raw.v === undefined ? c.dataset.label
		                : fields[0].path + ' ' + CD.fmt(c.raw.x) + ', ' + fields[1].path + ' ' +
		                  CD.fmt(c.raw.y) + ': ' + metric + ' ' + CD.fmt(c.raw.v) +
		                  (c.raw.mark ? ' (guard gap)' : '')}}}})};
		cdColorBar('colorbar', min, max, metric, log);
		document.getElementById('cb-min').textContent = CD.fmt(min);
		document.getElementById('cb-max').textContent = CD.fmt(max);
		document.getElementById('cb-key').textContent = metric + (log ? ' (logarithmic colour)' : '');
		const gaps = data.filter((p) => p.mark).length;
		CD.describe('chart', 'Heat map of ' + metric + ' over ' + fields[0].path + ' and ' +
		    fields[1].path + ', ' + data.length + ' cells, ' + metric + ' from ' + CD.fmt(min) +
		    ' to ' + CD.fmt(max) + (gi >= 0 ? ', ' + gaps + ' cells in the guard gap' : ''));
	}
	window.contactd.charts.sweep = new Chart(canvas, config);
	CD.table('table', cols, answer.rows, 500);
}

let last = null;

async function run() {
	let parsed;
	try {
		parsed = readRequest();
	} catch (e) {
		CD.status('status', e.message, 'error');
		return;
	}
	CD.status('status', 'Sweeping…');
	document.getElementById('run').disabled = true;
	try {
		const answer = await CD.api('v1/sweep', parsed.request);
		const names = answer.columns.slice(parsed.fields.length);
		setMetrics(names, document.getElementById('metric').value ||
		    defaultMetric[parsed.request.query]);
		last = {req: parsed.request, fields: parsed.fields, answer};
		window.contactd.answers.sweep = {request: parsed.request, answer};
		draw(parsed.request, parsed.fields, answer, document.getElementById('metric').value);
		CD.status('status', answer.rows.length + ' points of ' + parsed.request.query + '.', 'ok');
	} catch (e) {
		CD.status('status', CD.errorText(e), 'error');
	} finally {
		document.getElementById('run').disabled = false;
	}
}

document.getElementById('form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	run();
});
document.getElementById('metric').addEventListener('change', () => {
	if (last)
		draw(last.req, last.fields, last.answer, document.getElementById('metric').value);
});
document.getElementById('use2').addEventListener('change', (ev) => {
	for (const id of ['path2', 'from2', 'to2', 'count2', 'log2'])
		document.getElementById(id).disabled = !ev.target.checked;
});
for (const id of Object.keys(presets))
	document.getElementById(id).addEventListener('click', () => applyPreset(presets[id]));
/* open on the first stability map, drawn from a real answer */
applyPreset(presets['preset-map-damp']);
