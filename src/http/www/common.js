/* common.js: what every dashboard page shares: calling the API, number formatting,
 * status messages, colours, and window.contactd, where each page leaves its charts and
 * the answers they were drawn from (the browser tests read them). */
'use strict';

window.contactd = {charts: {}, answers: {}, events: []};

const CD = {
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
	[/^\/object\/mass$/, 'object mass', 'kg'],
	[/^\/object\/size$/, 'object radius', 'm'],
	[/^\/pad\/mass$/, 'pad mass', 'kg'],
	[/^creep_velocity$/, 'creep velocity', 'm/s'],
	[/^(slip|slip_limit)$/, null, 'm'],
	[/^(normal_force|load|friction_capacity)$/, null, 'N'],
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

/* ---- page state in the URL's fragment: reload and shared links restore it ---- */

CD.readHash = function () {
	const out = {};
	for (const [k, v] of new URLSearchParams(location.hash.replace(/^#/, '')))
		out[k] = v;
	return out;
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

/* The chart as a PNG (white background, as shown). */
CD.pngBlob = function (chart) {
	const src = chart.canvas;
	const c = document.createElement('canvas');
	c.width = src.width;
	c.height = src.height;
	const ctx = c.getContext('2d');
	ctx.fillStyle = '#fff';
	ctx.fillRect(0, 0, c.width, c.height);
	ctx.drawImage(src, 0, 0);
	return new Promise((resolve) => c.toBlob(resolve, 'image/png'));
};

const xmlEscape = (s) => String(s).replace(/[<>&"]/g, (c) => ({'<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;'})[c]);

/* The chart as SVG, drawn from its scales and data (vectors, not a picture of pixels):
 * axes with their ticks and titles, heat-map cells, the growth = 1 contour, lines and
 * points, and the legend's labels. */
CD.svg = function (chart) {
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
	const H = h + (caption.length ? 14 * caption.length + 6 : 0);
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
		out.push('<rect class="legend-swatch" x="' + n(b.left) + '" y="' + n(b.top + 1) + '" width="36" height="' +
		    n(Math.max(8, b.height - 2)) + '" fill="' + fill + '" stroke="' + stroke + '" stroke-width="2"' +
		    (item.lineDash && item.lineDash.length ? ' stroke-dasharray="' + item.lineDash.join(' ') + '"' : '') + '/>');
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
	const stamp = () => spec.name + '-' + new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
	if (spec.data) {
		button('CSV', 'Download the answer as CSV', () => CD.download(stamp() + '.csv', 'text/csv', spec.data().csv), 'csv');
		button('JSON', 'Download the API\'s answer as JSON', () =>
		    CD.download(stamp() + '.json', 'application/json', JSON.stringify(spec.data().json, null, 1) + '\n'), 'json');
	}
	button('PNG', 'Download the chart as PNG', async () =>
	    CD.download(stamp() + '.png', 'image/png', await CD.pngBlob(chart())), 'png');
	button('SVG', 'Download the chart as SVG', () => CD.download(stamp() + '.svg', 'image/svg+xml', CD.svg(chart())), 'svg');
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
