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
	/* where does the SO-101 pad stop bouncing? Its 2 cm, 100 g object dropped on the pad
	 * (the floor: condim 6, priority 1, so the pad's solref is the contact's) over the
	 * pad's dampratio and the drop height; the contour rebound = 0 is the answer */
	'preset-so101': {query: 'drop', base: {body: {shape: 'sphere', size: 0.02, mass: 0.1},
	    floor: CD.so101.pad, option: CD.so101.option, height: 0.05},
	    f1: ['/floor/solref/1', 0.3, 1.5, 13, false], f2: ['/height', 0.01, 0.1, 10, false],
	    metric: 'rebound', level: 0},
};
/* The queries a sweep asks, by name, in the API's order, each {fields, metric}: the
 * answer fields a chart can draw, its default metric first (the list until a run
 * answers), and that default. Read from the daemon's API description (apiDoc()), which
 * the endpoint table writes: the sweep's query enum, each answer's required fields and
 * its x-headline. */
const queries = {};
/* the contour a metric starts with: growth = 1 (the stability boundary), rebound = 0
 * (where bouncing stops) */
const defaultLevel = {growth: '1', rebound: '0'};
const formIds = ['query', 'base', 'path1', 'from1', 'to1', 'count1', 'log1', 'use2', 'path2', 'from2',
    'to2', 'count2', 'log2', 'metric', 'level', 'mujoco', 'compare', 'overlay'];
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
	setMetrics(metricsOf(p.query), p.metric, p.query);
	$('level').value = p.level !== undefined ? String(p.level) : defaultLevel[p.metric] || '';
	state.levelChosen = false;
	run();
}

/* The metrics query offers before a run of it answers: its answer fields, default first. */
function metricsOf(query) {
	const q = queries[query];
	return q ? q.fields : [];
}

/* The metric list: names, chosen selected (else the query's default); query is the query
 * the list belongs to, so a run of another query starts from its own default. */
function setMetrics(names, chosen, query) {
	const sel = $('metric');
	const keep = chosen || sel.value;
	if (query)
		sel.dataset.query = query;
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
	/* a JSON Pointer, or an alias the API resolves ("dampratio"; its error names the ones there are) */
	if (!path.startsWith('/') && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(path))
		throw new Error('the ' + (n === 1 ? 'first' : 'second') + ' field must be a JSON Pointer such as /solref/0 ' +
		    'or an alias such as dampratio');
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

/* MuJoCo's defaults of the arrays a pointer may set one element of (the API fills the
 * base with them before it sets the point's value): the rest of the array is these. */
const arrayDefaults = {solref: [0.02, 1], solimp: [0.9, 0.95, 0.001, 0.5, 2], friction: [1, 0.005, 0.0001]};

/* A value at a JSON Pointer of obj, creating objects on the way (an array absent from
 * the base starts as its default). */
function setPointer(obj, pointer, value) {
	const keys = pointer.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
	let o = obj;
	for (let i = 0; i < keys.length - 1; i++) {
		if (o[keys[i]] === undefined || o[keys[i]] === null || typeof o[keys[i]] !== 'object')
			o[keys[i]] = /^\d+$/.test(keys[i + 1]) ? (arrayDefaults[keys[i]] || []).slice() : {};
		o = o[keys[i]];
	}
	o[keys[keys.length - 1]] = value;
}

/* The query's whole request at one point of the sweep: the base with the point's values
 * at the answer's resolved pointers (an alias replaced), nothing left out. */
function pointRequest(req, cols, point) {
	const r = JSON.parse(JSON.stringify(req.base));
	point.forEach((v, k) => setPointer(r, cols[k], v));
	return r;
}

/* The drop that point's request asks about: a drop or rest request is itself a scene
 * (every field carried over: body, geom, floor, option, height, duration); a stability
 * request's solref and solimp become the dropped body's geom's, its option the drop's. */
function dropOf(query, r) {
	if (query !== 'stability')
		return r;
	const d = {};
	const geom = {};
	for (const k of ['solref', 'solimp'])
		if (r[k] !== undefined)
			geom[k] = r[k];
	if (Object.keys(geom).length)
		d.geom = geom;
	const o = {};
	for (const k of ['timestep', 'integrator', 'refsafe', 'mujoco', 'gravity', 'impratio', 'cone'])
		if (r.option && r.option[k] !== undefined)
			o[k] = r.option[k];
	if (Object.keys(o).length)
		d.option = o;
	return d;
}

/* The drop page's address for one point: the whole drop request, which the page's form
 * and its JSON box take apart and put together again. */
function dropLink(req, cols, point) {
	return 'drop.html#' + new URLSearchParams({request: JSON.stringify(dropOf(req.query, pointRequest(req, cols, point)))}).toString();
}

function openDrop(chart, elements) {
	if (chart.$cdDragged || !elements.length || !state.last)
		return;
	const e = elements.find((k) => chart.data.datasets[k.datasetIndex].cdRun);
	if (!e)
		return;
	const p = chart.data.datasets[e.datasetIndex].data[e.index];
	const point = state.last.fields.length === 2 ? [p.x, p.y] : [p.x];
	location.href = dropLink(state.last.req, state.last.answer.columns, point);
}

function draw() {
	const {req, answer} = state.last;
	const metric = $('metric').value;
	const cols = answer.columns;
	/* the answer's columns name the fields as resolved pointers (an alias replaced):
	 * axes, units and the clamp line follow them */
	const fields = state.last.fields.map((f, k) => Object.assign({}, f, {path: cols[k] || f.path}));
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
		/* outlined: the guard gap of a stability map. A drop that gained energy (rose above
		 * its drop height) or diverged is drawn apart in its own colour and left out of the
		 * colour scale: its numbers are not a contact's, and one 30 m rebound would make
		 * every physical cell one colour */
		const ei = cols.indexOf('energy_gain'), di = cols.indexOf('diverged');
		const apartOf = (r) => (gi >= 0 ? undefined : di >= 0 && r[di] === true ? 'diverged'
		    : ei >= 0 && r[ei] === true ? 'gain' : undefined);
		const data = answer.rows.map((r) => {
			const p = {x: r[0], y: r[1], v: numeric(r[mi]), mark: gi >= 0 ? r[gi] === true : false};
			const a = apartOf(r);
			if (a)
				p.apart = a;
			return p;
		});
		const apart = gi >= 0 ? null : {
			gain: {label: 'energy gained (rose above the drop height)', color: '#e7298a',
			    count: data.filter((p) => p.apart === 'gain').length},
			diverged: {label: 'diverged', color: '#9a9a9a', count: data.filter((p) => p.apart === 'diverged').length}};
		const vs = data.filter((p) => !p.apart).map((p) => p.v).filter((v) => v !== null && Number.isFinite(v));
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
		    (p.v === null && !p.apart ? ' (diverged)' : '') + (p.mark ? ' (guard gap)' : '') +
		    (p.apart === 'gain' ? ' (energy gained: not a physical drop, not on the colour scale)' : '') +
		    (p.apart === 'diverged' ? ' (diverged: not on the colour scale)' : '');
		const heatSet = {label: CD.label(metric), heatmap: true, min, max, log, data, pointRadius: 0,
		    apart, pointHitRadius: 0, backgroundColor: 'rgba(0,0,0,0)', cellText, cdRun: true};
		if (growth)
			Object.assign(heatSet, {diverging: true, center: 1});
		/* the contour at the level asked for (growth = 1, rebound = 0 by default) */
		const level = $('level').value.trim() === '' ? null : Number($('level').value);
		const hasLevel = level !== null && Number.isFinite(level);
		if (hasLevel) {
			Object.assign(heatSet, growth ? {contour: level, contourColor: '#000'}
			    : {contour: level, contourColor: '#fff', contourHalo: '#000'});
			if (cmp && cmp.answer.columns.indexOf(metric) >= 0) {
				const ci = cmp.answer.columns.indexOf(metric);
				heatSet.contours = [{data: cmp.answer.rows.map((r) => ({x: r[0], y: r[1], v: numeric(r[ci])})),
				    color: '#ffd400', halo: '#000', dash: [7, 5]}];
			}
		}
		const levelName = hasLevel ? CD.quantity(metric).name + ' = ' + CD.fmt(level) +
		    (metric === 'growth' && level === 1 ? ': stability boundary' : '') +
		    (metric === 'rebound' && level === 0 ? ': where bouncing stops' : '') : '';
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
		if (hasLevel)
			datasets.push({type: 'line', label: levelName + (cmp ? ', MuJoCo ' + release : ''),
			    data: [], borderColor: growth ? '#000' : '#000', backgroundColor: growth ? '#000' : '#fff',
			    borderWidth: 3, cdLevel: true});
		if (hasLevel && heatSet.contours)
			datasets.push({type: 'line', label: CD.quantity(metric).name + ' = ' + CD.fmt(level) + ', MuJoCo ' + cmp.release,
			    data: [], borderColor: '#ffd400', backgroundColor: '#000', borderWidth: 3, borderDash: [7, 5]});
		/* the colours drawn apart, each in the legend */
		for (const a of Object.values(apart || {}))
			if (a.count > 0)
				datasets.push({type: 'line', label: a.label + ': ' + a.count + ' cells, not on the colour scale', data: [],
				    borderColor: '#444', backgroundColor: a.color, borderWidth: 1, cdApart: true});
		/* earlier growth maps over the same two fields: their boundaries */
		if (growth && hasLevel)
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
			    borderColor: '#ff00aa', backgroundColor: '#fff', borderWidth: 1});
		config = {type: 'scatter', data: {datasets}, plugins: [CDHeatmap, CDZoom],
		    options: CD.chartOptions({
		        interaction: {mode: 'cdCell', intersect: false},
		        onClick: (ev, els, chart) => openDrop(chart, els),
		        scales: {x: axis(xName, logX, xr), y: axis(yName, logY, yr)},
		        plugins: {legend: {position: 'bottom', labels: {filter: (item) => item.datasetIndex > 0}},
		            tooltip: {callbacks: {label: (c) => (c.raw.v === undefined ? c.dataset.label
		                : cellText(c.raw)), footer: () => 'click: open this drop'}}}})};
		const spec = cdScaleSpec(heatSet, CD.label(metric));
		state.colorbar = spec;
		cdColorBar('colorbar', spec);
		$('cb-min').textContent = CD.fmt(min);
		$('cb-max').textContent = CD.fmt(max);
		const apartText = (spec.apart.length ? '; drawn apart, not on the scale: ' +
		    spec.apart.map((a) => a.label).join(', ') : '');
		$('cb-key').textContent = CD.label(metric) + (growth
		    ? ': blues stable (at most 1), reds unstable (above 1), 1 in the middle'
		    : log ? ' (logarithmic colour)' : '') +
		    (hasLevel ? '; the ' + (growth ? 'black' : 'white') + ' line on the map is ' + levelName : '') + apartText;
		$('cb-apart').textContent = '';
		for (const a of spec.apart) {
			const sw = document.createElement('span');
			sw.className = 'swatch';
			sw.style.background = a.color;
			$('cb-apart').append(sw, ' ' + a.label + ' ');
		}
		const gaps = data.filter((p) => p.mark).length;
		const unstable = growth ? data.filter((p) => p.v === null || p.v > 1).length : 0;
		CD.describe('chart', 'Heat map of ' + CD.label(metric) + ' over ' + CD.label(xName) + ' and ' +
		    CD.label(yName) + ', ' + data.length + ' cells, from ' + CD.fmt(min) +
		    ' to ' + CD.fmt(max) + (growth ? ', ' + unstable + ' cells unstable (growth above 1)' : '') +
		    (gi >= 0 ? ', ' + gaps + ' cells in the guard gap' : ''));
	}
	if (!heat)
		state.colorbar = null;
	window.contactd.charts.sweep = new Chart(canvas, config);
	window.contactd.charts.sweep.$cdColorbar = state.colorbar;
	syncAxisToggles(fields);
	state.draws++;
	window.contactd.sweepDraws = state.draws;
	CD.table('table', cols, answer.rows, 500);
}

/* ---- reading the answer: streamed (application/x-ndjson) or whole ---- */

let streamDeclared = null, docAsked = null;

/* The daemon's API description (GET v1/openapi.json), asked once. */
function apiDoc() {
	if (!docAsked)
		docAsked = CD.api('v1/openapi.json');
	return docAsked;
}

/* Fill queries and the query list from the API description: the sweep's query enum and,
 * for each, its answer's fields a chart can draw (numbers and booleans) and x-headline. */
async function readQueries() {
	const doc = await apiDoc();
	const schemas = doc.components.schemas;
	const deref = (v) => (v && v.$ref ? schemas[v.$ref.replace(/^#\/components\/schemas\//, '')] : v);
	for (const name of deref(schemas.SweepRequest).properties.query.enum) {
		const op = doc.paths['/v1/' + name].post;
		const answer = deref(op.responses['200'].content['application/json'].schema);
		const fields = (answer.required || []).filter((f) =>
		    ['number', 'integer', 'boolean'].includes((answer.properties[f] || {}).type));
		const metric = answer['x-headline'] || fields[0];
		queries[name] = {fields: [metric, ...fields.filter((f) => f !== metric)], metric};
	}
	const sel = $('query');
	sel.textContent = '';
	for (const name of Object.keys(queries)) {
		const o = document.createElement('option');
		o.value = o.textContent = name;
		sel.appendChild(o);
	}
}

/* Does this daemon's API description offer the streamed sweep? */
async function sweepStreams() {
	if (streamDeclared === null) {
		try {
			const doc = await apiDoc();
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
		CD.raw.set(value, text);
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
	const s = CD.formValues(formIds);
	s.logy = state.logY ? '1' : '0';
	/* the axes' toggles only once chosen: until then the fields' spacing decides */
	if (state.axisLog.x !== null)
		s.logx = state.axisLog.x ? '1' : '0';
	if (state.axisLog.mapY !== null)
		s.maplogy = state.axisLog.mapY ? '1' : '0';
	CD.writeHash(s);
}

function restoreState(s) {
	/* the metric list holds the address's metric until a run answers */
	CD.setFormValues(formIds, s, (id, v) => {
		if (id !== 'metric')
			return false;
		setMetrics([v], v, s.query);
		return true;
	});
	useSecond($('use2').checked);
	state.levelChosen = s.level !== undefined && s.level !== defaultLevel[s.metric];
	state.logY = s.logy === '1';
	$('tools-log').checked = state.logY;
	state.axisLog = {x: s.logx === undefined ? null : s.logx === '1',
	    mapY: s.maplogy === undefined ? null : s.maplogy === '1'};
}

/* The leaves of a JSON value as [pointer, value] pairs. */
function leaves(v, prefix, out) {
	if (v && typeof v === 'object' && !Array.isArray(v)) {
		for (const [k, x] of Object.entries(v))
			leaves(x, prefix + '/' + k, out);
	} else {
		out.push([prefix, v]);
	}
	return out;
}

/* What an earlier run asked that the new one does not: the base's values that differ
 * ("height 0.2 m"), then the varied fields if they differ, so the legend names the
 * difference instead of cutting the base JSON before it. */
function overlaySummary(req, next) {
	const now = new Map(leaves(next.base, '', []).map(([k, v]) => [k, JSON.stringify(v)]));
	const was = leaves(req.base, '', []);
	const diff = was.filter(([k, v]) => now.get(k) !== JSON.stringify(v)).map(([k, v]) =>
	    CD.valueText(k, Array.isArray(v) ? v.join(' ') : v));
	for (const k of now.keys())
		if (!was.some(([w]) => w === k))
			diff.push(CD.quantity(k).name + ' unset');
	const vary = (r) => r.vary.map((f) => f.path + ' ' + f.values[0] + '..' + f.values[f.values.length - 1]).join(', ');
	if (vary(req) !== vary(next))
		diff.push(vary(req));
	if (req.query !== next.query)
		diff.unshift(req.query);
	return diff.length ? diff.join(', ') : 'the same request';
}

/* The metric a run of query draws: the one chosen for that query, else its default. */
function metricFor(query) {
	const sel = $('metric');
	return sel.dataset.query === query && sel.value ? sel.value : (queries[query] || {}).metric;
}

const run = CD.runner('status', readRequest, async (parsed, current) => {
	saveState();
	CD.status('status', 'Sweeping…');
	$('run').disabled = true;
	const compareTo = $('compare').value;
	try {
		/* the run before this one stays as an overlay when asked */
		if ($('overlay').checked && state.last && state.last.answer.rows.length) {
			const l = state.last, mi = l.answer.columns.indexOf(l.metric);
			const label = 'earlier run ' + (state.overlays.length + 1) + ': ' + overlaySummary(l.req, parsed.request);
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
			if (!current())
				return;
			state.last = {req: parsed.request, fields: parsed.fields, answer: partial};
			setMetrics(partial.columns.slice(parsed.fields.length), metricFor(parsed.request.query), parsed.request.query);
			draw();
			const total = parsed.fields.reduce((n, f) => n * f.values.length, 1);
			CD.status('status', partial.rows.length + ' of ' + total + ' points…');
		};
		const answer = await fetchSweep(parsed.request, progress);
		if (!current())
			return;
		window.contactd.sweepStreamed = /x-ndjson/.test(window.contactd.sweepContentType);
		let compare = null;
		if (compareTo && compareTo !== (parsed.request.base.option || {}).mujoco) {
			const creq = withRelease(parsed.request, compareTo);
			compare = {release: compareTo, request: creq, answer: await fetchSweep(creq, () => {})};
		}
		if (!current())
			return;
		const names = answer.columns.slice(parsed.fields.length);
		setMetrics(names, metricFor(parsed.request.query), parsed.request.query);
		state.compare = compare;
		state.last = {req: parsed.request, fields: parsed.fields, answer, metric: $('metric').value};
		window.contactd.answers.sweep = {request: parsed.request, answer};
		window.contactd.answers.sweepCompare = compare;
		draw();
		saveState();
		let text = answer.rows.length + ' points of ' + parsed.request.query + '.';
		const bad = answer.rows.filter((r) => unphysical(answer.columns, r)).length;
		if (bad)
			text += ' ' + bad + ' gained energy or diverged (drawn apart' + (state.last.fields.length === 2
			    ? ', pink or grey, out of the colour scale' : ', red crosses') + '): not physical drops.';
		if (compare) {
			const same = JSON.stringify(answer.rows.map((r) => r.slice(0, -2))) ===
			    JSON.stringify(compare.answer.rows.map((r) => r.slice(0, -2)));
			text += same ? ' MuJoCo ' + compareTo + ' gives the same answer.'
			             : ' MuJoCo ' + compareTo + ' differs (dashed).';
		}
		CD.status('status', text, bad ? 'error' : 'ok');
	} finally {
		if (current())
			$('run').disabled = false;
	}
});

$('form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	run();
});
/* another query: its own answer fields, its default metric and contour */
$('query').addEventListener('change', () => {
	const q = $('query').value;
	setMetrics(metricsOf(q), (queries[q] || {}).metric, q);
	if (!state.levelChosen)
		$('level').value = defaultLevel[$('metric').value] || '';
});
/* a level typed is kept; until then each metric has its own */
$('level').addEventListener('input', () => {
	state.levelChosen = true;
	if (state.last) {
		draw();
		saveState();
	}
});
$('metric').addEventListener('change', () => {
	$('metric').dataset.query = $('query').value;
	if (!state.levelChosen)
		$('level').value = defaultLevel[$('metric').value] || '';
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
    /* the request drawn (not the form as edited since) */
    request: () => ({endpoint: 'v1/sweep', body: state.last ? state.last.req : readRequest().request}),
    stem: () => {
	    const r = state.last ? state.last.req : readRequest().request;
	    return r.query + '-' + r.vary.map((v) => v.path.replace(/^\//, '').replace(/\//g, '.')).join('-x-') +
	        '-' + $('metric').value;
    },
    colorbar: () => state.colorbar,
    /* a streamed answer's bytes are NDJSON: the JSON is asked for again (the daemon's
     * cache answers it) */
    rawJson: async () => {
	    const a = state.last.answer, raw = CD.raw.get(a);
	    if (raw !== undefined)
		    return raw;
	    const reply = await fetch('v1/sweep', {method: 'POST', body: JSON.stringify(state.last.req),
		    headers: {'Content-Type': 'application/json', Accept: 'application/json'}});
	    if (!reply.ok)
		    throw new Error('the sweep answered HTTP ' + reply.status);
	    return reply.text();
    },
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
	try {
		await readQueries();
	} catch (e) {
		CD.status('status', 'The API description did not load, so the queries are unknown: ' + CD.errorText(e), 'error');
		return;
	}
	await CD.releases(['mujoco', 'compare'], [s.mujoco, s.compare]);
	if (s.query) {
		restoreState(s);
		run();
	} else {
		applyPreset(presets['preset-map-damp']);
	}
})();
