/* live.js: the live calibration page: a calibration's measurements and fit, and every
 * new fit as it arrives over Server-Sent Events (the `fit` event, whose data is the
 * `fit` member of GET /v1/calibrations/{id}). */
'use strict';

/* Error bars for Chart.js 3: a dataset's `errors[i]` draws a vertical bar of +-errors[i]
 * around point i. */
const CDErrorBars = {
	id: 'cdErrorBars',
	afterDatasetsDraw(chart) {
		const ctx = chart.ctx;
		const area = chart.chartArea;
		ctx.save();
		ctx.beginPath();
		ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
		ctx.clip();
		chart.data.datasets.forEach((ds, k) => {
			if (!ds.errors || !chart.isDatasetVisible(k))
				return;
			const y = chart.scales[ds.yAxisID || 'y'];
			ctx.strokeStyle = ds.borderColor;
			ctx.lineWidth = 1.5;
			chart.getDatasetMeta(k).data.forEach((pt, i) => {
				const e = ds.errors[i], p = ds.data[i];
				if (!(e > 0) || !p || p.y === null)
					return;
				const top = y.getPixelForValue(p.y + e), bottom = y.getPixelForValue(p.y - e);
				ctx.beginPath();
				ctx.moveTo(pt.x, top);
				ctx.lineTo(pt.x, bottom);
				ctx.moveTo(pt.x - 4, top);
				ctx.lineTo(pt.x + 4, top);
				ctx.moveTo(pt.x - 4, bottom);
				ctx.lineTo(pt.x + 4, bottom);
				ctx.stroke();
			});
		});
		ctx.restore();
	},
};

const state = {id: null, token: null, calibration: null, history: [], source: null, abort: null};

function chart(name, canvasId, config) {
	const old = window.contactd.charts[name];
	if (old)
		old.destroy();
	window.contactd.charts[name] = new Chart(document.getElementById(canvasId), config);
}

function pointSet(label, data, color, extra) {
	return Object.assign({label, data, borderColor: color, backgroundColor: color, pointRadius: 4},
	    extra || {});
}

function scales(x, y, extra) {
	return Object.assign({x: {type: 'linear', title: {display: true, text: x}},
	    y: {type: 'linear', title: {display: true, text: y}}}, extra || {});
}

/* The convergence plot: solref of every fit so far, with its standard errors. */
function drawHistory() {
	const h = state.history.filter((f) => f.solref);
	const tc = h.map((f, i) => ({x: i + 1, y: f.solref[0]}));
	const dr = h.map((f, i) => ({x: i + 1, y: f.solref[1]}));
	const err = (key) => h.map((f) => (f.stderr && typeof f.stderr[key] === 'number' ? f.stderr[key] : 0));
	/* the axes cover the error bars (Chart.js scales only the points) */
	const span = (pts, e) => (pts.length ? {suggestedMin: Math.min(...pts.map((p, i) => p.y - e[i])),
	    suggestedMax: Math.max(...pts.map((p, i) => p.y + e[i]))} : {});
	chart('fit', 'chart-fit', {type: 'scatter', plugins: [CDErrorBars], data: {datasets: [
		pointSet('timeconst (s)', tc, CD.colors[0], {showLine: true, yAxisID: 'y', errors: err('timeconst')}),
		pointSet('dampratio', dr, CD.colors[1], {showLine: true, yAxisID: 'y2', errors: err('dampratio'),
		    pointStyle: 'rectRot'}),
	]}, options: CD.chartOptions({scales: scales('fit (upload by upload)', 'timeconst (s)', {
		x: {type: 'linear', title: {display: true, text: 'fit (upload by upload)'}, ticks: {precision: 0},
		    suggestedMin: 0.8, suggestedMax: Math.max(2, h.length) + 0.2},
		y: Object.assign({type: 'linear', title: {display: true, text: 'timeconst (s)'}},
		    span(tc, err('timeconst'))),
		y2: Object.assign({type: 'linear', position: 'right', title: {display: true, text: 'dampratio'},
		    grid: {drawOnChartArea: false}}, span(dr, err('dampratio')))})})});
	const f = h[h.length - 1];
	CD.describe('chart-fit', h.length + ' fits; the latest solref is ' +
	    (f ? CD.fmt(f.solref[0]) + ' s, ' + CD.fmt(f.solref[1]) : 'none'));
}

function drawMeasurements(m, fit) {
	const res = fit && fit.residuals ? fit.residuals : {};
	const drops = m.drops || [], presses = m.presses || [];
	const model = (list, i) => (list && list[i] ? list[i].model : null);
	chart('drops', 'chart-drops', {type: 'scatter', data: {datasets: [
		pointSet('measured', drops.map((d) => ({x: d.height, y: d.rebound})), CD.colors[0]),
		pointSet('model', drops.map((d, i) => ({x: d.height, y: model(res.drops, i)})), CD.colors[1],
		    {pointStyle: 'crossRot', pointRadius: 6}),
	]}, options: CD.chartOptions({scales: scales('drop height (m)', 'rebound (m)')})});
	CD.describe('chart-drops', drops.length + ' drops, measured and fitted rebound');
	chart('presses', 'chart-presses', {type: 'scatter', data: {datasets: [
		pointSet('measured', presses.map((p) => ({x: p.force, y: p.deflection})), CD.colors[0]),
		pointSet('model', presses.map((p, i) => ({x: p.force, y: model(res.presses, i)})), CD.colors[1],
		    {pointStyle: 'crossRot', pointRadius: 6}),
	]}, options: CD.chartOptions({scales: scales('force (N)', 'deflection (m)')})});
	CD.describe('chart-presses', presses.length + ' presses, measured and fitted deflection');

	/* residuals in units of each measurement's noise scale, so kinds compare */
	const ns = fit && fit.noise_scale ? fit.noise_scale : {};
	const dropScale = (d) => d.sigma || ns.rebound || 1;
	const pressScale = (p) => p.sigma || Math.max(ns.deflection_abs || 0, (ns.deflection_rel || 0) * p.deflection) || 1;
	const rd = (res.drops || []).map((r, i) => ({x: i + 1, y: r.residual / dropScale(drops[i] || {})}));
	const rp = (res.presses || []).map((r, i) => ({x: i + 1, y: r.residual / pressScale(presses[i] || {deflection: 0})}));
	chart('residuals', 'chart-residuals', {type: 'scatter', data: {datasets: [
		pointSet('drops', rd, CD.colors[0]),
		pointSet('presses', rp, CD.colors[2], {pointStyle: 'triangle'}),
	]}, options: CD.chartOptions({scales: scales('measurement', 'residual / noise scale', {
		x: {type: 'linear', title: {display: true, text: 'measurement'}, ticks: {precision: 0}}})})});
	CD.describe('chart-residuals', rd.length + ' drop and ' + rp.length + ' press residuals');
}

function showFit(fit) {
	const dl = document.getElementById('fit');
	dl.textContent = '';
	const notes = document.getElementById('notes');
	notes.textContent = '';
	const add = (label, value, id) => {
		const dt = document.createElement('dt');
		dt.textContent = label;
		const dd = document.createElement('dd');
		dd.textContent = value;
		if (id)
			dd.id = id;
		dl.append(dt, dd);
	};
	if (!fit) {
		add('Fit', 'none yet');
		document.getElementById('mjcf').textContent = '—';
		return;
	}
	if (fit.state)
		add('State', fit.state);
	if (fit.solref) {
		const se = fit.stderr || {};
		const pm = (v, e) => CD.fmt(v, 5) + (typeof e === 'number' ? ' ± ' + CD.fmt(e, 3) : '');
		add('timeconst (s)', pm(fit.solref[0], se.timeconst), 'fit-timeconst');
		add('dampratio', pm(fit.solref[1], se.dampratio), 'fit-dampratio');
		if (fit.solref_direct)
			add('solref, direct', fit.solref_direct.map((v) => CD.fmt(v, 5)).join(', '));
	}
	if (fit.residuals)
		add('χ² / dof', CD.fmt(fit.residuals.chi2) + ' / ' + fit.residuals.dof);
	if (fit.status)
		add('Status', fit.status);
	for (const n of fit.notes || []) {
		const li = document.createElement('li');
		li.textContent = n;
		notes.appendChild(li);
	}
	document.getElementById('mjcf').textContent = fit.mjcf || '—';
}

/* A fit is shown once, whether from the page load or the stream. */
function addFit(fit, fitId) {
	if (!fit || fit.state === 'pending' || fit.state === 'failed')
		return false;
	if (state.history.some((f) => f.cdId === fitId))
		return false;
	state.history.push(Object.assign({cdId: fitId}, fit));
	return true;
}

async function refresh() {
	const c = await CD.api('v1/calibrations/' + state.id, undefined, {token: state.token});
	state.calibration = c;
	window.contactd.answers.calibration = c;
	addFit(c.fit, c.fit_id);
	showFit(c.fit);
	drawMeasurements(c.measurements || {}, c.fit);
	drawHistory();
}

async function onFit(data, id) {
	let fit;
	try {
		fit = JSON.parse(data);
	} catch (e) {
		return;
	}
	window.contactd.events.push({id, fit});
	if (fit.state === 'pending')
		CD.status('status', 'Fitting the new measurements…');
	else if (fit.state === 'failed')
		CD.status('status', 'The fit failed: ' + (fit.error || fit.message || 'see the daemon log'), 'error');
	addFit(fit, Number(id));
	try {
		await refresh();
		CD.status('status', 'Fit ' + state.history.length + ' received at ' +
		    new Date().toLocaleTimeString() + '.', 'ok');
	} catch (e) {
		CD.status('status', CD.errorText(e), 'error');
	}
}

/* The bearer header cannot go on an EventSource: read the stream with fetch instead
 * (for a daemon without the watch endpoint). */
async function streamWithFetch(path) {
	state.abort = new AbortController();
	const reply = await fetch(path, {headers: {Authorization: 'Bearer ' + state.token,
	    Accept: 'text/event-stream'}, signal: state.abort.signal});
	if (!reply.ok)
		throw new Error('the event stream answered HTTP ' + reply.status);
	const reader = reply.body.getReader();
	const decoder = new TextDecoder();
	let buffered = '';
	CD.status('status', 'Watching calibration ' + state.id + ': waiting for uploads.', 'ok');
	for (;;) {
		const {value, done} = await reader.read();
		if (done)
			break;
		buffered += decoder.decode(value, {stream: true});
		let end;
		while ((end = buffered.indexOf('\n\n')) >= 0) {
			const block = buffered.slice(0, end);
			buffered = buffered.slice(end + 2);
			const ev = {event: 'message', data: [], id: null};
			for (const line of block.split('\n')) {
				const colon = line.indexOf(':');
				if (colon === 0)
					continue;
				const field = colon < 0 ? line : line.slice(0, colon);
				const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
				if (field === 'data')
					ev.data.push(val);
				else if (field === 'event')
					ev.event = val;
				else if (field === 'id')
					ev.id = val;
			}
			if (ev.event === 'fit')
				onFit(ev.data.join('\n'), ev.id);
		}
	}
	CD.status('status', 'The event stream ended; Watch again to resume.');
}

function stop() {
	if (state.source)
		state.source.close();
	if (state.abort)
		state.abort.abort();
	state.source = state.abort = null;
}

let watchKnown = null;

async function hasWatch() {
	if (watchKnown === null) {
		const doc = await CD.api('v1/openapi.json');
		watchKnown = Object.keys(doc.paths || {}).some((p) => /\/watch$/.test(p));
	}
	return watchKnown;
}

async function watch() {
	stop();
	state.id = Math.floor(CD.number('calibration'));
	state.token = document.getElementById('token').value.trim();
	state.history = [];
	CD.status('status', 'Loading calibration ' + state.id + '…');
	try {
		await refresh();
	} catch (e) {
		CD.status('status', CD.errorText(e), 'error');
		return;
	}
	const events = 'v1/calibrations/' + state.id + '/events';
	let watchUrl = null;
	try {
		/* the watch endpoint, where this daemon has one (its API description says) */
		if (await hasWatch()) {
			const w = await CD.api('v1/calibrations/' + state.id + '/watch', {}, {token: state.token});
			watchUrl = w.url.replace(/^\//, '');
		}
	} catch (e) {
		CD.status('status', CD.errorText(e), 'error');
		return;
	}
	if (watchUrl) {
		state.source = new EventSource(watchUrl);
		state.source.addEventListener('fit', (ev) => onFit(ev.data, ev.lastEventId));
		state.source.addEventListener('open', () => CD.status('status',
		    'Watching calibration ' + state.id + ': waiting for uploads.', 'ok'));
		state.source.addEventListener('error', () => {
			if (state.source && state.source.readyState === EventSource.CLOSED)
				CD.status('status', 'The event stream closed; Watch again to resume.');
		});
		window.contactd.stream = 'eventsource';
	} else {
		window.contactd.stream = 'fetch';
		streamWithFetch(events).catch((e) => {
			if (e.name !== 'AbortError')
				CD.status('status', CD.errorText(e), 'error');
		});
	}
}

document.getElementById('form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	watch();
});
document.getElementById('copy').addEventListener('click', async () => {
	const text = document.getElementById('mjcf').textContent;
	try {
		await navigator.clipboard.writeText(text);
		CD.status('status', 'MJCF copied.', 'ok');
	} catch (e) {
		const range = document.createRange();
		range.selectNodeContents(document.getElementById('mjcf'));
		window.getSelection().removeAllRanges();
		window.getSelection().addRange(range);
		CD.status('status', 'Press Ctrl+C to copy the selected MJCF.');
	}
});
const fromHash = /(?:^#|&)calibration=(\d+)/.exec(location.hash);
if (fromHash)
	document.getElementById('calibration').value = fromHash[1];
drawHistory();
