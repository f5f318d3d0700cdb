/* live.js: the live calibration page: a calibration's measurements and fit, and every
 * new fit as it arrives over Server-Sent Events (the `fit` event, whose data is the
 * `fit` member of GET /v1/calibrations/{id}). */
'use strict';

/* Interval bars for Chart.js 3: a dataset's `intervals[i]` = [low, high] draws a
 * vertical bar from low to high at point i (asymmetric, as the fit's confidence
 * intervals are). A null end is open: the bar runs to the chart's edge and ends in an
 * arrow instead of a cap. barOffset shifts a dataset's bars sideways (pixels), so two
 * datasets' bars at the same x stay apart. */
const CDErrorBars = {
	id: 'cdErrorBars',
	afterDatasetsDraw(chart) {
		const ctx = CD.clipToArea(chart);
		const area = chart.chartArea;
		chart.data.datasets.forEach((ds, k) => {
			if (!ds.intervals || !chart.isDatasetVisible(k))
				return;
			const y = chart.scales[ds.yAxisID || 'y'];
			ctx.strokeStyle = ds.borderColor;
			ctx.lineWidth = 1.5;
			chart.getDatasetMeta(k).data.forEach((pt, i) => {
				const iv = ds.intervals[i], p = ds.data[i], x = pt.x + (ds.barOffset || 0);
				if (!iv || !p || p.y === null || (iv[0] === null && iv[1] === null))
					return;
				const top = iv[1] === null ? area.top : y.getPixelForValue(iv[1]);
				const bottom = iv[0] === null ? area.bottom : y.getPixelForValue(iv[0]);
				ctx.beginPath();
				ctx.moveTo(x, top);
				ctx.lineTo(x, bottom);
				for (const [end, yy, dir] of [[iv[1], top, 1], [iv[0], bottom, -1]]) {
					if (end === null) {
						ctx.moveTo(x - 4, yy + 6 * dir);
						ctx.lineTo(x, yy);
						ctx.lineTo(x + 4, yy + 6 * dir);
					} else {
						ctx.moveTo(x - 4, yy);
						ctx.lineTo(x + 4, yy);
					}
				}
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

/* Linear axes whose tick labels are rounded (CD.tickLabel): no 2.1684043449710089E-16 for 0. */
const ticks = (t) => Object.assign({callback: CD.tickLabel}, t || {});

function scales(x, y, extra) {
	const out = Object.assign({x: {type: 'linear', title: {display: true, text: x}},
	    y: {type: 'linear', title: {display: true, text: y}}}, extra || {});
	for (const a of Object.values(out))
		a.ticks = ticks(a.ticks);
	return out;
}

/* The 1-sigma interval [low, high] of a fitted parameter: the fit's own (asymmetric)
 * intervals, or, from a fit that has none, value times e^(-/+ the log's standard
 * error), which stays positive as the parameter does. null when neither exists. */
function interval(f, key) {
	const iv = f.intervals && f.intervals[key] && f.intervals[key]['1sigma'];
	if (Array.isArray(iv))
		return iv;
	const le = f.stderr && f.stderr['log_' + key];
	const v = f.solref[key === 'timeconst' ? 0 : 1];
	return typeof le === 'number' && typeof v === 'number' ? [v * Math.exp(-le), v * Math.exp(le)] : null;
}

/* The convergence plot: solref of every fit so far, with its 1-sigma intervals. */
function drawHistory() {
	const h = state.history.filter((f) => f.solref);
	/* each fit at its own id (the events' id): the fits done before the page opened
	 * (loadHistory()), then those the stream brings */
	const tc = h.map((f) => ({x: f.cdId, y: f.solref[0]}));
	const dr = h.map((f) => ({x: f.cdId, y: f.solref[1]}));
	const ivs = (key) => h.map((f) => interval(f, key));
	/* the axes cover the closed ends of the intervals (Chart.js scales only the
	 * points), never below zero: both parameters are positive */
	const span = (pts, iv) => {
		if (!pts.length)
			return {min: 0};
		const lows = pts.map((p, i) => (iv[i] && iv[i][0] !== null ? iv[i][0] : p.y));
		const highs = pts.map((p, i) => (iv[i] && iv[i][1] !== null ? iv[i][1] : p.y));
		const lo = Math.min(...lows), hi = Math.max(...highs);
		const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
		/* suggested: Chart.js rounds them out to whole ticks, never below a bound >= 0 */
		return {suggestedMin: Math.max(0, lo - pad), suggestedMax: hi + pad};
	};
	chart('fit', 'chart-fit', {type: 'scatter', plugins: [CDErrorBars, CDZoom], data: {datasets: [
		pointSet('timeconst (s)', tc, CD.colors[0], {showLine: true, yAxisID: 'y', intervals: ivs('timeconst'),
		    barOffset: -4}),
		pointSet('dampratio', dr, CD.colors[1], {showLine: true, yAxisID: 'y2', intervals: ivs('dampratio'), barOffset: 4,
		    pointStyle: 'rectRot'}),
	]}, options: CD.chartOptions({scales: scales('fit (upload by upload)', 'timeconst (s)', {
		x: {type: 'linear', title: {display: true, text: 'fit id (one fit per upload)'}, ticks: ticks({precision: 0}),
		    suggestedMin: h.length ? h[0].cdId - 0.2 : 0.8, suggestedMax: h.length ? Math.max(h[0].cdId + 1, h[h.length - 1].cdId) + 0.2 : 2.2},
		y: Object.assign({type: 'linear', title: {display: true, text: 'timeconst (s)'}},
		    span(tc, ivs('timeconst'))),
		y2: Object.assign({type: 'linear', position: 'right', title: {display: true, text: 'dampratio'},
		    grid: {drawOnChartArea: false}}, span(dr, ivs('dampratio')))}),
	    plugins: {legend: {position: 'bottom'}, tooltip: {callbacks: {label: (c) => {
		    const iv = c.dataset.intervals[c.dataIndex];
		    return c.dataset.label + ': ' + CD.fmt(c.raw.y) + (iv ? ', 68 % interval ' + ends(iv) : '');
	    }}}}})});
	const f = h[h.length - 1];
	CD.describe('chart-fit', h.length + ' fits with their 68 % intervals; the latest solref is ' +
	    (f ? CD.fmt(f.solref[0]) + ' s, ' + CD.fmt(f.solref[1]) : 'none'));
}

/* "0.011 to 0.014"; an open end reads "no bound". */
function ends(iv) {
	return (iv[0] === null ? 'no lower bound' : CD.fmt(iv[0], 3)) + ' to ' +
	    (iv[1] === null ? 'no upper bound' : CD.fmt(iv[1], 3));
}

/* Positive measured quantities: the axis starts at 0 and ends a little above the
 * largest value (a single 0.1 m drop reads 0 to 0.12, not -1 to 1.5). */
function positiveAxis(title, values) {
	const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
	const hi = v.length ? Math.max(...v) : 1;
	return {type: 'linear', title: {display: true, text: title}, min: 0, max: hi > 0 ? hi * 1.2 : 1, ticks: ticks()};
}

function drawMeasurements(m, fit) {
	const res = fit && fit.residuals ? fit.residuals : {};
	const drops = m.drops || [], presses = m.presses || [];
	const model = (list, i) => (list && list[i] ? list[i].model : null);
	chart('drops', 'chart-drops', {type: 'scatter', data: {datasets: [
		pointSet('measured', drops.map((d) => ({x: d.height, y: d.rebound})), CD.colors[0]),
		pointSet('model', drops.map((d, i) => ({x: d.height, y: model(res.drops, i)})), CD.colors[1],
		    {pointStyle: 'crossRot', pointRadius: 6}),
	]}, options: CD.chartOptions({scales: {x: positiveAxis('drop height (m)', drops.map((d) => d.height)),
	    y: positiveAxis('rebound (m)', drops.map((d) => d.rebound).concat((res.drops || []).map((r) => r.model)))}})});
	CD.describe('chart-drops', drops.length + ' drops, measured and fitted rebound');
	chart('presses', 'chart-presses', {type: 'scatter', data: {datasets: [
		pointSet('measured', presses.map((p) => ({x: p.force, y: p.deflection})), CD.colors[0]),
		pointSet('model', presses.map((p, i) => ({x: p.force, y: model(res.presses, i)})), CD.colors[1],
		    {pointStyle: 'crossRot', pointRadius: 6}),
	]}, options: CD.chartOptions({scales: {x: positiveAxis('force (N)', presses.map((p) => p.force)),
	    y: positiveAxis('deflection (m)', presses.map((p) => p.deflection).concat((res.presses || []).map((r) => r.model)))}})});
	CD.describe('chart-presses', presses.length + ' presses, measured and fitted deflection');

	/* residuals in units of each measurement's noise scale, so kinds compare; each
	 * measurement at its own x: the drops 1..n, then the presses, each tick named */
	const ns = fit && fit.noise_scale ? fit.noise_scale : {};
	const dropScale = (d) => d.sigma || ns.rebound || 1;
	const pressScale = (p) => p.sigma || Math.max(ns.deflection_abs || 0, (ns.deflection_rel || 0) * p.deflection) || 1;
	const rd = (res.drops || []).map((r, i) => ({x: i + 1, y: r.residual / dropScale(drops[i] || {})}));
	const rp = (res.presses || []).map((r, i) => ({x: rd.length + i + 1,
	    y: r.residual / pressScale(presses[i] || {deflection: 0})}));
	const names = [].concat(rd.map((p, i) => 'drop ' + (i + 1)), rp.map((p, i) => 'press ' + (i + 1)));
	chart('residuals', 'chart-residuals', {type: 'scatter', data: {datasets: [
		pointSet('drops', rd, CD.colors[0]),
		pointSet('presses', rp, CD.colors[2], {pointStyle: 'triangle'}),
	]}, options: CD.chartOptions({scales: scales('measurement', 'residual / noise scale', {
		x: {type: 'linear', title: {display: true, text: 'measurement'}, min: 0.5, max: Math.max(1, names.length) + 0.5,
		    afterBuildTicks: (axis) => { axis.ticks = names.map((n, i) => ({value: i + 1})); },
		    ticks: {autoSkip: false, maxRotation: 60, callback: (v) => names[v - 1] || ''}}}),
	    plugins: {legend: {position: 'bottom'}, tooltip: {callbacks: {
		    label: (c) => names[c.raw.x - 1] + ': ' + CD.fmt(c.raw.y) + ' noise scales'}}}})});
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
	showWarning(fit);
	if (!fit) {
		add('Fit', 'none yet');
		document.getElementById('mjcf').textContent = '—';
		document.getElementById('copy').disabled = true;
		return;
	}
	if (fit.state)
		add('State', fit.state);
	if (fit.solref) {
		const iv = (key) => {
			const one = interval(fit, key);
			const two = fit.intervals && fit.intervals[key] && fit.intervals[key]['2sigma'];
			return (one ? ' (68 %: ' + ends(one) + (two ? '; 95 %: ' + ends(two) : '') + ')' : '');
		};
		add('timeconst (s)', CD.fmt(fit.solref[0], 5) + iv('timeconst'), 'fit-timeconst');
		add('dampratio', CD.fmt(fit.solref[1], 5) + iv('dampratio'), 'fit-dampratio');
		if (fit.solref_direct)
			add('solref, direct', fit.solref_direct.map((v) => CD.fmt(v, 5)).join(', '));
	}
	if (fit.residuals)
		add('χ² / dof', CD.fmt(fit.residuals.chi2) + ' / ' + fit.residuals.dof);
	if (fit.status)
		add('Status', fit.status);
	if (fit.hold)
		add('Reference hold (m/s)', holdText(fit.hold), 'fit-hold');
	for (const n of fit.notes || []) {
		const li = document.createElement('li');
		li.textContent = n;
		notes.appendChild(li);
	}
	/* a fit without an MJCF (a misfit, insufficient data: docs/calibration.md) says why */
	document.getElementById('mjcf').textContent = fit.mjcf || noMjcf(fit) || '—';
	document.getElementById('copy').disabled = !fit.mjcf;
}

/* Why a fit has no MJCF to paste, or null when it has one (or is not done yet). */
function noMjcf(fit) {
	if (fit.mjcf || fit.state !== 'done')
		return null;
	return {
		misfit: 'No MJCF: a misfit gives none. Its measurements say the contact model does not describe ' +
		    'this pad, so there is no solref to paste; check the outlying residuals and the setup.',
		insufficient_data: 'No MJCF: with insufficient data nothing is determined yet. Upload more drops and presses.',
	}[fit.status] || 'No MJCF: this fit (' + (fit.status || 'no status') + ') gives none.';
}

/* The fit's hold of the reference object (a 2 cm, 100 g sphere pinched at 10 N): its
 * creep and whether it holds (within the 1 mm slip limit over the second, as MuJoCo
 * steps it; not the Coulomb comparison), or why /v1/hold refuses it. */
function holdText(hold) {
	if (hold.error)
		return 'none: ' + hold.error.message;
	const verdict = hold.holds ? 'holds' : 'slips';
	if (hold.creep_velocity === null)
		return 'no steady creep (' + verdict + ')';
	return 'creeps ' + CD.fmt(hold.creep_velocity, 4) + ' (' + verdict + ')';
}

/* A fit the measurements disagree with is said loudly, above the charts. */
function showWarning(fit) {
	const box = document.getElementById('fit-warning');
	const status = fit && fit.status;
	const text = {
		misfit: 'Misfit: the measurements scatter more than their sigmas allow, or the contact model does ' +
		    'not describe them (χ² ' + (fit && fit.residuals ? CD.fmt(fit.residuals.chi2) + ' for ' +
		    fit.residuals.dof + ' degrees of freedom' : 'too large') + '). Check the outlying residuals ' +
		    'below before using this solref; its intervals are widened.',
		insufficient_data: 'Not enough data yet: nothing is determined. Upload more drops and presses.',
	}[status];
	box.hidden = !text;
	box.className = status === 'misfit' ? 'warning' : 'caution';
	box.textContent = text || '';
}

/* A fit is shown once, whether from the page load or the stream, in the order of the ids. */
function addFit(fit, fitId) {
	if (!fit || fit.state === 'pending' || fit.state === 'failed')
		return false;
	if (state.history.some((f) => f.cdId === fitId))
		return false;
	state.history.push(Object.assign({cdId: fitId}, fit));
	state.history.sort((a, b) => a.cdId - b.cdId);
	return true;
}

/* The calibration's history: every fit done before the page opened (GET .../fits), so the
 * convergence starts at the first upload, not at the page's opening. */
async function loadHistory() {
	const list = await CD.api('v1/calibrations/' + state.id + '/fits', undefined, {token: state.token});
	for (const f of list.fits)
		addFit(f, f.id);
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
		CD.status('status', 'Fit ' + (id || state.history.length) + ' received at ' +
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
			else if (ev.event === 'closed')
				onClosed(ev.data.join('\n'));
		}
	}
	CD.status('status', 'The event stream ended; Watch again to resume.');
}

/* The server ends a stream with a `closed` event naming why: the watch URL expired (get a
 * new one and go on watching), or the token was revoked, expired or rotated (stop: a new
 * token is needed). */
const closedReasons = {
	token_revoked: 'the token was revoked',
	token_expired: 'the token expired',
	token_rotated: 'the token was rotated and its grace period ended',
	token_unknown: 'the token is no longer known',
	watch_expired: 'the watch URL expired',
};

function onClosed(data) {
	let reason = '';
	try {
		reason = JSON.parse(data).reason || '';
	} catch (e) {
		reason = '';
	}
	stop();
	if (reason === 'watch_expired' && state.token) {
		renewWatch();
		return;
	}
	CD.status('status', 'The server closed the event stream: ' + (closedReasons[reason] ||
	    (reason ? reason : 'no reason given')) + '. Enter a valid token and Watch again.', 'error');
}

function openEventSource(watchUrl) {
	state.source = new EventSource(watchUrl);
	state.source.addEventListener('fit', (ev) => onFit(ev.data, ev.lastEventId));
	state.source.addEventListener('closed', (ev) => onClosed(ev.data));
	state.source.addEventListener('open', () => CD.status('status',
	    'Watching calibration ' + state.id + ': waiting for uploads.', 'ok'));
	state.source.addEventListener('error', () => {
		if (state.source && state.source.readyState === EventSource.CLOSED)
			CD.status('status', 'The event stream closed; Watch again to resume.');
	});
	window.contactd.stream = 'eventsource';
}

/* A fresh watch URL for the same calibration and token, keeping the fits drawn so far. */
async function renewWatch() {
	try {
		const w = await CD.api('v1/calibrations/' + state.id + '/watch', {}, {token: state.token});
		openEventSource(w.url.replace(/^\//, ''));
	} catch (e) {
		CD.status('status', CD.errorText(e), 'error');
	}
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
	const raw = document.getElementById('calibration').value.trim();
	if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
		CD.status('status', raw === '' ? 'Enter a calibration id: the whole number the robot got when it ' +
		    'created the calibration.' : 'A calibration id is a whole number from 1, not "' + raw + '".', 'error');
		return;
	}
	state.id = Number(raw);
	state.token = document.getElementById('token').value.trim();
	if (!state.token) {
		CD.status('status', 'Enter the bearer token of the robot or a viewer: calibrations are private.', 'error');
		return;
	}
	history.replaceState(null, '', '#calibration=' + state.id);
	state.history = [];
	CD.status('status', 'Loading calibration ' + state.id + '…');
	try {
		await loadHistory();
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
		openEventSource(watchUrl);
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
/* the convergence chart's tools: the calibration as the API answered it (JSON), the
 * fits so far with their intervals (CSV), the chart (PNG, SVG) */
CD.toolbar('tools', {name: 'calibration', status: 'status', chart: () => window.contactd.charts.fit,
    data: () => {
	    if (!state.calibration)
		    throw new Error('no calibration loaded yet');
	    const cell = (iv, k) => (iv ? iv[k] : null);
	    const rows = state.history.filter((f) => f.solref).map((f, i) => {
		    const t = interval(f, 'timeconst'), d = interval(f, 'dampratio');
		    return [i + 1, f.cdId, f.solref[0], cell(t, 0), cell(t, 1), f.solref[1], cell(d, 0), cell(d, 1),
		        f.status || ''];
	    });
	    return {json: state.calibration, csv: CD.csv(['fit', 'fit_id', 'timeconst', 'timeconst_low_1sigma',
		    'timeconst_high_1sigma', 'dampratio', 'dampratio_low_1sigma', 'dampratio_high_1sigma', 'status'], rows)};
    }});
const fromHash = /(?:^#|&)calibration=(\d+)/.exec(location.hash);
if (fromHash)
	document.getElementById('calibration').value = fromHash[1];
/* the id typed is in the address at once: a reload or a shared link opens it */
document.getElementById('calibration').addEventListener('input', (ev) => {
	const v = ev.target.value.trim();
	history.replaceState(null, '', /^[0-9]+$/.test(v) ? '#calibration=' + v : location.pathname);
});
drawHistory();
