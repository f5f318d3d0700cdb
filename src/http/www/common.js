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

if (window.Chart) {
	Chart.defaults.font.family = 'system-ui, sans-serif';
	Chart.defaults.color = '#222';
}
