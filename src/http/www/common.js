/* common.js: what every dashboard page shares: calling the API, number formatting,
 * status messages, colours, and window.contactd, where each page leaves its charts and
 * the answers they were drawn from (the browser tests read them). */
'use strict';

window.contactd = {charts: {}, answers: {}, events: []};

const CD = {
	/* The API's own bytes of each answer object CD.api returned (JSON.stringify would
	 * re-spell its numbers and re-indent it). */
	raw: new WeakMap(),

	/* The API's answer to one request; an error answer throws an Error whose message
	 * is the contract's "message" and whose .path is the offending field. */
	async api(path, body, options) {
		const opt = options || {};
		const headers = {Accept: 'application/json'};
		if (body !== undefined)
			headers['Content-Type'] = 'application/json';
		if (opt.token)
			headers.Authorization = 'Bearer ' + opt.token;
		const reply = await fetch(path, {
			method: opt.method || (body === undefined ? 'GET' : 'POST'),
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await reply.text();
		let value = null;
		try {
			value = text ? JSON.parse(text) : null;
		} catch (e) {
			value = null;
		}
		/* the bytes as they came, for "JSON as the API answered" */
		if (value && typeof value === 'object')
			CD.raw.set(value, text);
		if (!reply.ok) {
			const err = new Error(value && value.message ? value.message
			                                             : 'HTTP ' + reply.status);
			err.status = reply.status;
			err.path = value && value.path;
			throw err;
		}
		return value;
	},

	/* Show text in a page's status line (role="status": screen readers announce it). */
	status(id, text, kind) {
		const el = document.getElementById(id);
		el.textContent = text;
		el.className = 'status' + (kind ? ' ' + kind : '');
	},

	/* An error from CD.api as one line, naming the field. */
	errorText(e) {
		return e.path ? e.message + ' (at ' + e.path + ')' : e.message;
	},

	fmt(x, digits) {
		if (x === null || x === undefined)
			return '—';
		if (typeof x === 'boolean')
			return x ? 'yes' : 'no';
		if (typeof x !== 'number')
			return String(x);
		if (x === 0)
			return '0';
		const d = digits || 4;
		const a = Math.abs(x);
		return a >= 1e-3 && a < 1e5 ? String(Number(x.toPrecision(d))) : x.toExponential(d - 1);
	},

	/* count values from a to b, evenly spaced (log: evenly in log). */
	spaced(a, b, count, log) {
		const n = Math.max(1, Math.floor(count));
		const out = [];
		for (let i = 0; i < n; i++) {
			const f = n === 1 ? 0 : i / (n - 1);
			out.push(log ? Math.exp(Math.log(a) + f * (Math.log(b) - Math.log(a)))
			             : a + f * (b - a));
		}
		return out.map((v) => Number(v.toPrecision(12)));
	},

	number(id) {
		const el = document.getElementById(id);
		const v = Number(el.value);
		if (el.value.trim() === '' || !Number.isFinite(v))
			throw new Error(el.labels[0].textContent.trim() + ' must be a number');
		return v;
	},

	/* Line colours that stay apart for readers with colour-vision deficiencies
	 * (Okabe and Ito's palette). */
	colors: ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'],

	/* A perceptually even ramp (viridis, 6 stops) at f in [0, 1], as rgb(). */
	ramp(f) {
		const stops = [[68, 1, 84], [65, 68, 135], [42, 120, 142], [34, 168, 132],
		    [122, 209, 81], [253, 231, 37]];
		const x = Math.min(1, Math.max(0, f)) * (stops.length - 1);
		const i = Math.min(stops.length - 2, Math.floor(x));
		const t = x - i;
		const c = stops[i].map((v, k) => Math.round(v + t * (stops[i + 1][k] - v)));
		return 'rgb(' + c.join(',') + ')';
	},

	/* Chart.js defaults every page uses: no animation (answers appear at once, and
	 * screenshots are of the final chart), sized by its container. */
	chartOptions(extra) {
		return Object.assign({
			animation: false,
			responsive: true,
			maintainAspectRatio: false,
			parsing: false,
			normalized: true,
			plugins: {legend: {position: 'bottom'}},
		}, extra || {});
	},

	/* Describe a chart for screen readers (the canvas is role="img"). */
	describe(canvasId, text) {
		document.getElementById(canvasId).setAttribute('aria-label', text);
	},

	/* Fill a <table>'s body (and head) from columns and rows, at most limit rows. */
	table(id, columns, rows, limit) {
		const table = document.getElementById(id);
		table.textContent = '';
		const head = table.createTHead().insertRow();
		for (const c of columns) {
			const th = document.createElement('th');
			th.scope = 'col';
			th.textContent = c;
			th.title = CD.label(c);
			head.appendChild(th);
		}
		const body = table.createTBody();
		for (const row of rows.slice(0, limit || rows.length)) {
			const tr = body.insertRow();
			for (const v of row)
				tr.insertCell().textContent = CD.fmt(v, 6);
		}
	},
};

/* Physical names and units of request fields (JSON Pointers) and answer fields, for
 * axis titles, tooltips and colour bars: one table, first match wins. unit '' is a pure
 * number. */
/* Legend swatches: a dashed series' is its line, dashed in its colour, across the swatch
 * (Chart.js strokes a dashed box's border, which at 40 x 12 px reads as a blur); a solid
 * one keeps its filled box. Every chart's legend, whatever its page sets beside. */
if (typeof Chart !== 'undefined') {
	const labels = Chart.defaults.plugins.legend.labels;
	const generate = labels.generateLabels;
	/* a circle marker of a dataset's radius, border and fill, on a canvas of its own */
	const markerImage = (ds) => {
		const r = ds.pointRadius || 3, lw = ds.borderWidth || 1, size = Math.ceil(2 * r + lw + 2);
		const c = document.createElement('canvas');
		c.width = c.height = size;
		const ctx = c.getContext('2d');
		ctx.beginPath();
		ctx.arc(size / 2, size / 2, r, 0, 2 * Math.PI);
		ctx.fillStyle = ds.pointBackgroundColor || ds.backgroundColor;
		ctx.fill();
		ctx.lineWidth = lw;
		ctx.strokeStyle = ds.borderColor;
		ctx.stroke();
		return c;
	};
	const white = (c) => typeof c === 'string' && /^(#fff(fff)?|white|rgba?\(255, ?255, ?255)/i.test(c);
	Object.assign(labels, {
		usePointStyle: true,
		pointStyleWidth: 36,
		generateLabels(chart) {
			/* with point styles Chart.js takes an item's style from the first point, which has
			 * no dash: the dataset's line says it */
			return generate(chart).map((item) => {
				const ds = chart.data.datasets[item.datasetIndex] || {};
				/* a key to a marker (a dataset with no points, cdKey): the marker itself, drawn
				 * as the chart draws it (a 'circle' point style would stretch to the swatch's width) */
				if (ds.cdKey)
					return Object.assign(item, {pointStyle: markerImage(ds), cdMarker: true});
				const dash = Array.isArray(ds.borderDash) ? ds.borderDash : [];
				if (!dash.length)
					return Object.assign(item, {pointStyle: 'rect'});
				const stroke = typeof ds.borderColor === 'string' ? ds.borderColor : item.strokeStyle;
				return Object.assign(item, {pointStyle: 'line', lineDash: dash,
				    lineWidth: Math.max(2, ds.borderWidth || 0),
				    strokeStyle: white(stroke) ? ds.backgroundColor || item.fillStyle : stroke});
			});
		},
	});
}

CD.quantities = [
	[/(^|\/)solref\/0$/, 'timeconst', 's'],
	[/(^|\/)solref\/1$/, 'dampratio', ''],
	[/(^|\/)solimp\/0$/, 'solimp d0', ''],
	[/(^|\/)solimp\/1$/, 'solimp dwidth', ''],
	[/(^|\/)solimp\/2$/, 'solimp width', 'm'],
	[/(^|\/)solimp\/3$/, 'solimp midpoint', ''],
	[/(^|\/)solimp\/4$/, 'solimp power', ''],
	[/^\/option\/timestep$/, 'timestep', 's'],
	[/^\/option\/gravity$/, 'gravity', 'm/s²'],
	[/^\/option\/impratio$/, 'impratio', ''],
	[/^\/grip_force$/, 'grip force', 'N'],
	[/^\/pad\/actuator\/squeeze$/, 'servo squeeze', 'm'],
	[/^\/object\/mass$/, 'object mass', 'kg'],
	[/^\/object\/size$/, 'object radius', 'm'],
	[/^\/pad\/mass$/, 'pad mass', 'kg'],
	[/^creep_velocity$/, 'creep velocity', 'm/s'],
	[/^(slip|slip_limit)$/, null, 'm'],
	[/^(normal_force|load|friction_capacity|friction_margin)$/, null, 'N'],
	[/^(time_to_slip|fall_time)$/, null, 's'],
	[/^\/impedance$/, 'impedance d', ''],
	[/^\/height$/, 'drop height', 'm'],
	[/^\/duration$/, 'duration', 's'],
	[/^\/body\/mass$/, 'mass', 'kg'],
	[/^\/body\/size(\/\d)?$/, 'half-size or radius', 'm'],
	[/(^|\/)(margin|gap)$/, null, 'm'],
	[/(^|\/)friction\/0$/, 'sliding friction', ''],
	[/^growth$/, 'growth per step', ''],
	[/^h_omega$/, 'timestep / (timeconst × dampratio)', ''],
	[/^timeconst_used$/, 'timeconst used', 's'],
	[/^error_reduction$/, 'error reduction per step', ''],
	[/^impedance$/, 'impedance d', ''],
	[/^[Kk]$/, 'stiffness K', '1/s²'],
	[/^[Bb]$/, 'damping B', '1/s'],
	[/^(penetration|settled_penetration|peak_penetration|final_penetration)$/, null, 'm'],
	[/^rebound$/, 'rebound', 'm'],
	[/^max_height$/, 'highest point', 'm'],
	[/^jitter$/, 'jitter', 'm'],
	[/^(steps|contacts|rows)$/, null, ''],
	[/^t$/, 'time', 's'],
	[/^z$/, 'bottom height', 'm'],
];

/* {name, unit} of a request field's pointer or an answer field's name. */
CD.quantity = function (key) {
	const k = String(key);
	for (const [re, name, unit] of CD.quantities)
		if (re.test(k)) {
			const base = name || k.replace(/^.*\//, '').replace(/_/g, ' ');
			return {name: (/^\/floor\//.test(k) ? 'floor ' : '') + base, unit};
		}
	return {name: k.replace(/^\//, '').replace(/_/g, ' '), unit: ''};
};

/* "timeconst (s)": the label of an axis, a colour bar or a column. */
CD.label = function (key) {
	const q = CD.quantity(key);
	return q.unit ? q.name + ' (' + q.unit + ')' : q.name;
};

/* "timeconst 0.02 s": a value with its name and unit, for tooltips. */
CD.valueText = function (key, v) {
	const q = CD.quantity(key);
	return q.name + ' ' + CD.fmt(v) + (q.unit && v !== null && v !== undefined ? ' ' + q.unit : '');
};

/* The colour of a growth per step: blues for stable (at most 1), reds for unstable
 * (above 1), each side spanning its own range in log(growth) with the square root
 * stretching values near 1, and a jump in hue at 1, so a cell at 0.99 and one at 1.01
 * differ at a glance. lo < 1 < hi are the map's ends. */
CD.growthColor = function (v, lo, hi) {
	const mix = (stops, t) => {
		const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
		const i = Math.min(stops.length - 2, Math.floor(x));
		const f = x - i;
		return 'rgb(' + stops[i].map((c, k) => Math.round(c + f * (stops[i + 1][k] - c))).join(',') + ')';
	};
	const blues = [[198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]];
	const reds = [[253, 208, 162], [252, 146, 114], [222, 45, 38], [103, 0, 13]];
	if (v <= 1)
		return mix(blues, lo < 1 ? Math.sqrt(Math.log(v) / Math.log(lo)) : 0);
	return mix(reds, hi > 1 ? Math.sqrt(Math.log(v) / Math.log(hi)) : 0);
};

/* Start drawing on a chart's canvas clipped to its chart area (a plugin's layer under or
 * over the datasets); ctx.restore() ends it. Returns the context. */
CD.clipToArea = function (chart) {
	const ctx = chart.ctx, area = chart.chartArea;
	ctx.save();
	ctx.beginPath();
	ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
	ctx.clip();
	return ctx;
};

/* ---- page state in the URL's fragment: reload and shared links restore it ---- */

CD.readHash = function () {
	const out = {};
	for (const [k, v] of new URLSearchParams(location.hash.replace(/^#/, '')))
		out[k] = v;
	return out;
};

/* The values of a form's elements (their ids) as the address keeps them: a checkbox's
 * '1' or '0', any other element's value. */
CD.formValues = function (ids) {
	const out = {};
	for (const id of ids) {
		const el = document.getElementById(id);
		out[id] = el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value;
	}
	return out;
};

/* Put values (CD.formValues') back into the elements ids; those values lacks stay.
 * set(id, value), when given, takes the ones it returns true for itself. */
CD.setFormValues = function (ids, values, set) {
	for (const id of ids) {
		if (values[id] === undefined || (set && set(id, values[id])))
			continue;
		const el = document.getElementById(id);
		if (el.type === 'checkbox')
			el.checked = values[id] === '1';
		else
			el.value = values[id];
	}
};

CD.writeHash = function (state) {
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(state))
		if (v !== undefined && v !== null && v !== '')
			q.set(k, typeof v === 'string' ? v : JSON.stringify(v));
	history.replaceState(null, '', '#' + q.toString());
};

/* ---- export and copy ---- */

CD.download = function (name, type, data) {
	const blob = data instanceof Blob ? data : new Blob([data], {type});
	const a = document.createElement('a');
	a.href = URL.createObjectURL(blob);
	a.download = name;
	document.body.appendChild(a);
	a.click();
	a.remove();
	setTimeout(() => URL.revokeObjectURL(a.href), 10000);
};

CD.csvCell = function (v) {
	if (v === null || v === undefined)
		return '';
	const s = String(v);
	return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
};

CD.csv = function (columns, rows) {
	return [columns, ...rows].map((r) => r.map(CD.csvCell).join(',')).join('\n') + '\n';
};

/* ---- what every export carries: the request, the units, the colour scale ---- */

/* FNV-1a of a string, 8 hex digits: a short name of one request. */
CD.hash = function (text) {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h.toString(16).padStart(8, '0');
};

/* "sweep-drop-dampratio-x-height-1a2b3c4d": a download's name (without its extension). */
CD.fileName = function (page, stem, body) {
	const words = [page, stem].filter((w) => w).join('-').replace(/[^A-Za-z0-9._-]+/g, '-')
	    .replace(/-+/g, '-').replace(/^-|-$/g, '').slice(0, 80);
	return body === null || body === undefined ? words : words + '-' + CD.hash(JSON.stringify(body));
};

/* {request, units, colorbar} of a toolbar's spec: what an export says about itself. */
CD.exportMeta = function (spec) {
	const r = spec.request ? spec.request() : null;
	const d = spec.data ? spec.data() : null;
	const keys = spec.columns ? spec.columns() : d && d.json && Array.isArray(d.json.columns) ? d.json.columns
	    : d && d.json && typeof d.json === 'object' && !Array.isArray(d.json) ? Object.keys(d.json) : [];
	const units = {};
	for (const k of keys) {
		const q = CD.quantity(k);
		units[k] = q.unit;
	}
	const cb = spec.colorbar ? spec.colorbar() : null;
	return {generator: 'contactd dashboard', request: r ? {method: 'POST', path: '/' + r.endpoint, body: r.body} : null,
	    units, colorbar: cb ? {label: cb.label, min: cb.min, max: cb.max, scale: cb.scale, contour: cb.contour,
	        apart: cb.apart || []} : null};
};

/* The CSV's head: the request, the units and the colour scale, as # comment lines
 * (read by pandas with comment="#", numpy.loadtxt, gnuplot, R's read.csv(comment.char="#")). */
CD.csvHeader = function (m) {
	const out = [];
	if (m.request)
		out.push('# request: ' + m.request.method + ' ' + m.request.path + ' ' + JSON.stringify(m.request.body));
	const u = Object.entries(m.units).map(([k, v]) => k + ' ' + (v || '1'));
	if (u.length)
		out.push('# units: ' + u.join('; '));
	if (m.colorbar)
		out.push('# colour bar: ' + CD.colorbarText(m.colorbar));
	return out.map((l) => l.replace(/\n/g, ' ') + '\n').join('');
};

/* The colour scale in words: "rebound (m) from 0 to 0.0123, viridis; apart: ...". */
CD.colorbarText = function (cb) {
	return cb.label + ' from ' + CD.fmt(cb.min) + ' to ' + CD.fmt(cb.max) + (cb.scale ? ', ' + cb.scale : '') +
	    (cb.contour !== undefined && cb.contour !== null ? '; contour at ' + CD.fmt(cb.contour) : '') +
	    (cb.apart && cb.apart.length ? '; drawn apart, not in the scale: ' +
	        cb.apart.map((a) => a.label + ' (' + a.color + ')').join(', ') : '');
};

/* Draw a colour bar (spec: {sample(f) -> colour, min, max, label, apart}) at x, y. */
CD.drawColorBar = function (ctx, x, y, w, h, cb) {
	for (let i = 0; i < w; i++) {
		ctx.fillStyle = cb.sample(i / Math.max(1, w - 1));
		ctx.fillRect(x + i, y, 1, h);
	}
	ctx.strokeStyle = '#888';
	ctx.lineWidth = 1;
	ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
	ctx.fillStyle = '#222';
	ctx.font = '12px sans-serif';
	ctx.textAlign = 'left';
	ctx.fillText(CD.fmt(cb.min), x, y + h + 13);
	ctx.textAlign = 'right';
	ctx.fillText(CD.fmt(cb.max), x + w, y + h + 13);
	ctx.textAlign = 'left';
	let tx = x + w + 10;
	ctx.fillText(cb.label, tx, y + h - 2);
	tx += ctx.measureText(cb.label).width + 14;
	for (const a of cb.apart || []) {
		ctx.fillStyle = a.color;
		ctx.fillRect(tx, y, h, h);
		ctx.strokeRect(tx + 0.5, y + 0.5, h - 1, h - 1);
		ctx.fillStyle = '#222';
		ctx.fillText(a.label, tx + h + 4, y + h - 2);
		tx += h + 10 + ctx.measureText(a.label).width;
	}
};

/* Lines of at most n characters. */
CD.wrap = function (text, n) {
	const out = [];
	for (let i = 0; i < text.length; i += n)
		out.push(text.slice(i, i + n));
	return out;
};

/* The chart as a PNG (white background, as shown), with the colour bar (of a heat map)
 * and the request below it. */
CD.pngBlob = function (chart, meta) {
	const src = chart.canvas;
	const m = meta || {};
	const cb = m.colorbar && chart.$cdColorbar ? chart.$cdColorbar : null;
	const lines = m.request ? CD.wrap(m.request.method + ' ' + m.request.path + ' ' + JSON.stringify(m.request.body),
	    Math.max(40, Math.floor(src.width / 7))) : [];
	const foot = (cb ? 40 : 0) + (lines.length ? 14 * lines.length + 8 : 0);
	const c = document.createElement('canvas');
	c.width = src.width;
	c.height = src.height + foot;
	const ctx = c.getContext('2d');
	ctx.fillStyle = '#fff';
	ctx.fillRect(0, 0, c.width, c.height);
	ctx.drawImage(src, 0, 0);
	let y = src.height + 6;
	if (cb) {
		CD.drawColorBar(ctx, 10, y, Math.min(240, c.width / 3), 14, Object.assign({}, cb, m.colorbar));
		y += 40;
	}
	ctx.fillStyle = '#222';
	ctx.font = '11px monospace';
	ctx.textAlign = 'left';
	lines.forEach((l, i) => ctx.fillText(l, 10, y + 11 + 14 * i));
	return new Promise((resolve) => c.toBlob(resolve, 'image/png'));
};

/* A tick label rounded to what the axis resolves: a value within a millionth of a
 * step of zero is 0 (2.1684043449710089E-16 is floating-point noise), the rest at
 * most 6 significant digits. For Chart.js's ticks.callback. */
CD.tickLabel = function (value, index, ticks) {
	const step = ticks && ticks.length > 1 ? Math.abs(ticks[1].value - ticks[0].value) : 0;
	if (step > 0 && Math.abs(value) < step * 1e-6)
		return '0';
	/* one digit finer than the step: an end tick the axis puts at its max reads 0.0271 */
	const decimals = step > 0 ? Math.min(20, Math.max(0, 1 - Math.floor(Math.log10(step)))) : null;
	const v = decimals === null ? Number(Number(value).toPrecision(6)) : Number(Number(value).toFixed(decimals));
	return String(Number(v.toPrecision(6)));
};

/* b merged into a copy of a: objects member by member, anything else (arrays too)
 * replaced. */
CD.merge = function (a, b) {
	const plain = (v) => v && typeof v === 'object' && !Array.isArray(v);
	if (!plain(a) || !plain(b))
		return JSON.parse(JSON.stringify(b));
	const out = JSON.parse(JSON.stringify(a));
	for (const [k, v] of Object.entries(b))
		out[k] = plain(out[k]) && plain(v) ? CD.merge(out[k], v) : JSON.parse(JSON.stringify(v));
	return out;
};

/* A JSON object typed in a textarea ('' is {}); throws naming the box. */
CD.jsonObject = function (id) {
	const el = document.getElementById(id);
	let v;
	try {
		v = JSON.parse(el.value.trim() || '{}');
	} catch (e) {
		throw new Error(el.labels[0].textContent.trim() + ' is not JSON: ' + e.message);
	}
	if (!v || typeof v !== 'object' || Array.isArray(v))
		throw new Error(el.labels[0].textContent.trim() + ' must be a JSON object');
	return v;
};

/* The SO-101 gripper's pad (Menagerie's robotstudio_so101, class collision_gripper):
 * condim 6, friction 1 5e-3 5e-4, solref 0.01 1 (exactly 2 x the 5 ms timestep),
 * priority 1 (its solref and friction win the pair), and the model's option:
 * timestep 5 ms, elliptic cone, impratio 10. */
CD.so101 = {
	pad: {condim: 6, friction: [1, 0.005, 0.0005], solref: [0.01, 1], priority: 1},
	option: {timestep: 0.005, cone: 'elliptic', impratio: 10},
};

const xmlEscape = (s) => String(s).replace(/[<>&"]/g, (c) => ({'<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;'})[c]);

/* The chart as SVG, drawn from its scales and data (vectors, not a picture of pixels):
 * axes with their ticks and titles, heat-map cells, the growth = 1 contour, lines and
 * points, and the legend's labels. */
CD.svg = function (chart, meta) {
	const w = chart.width, h = chart.height, a = chart.chartArea;
	const out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h +
	    '" viewBox="0 0 ' + w + ' ' + h + '" font-family="sans-serif" font-size="12">',
	    '<rect width="100%" height="100%" fill="#fff"/>'];
	const n = (v) => Math.round(v * 100) / 100;
	const text = (x, y, s, anchor, extra) => out.push('<text x="' + n(x) + '" y="' + n(y) +
	    '" text-anchor="' + (anchor || 'middle') + '"' + (extra || '') + '>' + xmlEscape(s) + '</text>');
	out.push('<clipPath id="area"><rect x="' + n(a.left) + '" y="' + n(a.top) + '" width="' +
	    n(a.right - a.left) + '" height="' + n(a.bottom - a.top) + '"/></clipPath>');
	out.push('<g clip-path="url(#area)">');
	const caption = [];
	chart.data.datasets.forEach((ds, k) => {
		if (!chart.isDatasetVisible(k))
			return;
		if (ds.heatmap && ds.cdCells) {
			/* the colour bar is HTML beside the chart: its meaning goes into the file as a caption */
			caption.push(ds.label + ' from ' + CD.fmt(ds.min) + ' to ' + CD.fmt(ds.max) +
			    (ds.diverging ? ': blues at most 1 (stable), reds above 1 (unstable)' : ': dark purple to yellow') +
			    (ds.log || ds.diverging ? ', logarithmic' : ''));
			for (const c of ds.cdCells)
				out.push('<rect class="cell" x="' + n(c.x0) + '" y="' + n(c.y0) + '" width="' + n(c.x1 - c.x0) +
				    '" height="' + n(c.y1 - c.y0) + '" fill="' + c.fill + '"><title>' + xmlEscape(c.title) +
				    '</title></rect>');
			for (const c of ds.cdCells.filter((k) => ds.data[k.index].mark))
				out.push('<path class="mark" d="M' + n(c.x0 + 1) + ' ' + n(c.y0 + 1) + 'H' + n(c.x1 - 1) + 'V' + n(c.y1 - 1) +
				    'H' + n(c.x0 + 1) + 'ZM' + n(c.x0 + 1) + ' ' + n(c.y1 - 1) + 'L' + n(c.x1 - 1) + ' ' + n(c.y0 + 1) +
				    '" fill="none" stroke="' + (ds.markColor || '#ff00aa') + '" stroke-width="1.5"/>');
			for (const k of ds.diffs || []) {
				const c = ds.cdCells.find((e) => e.index === k);
				out.push('<circle class="differs" cx="' + n((c.x0 + c.x1) / 2) + '" cy="' + n((c.y0 + c.y1) / 2) +
				    '" r="4" fill="#fff" stroke="#000" stroke-width="2"/>');
			}
			for (const s of ds.cdContour || [])
				out.push('<path class="contour" d="' + s.map((p, i) => (i ? 'L' : 'M') + n(p[0]) + ' ' + n(p[1])).join('') +
				    '" stroke="' + (s.color || '#000') + '" stroke-width="2.5" fill="none"' +
				    (s.dash ? ' stroke-dasharray="6 4"' : '') + '/>');
			return;
		}
		const pts = chart.getDatasetMeta(k).data.filter((e) => !e.skip && Number.isFinite(e.x) && Number.isFinite(e.y));
		const color = ds.borderColor || '#000';
		if ((ds.showLine || ds.type === 'line' || (chart.config.type === 'line' && ds.showLine !== false)) && pts.length > 1)
			out.push('<polyline class="series" fill="none" stroke="' + color + '" stroke-width="' + (ds.borderWidth || 1.5) + '"' +
			    (ds.borderDash && ds.borderDash.length ? ' stroke-dasharray="' + ds.borderDash.join(' ') + '"' : '') +
			    ' points="' + pts.map((e) => n(e.x) + ',' + n(e.y)).join(' ') + '"/>');
		if (ds.pointRadius !== 0)
			for (const e of pts)
				out.push('<circle class="point" cx="' + n(e.x) + '" cy="' + n(e.y) + '" r="' + (ds.pointRadius || 3) +
				    '" fill="' + (ds.backgroundColor || color) + '"/>');
	});
	out.push('</g>');
	out.push('<rect x="' + n(a.left) + '" y="' + n(a.top) + '" width="' + n(a.right - a.left) + '" height="' +
	    n(a.bottom - a.top) + '" fill="none" stroke="#888"/>');
	for (const s of Object.values(chart.scales)) {
		const horizontal = s.isHorizontal();
		for (let i = 0; i < s.ticks.length; i++) {
			const t = s.ticks[i], p = s.getPixelForTick(i);
			const lab = Array.isArray(t.label) ? t.label.join(' ') : t.label;
			if (lab === '' || lab === null || lab === undefined)
				continue;
			if (horizontal)
				text(p, s.bottom - 4 - (s.options.title && s.options.title.display ? 18 : 0), lab);
			else if (s.position === 'right')
				text(s.left + 6, p + 4, lab, 'start');
			else
				text(s.right - 6, p + 4, lab, 'end');
		}
		const title = s.options.title && s.options.title.display ? s.options.title.text : null;
		if (title) {
			if (horizontal)
				text((s.left + s.right) / 2, s.bottom - 2, title, 'middle', ' class="axis-title"');
			else {
				const x = s.position === 'right' ? s.right - 4 : s.left + 12, y = (s.top + s.bottom) / 2;
				text(x, y, title, 'middle', ' class="axis-title" transform="rotate(-90 ' + n(x) + ' ' + n(y) + ')"');
			}
		}
	}
	/* captions below the chart: the document grows by a line each */
	caption.forEach((c, i) => text(a.left, h + 14 * (i + 1), c, 'start', ' class="caption"'));
	let H = h + (caption.length ? 14 * caption.length + 6 : 0);
	/* the colour bar itself (sampled), then the request, in the file */
	const m = meta || {};
	const cb = m.colorbar && chart.$cdColorbar ? Object.assign({}, chart.$cdColorbar, m.colorbar) : null;
	if (cb) {
		const bw = 240, steps = 60, y = H + 4;
		out.push('<g class="colorbar">');
		for (let i = 0; i < steps; i++)
			out.push('<rect x="' + n(10 + i * bw / steps) + '" y="' + y + '" width="' + n(bw / steps + 0.5) +
			    '" height="14" fill="' + cb.sample(i / (steps - 1)) + '"/>');
		text(10, y + 27, CD.fmt(cb.min), 'start');
		text(10 + bw, y + 27, CD.fmt(cb.max), 'end');
		text(10 + bw + 10, y + 12, cb.label, 'start', ' class="colorbar-label"');
		(cb.apart || []).forEach((ap, i) => {
			out.push('<rect class="apart" x="' + (10 + bw + 10) + '" y="' + (y + 32 + 16 * i) + '" width="12" height="12" fill="' +
			    ap.color + '" stroke="#888"/>');
			text(10 + bw + 26, y + 43 + 16 * i, ap.label, 'start');
		});
		out.push('</g>');
		H += 40 + 16 * (cb.apart || []).length;
	}
	if (m.request) {
		out.push('<desc class="request">' + xmlEscape(JSON.stringify(m.request)) + '</desc>');
		const lines = CD.wrap(m.request.method + ' ' + m.request.path + ' ' + JSON.stringify(m.request.body),
		    Math.max(40, Math.floor(w / 7)));
		lines.forEach((l, i) => text(10, H + 14 * (i + 1), l, 'start', ' class="request" font-family="monospace" font-size="11"'));
		H += 14 * lines.length + 8;
	}
	out[0] = '<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + H + '" viewBox="0 0 ' + w + ' ' + H +
	    '" font-family="sans-serif" font-size="12">';
	/* the legend where the chart drew it: a swatch and the label in each hit box */
	const legend = chart.legend && chart.legend.legendItems ? chart.legend.legendItems : [];
	const boxes = chart.legend && chart.legend.legendHitBoxes ? chart.legend.legendHitBoxes : [];
	legend.forEach((item, i) => {
		const b = boxes[i];
		if (!b)
			return;
		const fill = typeof item.fillStyle === 'string' ? item.fillStyle : '#fff';
		const stroke = typeof item.strokeStyle === 'string' ? item.strokeStyle : '#222';
		/* as the page draws it: a marker's key its circle, a dashed series' line across the
		 * swatch, else a filled box */
		if (item.cdMarker)
			out.push('<circle class="legend-swatch" cx="' + n(b.left + 18) + '" cy="' + n(b.top + b.height / 2) + '" r="' +
			    n(item.pointStyle.width / 2 - 1.5) + '" fill="' + fill + '" stroke="' + stroke + '" stroke-width="' +
			    n(Math.max(1, item.lineWidth || 0)) + '"/>');
		else if (item.lineDash && item.lineDash.length)
			out.push('<line class="legend-swatch" x1="' + n(b.left) + '" y1="' + n(b.top + b.height / 2) + '" x2="' +
			    n(b.left + 36) + '" y2="' + n(b.top + b.height / 2) + '" stroke="' + stroke + '" stroke-width="' +
			    n(Math.max(2, item.lineWidth || 0)) + '" stroke-dasharray="' + item.lineDash.join(' ') + '"/>');
		else
			out.push('<rect class="legend-swatch" x="' + n(b.left) + '" y="' + n(b.top + 1) + '" width="36" height="' +
			    n(Math.max(8, b.height - 2)) + '" fill="' + fill + '" stroke="' + stroke + '" stroke-width="2"/>');
		text(b.left + 46, b.top + b.height / 2 + 4, item.text, 'start', ' class="legend"');
	});
	out.push('</svg>');
	return out.join('\n') + '\n';
};

/* A shell word in single quotes. */
CD.shellQuote = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'";

/* "copy as curl": the same request to this daemon. */
CD.curl = function (endpoint, body) {
	const url = new URL(endpoint, location.href).href;
	return 'curl -sS ' + CD.shellQuote(url) + " -H 'Content-Type: application/json' --data-binary " +
	    CD.shellQuote(JSON.stringify(body));
};

/* "copy as contact command": the same request answered offline by the CLI. */
CD.contactCommand = function (endpoint, body) {
	return 'echo ' + CD.shellQuote(JSON.stringify(body)) + ' | contact ' + endpoint + ' -';
};

CD.copy = async function (text, statusId, what) {
	window.contactd.copied = text;
	try {
		await navigator.clipboard.writeText(text);
		CD.status(statusId, what + ' copied to the clipboard.', 'ok');
	} catch (e) {
		/* no clipboard permission (plain http, headless): show it to copy by hand */
		window.prompt('Copy ' + what + ':', text);
		CD.status(statusId, what + ': ' + text);
	}
};

/* ---- zoom and pan for Chart.js 3 (chartjs-plugin-zoom is not in Debian) ----
 * Ctrl + wheel zooms around the pointer, a drag pans, CDZoom.by() zooms from buttons,
 * CDZoom.reset() returns to the drawn range. Logarithmic axes zoom in log space. */
const CDZoom = {
	id: 'cdZoom',
	transform(s, v) {
		return s.type === 'logarithmic' ? Math.log(v) : v;
	},
	inverse(s, v) {
		return s.type === 'logarithmic' ? Math.exp(v) : v;
	},
	remember(chart) {
		if (!chart.$cdHome) {
			chart.$cdHome = {};
			for (const [id, s] of Object.entries(chart.scales))
				chart.$cdHome[id] = {min: s.options.min, max: s.options.max};
		}
	},
	/* Zoom every scale by factor (< 1: in) around the pixel (px, py), or the centre. */
	by(chart, factor, px, py) {
		CDZoom.remember(chart);
		for (const [id, s] of Object.entries(chart.scales)) {
			const horizontal = s.isHorizontal();
			const p = horizontal ? (px === undefined ? (s.left + s.right) / 2 : px)
			                     : (py === undefined ? (s.top + s.bottom) / 2 : py);
			const c = CDZoom.transform(s, s.getValueForPixel(p));
			const lo = CDZoom.transform(s, s.min), hi = CDZoom.transform(s, s.max);
			if (!Number.isFinite(c) || !Number.isFinite(lo) || !Number.isFinite(hi))
				continue;
			chart.options.scales[id].min = CDZoom.inverse(s, c + (lo - c) * factor);
			chart.options.scales[id].max = CDZoom.inverse(s, c + (hi - c) * factor);
		}
		chart.update('none');
	},
	/* Shift every scale by a pixel offset (a drag). */
	pan(chart, dx, dy) {
		CDZoom.remember(chart);
		for (const [id, s] of Object.entries(chart.scales)) {
			const d = s.isHorizontal() ? dx : dy;
			const a = s.isHorizontal() ? s.left : s.top;
			const shift = CDZoom.transform(s, s.getValueForPixel(a - d)) - CDZoom.transform(s, s.getValueForPixel(a));
			const lo = CDZoom.transform(s, s.min) + shift, hi = CDZoom.transform(s, s.max) + shift;
			if (!Number.isFinite(lo) || !Number.isFinite(hi))
				continue;
			chart.options.scales[id].min = CDZoom.inverse(s, lo);
			chart.options.scales[id].max = CDZoom.inverse(s, hi);
		}
		chart.update('none');
	},
	reset(chart) {
		if (!chart.$cdHome)
			return;
		for (const [id, r] of Object.entries(chart.$cdHome))
			if (chart.options.scales[id]) {
				chart.options.scales[id].min = r.min;
				chart.options.scales[id].max = r.max;
			}
		chart.$cdHome = null;
		chart.update('none');
	},
	afterInit(chart) {
		const canvas = chart.canvas;
		let drag = null;
		const inside = (x, y) => {
			const a = chart.chartArea;
			return x >= a.left && x <= a.right && y >= a.top && y <= a.bottom;
		};
		const pos = (ev) => {
			const r = canvas.getBoundingClientRect();
			return [(ev.clientX - r.left) * chart.width / r.width, (ev.clientY - r.top) * chart.height / r.height];
		};
		chart.$cdListeners = {
			wheel(ev) {
				if (!(ev.ctrlKey || ev.metaKey))
					return;
				const [x, y] = pos(ev);
				if (!inside(x, y))
					return;
				ev.preventDefault();
				CDZoom.by(chart, ev.deltaY < 0 ? 0.8 : 1.25, x, y);
			},
			pointerdown(ev) {
				const [x, y] = pos(ev);
				if (ev.button === 0 && ev.pointerType === 'mouse' && inside(x, y))
					drag = {x, y, moved: false};
				chart.$cdDragged = false;
			},
			pointermove(ev) {
				if (!drag)
					return;
				const [x, y] = pos(ev);
				if (!drag.moved && Math.hypot(x - drag.x, y - drag.y) < 4)
					return;
				drag.moved = chart.$cdDragged = true;
				CDZoom.pan(chart, x - drag.x, y - drag.y);
				drag.x = x;
				drag.y = y;
			},
			pointerup() {
				drag = null;
			},
		};
		chart.$cdCanvas = canvas; /* destroy() forgets chart.canvas before afterDestroy */
		canvas.addEventListener('wheel', chart.$cdListeners.wheel, {passive: false});
		canvas.addEventListener('pointerdown', chart.$cdListeners.pointerdown);
		window.addEventListener('pointermove', chart.$cdListeners.pointermove);
		window.addEventListener('pointerup', chart.$cdListeners.pointerup);
	},
	afterDestroy(chart) {
		const l = chart.$cdListeners;
		if (!l)
			return;
		/* a page draws its next chart on the same canvas: this chart's listeners go */
		chart.$cdCanvas.removeEventListener('wheel', l.wheel);
		chart.$cdCanvas.removeEventListener('pointerdown', l.pointerdown);
		window.removeEventListener('pointermove', l.pointermove);
		window.removeEventListener('pointerup', l.pointerup);
	},
};

/* A chart's toolbar into the element `id`: zoom buttons, log-axis toggles, exports and
 * copies. spec: {chart: () => Chart, name, data: () => ({json, csv}) or null,
 * request: () => ({endpoint, body}) or null, log: (on) => void (the y axis),
 * logX: (on) => void (the x axis; optional), status}. */
CD.toolbar = function (id, spec) {
	const box = document.getElementById(id);
	box.textContent = '';
	const button = (label, title, fn, idSuffix) => {
		const b = document.createElement('button');
		b.type = 'button';
		b.className = 'secondary small';
		b.textContent = label;
		if (title)
			b.title = b.ariaLabel = title;
		b.id = id + '-' + idSuffix;
		b.addEventListener('click', () => {
			try {
				const r = fn();
				if (r && r.catch)
					r.catch((e) => CD.status(spec.status, e.message, 'error'));
			} catch (e) {
				CD.status(spec.status, e.message, 'error');
			}
		});
		box.appendChild(b);
		return b;
	};
	const chart = () => {
		const c = spec.chart();
		if (!c)
			throw new Error('nothing drawn yet');
		return c;
	};
	button('+', 'Zoom in (or Ctrl + mouse wheel on the chart; drag to pan)', () => CDZoom.by(chart(), 0.7), 'zoom-in');
	button('−', 'Zoom out', () => CDZoom.by(chart(), 1 / 0.7), 'zoom-out');
	button('Reset view', 'Back to the whole answer', () => CDZoom.reset(chart()), 'zoom-reset');
	const toggle = (suffix, text, fn) => {
		const label = document.createElement('label');
		label.className = 'inline';
		const cb = document.createElement('input');
		cb.type = 'checkbox';
		cb.id = id + suffix;
		label.append(cb, text);
		cb.addEventListener('change', () => fn(cb.checked));
		box.appendChild(label);
	};
	if (spec.logX)
		toggle('-logx', ' log x axis', spec.logX);
	if (spec.log)
		toggle('-log', ' log y axis', spec.log);
	/* a file is named by what it answers: the page, spec.stem() (the question in a few
	 * words) and a hash of the whole request, so two downloads of one request share a
	 * name and two requests never do */
	const fileName = (ext) => {
		const r = spec.request ? spec.request() : null;
		return CD.fileName(spec.name, spec.stem ? spec.stem() : '', r ? r.body : null) + '.' + ext;
	};
	const meta = () => CD.exportMeta(spec);
	if (spec.data) {
		button('CSV', 'Download the answer as CSV, headed by the request, the units and the colour scale (lines starting with #)', () =>
		    CD.download(fileName('csv'), 'text/csv', CD.csvHeader(meta()) + spec.data().csv), 'csv');
		button('JSON', 'Download the API\'s answer as JSON, the bytes as it answered', async () => {
			const d = spec.data();
			const text = spec.rawJson ? await spec.rawJson() : CD.raw.get(d.json);
			CD.download(fileName('json'), 'application/json', text !== undefined ? text : JSON.stringify(d.json));
		}, 'json');
		button('JSON + request', 'Download the request, the units, the colour scale and the answer as one JSON document', () =>
		    CD.download(fileName('export.json'), 'application/json',
		        JSON.stringify(Object.assign(meta(), {answer: spec.data().json}), null, 1) + '\n'), 'export');
	}
	button('PNG', 'Download the chart as PNG, with its colour bar and the request', async () =>
	    CD.download(fileName('png'), 'image/png', await CD.pngBlob(chart(), meta())), 'png');
	button('SVG', 'Download the chart as SVG, with its colour bar and the request', () =>
	    CD.download(fileName('svg'), 'image/svg+xml', CD.svg(chart(), meta())), 'svg');
	if (spec.request) {
		button('Copy curl', 'Copy this request as a curl command', () => {
			const r = spec.request();
			return CD.copy(CD.curl(r.endpoint, r.body), spec.status, 'The curl command');
		}, 'curl');
		button('Copy contact', 'Copy this request as a contact command (answers offline)', () => {
			const r = spec.request();
			return CD.copy(CD.contactCommand(r.endpoint.replace(/^.*\//, ''), r.body), spec.status, 'The contact command');
		}, 'contact');
	}
};

/* A page's run(): read() makes the request from the form (what it throws is shown in the
 * status line statusId, and nothing runs), then ask(request, current) asks and draws it;
 * current() is true until another run starts, so a run overtaken by a later one draws
 * nothing, and only the current run's failure is shown (the API's message and field). */
CD.runner = function (statusId, read, ask) {
	let running = 0;
	return async function () {
		let request;
		try {
			request = read();
		} catch (e) {
			CD.status(statusId, e.message, 'error');
			return;
		}
		const ticket = ++running;
		const current = () => ticket === running;
		try {
			await ask(request, current);
		} catch (e) {
			if (current())
				CD.status(statusId, CD.errorText(e), 'error');
		}
	};
};

/* Fill a release <select> from /v1/health (mujoco_supported); the default first. */
CD.releases = async function (ids, chosen) {
	let h;
	try {
		h = await CD.api('v1/health');
	} catch (e) {
		return;
	}
	window.contactd.answers.health = h;
	for (const [k, id] of ids.entries()) {
		const sel = document.getElementById(id);
		const keep = chosen[k] || sel.value;
		sel.textContent = '';
		if (k > 0) {
			const none = document.createElement('option');
			none.value = '';
			none.textContent = 'no comparison';
			sel.appendChild(none);
		}
		for (const v of (h.mujoco_supported || [h.mujoco]).slice().reverse()) {
			const o = document.createElement('option');
			o.value = v;
			o.textContent = v + (v === h.mujoco ? ' (default)' : '');
			sel.appendChild(o);
		}
		sel.value = keep || (k === 0 ? h.mujoco : '');
	}
};

if (window.Chart) {
	Chart.defaults.font.family = 'system-ui, sans-serif';
	Chart.defaults.color = '#222';
}
