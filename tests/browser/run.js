/*
 * run.js: contactd's dashboard in a real browser. Debian's chromium, headless, driven by
 * playwright-core, against a real contactd started here on a free port with a fresh
 * database. Every page must load without a console error and draw its charts from the
 * daemon's real answers: the data each chart holds is compared with the answer to the
 * same request made here, and pixels of a screenshot are checked where the chart says
 * it drew. The live page must receive a fit after an upload, and a page served from a
 * second origin must reach the API through CORS, and be refused without it.
 *
 * Environment (tests/test_browser.sh sets it): CONTACTD, the daemon; CHROMIUM, the
 * browser; SCREENSHOTS, the directory the screenshots go to; NODE_PATH, where
 * playwright-core is. Exit status 0 when every check passes, 1 otherwise; a missing
 * browser or module is a failure, never a skip.
 */
'use strict';

const assert = require('assert/strict');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const {spawn, execFileSync} = require('child_process');

const {modelChecks} = require('./model.js');
const {holdChecks} = require('./hold.js');
const {liveChecks} = require('./live.js');

const CONTACTD = process.env.CONTACTD;
/* BROWSER_ONLY=TEXT runs only the checks whose name holds TEXT (while developing a
 * page; make check runs them all) */
const ONLY = process.env.BROWSER_ONLY || '';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.SCREENSHOTS || 'screenshots';
/* An upper bound on any wait (events take milliseconds): a loaded 2-core machine
 * must not fail a test. */
const WAIT_MS = 60000;

let chromium;
try {
	({chromium} = require('playwright-core'));
} catch (e) {
	console.error('FAIL: playwright-core is not installed (run `npm ci` in tests/browser): ' + e.message);
	process.exit(1);
}
if (!CONTACTD || !fs.existsSync(CONTACTD)) {
	console.error('FAIL: CONTACTD is not set to the daemon');
	process.exit(1);
}
if (!fs.existsSync(CHROMIUM)) {
	console.error('FAIL: no browser at ' + CHROMIUM + ' (install Debian\'s chromium)');
	process.exit(1);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contactd-browser-'));
const children = [];
const servers = [];

/* ---- the daemon ---- */

function startDaemon(args) {
	return new Promise((resolve, reject) => {
		const log = [];
		const child = spawn(CONTACTD, ['--port', '0', '--db', path.join(tmp, 'cache.db'), ...args],
		    {stdio: ['ignore', 'ignore', 'pipe']});
		children.push(child);
		const timer = setTimeout(() => reject(new Error('contactd did not start: ' + log.join(''))), WAIT_MS);
		child.stderr.on('data', (chunk) => {
			log.push(String(chunk));
			const m = /listening on 127\.0\.0\.1:(\d+),/.exec(log.join(''));
			if (m) {
				clearTimeout(timer);
				resolve({port: Number(m[1]), child});
			}
		});
		child.on('exit', (code) => reject(new Error('contactd exited ' + code + ': ' + log.join(''))));
	});
}

async function api(base, method, p, body, token) {
	const headers = {'Content-Type': 'application/json'};
	if (token)
		headers.Authorization = 'Bearer ' + token;
	const reply = await fetch(base + p, {method, headers,
	    body: body === undefined ? undefined : JSON.stringify(body)});
	const text = await reply.text();
	assert.ok(reply.ok, method + ' ' + p + ': ' + reply.status + ' ' + text);
	return JSON.parse(text);
}

/* ---- a second origin: a tiny page that calls the API from elsewhere ---- */

let labApi = null; /* the daemon the lab pages call, once it runs */

function labPage() {
	return '<!doctype html><html lang="en"><title>lab page</title><body><script>' +
	    'window.result = fetch(' + JSON.stringify(labApi + '/v1/drop') + ', {method: "POST",' +
	    ' headers: {"Content-Type": "application/json"}, body: JSON.stringify({duration: 0.5})})' +
	    '.then((r) => r.json()).then((v) => ({ok: true, value: v}), (e) => ({ok: false, error: String(e)}));' +
	    '</script></body></html>';
}

/* A server on a free port of its own: another origin than the daemon's. */
function labServer() {
	return new Promise((resolve) => {
		const server = http.createServer((req, res) => {
			res.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'});
			res.end(labPage());
		});
		servers.push(server);
		server.listen(0, '127.0.0.1', () => resolve('http://127.0.0.1:' + server.address().port));
	});
}

/* ---- PNG: just enough of a decoder for Chromium's screenshots (8-bit RGB/RGBA) ---- */

function decodePng(buf) {
	assert.equal(buf.readUInt32BE(0), 0x89504e47, 'not a PNG');
	let pos = 8, width = 0, height = 0, channels = 0;
	const idat = [];
	while (pos < buf.length) {
		const len = buf.readUInt32BE(pos), type = buf.toString('ascii', pos + 4, pos + 8);
		const data = buf.subarray(pos + 8, pos + 8 + len);
		if (type === 'IHDR') {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			assert.equal(data[8], 8, 'PNG bit depth');
			assert.equal(data[12], 0, 'interlaced PNG');
			channels = {2: 3, 6: 4}[data[9]];
			assert.ok(channels, 'PNG colour type ' + data[9]);
		} else if (type === 'IDAT') {
			idat.push(data);
		}
		pos += 12 + len;
	}
	const raw = zlib.inflateSync(Buffer.concat(idat));
	const stride = width * channels, out = Buffer.alloc(height * stride);
	for (let y = 0; y < height; y++) {
		const filter = raw[y * (stride + 1)];
		const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let x = 0; x < stride; x++) {
			const a = x >= channels ? out[y * stride + x - channels] : 0;
			const b = y > 0 ? out[(y - 1) * stride + x] : 0;
			const c = x >= channels && y > 0 ? out[(y - 1) * stride + x - channels] : 0;
			let v = line[x];
			if (filter === 1)
				v += a;
			else if (filter === 2)
				v += b;
			else if (filter === 3)
				v += (a + b) >> 1;
			else if (filter === 4) {
				const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
				v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			}
			out[y * stride + x] = v & 255;
		}
	}
	return {width, height, pixel(x, y) {
		const i = Math.round(y) * stride + Math.round(x) * channels;
		return [out[i], out[i + 1], out[i + 2]];
	}};
}

const rgb = (css) => css.match(/\d+/g).slice(0, 3).map(Number);
const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const close = (a, b, tol) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

/* Is color (within tol) anywhere in the square of radius r around (x, y)? */
function near(png, x, y, color, r, tol) {
	for (let dy = -r; dy <= r; dy++)
		for (let dx = -r; dx <= r; dx++)
			if (close(png.pixel(x + dx, y + dy), color, tol))
				return true;
	return false;
}

/* The secret in `contactd token create`'s output (a bare line, or a labelled one). */
function tokenOf(text) {
	const m = /\b[0-9a-f]{16}\.[A-Za-z0-9_-]+/.exec(text);
	return m ? m[0] : text.trim();
}

/* ---- downloads, the clipboard and the CLI ---- */

/* Click a toolbar button that downloads a file; the file's bytes. */
async function download(page, selector) {
	const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
	return fs.readFileSync(await dl.path());
}

/* CSV text as rows of values: numbers, booleans and strings as the JSON answer has them. */
function parseCsv(text) {
	/* lines starting with # are the export's head: the request, the units, the colour scale */
	return text.trim().split('\n').filter((line) => !line.startsWith('#')).map((line) => line.split(',').map((c) => {
		if (c === 'true' || c === 'false')
			return c === 'true';
		if (c === '')
			return null;
		return Number.isFinite(Number(c)) ? Number(c) : c;
	}));
}

/* Run a copied shell command (curl, or contact from the build directory). */
function shell(command) {
	const bin = path.dirname(CONTACTD);
	return execFileSync('/bin/sh', ['-c', command], {encoding: 'utf8',
	    env: Object.assign({}, process.env, {PATH: bin + ':' + process.env.PATH})});
}

/* ---- a streaming proxy: the sweep answer as application/x-ndjson ----
 * Until the daemon streams sweeps, this proxy (the pages' origin for one check) passes
 * every request to the daemon and answers a sweep that accepts application/x-ndjson
 * with the stream's contract: the answer without "rows", one line per row in a few
 * chunks, then {"done":true,"count":N}. */
function ndjsonProxy(target) {
	return new Promise((resolve) => {
		const server = http.createServer(async (req, res) => {
			const body = [];
			for await (const chunk of req)
				body.push(chunk);
			const headers = Object.assign({}, req.headers);
			delete headers.host;
			const wantsStream = req.url === '/v1/sweep' && req.method === 'POST' &&
			    /application\/x-ndjson/.test(req.headers.accept || '');
			if (wantsStream)
				headers.accept = 'application/json';
			const reply = await fetch(target + req.url, {method: req.method, headers,
			    body: body.length ? Buffer.concat(body) : undefined});
			const bytes = Buffer.from(await reply.arrayBuffer());
			if (!wantsStream || !reply.ok) {
				const out = {};
				reply.headers.forEach((v, k) => {
					if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k))
						out[k] = v;
				});
				res.writeHead(reply.status, out);
				res.end(bytes);
				return;
			}
			const answer = JSON.parse(String(bytes));
			const rows = answer.rows;
			delete answer.rows;
			res.writeHead(200, {'Content-Type': 'application/x-ndjson'});
			res.write(JSON.stringify(answer) + '\n');
			const chunk = Math.max(1, Math.ceil(rows.length / 5));
			for (let i = 0; i < rows.length; i += chunk) {
				res.write(rows.slice(i, i + chunk).map((r) => JSON.stringify(r) + '\n').join(''));
				await new Promise((r) => setTimeout(r, 150));
			}
			res.end(JSON.stringify({done: true, count: rows.length}) + '\n');
		});
		servers.push(server);
		server.listen(0, '127.0.0.1', () => resolve('http://127.0.0.1:' + server.address().port));
	});
}

/* ---- the page checks ---- */

let failures = 0, passes = 0;
let sweepFirst = null; /* how the first sweep page's answer came (see the streaming check) */

async function check(name, fn) {
	if (ONLY && !name.includes(ONLY))
		return;
	const start = Date.now();
	try {
		await fn();
		passes++;
		console.log('PASS: ' + name + ' (' + ((Date.now() - start) / 1000).toFixed(1) + ' s)');
	} catch (e) {
		failures++;
		console.log('FAIL: ' + name + ': ' + (e && e.stack ? e.stack : e));
	}
}

/* A page whose console errors and uncaught exceptions are collected. */
async function open(context, url, width) {
	const page = await context.newPage();
	const errors = [];
	page.on('console', (msg) => {
		if (msg.type() === 'error')
			errors.push(msg.text());
	});
	page.on('pageerror', (e) => errors.push(String(e)));
	await page.setViewportSize({width: width || 1280, height: 900});
	await page.goto(url, {waitUntil: 'load'});
	page.consoleErrors = errors;
	return page;
}

/* A screenshot into SHOTS: of one element, of the whole page, or (viewport) of what
 * the window shows; decoded for pixel checks. */
async function shot(page, name, locator, viewport) {
	const file = path.join(SHOTS, name + '.png');
	const buf = locator ? await page.locator(locator).screenshot({path: file})
	                    : await page.screenshot({path: file, fullPage: !viewport});
	return decodePng(buf);
}

/* Every form control has a label, every chart canvas a description (role="img"). */
async function assertAccessible(page) {
	const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea')]
	    .filter((e) => !e.labels || e.labels.length === 0).map((e) => e.id || e.outerHTML));
	assert.deepEqual(unlabelled, [], 'form controls without a label');
	const undescribed = await page.evaluate(() => [...document.querySelectorAll('canvas')]
	    .filter((c) => c.getAttribute('role') !== 'img' || !c.getAttribute('aria-label'))
	    .map((c) => c.id));
	assert.deepEqual(undescribed, [], 'canvases without role="img" and a label');
	assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
}

/* ---- issue 31: answers the dashboard shows right ---- */

/* Click a toolbar button that downloads a file: its suggested name and its bytes. */
async function downloadNamed(page, selector) {
	const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
	return {name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path())};
}

/* Wait until the sweep page has drawn an answer and pred(request, arg) holds for its
 * request; pred runs in the page (a function: the pages' CSP refuses eval). */
async function sweepDrawn(page, pred, arg) {
	await page.waitForFunction(([f, a]) => {
		const s = window.contactd.answers.sweep;
		return s && !document.getElementById('run').disabled && window[f](s.request, a);
	}, [pred, arg === undefined ? null : arg]);
	return page.evaluate(() => window.contactd.answers.sweep);
}

/* The predicates sweepDrawn() names, put into a page. */
async function sweepPredicates(page) {
	await page.evaluate(() => {
		window.cdAny = () => true;
		window.cdFloor = (r) => !!r.base.floor;
		window.cdGain = (r) => r.vary[0].path === 'dampratio' && !r.base.floor;
		window.cdDrop = (r) => r.query === 'drop';
		window.cdDropAlias = (r) => r.query === 'drop' && r.vary[0].path === 'dampratio';
		window.cdRest = (r) => r.query === 'rest';
		window.cdHeight = (r, a) => r.base.height === a;
	});
}

/* A copy of a drop answer without its trajectory. */
function withoutTrajectory(a) {
	const out = Object.assign({}, a);
	delete out.trajectory;
	return out;
}

/* The SO-101 pad's map (drop over the pad's dampratio x the height, the floor with
 * condim 6, friction and priority 1): a cell click opens the drop of that cell's whole
 * request, and the drop page answers what the API answers for it, the cell's own rebound. */
async function checkSweepCellSameDrop(context, base) {
	await check('sweep: a cell click opens the same drop: the whole base (floor condim, friction, priority), the API\'s answer', async () => {
		const page = await open(context, base + '/sweep.html', 1400);
		await sweepPredicates(page);
		await sweepDrawn(page, 'cdAny');
		await page.click('#preset-so101');
		const {request, answer} = await sweepDrawn(page, 'cdFloor');
		assert.deepEqual(request.base.floor, {condim: 6, friction: [1, 0.005, 0.0005], solref: [0.01, 1], priority: 1});
		assert.deepEqual(request.base.option, {timestep: 0.005, cone: 'elliptic', impratio: 10,
		    mujoco: request.base.option.mujoco});
		assert.deepEqual(answer, await api(base, 'POST', '/v1/sweep', request));
		const ri = answer.columns.indexOf('rebound');
		assert.equal(await page.inputValue('#metric'), 'rebound');
		/* a cell that bounces (rebound above 0): the floor's fields change its number */
		const cells = await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].cdCells);
		const cell = cells.find((c) => answer.rows[c.index][ri] > 0 && c.x1 - c.x0 > 6 && c.y1 - c.y0 > 6);
		assert.ok(cell, 'a cell of the SO-101 map bounces');
		const row = answer.rows[cell.index];
		/* the request of that cell, built here from the sweep's request */
		const want = JSON.parse(JSON.stringify(request.base));
		want.floor.solref = [want.floor.solref[0], row[0]];
		want.height = row[1];
		const wanted = await api(base, 'POST', '/v1/drop', want);
		assert.equal(wanted.rebound, row[ri], 'the sweep row is the single drop');
		/* without the floor the drop is another one: the check can fail */
		const bare = JSON.parse(JSON.stringify(want));
		delete bare.floor;
		assert.notEqual((await api(base, 'POST', '/v1/drop', bare)).rebound, row[ri]);
		const box = await page.locator('#chart').boundingBox();
		await page.mouse.click(box.x + (cell.x0 + cell.x1) / 2 + 1, box.y + (cell.y0 + cell.y1) / 2 + 1);
		await page.waitForURL(/drop\.html#/);
		await page.waitForFunction(() => window.contactd.answers.drop);
		const drop = await page.evaluate(() => window.contactd.answers.drop);
		assert.deepEqual(withoutTrajectory(drop.answer), wanted, 'the drop page answers the cell\'s request');
		assert.deepEqual(drop.answer, await api(base, 'POST', '/v1/drop', drop.request));
		assert.equal(drop.request.floor.condim, 6);
		assert.equal(drop.request.floor.priority, 1);
		assert.deepEqual(drop.request.floor.friction, [1, 0.005, 0.0005]);
		assert.equal(await page.textContent('#m-rebound'), await page.evaluate((v) => CD.fmt(v, 6), row[ri]));
		/* the JSON box holds what the form has no field for; a reload asks the same */
		assert.deepEqual(JSON.parse(await page.inputValue('#extra')).floor, drop.request.floor);
		await page.reload();
		await page.waitForFunction(() => window.contactd.answers.drop);
		assert.deepEqual(await page.evaluate(() => window.contactd.answers.drop.request), drop.request);
		await shot(page, 'drop-from-cell');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
}

/* The boundary segments a map at level should have: one per pair of neighbouring
 * cells, one at most level and one above it (a null counts as above). */
function levelPairs(answer, mi, level) {
	const xs = [...new Set(answer.rows.map((r) => r[0]))].sort((a, b) => a - b);
	const ys = [...new Set(answer.rows.map((r) => r[1]))].sort((a, b) => a - b);
	const at = new Map(answer.rows.map((r) => [xs.indexOf(r[0]) + ',' + ys.indexOf(r[1]), r[mi]]));
	const above = (i, j) => !(at.get(i + ',' + j) !== null && at.get(i + ',' + j) <= level);
	let pairs = 0;
	for (let i = 0; i < xs.length; i++)
		for (let j = 0; j < ys.length; j++) {
			if (i + 1 < xs.length && above(i, j) !== above(i + 1, j))
				pairs++;
			if (j + 1 < ys.length && above(i, j) !== above(i, j + 1))
				pairs++;
		}
	return pairs;
}

async function checkSweepScaleAndContour(context, base) {
	await check('sweep: a contour at the level asked (rebound = 0: where bouncing stops); energy-gaining cells apart, out of the scale', async () => {
		const page = await open(context, base + '/sweep.html', 1400);
		await sweepPredicates(page);
		await sweepDrawn(page, 'cdAny');
		await page.click('#preset-so101');
		const so = await sweepDrawn(page, 'cdFloor');
		const ri = so.answer.columns.indexOf('rebound');
		/* rebound = 0 by default: the cells that bounce are apart from those that do not */
		assert.equal(await page.inputValue('#level'), '0');
		const pairs0 = levelPairs(so.answer, ri, 0);
		assert.ok(pairs0 > 0, 'the SO-101 map stops bouncing somewhere');
		const seg = await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].cdContour.map((s) => [s[0], s[1]]));
		assert.equal(seg.length, pairs0, 'one contour segment per bouncing / resting pair of cells');
		const legend = await page.evaluate(() => window.contactd.charts.sweep.legend.legendItems.map((i) => i.text));
		assert.ok(legend.some((t) => /rebound = 0: where bouncing stops/.test(t)), legend.join('; '));
		/* pixels: the contour is drawn (white on a dark halo) */
		const png = await shot(page, 'sweep-so101-chart', '#chart');
		const mid = seg[Math.floor(seg.length / 2)];
		const mx = (mid[0][0] + mid[1][0]) / 2 + 1, my = (mid[0][1] + mid[1][1]) / 2 + 1;
		assert.ok(near(png, mx, my, [255, 255, 255], 1, 30), 'the contour at ' + mx + ', ' + my + ' is ' + png.pixel(mx, my));
		await shot(page, 'sweep-so101');
		/* another level: the contour follows it, kept in the address */
		const lv = 0.001;
		await page.fill('#level', String(lv));
		await page.waitForFunction((n) => window.contactd.charts.sweep.data.datasets[0].contour === n, lv);
		assert.equal(await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].cdContour.length),
		    levelPairs(so.answer, ri, lv));
		assert.match(page.url(), /level=0\.001/);
		/* drops that gain energy (dampratio 0.05 throws the 5 cm sphere above its drop height) */
		await page.fill('#base', JSON.stringify({body: {shape: 'sphere', size: 0.05, mass: 1}, duration: 1}));
		await page.fill('#path1', 'dampratio');
		await page.fill('#from1', '0.05');
		await page.fill('#to1', '1');
		await page.fill('#count1', '8');
		await page.uncheck('#log1');
		await page.fill('#path2', 'height');
		await page.fill('#from2', '0.05');
		await page.fill('#to2', '0.2');
		await page.fill('#count2', '4');
		await page.uncheck('#log2');
		await page.click('#run');
		const g = await sweepDrawn(page, 'cdGain');
		assert.deepEqual(g.answer, await api(base, 'POST', '/v1/sweep', g.request));
		const c = g.answer.columns, gi = c.indexOf('energy_gain'), di = c.indexOf('diverged'), mi = c.indexOf('rebound');
		const gained = g.answer.rows.filter((r) => r[gi] === true);
		assert.ok(gained.length > 0 && gained.length < g.answer.rows.length, gained.length + ' cells gain energy');
		const physical = g.answer.rows.filter((r) => r[gi] !== true && r[di] !== true).map((r) => r[mi]);
		const ds = await page.evaluate(() => {
			const d = window.contactd.charts.sweep.data.datasets[0];
			return {min: d.min, max: d.max, cells: d.cdCells.map((k) => ({index: k.index, fill: k.fill}))};
		});
		assert.equal(ds.max, Math.max(...physical), 'the scale ends at the largest physical rebound');
		assert.equal(ds.min, Math.min(...physical));
		assert.ok(Math.max(...gained.map((r) => r[mi])) > ds.max, 'an energy-gaining rebound is above the scale');
		for (const k of ds.cells)
			assert.equal(k.fill === '#e7298a', g.answer.rows[k.index][gi] === true, 'cell ' + k.index + ' is ' + k.fill);
		const items = await page.evaluate(() => window.contactd.charts.sweep.legend.legendItems.map((i) => i.text));
		assert.ok(items.some((t) => t.startsWith('energy gained (rose above the drop height): ' + gained.length + ' cells')),
		    items.join('; '));
		assert.match(await page.textContent('#cb-key'), /drawn apart, not on the scale: energy gained/);
		/* axes named by the resolved pointers: the alias dampratio is /geom/solref/1 */
		assert.equal(c[0], '/geom/solref/1');
		assert.deepEqual(await page.evaluate(() => ['x', 'y'].map((a) => window.contactd.charts.sweep.options.scales[a].title.text)),
		    ['dampratio', 'drop height (m)']);
		await shot(page, 'sweep-gain');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
	await check('sweep: the second release\'s boundary shows over the guard gap', async () => {
		const health = await api(base, 'GET', '/v1/health');
		const other = health.mujoco_supported.find((v) => v !== health.mujoco);
		const page = await open(context, base + '/sweep.html#compare=' + other, 1400);
		await page.waitForFunction(() => window.contactd.answers.sweepCompare && window.contactd.charts.sweep &&
		    !document.getElementById('run').disabled);
		const segs = await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].cdContour
		    .filter((s) => s.dash).map((s) => [s[0], s[1]]));
		assert.ok(segs.length > 0, 'the second release has a boundary');
		const png = await shot(page, 'sweep-compare-chart', '#chart');
		const yellow = hex('#ffd400');
		const seen = segs.filter((s) => near(png, (s[0][0] + s[1][0]) / 2 + 1, (s[0][1] + s[1][1]) / 2 + 1, yellow, 4, 40)).length;
		assert.ok(seen >= segs.length / 2, seen + ' of ' + segs.length + ' segments of the second release visible');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
}

async function checkSweepExports(context, base) {
	await check('sweep: every export carries the request, the units and the colour bar, named by the request; JSON as the API answered', async () => {
		const page = await open(context, base + '/sweep.html', 1400);
		await sweepPredicates(page);
		await sweepDrawn(page, 'cdAny');
		await page.click('#preset-so101');
		const {request} = await sweepDrawn(page, 'cdFloor');
		const bytes = await (await fetch(base + '/v1/sweep', {method: 'POST', body: JSON.stringify(request),
		    headers: {'Content-Type': 'application/json', Accept: 'application/json'}})).text();
		const hash = await page.evaluate((r) => CD.hash(JSON.stringify(r)), request);
		const named = (n, ext) => {
			assert.ok(n.startsWith('sweep-drop-floor.solref.1-x-height-rebound-') && n.endsWith('-' + hash + '.' + ext), n);
		};
		/* the API's bytes, not re-indented */
		const json = await downloadNamed(page, '#tools-json');
		assert.equal(String(json.bytes), bytes);
		named(json.name, 'json');
		const csv = await downloadNamed(page, '#tools-csv');
		named(csv.name, 'csv');
		const head = String(csv.bytes).split('\n').filter((l) => l.startsWith('#'));
		assert.equal(head[0], '# request: POST /v1/sweep ' + JSON.stringify(request));
		assert.match(head[1], /^# units: .*\/floor\/solref\/1 1; \/height m; peak_penetration m; rebound m;/);
		assert.match(head[2], /^# colour bar: rebound \(m\) from 0 to [0-9.e-]+, viridis/);
		assert.deepEqual(parseCsv(String(csv.bytes)).slice(1), JSON.parse(bytes).rows);
		const exp = await downloadNamed(page, '#tools-export');
		named(exp.name, 'export.json');
		const e = JSON.parse(String(exp.bytes));
		assert.deepEqual(e.request, {method: 'POST', path: '/v1/sweep', body: request});
		assert.equal(e.units.rebound, 'm');
		assert.equal(e.colorbar.label, 'rebound (m)');
		assert.equal(e.colorbar.contour, 0);
		assert.deepEqual(e.answer, JSON.parse(bytes));
		const svg = await downloadNamed(page, '#tools-svg');
		named(svg.name, 'svg');
		const text = String(svg.bytes);
		assert.ok(text.includes('<g class="colorbar">'), 'the SVG has the colour bar');
		assert.ok(text.includes('class="colorbar-label">rebound (m)</text>'));
		const desc = /<desc class="request">([^<]*)<\/desc>/.exec(text);
		assert.ok(desc, 'the SVG names its request');
		assert.deepEqual(JSON.parse(desc[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&')).body, request);
		/* the PNG: the chart, then the colour bar (viridis from its dark end) and the request */
		const pngFile = await downloadNamed(page, '#tools-png');
		named(pngFile.name, 'png');
		const png = decodePng(pngFile.bytes);
		const h = await page.evaluate(() => window.contactd.charts.sweep.canvas.height);
		assert.ok(near(png, 12, h + 12, [68, 1, 84], 2, 30), 'the colour bar\'s dark end: ' + png.pixel(12, h + 12));
		assert.ok(near(png, 248, h + 12, [253, 231, 37], 3, 30), 'the colour bar\'s yellow end: ' + png.pixel(248, h + 12));
		let ink = 0;
		for (let x = 10; x < png.width - 10; x++)
			for (let y = h + 48; y < png.height - 2; y++)
				ink += png.pixel(x, y)[0] < 128;
		assert.ok(ink > 200, 'the request is written below the colour bar (' + ink + ' dark pixels)');
		/* the same request downloads under the same name: no timestamp */
		assert.equal((await downloadNamed(page, '#tools-json')).name, json.name);
		/* the drop page: its JSON is the API's bytes too */
		const drop = await open(context, base + '/drop.html', 1400);
		await drop.waitForFunction(() => window.contactd.answers.drop);
		const req = await drop.evaluate(() => window.contactd.answers.drop.request);
		const dropBytes = await (await fetch(base + '/v1/drop', {method: 'POST', body: JSON.stringify(req),
		    headers: {'Content-Type': 'application/json'}})).text();
		const dj = await downloadNamed(drop, '#tools-json');
		assert.equal(String(dj.bytes), dropBytes);
		assert.ok(dj.name.endsWith('-' + await drop.evaluate((r) => CD.hash(JSON.stringify(r)), req) + '.json'), dj.name);
		assert.deepEqual(page.consoleErrors, []);
		assert.deepEqual(drop.consoleErrors, []);
		await drop.close();
		await page.close();
	});
}

async function checkSweepForm(context, base) {
	await check('sweep: the form takes the API\'s aliases; the metric list follows the query; a run draws the query\'s default', async () => {
		const page = await open(context, base + '/sweep.html', 1400);
		await sweepPredicates(page);
		await sweepDrawn(page, 'cdAny');
		const options = () => page.evaluate(() => [...document.getElementById('metric').options].map((o) => o.value));
		/* the queries are the API's sweepable ones (the endpoint table's), hold among them,
		 * each with its answer's fields and its x-headline as the default */
		const doc = await api(base, 'GET', '/v1/openapi.json');
		assert.deepEqual(await page.evaluate(() => [...document.getElementById('query').options].map((o) => o.value)),
		    doc.components.schemas.SweepRequest.properties.query.enum);
		await page.selectOption('#query', 'hold');
		assert.equal(await page.inputValue('#metric'), doc.components.schemas.HoldAnswer['x-headline']);
		assert.ok((await options()).includes('slip') && !(await options()).includes('mujoco'), String(await options()));
		await page.selectOption('#query', 'drop');
		assert.equal(await page.inputValue('#metric'), 'rebound');
		assert.ok((await options()).includes('peak_penetration') && !(await options()).includes('growth'), String(await options()));
		await page.fill('#base', JSON.stringify({body: {shape: 'sphere', size: 0.05, mass: 1}, duration: 1}));
		await page.fill('#path1', 'dampratio');
		await page.fill('#from1', '0.2');
		await page.fill('#to1', '1');
		await page.fill('#count1', '5');
		await page.uncheck('#use2');
		await page.click('#run');
		const d = await sweepDrawn(page, 'cdDropAlias');
		assert.deepEqual(d.answer, await api(base, 'POST', '/v1/sweep', d.request));
		assert.equal(await page.inputValue('#metric'), 'rebound');
		const ri = d.answer.columns.indexOf('rebound');
		assert.deepEqual(await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].data),
		    d.answer.rows.map((r) => ({x: r[0], y: r[ri]})));
		assert.equal(await page.evaluate(() => window.contactd.charts.sweep.options.scales.x.title.text), 'dampratio');
		/* another query: its own list and default, after the run too */
		await page.selectOption('#query', 'rest');
		assert.equal(await page.inputValue('#metric'), 'penetration');
		assert.ok(!(await options()).includes('rebound'));
		await page.fill('#path1', 'timeconst');
		await page.fill('#from1', '0.005');
		await page.fill('#to1', '0.05');
		await page.click('#run');
		const r = await sweepDrawn(page, 'cdRest');
		assert.deepEqual(r.answer, await api(base, 'POST', '/v1/sweep', r.request));
		assert.equal(await page.inputValue('#metric'), 'penetration');
		/* a word that is not an alias: the API's message names the ones there are */
		await page.fill('#path1', 'dampingratio');
		await page.click('#run');
		await page.waitForFunction(() => document.getElementById('status').className === 'status error');
		assert.match(await page.textContent('#status'), /dampratio/);
		assert.ok(page.consoleErrors.every((e) => /400|422/.test(e)), page.consoleErrors.join('; '));
		await page.close();
	});
	await check('sweep: an overlay\'s legend names what differs', async () => {
		const page = await open(context, base + '/sweep.html', 1400);
		await sweepPredicates(page);
		await sweepDrawn(page, 'cdAny');
		await page.click('#preset-rebound');
		await sweepDrawn(page, 'cdDrop');
		await page.check('#overlay');
		const b = {body: {shape: 'sphere', size: 0.05, mass: 1}, geom: {solref: [0.02, 0.3]}, duration: 1};
		for (const height of [0.2, 0.3]) {
			await page.fill('#base', JSON.stringify(Object.assign({}, b, {height})));
			await page.click('#run');
			await sweepDrawn(page, 'cdHeight', height);
		}
		const labels = await page.evaluate(() => window.contactd.charts.sweep.data.datasets.filter((d) => d.cdOverlay).map((d) => d.label));
		assert.equal(labels.length, 2);
		assert.match(labels[1], /^earlier run 2: drop height 0\.2 m$/);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
}

async function checkQuestionPresets(context, base) {
	await check('drop and hold: a JSON box beside the form, an SO-101 pad preset, the API\'s answers', async () => {
		const page = await open(context, base + '/drop.html', 1400);
		await page.waitForFunction(() => window.contactd.answers.drop);
		await page.click('#preset-so101');
		await page.waitForFunction(() => window.contactd.answers.drop.request.floor);
		const {request, answer} = await page.evaluate(() => window.contactd.answers.drop);
		assert.deepEqual(request.floor, {condim: 6, friction: [1, 0.005, 0.0005], solref: [0.01, 1], priority: 1});
		assert.equal(request.option.timestep, 0.005);
		assert.equal(request.option.cone, 'elliptic');
		assert.equal(request.option.impratio, 10);
		assert.deepEqual(request.body, {shape: 'sphere', size: 0.02, mass: 0.1});
		assert.deepEqual(answer, await api(base, 'POST', '/v1/drop', request));
		/* any field through the box: the floor's solimp */
		const extra = JSON.parse(await page.inputValue('#extra'));
		extra.floor.solimp = [0.8, 0.9, 0.002, 0.5, 2];
		await page.fill('#extra', JSON.stringify(extra));
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.drop.request.floor.solimp);
		const again = await page.evaluate(() => window.contactd.answers.drop);
		assert.deepEqual(again.answer, await api(base, 'POST', '/v1/drop', again.request));
		/* a box that is not JSON is said, nothing sent */
		await page.fill('#extra', '{"floor": ');
		await page.click('#run');
		assert.match(await page.textContent('#status'), /is not JSON/);
		await assertAccessible(page);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
		const hold = await open(context, base + '/hold.html', 1400);
		await hold.waitForFunction(() => window.contactd.answers.hold);
		await hold.click('#preset-so101');
		await hold.waitForFunction(() => window.contactd.answers.hold[0].request.base.pad.condim === 6);
		const runs = await hold.evaluate(() => window.contactd.answers.hold);
		const hb = runs[0].request.base;
		assert.deepEqual(hb.pad.solref, [0.01, 1]);
		assert.deepEqual(hb.pad.friction, [1, 0.005, 0.0005]);
		assert.equal(hb.pad.priority, 1);
		assert.equal(hb.option.timestep, 0.005);
		assert.equal(hb.option.impratio, 10);
		for (const run of runs)
			assert.deepEqual(run.answer, await api(base, 'POST', '/v1/sweep', run.request));
		await assertAccessible(hold);
		assert.deepEqual(hold.consoleErrors, []);
		await hold.close();
	});
}

async function checkLiveMidCalibration(context, base) {
	await check('live: opened mid-calibration, fits by their id; the id in the address; round ticks; the MJCF not cut off', async () => {
		const token = JSON.parse(execFileSync(CONTACTD,
		    ['--db', path.join(tmp, 'cache.db'), 'token', 'create', 'so103', '--json'], {encoding: 'utf8'})).token;
		const cal = await api(base, 'POST', '/v1/robots/so103/calibrations',
		    {object: {shape: 'sphere', size: 0.02, mass: 0.1}, option: {timestep: 0.005}}, token);
		const done = async (after) => {
			for (;;) {
				const c = await api(base, 'GET', '/v1/calibrations/' + cal.id, undefined, token);
				if (c.fit && c.fit.state === 'done' && c.fit_id > after)
					return c;
				await new Promise((r) => setTimeout(r, 100));
			}
		};
		let shown = {fit_id: 0};
		const uploads = [[0.1, 0.004, 19.81, 1e-4], [0.05, 0.002, 14.9, 0.6e-4], [0.2, 0.009, 12, 0.25e-4], [0.15, 0.006, 17, 0.8e-4]];
		for (const [h, r, f, d] of uploads.slice(0, 3)) {
			await api(base, 'POST', '/v1/calibrations/' + cal.id + '/measurements',
			    {drops: [{height: h, rebound: r}], presses: [{force: f, deflection: d}]}, token);
			shown = await done(shown.fit_id);
		}
		const history = (await api(base, 'GET', '/v1/calibrations/' + cal.id + '/fits', undefined, token)).fits.length;
		const page = await open(context, base + '/live.html', 1400);
		await page.fill('#calibration', String(cal.id));
		assert.equal(await page.evaluate(() => location.hash), '#calibration=' + cal.id, 'the id is in the address as typed');
		await page.fill('#token', token);
		await page.click('#watch');
		await page.waitForFunction((n) => window.contactd.charts.fit.data.datasets[0].data.length === n &&
		    /^(Watching calibration|Fit \d+ received)/.test(document.getElementById('status').textContent), history).catch(async (e) => {
			throw new Error(await page.textContent('#status') + ' / ' +
			    await page.evaluate(() => JSON.stringify(window.contactd.charts.fit.data.datasets[0].data)) + ': ' + e.message);
		});
		assert.deepEqual(await page.evaluate((n) => window.contactd.charts.fit.data.datasets[0].data[n - 1], history),
		    {x: shown.fit_id, y: shown.fit.solref[0]});
		/* the stream may replay the newest fit: it is named by its id, not "Fit 1" */
		const said = await page.textContent('#status');
		if (/^Fit /.test(said))
			assert.match(said, new RegExp('^Fit ' + shown.fit_id + ' received'));
		assert.ok(shown.fit_id > 1);
		const [h, r, f, d] = uploads[3];
		await api(base, 'POST', '/v1/calibrations/' + cal.id + '/measurements',
		    {drops: [{height: h, rebound: r}], presses: [{force: f, deflection: d}]}, token);
		await page.waitForFunction((n) => window.contactd.charts.fit.data.datasets[0].data.length === n + 1, history);
		const last = await done(shown.fit_id);
		await page.waitForFunction((id) => new RegExp('^Fit ' + id + ' received').test(document.getElementById('status').textContent),
		    last.fit_id);
		assert.equal(await page.evaluate((n) => window.contactd.charts.fit.data.datasets[0].data[n].x, history), last.fit_id);
		/* every tick label of every chart: at most 6 significant digits, no floating-point noise */
		const labels = await page.evaluate(() => [].concat(...Object.values(window.contactd.charts).map((c) =>
		    [].concat(...Object.values(c.scales).map((s) => s.ticks.map((t) => String(t.label)))))));
		assert.ok(labels.length > 10, labels.length + ' tick labels');
		for (const l of labels.filter((x) => !/^(drop|press) \d+$/.test(x))) /* the residuals' are names */
			assert.ok(l.replace(/^-/, '').replace(/e[-+]?\d+$/, '').replace('.', '').replace(/^0+/, '').length <= 5 &&
			    !/e-1\d|E-/.test(l), 'tick label ' + l);
		/* the MJCF fits its box, at both widths */
		for (const width of [1400, 390]) {
			await page.setViewportSize({width, height: 900});
			const [sw, cw] = await page.evaluate(() => [document.getElementById('mjcf').scrollWidth,
			    document.getElementById('mjcf').clientWidth]);
			assert.ok(sw <= cw + 1, 'the MJCF is ' + sw + ' px wide in a ' + cw + ' px box at ' + width + ' px');
			await shot(page, 'live-' + width);
		}
		const fresh = await open(context, base + '/live.html#calibration=' + cal.id, 390);
		assert.equal(await fresh.inputValue('#calibration'), String(cal.id));
		await fresh.close();
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
}

async function main() {
	fs.mkdirSync(SHOTS, {recursive: true});
	/* the lab pages: one on an origin the daemon names, one on an origin it does not */
	const named = await labServer();
	const stranger = await labServer();
	const daemon = await startDaemon(['--cors-origin', named]);
	const base2 = 'http://127.0.0.1:' + daemon.port;
	labApi = base2;

	const profile = fs.mkdtempSync(path.join(tmp, 'profile-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
		    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
		viewport: {width: 1280, height: 900},
		deviceScaleFactor: 1,
	});
	context.setDefaultTimeout(WAIT_MS);

	await check('index: health line from /v1/health, no console error', async () => {
		const page = await open(context, base2 + '/');
		const health = await api(base2, 'GET', '/v1/health');
		await page.waitForFunction(() => window.contactd.answers.health);
		const text = await page.textContent('#status');
		assert.ok(text.includes(health.version) && text.includes(health.core_version), text);
		assert.equal(await page.locator('a[href="v1/openapi.json"]').count(), 1);
		assert.equal(await page.locator('a[href="api.html"]').count(), 2);
		await assertAccessible(page);
		await shot(page, 'index');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('legends: a dashed series\' swatch is its line, dashed, not a blurred box', async () => {
		const page = await open(context, base2 + '/sweep.html');
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep);
		/* the stability map's refsafe clamp line is dashed (white on the map, grey in the legend) */
		const info = await page.evaluate(() => {
			const chart = window.contactd.charts.sweep;
			return {id: chart.canvas.id, boxes: chart.legend.legendHitBoxes,
			    items: chart.legend.legendItems.map((i) => ({text: i.text, dash: i.lineDash || [],
			        style: i.pointStyle, stroke: i.strokeStyle}))};
		});
		const k = info.items.findIndex((i) => i.dash.length > 0);
		assert.ok(k >= 0, 'no dashed series in the legend: ' + JSON.stringify(info.items));
		assert.equal(info.items[k].style, 'line', info.items[k].text);
		assert.ok(!/^#fff/i.test(info.items[k].stroke), 'a white swatch on white: ' + info.items[k].stroke);
		/* pixels along the swatch's middle: dashes and gaps, as the line has them */
		const png = await shot(page, 'legend-dashed', '#' + info.id);
		const b = info.boxes[k], y = Math.round(b.top + b.height / 2);
		let ink = 0, paper = 0;
		for (let x = Math.round(b.left) + 2; x < Math.round(b.left) + 34; x++) {
			const p = png.pixel(x, y);
			if (p[0] + p[1] + p[2] < 3 * 200)
				ink++;
			else if (p[0] + p[1] + p[2] > 3 * 240)
				paper++;
		}
		assert.ok(ink >= 8 && paper >= 6, 'the dashed swatch at y ' + y + ': ' + ink + ' dark, ' + paper + ' light pixels');
		await page.close();
	});

	await check('sweep: the stability map: the API\'s answer, units, growth = 1 contour, colours around 1, cell tooltips', async () => {
		const page = await open(context, base2 + '/sweep.html');
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep);
		const {request} = await page.evaluate(() => window.contactd.answers.sweep);
		const answer = await api(base2, 'POST', '/v1/sweep', request);
		assert.equal(request.query, 'stability');
		assert.deepEqual(request.vary.map((v) => v.path), ['/solref/0', '/solref/1']);
		/* how the answer came (streamed or whole), for the streaming check below */
		sweepFirst = await page.evaluate(() => ({type: window.contactd.sweepContentType,
		    draws: window.contactd.sweepDraws, streamed: window.contactd.sweepStreamed,
		    request: window.contactd.answers.sweep.request, answer: window.contactd.answers.sweep.answer,
		    points: window.contactd.charts.sweep.data.datasets[0].data.length}));
		const cols = answer.columns, gi = cols.indexOf('guard_gap'), mi = cols.indexOf('growth');
		const held = await page.evaluate(() => window.contactd.charts.sweep.data.datasets.map((d) =>
		    ({label: d.label, heatmap: !!d.heatmap, data: d.data, min: d.min, max: d.max})));
		assert.equal(held[0].heatmap, true);
		assert.deepEqual(held[0].data, answer.rows.map((r) => ({x: r[0], y: r[1], v: r[mi], mark: r[gi]})));
		const growth = answer.rows.map((r) => r[mi]);
		assert.equal(held[0].min, Math.min(...growth));
		assert.equal(held[0].max, Math.max(...growth));
		/* physical names and units on the axes and the colour bar */
		const titles = await page.evaluate(() => {
			const sc = window.contactd.charts.sweep.options.scales;
			return [sc.x.title.text, sc.y.title.text];
		});
		assert.deepEqual(titles, ['timeconst (s)', 'dampratio']);
		assert.match(await page.textContent('#cb-key'), /^growth per step/);
		assert.ok(await page.isVisible('#colorbar-box'), 'the colour bar of a map is shown');
		/* the guard gap is where the answer says: refsafe on and still unstable */
		assert.ok(answer.rows.some((r) => r[gi] === true), 'this map should cross the guard gap');
		/* the clamp: timeconst = 2 * timestep (the preset's timestep is 2 ms) */
		assert.ok(held[1].label.startsWith('refsafe clamp'));
		assert.ok(held[1].data.every((p) => p.x === 0.004));
		await assertAccessible(page);
		/* the contour: every segment separates a cell at most 1 from one above 1, and
		 * every such pair of neighbours has its segment */
		const contour = await page.evaluate(() => {
			const ds = window.contactd.charts.sweep.data.datasets[0];
			return {segs: ds.cdContour.map((s) => [s[0], s[1]]), cells: ds.cdCells};
		});
		const xs = [...new Set(answer.rows.map((r) => r[0]))].sort((a, b) => a - b);
		const ys = [...new Set(answer.rows.map((r) => r[1]))].sort((a, b) => a - b);
		const above = (x, y) => {
			const r = answer.rows.find((k) => k[0] === xs[x] && k[1] === ys[y]);
			return !(r[mi] !== null && r[mi] <= 1);
		};
		let pairs = 0;
		for (let i = 0; i < xs.length; i++)
			for (let j = 0; j < ys.length; j++) {
				if (i + 1 < xs.length && above(i, j) !== above(i + 1, j))
					pairs++;
				if (j + 1 < ys.length && above(i, j) !== above(i, j + 1))
					pairs++;
			}
		assert.ok(pairs > 0, 'this map should cross growth = 1');
		assert.equal(contour.segs.length, pairs, 'one contour segment per stable/unstable pair of cells');
		/* stable and unstable cells differ at a glance: blue at most 1, red above */
		const fills = contour.cells.map((c) => ({v: answer.rows[c.index][mi], rgb: rgb(c.fill)}));
		for (const f of fills.filter((k) => k.v !== null)) {
			if (f.v <= 1)
				assert.ok(f.rgb[2] > f.rgb[0], 'a stable cell (growth ' + f.v + ') is blue: ' + f.rgb);
			else
				assert.ok(f.rgb[0] > f.rgb[2], 'an unstable cell (growth ' + f.v + ') is red: ' + f.rgb);
		}
		/* pixels: the least and the greatest growth in their colours, the contour black */
		const png = await shot(page, 'sweep-chart', '#chart');
		const probe = await page.evaluate(() => {
			const c = window.contactd.charts.sweep, ds = c.data.datasets[0];
			const at = (v) => ds.cdCells.find((k) => ds.data[k.index].v === v);
			const mid = (k) => ({x: (k.x0 + k.x1) / 2, y: (k.y0 + k.y1) / 2, fill: k.fill});
			return {lo: mid(at(ds.min)), hi: mid(at(ds.max))};
		});
		const pad = 1; /* the element screenshot starts at the canvas' border box */
		for (const p of [probe.lo, probe.hi])
			assert.ok(near(png, p.x + pad, p.y + pad, rgb(p.fill), 2, 6),
			    'pixel at ' + JSON.stringify(p) + ' is ' + png.pixel(p.x + pad, p.y + pad) + ', not ' + p.fill);
		const seg = contour.segs[Math.floor(contour.segs.length / 2)];
		const sx = (seg[0][0] + seg[1][0]) / 2, sy = (seg[0][1] + seg[1][1]) / 2;
		assert.ok(near(png, sx + pad, sy + pad, [0, 0, 0], 2, 40), 'no black contour at ' + sx + ', ' + sy);
		/* a tooltip anywhere in a cell, not only at its centre: near a corner */
		const cell = contour.cells[Math.floor(contour.cells.length / 3)];
		const box = await page.locator('#chart').boundingBox();
		await page.mouse.move(box.x + cell.x0 + 2, box.y + cell.y1 - 2);
		await page.waitForFunction(() => window.contactd.charts.sweep.tooltip.opacity > 0);
		const tip = await page.evaluate(() => {
			const t = window.contactd.charts.sweep.tooltip;
			return {raw: t.dataPoints[0].raw, body: t.body.map((b) => b.lines.join(' ')).join(' ')};
		});
		const r = answer.rows[cell.index];
		assert.deepEqual([tip.raw.x, tip.raw.y], [r[0], r[1]]);
		assert.match(tip.body, /timeconst .* s, dampratio .*: growth per step/);
		await shot(page, 'sweep');
		assert.deepEqual(page.consoleErrors, []);

		/* a click on a cell opens that drop on the drop page */
		await page.mouse.click(box.x + (cell.x0 + cell.x1) / 2, box.y + (cell.y0 + cell.y1) / 2);
		await page.waitForURL(/drop\.html#/);
		await page.waitForFunction(() => window.contactd.answers.drop);
		const drop = await page.evaluate(() => window.contactd.answers.drop.request);
		assert.deepEqual(drop.geom.solref, [r[0], r[1]]);
		assert.equal(drop.option.timestep, 0.002);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('sweep: a map\'s log-axis toggles: axis types, the URL, the cells still the API\'s answers', async () => {
		const page = await open(context, base2 + '/sweep.html');
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep &&
		    !document.getElementById('run').disabled);
		const {request} = await page.evaluate(() => window.contactd.answers.sweep);
		const answer = await api(base2, 'POST', '/v1/sweep', request);
		const mi = answer.columns.indexOf('growth');
		const types = () => page.evaluate(() => {
			const sc = window.contactd.charts.sweep.scales;
			return [sc.x.type, sc.y.type];
		});
		/* each drawn cell: its point, where the axes put that point, and its box and colour */
		const cells = () => page.evaluate(() => {
			const c = window.contactd.charts.sweep, ds = c.data.datasets[0];
			return ds.cdCells.map((k) => ({index: k.index, fill: k.fill, p: ds.data[k.index],
			    px: c.scales.x.getPixelForValue(ds.data[k.index].x), py: c.scales.y.getPixelForValue(ds.data[k.index].y),
			    x0: k.x0, x1: k.x1, y0: k.y0, y1: k.y1}));
		});
		/* the preset spaces both fields logarithmically: both axes start logarithmic */
		assert.deepEqual(await types(), ['logarithmic', 'logarithmic']);
		assert.ok(await page.isChecked('#tools-logx') && await page.isChecked('#tools-log'));
		assert.doesNotMatch(page.url(), /logx=|maplogy=/);
		const before = await cells();
		const steps = [['uncheck', '#tools-logx', ['linear', 'logarithmic'], /logx=0/],
		    ['uncheck', '#tools-log', ['linear', 'linear'], /maplogy=0/],
		    ['check', '#tools-logx', ['logarithmic', 'linear'], /logx=1/]];
		for (const [how, sel, want, param] of steps) {
			const draws = await page.evaluate(() => window.contactd.sweepDraws);
			await page[how](sel);
			await page.waitForFunction((d) => window.contactd.sweepDraws > d, draws);
			assert.deepEqual(await types(), want, sel + ' ' + how);
			assert.match(page.url(), param);
			const now = await cells();
			assert.equal(now.length, answer.rows.length);
			now.forEach((c, k) => {
				const r = answer.rows[c.index];
				assert.deepEqual([c.p.x, c.p.y, c.p.v], [r[0], r[1], r[mi]]);
				assert.ok(c.x0 <= c.px && c.px <= c.x1 && c.y0 <= c.py && c.py <= c.y1,
				    'cell ' + k + ' ' + JSON.stringify(c) + ' is not around its point');
				assert.equal(c.fill, before[k].fill, 'cell ' + k + ' changed colour');
			});
			/* the cells tile the grid: a linear axis over log-spaced values widens them */
			const widths = now.map((c) => c.x1 - c.x0), spread = Math.max(...widths) / Math.min(...widths);
			assert.ok(want[0] === 'linear' ? spread > 2 : spread < 1.01, 'cell widths spread ' + spread);
			/* pixels: the least and the greatest growth of the cells wide enough to see (a
			 * linear axis squeezes log-spaced ones to slivers) and not outlined, in their colours */
			const png = await shot(page, 'sweep-map-axes', '#chart');
			const seen = now.filter((c) => c.x1 - c.x0 >= 8 && c.y1 - c.y0 >= 8 && !c.p.mark && c.p.v !== null);
			assert.ok(seen.length >= 10, seen.length + ' cells wide enough to see');
			for (const v of [Math.min(...seen.map((c) => c.p.v)), Math.max(...seen.map((c) => c.p.v))]) {
				const c = seen.find((k) => k.p.v === v);
				const x = (c.x0 + c.x1) / 2 + 1, y = (c.y0 + c.y1) / 2 + 1;
				assert.ok(near(png, x, y, rgb(c.fill), 2, 6), 'pixel at ' + x + ', ' + y + ' is ' + png.pixel(x, y) +
				    ', not ' + c.fill);
			}
		}
		/* a reload (or a shared link) draws the same axes */
		await page.reload();
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep &&
		    !document.getElementById('run').disabled);
		assert.deepEqual(await types(), ['logarithmic', 'linear']);
		assert.ok(await page.isChecked('#tools-logx') && !await page.isChecked('#tools-log'));
		/* a preset starts from its own spacing again */
		await page.click('#preset-map-step');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.vary[0].path === '/option/timestep' &&
		    !document.getElementById('run').disabled);
		assert.deepEqual(await types(), ['logarithmic', 'logarithmic']);
		await assertAccessible(page);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('sweep: lines: units, a preset that rebounds, no stale colour bar, Points = 0 refused, zoom, log axis', async () => {
		const page = await open(context, base2 + '/sweep.html');
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep);
		/* from the keyboard (focus the preset, press Enter) */
		await page.focus('#preset-rebound');
		await page.keyboard.press('Enter');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.query === 'drop' &&
		    window.contactd.charts.sweep.data.datasets[0].showLine);
		const line = await page.evaluate(() => window.contactd.answers.sweep.request);
		const lineAnswer = await api(base2, 'POST', '/v1/sweep', line);
		const ri = lineAnswer.columns.indexOf('rebound');
		const lineData = await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].data);
		assert.deepEqual(lineData, lineAnswer.rows.map((r) => ({x: r[0], y: r[ri]})));
		const rebounds = lineAnswer.rows.map((r) => r[ri]);
		assert.ok(Math.max(...rebounds) > 1e-3 && Math.max(...rebounds) > Math.min(...rebounds),
		    'the rebound preset draws rebounds, not a flat line: ' + rebounds);
		/* and physical ones: no energy gain, and near timeconst 0.02 s the rebound of a
		 * linear spring-damper with dampratio 0.3, e^2 h with e = exp(-0.3 pi / sqrt(1 - 0.09));
		 * 25 %: MuJoCo's impedance varies with penetration, so the spring is not quite linear */
		const eg = lineAnswer.columns.indexOf('energy_gain');
		assert.ok(lineAnswer.rows.every((r) => r[eg] === false), 'the preset\'s drops are physical');
		const e = Math.exp(-0.3 * Math.PI / Math.sqrt(1 - 0.09));
		const at02 = lineAnswer.rows.reduce((b, r) => (Math.abs(Math.log(r[0] / 0.02)) < Math.abs(Math.log(b[0] / 0.02)) ? r : b));
		assert.ok(Math.abs(at02[ri] / (e * e * (line.base.height || 0.1)) - 1) < 0.25,
		    'rebound ' + at02[ri] + ' m at timeconst ' + at02[0] + ' s, expected about ' + e * e * 0.1);
		const titles = await page.evaluate(() => {
			const sc = window.contactd.charts.sweep.options.scales;
			return [sc.x.title.text, sc.y.title.text];
		});
		assert.deepEqual(titles, ['timeconst (s)', 'rebound (m)']);
		assert.equal(await page.isVisible('#colorbar-box'), false, 'no colour bar under a line chart');
		assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('colorbar-box')).display), 'none');
		const lpng = await shot(page, 'sweep-line-chart', '#chart');
		const pts = await page.evaluate(() => {
			const c = window.contactd.charts.sweep;
			return c.getDatasetMeta(0).data.map((e) => ({x: e.x, y: e.y}));
		});
		const blue = hex('#0072B2');
		const hits = pts.filter((p) => near(lpng, p.x + 1, p.y + 1, blue, 3, 40)).length;
		assert.ok(hits >= pts.length - 1, hits + ' of ' + pts.length + ' points drawn in the line colour');
		/* zoom in and out from the buttons, back to the answer's range */
		const range = () => page.evaluate(() => {
			const x = window.contactd.charts.sweep.scales.x;
			return [x.min, x.max];
		});
		const home = await range();
		await page.click('#tools-zoom-in');
		const zoomed = await range();
		assert.ok(zoomed[0] > home[0] && zoomed[1] < home[1], 'zoomed in: ' + zoomed + ' within ' + home);
		/* a drag pans: the range moves, its width (in log) stays */
		const box = await page.locator('#chart').boundingBox();
		await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
		await page.mouse.down();
		await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2, {steps: 4});
		await page.mouse.up();
		const panned = await range();
		assert.ok(panned[0] < zoomed[0], 'dragging right shows smaller timeconsts: ' + panned + ' vs ' + zoomed);
		assert.ok(Math.abs(Math.log(panned[1] / panned[0]) - Math.log(zoomed[1] / zoomed[0])) < 1e-6);
		assert.ok(page.url().includes('sweep.html'), 'a drag is not a click that opens a drop');
		await page.click('#tools-zoom-reset');
		assert.deepEqual(await range(), home);
		/* Ctrl + wheel zooms around the pointer; the page itself does not zoom or scroll */
		await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
		await page.keyboard.down('Control');
		await page.mouse.wheel(0, -100);
		await page.keyboard.up('Control');
		await page.waitForFunction(([a, b]) => {
			const x = window.contactd.charts.sweep.scales.x;
			return x.min > a && x.max < b;
		}, home);
		assert.equal(await page.evaluate(() => window.scrollY), 0);
		await page.click('#tools-zoom-reset');
		await page.check('#tools-log');
		await page.waitForFunction(() => window.contactd.charts.sweep.scales.y.type === 'logarithmic');
		assert.match(page.url(), /logy=1/);
		/* the x axis: the preset's log spacing, then linear by the toggle, the line the same points */
		assert.equal(await page.evaluate(() => window.contactd.charts.sweep.scales.x.type), 'logarithmic');
		assert.ok(await page.isChecked('#tools-logx'));
		await page.uncheck('#tools-logx');
		await page.waitForFunction(() => window.contactd.charts.sweep.scales.x.type === 'linear');
		assert.match(page.url(), /logx=0/);
		assert.deepEqual(await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].data), lineData);
		await page.check('#tools-logx');
		await page.waitForFunction(() => window.contactd.charts.sweep.scales.x.type === 'logarithmic');
		/* Points = 0 is refused with a message, and nothing is sent */
		await page.fill('#count1', '0');
		await page.click('#run');
		assert.match(await page.textContent('#status'), /Points of the first field must be a whole number from 1 to 200/);
		assert.equal(await page.evaluate(() => document.getElementById('status').className), 'status error');
		assert.deepEqual(await page.evaluate(() => window.contactd.answers.sweep.request), line);
		/* drops that gain energy (refsafe off, timeconst below 2 timesteps) are flagged */
		await page.fill('#count1', '6');
		await page.fill('#from1', '0.0005');
		await page.fill('#base', JSON.stringify({geom: {solref: [0.02, 1]}, option: {refsafe: false}, duration: 1}));
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.base.option.refsafe === false &&
		    !document.getElementById('run').disabled);
		const gain = await page.evaluate(() => window.contactd.answers.sweep);
		const gi = gain.answer.columns.indexOf('energy_gain'), ri2 = gain.answer.columns.indexOf('rebound');
		const gained = gain.answer.rows.filter((r) => r[gi] === true);
		assert.ok(gained.length > 0 && gained.length < gain.answer.rows.length, gained.length + ' drops gained energy');
		const flagged = await page.evaluate(() => window.contactd.charts.sweep.data.datasets.filter((d) => d.cdFlagged)
		    .map((d) => d.data));
		assert.deepEqual(flagged, [gained.map((r) => ({x: r[0], y: r[ri2]}))]);
		assert.match(await page.textContent('#status'), new RegExp(gained.length + ' gained energy or diverged'));
		assert.equal(await page.evaluate(() => document.getElementById('status').className), 'status error');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('sweep: the URL keeps the form (reload and a shared link), exports equal the API\'s answers, copies run', async () => {
		await context.grantPermissions(['clipboard-read', 'clipboard-write'], {origin: base2});
		const page = await open(context, base2 + '/sweep.html');
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep);
		await page.click('#preset-map-step');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.vary[0].path === '/option/timestep');
		await page.selectOption('#metric', 'h_omega');
		await page.fill('#count2', '5');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.vary[1].values.length === 5 &&
		    !document.getElementById('run').disabled);
		const before = await page.evaluate(() => window.contactd.answers.sweep.request);
		const url = page.url();
		assert.match(url, /#.*path1=%2Foption%2Ftimestep/);
		await page.reload();
		await page.waitForFunction(() => window.contactd.answers.sweep && !document.getElementById('run').disabled);
		assert.deepEqual(await page.evaluate(() => window.contactd.answers.sweep.request), before);
		assert.equal(await page.inputValue('#metric'), 'h_omega');
		assert.equal(await page.evaluate(() => window.contactd.charts.sweep.options.scales.x.title.text), 'timestep (s)');
		const shared = await open(context, url);
		await shared.waitForFunction(() => window.contactd.answers.sweep && !document.getElementById('run').disabled);
		assert.deepEqual(await shared.evaluate(() => window.contactd.answers.sweep.request), before);
		await shared.close();

		const answer = await api(base2, 'POST', '/v1/sweep', before);
		const json = JSON.parse(String(await download(page, '#tools-json')));
		assert.deepEqual(json, answer);
		const csv = parseCsv(String(await download(page, '#tools-csv')));
		assert.deepEqual(csv[0], answer.columns);
		assert.deepEqual(csv.slice(1), answer.rows);
		const png = decodePng(await download(page, '#tools-png'));
		const size = await page.evaluate(() => [window.contactd.charts.sweep.canvas.width, window.contactd.charts.sweep.canvas.height]);
		/* the chart, then its colour bar and the request below it */
		assert.equal(png.width, size[0]);
		assert.ok(png.height > size[1], 'the PNG has room below the chart: ' + png.height + ' > ' + size[1]);
		const svg = String(await download(page, '#tools-svg'));
		assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'), svg.slice(0, 80));
		assert.equal((svg.match(/<rect class="cell"/g) || []).length, answer.rows.length, 'one SVG cell per row');
		assert.ok(svg.includes('>timestep (s)</text>') && svg.includes('>timeconst (s)</text>'), 'SVG axis titles');
		const gapCol = answer.columns.indexOf('guard_gap');
		assert.equal((svg.match(/<path class="mark"/g) || []).length, answer.rows.filter((r) => r[gapCol] === true).length,
		    'one outlined SVG cell per guard-gap row');
		assert.ok(svg.includes('class="caption">timestep / (timeconst × dampratio) from '), 'the colour scale\'s caption');
		/* the copied commands give the same answer: curl from the daemon, contact offline */
		await page.click('#tools-curl');
		const curl = await page.evaluate(() => window.contactd.copied);
		assert.ok(curl.startsWith('curl '), curl);
		assert.deepEqual(JSON.parse(shell(curl)), answer);
		assert.equal(await page.evaluate(() => navigator.clipboard.readText()), curl);
		await page.click('#tools-contact');
		const cli = await page.evaluate(() => window.contactd.copied);
		assert.match(cli, / \| contact sweep -$/);
		assert.deepEqual(JSON.parse(shell(cli)), answer);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('sweep: two MuJoCo releases drawn together; overlays of earlier runs', async () => {
		const health = await api(base2, 'GET', '/v1/health');
		const other = health.mujoco_supported.find((v) => v !== health.mujoco);
		assert.ok(other, 'the daemon supports more than one release');
		const page = await open(context, base2 + '/sweep.html#compare=' + other);
		await page.waitForFunction(() => window.contactd.answers.sweepCompare && window.contactd.charts.sweep);
		assert.equal(await page.inputValue('#mujoco'), health.mujoco);
		const {request, answer} = await page.evaluate(() => window.contactd.answers.sweep);
		const cmp = await page.evaluate(() => window.contactd.answers.sweepCompare);
		assert.equal(request.base.option.mujoco, health.mujoco);
		assert.equal(cmp.request.base.option.mujoco, other);
		assert.deepEqual(cmp.answer, await api(base2, 'POST', '/v1/sweep', cmp.request));
		assert.ok(answer.rows.every((r) => r[answer.columns.indexOf('mujoco')] === health.mujoco));
		assert.ok(cmp.answer.rows.every((r) => r[cmp.answer.columns.indexOf('mujoco')] === other));
		/* the map draws both releases' growth = 1 boundaries */
		const colors = await page.evaluate(() => [...new Set(window.contactd.charts.sweep.data.datasets[0].cdContour.map((s) => s.color))]);
		assert.deepEqual(colors.sort(), ['#000', '#ffd400']);
		assert.ok((await page.evaluate(() => window.contactd.charts.sweep.legend.legendItems.map((i) => i.text)))
		    .some((t) => t.includes('MuJoCo ' + other)));
		/* a map of another answer field: the cells the second release changes are dotted */
		const older = health.mujoco_supported[0];
		await page.selectOption('#compare', older);
		await page.selectOption('#query', 'drop');
		await page.fill('#base', JSON.stringify({duration: 0.5}));
		await page.fill('#path1', '/geom/solref/0');
		await page.fill('#from1', '0.002');
		await page.fill('#to1', '0.03');
		await page.fill('#count1', '3');
		await page.fill('#path2', '/geom/solref/1');
		await page.fill('#from2', '0.2');
		await page.fill('#to2', '1');
		await page.fill('#count2', '2');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.query === 'drop' &&
		    window.contactd.answers.sweepCompare && !document.getElementById('run').disabled);
		await page.selectOption('#metric', 'final_penetration');
		const dmap = await page.evaluate(() => ({a: window.contactd.answers.sweep.answer,
		    b: window.contactd.answers.sweepCompare.answer, diffs: window.contactd.charts.sweep.data.datasets[0].diffs}));
		const pi = dmap.a.columns.indexOf('final_penetration');
		const changed = dmap.a.rows.map((r, k) => (r[pi] !== dmap.b.rows[k][pi] ? k : -1)).filter((k) => k >= 0);
		assert.ok(changed.length > 0, older + ' and ' + health.mujoco + ' should differ in final penetration');
		assert.deepEqual(dmap.diffs, changed);
		/* lines: both releases as two lines, each its own answer */
		await page.selectOption('#compare', other);
		await page.click('#preset-rebound');
		await page.waitForFunction((o) => window.contactd.answers.sweep.request.vary.length === 1 &&
		    window.contactd.answers.sweepCompare && window.contactd.answers.sweepCompare.request.base.option.mujoco === o &&
		    !document.getElementById('run').disabled, other);
		const sets = await page.evaluate(() => window.contactd.charts.sweep.data.datasets.map((d) =>
		    ({label: d.label, data: d.data, compare: !!d.cdCompare})));
		const lineCmp = await page.evaluate(() => window.contactd.answers.sweepCompare);
		const ri = lineCmp.answer.columns.indexOf('rebound');
		assert.ok(sets[0].label.endsWith('MuJoCo ' + health.mujoco));
		const second = sets.find((d) => d.compare);
		assert.ok(second && second.label.endsWith('MuJoCo ' + other));
		assert.deepEqual(second.data, lineCmp.answer.rows.map((r) => ({x: r[0], y: r[ri]})));
		/* overlays: three runs with overlays kept draw the two earlier ones */
		await page.selectOption('#compare', '');
		await page.check('#overlay');
		for (const height of [0.2, 0.3]) {
			await page.fill('#base', JSON.stringify({body: {shape: 'sphere', size: 0.05, mass: 1},
			    geom: {solref: [0.02, 0.2]}, duration: 1, height}));
			await page.click('#run');
			await page.waitForFunction((h) => window.contactd.answers.sweep.request.base.height === h &&
			    !document.getElementById('run').disabled, height);
		}
		const overlays = await page.evaluate(() => window.contactd.charts.sweep.data.datasets.filter((d) => d.cdOverlay).length);
		assert.equal(overlays, 2);
		await page.click('#clear-overlays');
		assert.equal(await page.evaluate(() => window.contactd.charts.sweep.data.datasets.filter((d) => d.cdOverlay).length), 0);
		/* a growth map keeps an earlier map's boundary: the 2 ms map's under the 1 ms one */
		await page.click('#preset-map-damp');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.query === 'stability' &&
		    !document.getElementById('run').disabled);
		const earlier = await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].cdContour.length);
		await page.fill('#base', JSON.stringify({option: {timestep: 0.001}}));
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.base.option.timestep === 0.001 &&
		    !document.getElementById('run').disabled);
		const mapOverlay = await page.evaluate(() => {
			const sets = window.contactd.charts.sweep.data.datasets;
			const o = sets.filter((d) => d.cdOverlay);
			return {count: o.length, label: o.length ? o[0].label : '', color: o.length ? o[0].borderColor : '',
			    segs: sets[0].cdContour.filter((k) => k.color === (o.length ? o[0].borderColor : '')).length};
		});
		assert.equal(mapOverlay.count, 1, JSON.stringify(mapOverlay));
		assert.match(mapOverlay.label, /growth = 1/);
		assert.equal(mapOverlay.segs, earlier, 'the earlier map\'s boundary, segment for segment');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('sweep: rows drawn as they stream (application/x-ndjson), or the whole JSON answer at once', async () => {
		/* the daemon itself: the first check's page (sweepFirst) said which content type it
		 * got and drew accordingly */
		assert.ok(sweepFirst, 'the first sweep check ran');
		const {type, draws, answer, request, streamed: drawnStreamed, points} = sweepFirst;
		assert.deepEqual(answer, await api(base2, 'POST', '/v1/sweep', request));
		assert.equal(points, answer.rows.length);
		if (/^application\/x-ndjson/.test(type)) {
			assert.equal(drawnStreamed, true);
		} else {
			assert.match(type, /^application\/json/);
			assert.equal(drawnStreamed, false);
			assert.equal(draws, 1, 'a plain JSON answer is drawn once, whole');
		}
		/* a streaming server (the proxy): drawn in steps, and the same map in the end */
		const proxy = await ndjsonProxy(base2);
		const streamed = await open(context, proxy + '/sweep.html');
		await streamed.waitForFunction(() => window.contactd.answers.sweep && !document.getElementById('run').disabled);
		assert.match(await streamed.evaluate(() => window.contactd.sweepContentType), /^application\/x-ndjson/);
		assert.equal(await streamed.evaluate(() => window.contactd.sweepStreamed), true);
		const steps = await streamed.evaluate(() => window.contactd.sweepDraws);
		assert.ok(steps >= 3, 'the streamed map was drawn in ' + steps + ' steps');
		const got = await streamed.evaluate(() => window.contactd.answers.sweep);
		assert.deepEqual(got.answer, await api(base2, 'POST', '/v1/sweep', got.request));
		assert.deepEqual(streamed.consoleErrors, []);
		await streamed.close();
	});

	await check('every page: readable at phone width, no console error', async () => {
		for (const [name, ready] of [['sweep', 'window.contactd.charts.sweep'],
		    ['drop', 'window.contactd.charts.drop'], ['hold', 'window.contactd.charts.hold'],
		    ['live', 'window.contactd.charts.fit'], ['model', 'window.contactd.answers.modelReady'],
		    ['api', 'window.contactd.answers.openapi'], ['index', 'window.contactd.answers.health']]) {
			const page = await open(context, base2 + '/' + (name === 'index' ? '' : name + '.html'), 390);
			/* a function, not the string: a string predicate is evaluated with eval(),
			 * which the pages' Content-Security-Policy refuses once the first poll fails */
			await page.waitForFunction((path) => path.split('.').reduce((o, k) => o && o[k], window), ready);
			const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
			assert.ok(overflow <= 0, name + ': the page is ' + overflow + ' px wider than the phone');
			/* the result before the form: its chart starts within the first screen; on the
			 * live page the calibration id and token come first (nothing shows without them) */
			if (name === 'live') {
				const tops = await page.evaluate(() => [document.querySelector('.layout > section canvas').getBoundingClientRect().top,
				    document.getElementById('calibration').getBoundingClientRect().top,
				    document.getElementById('watch').getBoundingClientRect().bottom]);
				assert.ok(tops[1] < 400 && tops[2] < 600 && tops[2] < tops[0] && tops[0] < 900,
				    'live: id at ' + tops[1] + ' px, Watch ends at ' + tops[2] + ' px, chart at ' + tops[0] + ' px');
			} else if (['sweep', 'drop', 'hold'].includes(name)) {
				const tops = await page.evaluate(() => [document.querySelector('.layout > section canvas').getBoundingClientRect().top,
				    document.getElementById('form').getBoundingClientRect().top]);
				assert.ok(tops[0] < tops[1] && tops[0] < 900, name + ': chart at ' + tops[0] + ' px, form at ' + tops[1] + ' px');
			}
			if (name === 'sweep')
				await shot(page, 'sweep-phone');
			assert.deepEqual(page.consoleErrors, [], name);
			await page.close();
		}
	});

	await check('drop: the trajectory and metrics are the API\'s answer', async () => {
		const page = await open(context, base2 + '/drop.html');
		await page.waitForFunction(() => window.contactd.answers.drop && window.contactd.charts.drop);
		const {request} = await page.evaluate(() => window.contactd.answers.drop);
		assert.equal(request.trajectory, true);
		const answer = await api(base2, 'POST', '/v1/drop', request);
		const held = await page.evaluate(() => window.contactd.charts.drop.data.datasets[0].data);
		assert.deepEqual(held, answer.trajectory.t.map((t, i) => ({x: t, y: answer.trajectory.z[i]})));
		assert.equal(await page.textContent('#m-peak_penetration'),
		    await page.evaluate((v) => CD.fmt(v, 6), answer.peak_penetration));
		await assertAccessible(page);
		/* pixels: the lowest point of the path is drawn in the path's colour */
		const png = await shot(page, 'drop-chart', '#chart');
		const low = await page.evaluate(() => {
			const c = window.contactd.charts.drop, ds = c.data.datasets[0];
			const i = ds.data.reduce((k, p, j) => (p.y < ds.data[k].y ? j : k), 0);
			const e = c.getDatasetMeta(0).data[i];
			return {x: e.x, y: e.y};
		});
		assert.ok(near(png, low.x + 1, low.y + 1, hex('#0072B2'), 3, 40),
		    'no path colour at the lowest point ' + JSON.stringify(low));
		/* from the keyboard: a new height, Enter submits, the chart follows */
		await page.fill('#height', '0.05');
		await page.focus('#height');
		await page.keyboard.press('Enter');
		await page.waitForFunction(() => window.contactd.answers.drop.request.height === 0.05);
		const again = await api(base2, 'POST', '/v1/drop', await page.evaluate(() => window.contactd.answers.drop.request));
		assert.equal(await page.evaluate(() => window.contactd.charts.drop.data.datasets[0].data[0].y), 0.05);
		assert.equal(await page.evaluate(() => window.contactd.charts.drop.data.datasets[0].data.length),
		    again.trajectory.t.length);
		await page.fill('#height', '0.1');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.drop.request.height === 0.1);
		assert.equal(await page.isVisible('#warning'), false, 'a physical drop has no warning');
		assert.equal(await page.evaluate(() => document.getElementById('status').className), 'status ok');
		await shot(page, 'drop');
		/* exports: the trajectory as CSV, the answer as JSON */
		const last = await api(base2, 'POST', '/v1/drop', await page.evaluate(() => window.contactd.answers.drop.request));
		assert.deepEqual(JSON.parse(String(await download(page, '#tools-json'))), last);
		const csv = parseCsv(String(await download(page, '#tools-csv')));
		assert.deepEqual(csv[0], ['t', 'z']);
		assert.deepEqual(csv.slice(1), last.trajectory.t.map((t, i) => [t, last.trajectory.z[i]]));
		const svg = String(await download(page, '#tools-svg'));
		assert.ok(svg.includes('>bottom height (m)</text>') && svg.includes('>time (s)</text>'));
		assert.equal((svg.match(/<polyline class="series"/g) || []).length >= 2, true, 'the path and the floor in the SVG');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('hold: creep against grip force and impratio, both cones and both releases, the API\'s answers, units, log y', async () => {
		const page = await open(context, base2 + '/hold.html');
		await page.waitForFunction(() => window.contactd.answers.hold && window.contactd.charts.hold);
		/* a second release (none by default): the oldest */
		await page.selectOption('#compare', {index: (await page.locator('#compare option').count()) - 1});
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.hold.length === 2);
		const drawn = async () => page.evaluate(() => ({
			runs: window.contactd.answers.hold,
			sets: window.contactd.charts.hold.data.datasets.filter((d) => d.cdCone)
			    .map((d) => ({data: d.data, cone: d.cdCone, release: d.cdRelease})),
			titles: ['x', 'y'].map((a) => window.contactd.charts.hold.options.scales[a].title.text),
			yType: window.contactd.charts.hold.options.scales.y.type,
		}));
		/* every line is its release's sweep, answered again by the API; one point a single /v1/hold */
		const checkLines = async (want) => {
			const {runs, sets} = await drawn();
			assert.equal(runs.length, 2, 'two releases side by side');
			assert.equal(sets.length, 4, 'two cones x two releases');
			const releases = [];
			for (const run of runs) {
				const answer = await api(base2, 'POST', '/v1/sweep', run.request);
				assert.deepEqual(run.answer, answer);
				const c = answer.columns, creep = c.indexOf('creep_velocity');
				assert.equal(c[0], want);
				const release = answer.rows[0][c.indexOf('mujoco')];
				releases.push(release);
				for (const cone of ['pyramidal', 'elliptic']) {
					const ds = sets.find((s) => s.cone === cone && s.release === release);
					assert.ok(ds, cone + ' line of ' + release + ' drawn');
					const rows = answer.rows.filter((r) => r[1] === cone);
					assert.ok(rows.length >= 2);
					assert.deepEqual(ds.data, rows.map((r) => ({x: r[0], y: r[creep]})));
					const single = JSON.parse(JSON.stringify(run.request.base));
					single.option.cone = cone;
					if (want === '/grip_force')
						single.grip_force = rows[1][0];
					else
						single.option.impratio = rows[1][0];
					const one = await api(base2, 'POST', '/v1/hold', single);
					assert.equal(ds.data[1].y, one.creep_velocity, 'the line\'s point is /v1/hold\'s creep');
					assert.equal(rows[1][c.indexOf('holds')], one.holds);
				}
			}
			assert.notEqual(releases[0], releases[1]);
		};
		await checkLines('/grip_force');
		assert.deepEqual((await drawn()).titles, ['grip force (N)', 'creep velocity (m/s)']);
		await assertAccessible(page);
		await shot(page, 'hold');
		/* log y: the same lines on a logarithmic axis, kept in the address */
		await page.check('#tools-log');
		await page.waitForFunction(() => window.contactd.charts.hold.options.scales.y.type === 'logarithmic');
		assert.ok(page.url().includes('logy=1'));
		/* impratio on the horizontal axis */
		await page.selectOption('#axis', 'impratio');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.hold[0].request.vary[0].path === 'impratio' &&
		    window.contactd.charts.hold.options.scales.x.title.text === 'impratio');
		await checkLines('/option/impratio');
		assert.deepEqual((await drawn()).titles, ['impratio', 'creep velocity (m/s)']);
		assert.equal((await drawn()).yType, 'logarithmic');
		/* holds false (it slips past the 1 mm limit or falls, as MuJoCo steps it; below 0.49 N a pad's friction,
		 * 2 mu F, cannot even carry the 0.981 N load): hollow markers there */
		await page.selectOption('#axis', 'grip_force');
		await page.fill('#from', '0.2');
		await page.fill('#to', '2');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.hold[0].request.vary[0].values[0] === 0.2);
		const marks = await page.evaluate(() => {
			const c = window.contactd.charts.hold;
			return c.data.datasets.map((d) => ({fill: d.pointBackgroundColor, color: d.borderColor, cone: d.cdCone,
			    release: d.cdRelease}));
		});
		let hollow = 0;
		for (const run of (await drawn()).runs) {
			const c = run.answer.columns, release = run.answer.rows[0][c.indexOf('mujoco')];
			for (const m of marks.filter((k) => k.release === release)) {
				const rows = run.answer.rows.filter((r) => r[1] === m.cone);
				rows.forEach((r, i) => {
					assert.equal(m.fill[i] === '#fff', r[c.indexOf('holds')] === false, 'marker ' + i + ' of ' + m.cone);
					hollow += m.fill[i] === '#fff';
				});
			}
		}
		assert.ok(hollow >= 4, hollow + ' hollow markers');
		assert.match(await page.textContent('#status'), /do not hold/);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('drop: an energy-gaining drop is flagged; two releases; overlays; the URL restores the form', async () => {
		/* a cube thrown to 7.8 m by an unstable contact (refsafe off, timeconst 0.5 ms) */
		const page = await open(context, base2 + '/drop.html#timeconst=0.0005&refsafe=0');
		await page.waitForFunction(() => window.contactd.answers.drop);
		const {request, answer} = await page.evaluate(() => window.contactd.answers.drop);
		assert.equal(request.option.refsafe, false);
		assert.equal(answer.energy_gain, true);
		assert.ok(answer.max_height > 1, 'the cube rose to ' + answer.max_height + ' m');
		assert.ok(await page.isVisible('#warning'));
		assert.match(await page.textContent('#warning'), /gained energy: it rose to 7\.8\d* m/);
		assert.equal(await page.evaluate(() => document.getElementById('status').className), 'status error');
		assert.equal(await page.evaluate(() => document.getElementById('m-energy_gain').className), 'bad');
		/* the form is in the URL: a reload gives the same request */
		await page.reload();
		await page.waitForFunction(() => window.contactd.answers.drop);
		assert.deepEqual(await page.evaluate(() => window.contactd.answers.drop.request), request);
		/* two releases: both trajectories drawn, each the API's answer for its release */
		const health = await api(base2, 'GET', '/v1/health');
		const other = health.mujoco_supported[0];
		await page.fill('#timeconst', '0.02');
		await page.fill('#dampratio', '0.2');
		await page.check('#refsafe');
		await page.selectOption('#compare', other);
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.dropCompare);
		const cmp = await page.evaluate(() => window.contactd.answers.dropCompare);
		assert.equal(cmp.request.option.mujoco, other);
		const cmpAnswer = await api(base2, 'POST', '/v1/drop', cmp.request);
		assert.equal(cmpAnswer.mujoco, other);
		const sets = await page.evaluate(() => window.contactd.charts.drop.data.datasets.map((d) =>
		    ({label: d.label, data: d.data, compare: !!d.cdCompare})));
		assert.ok(sets[0].label.endsWith('MuJoCo ' + health.mujoco));
		const second = sets.find((d) => d.compare);
		assert.ok(second.label.endsWith('MuJoCo ' + other));
		assert.deepEqual(second.data, cmpAnswer.trajectory.t.map((t, i) => ({x: t, y: cmpAnswer.trajectory.z[i]})));
		const png = await shot(page, 'drop-compare-chart', '#chart');
		const top = await page.evaluate(() => {
			const c = window.contactd.charts.drop, k = c.data.datasets.findIndex((d) => d.cdCompare);
			const pts = c.getDatasetMeta(k).data;
			return pts.map((e) => ({x: e.x, y: e.y}));
		});
		const pink = hex('#CC79A7');
		assert.ok(top.filter((p) => near(png, p.x + 1, p.y + 1, pink, 2, 40)).length > top.length / 4,
		    'the second release\'s line is drawn');
		/* overlays: three drops with overlays kept draw the two earlier ones */
		await page.selectOption('#compare', '');
		await page.check('#overlay');
		for (const h of ['0.2', '0.3']) {
			await page.fill('#height', h);
			await page.click('#run');
			await page.waitForFunction((v) => window.contactd.answers.drop.request.height === v, Number(h));
		}
		assert.equal(await page.evaluate(() => window.contactd.charts.drop.data.datasets.filter((d) => d.cdOverlay).length), 2);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('live: a fit arrives after each upload', async () => {
		const token = JSON.parse(execFileSync(CONTACTD,
		    ['--db', path.join(tmp, 'cache.db'), 'token', 'create', 'so101', '--json'], {encoding: 'utf8'})).token;
		const setup = {object: {shape: 'sphere', size: 0.02, mass: 0.1}, option: {timestep: 0.005}};
		const cal = await api(base2, 'POST', '/v1/robots/so101/calibrations', setup, token);
		const page = await open(context, base2 + '/live.html#calibration=' + cal.id);
		assert.equal(await page.inputValue('#calibration'), String(cal.id));
		await page.fill('#token', token);
		await page.focus('#token');
		await page.keyboard.press('Enter');
		await page.waitForFunction(() => /waiting for uploads/.test(document.getElementById('status').textContent));
		const uploads = [
			{drops: [{height: 0.1, rebound: 0.004}], presses: [{force: 19.81, deflection: 1e-4}]},
			{drops: [{height: 0.05, rebound: 0.002}], presses: [{force: 14.9, deflection: 0.6e-4}]},
		];
		for (let n = 1; n <= uploads.length; n++) {
			await api(base2, 'POST', '/v1/calibrations/' + cal.id + '/measurements', uploads[n - 1], token);
			await page.waitForFunction((k) => window.contactd.charts.fit.data.datasets[0].data.length === k &&
			    window.contactd.charts.drops.data.datasets[0].data.length === k, n);
		}
		const shown = await api(base2, 'GET', '/v1/calibrations/' + cal.id, undefined, token);
		const fit = shown.fit;
		assert.ok(fit.solref, 'the calibration has a fit');
		const conv = await page.evaluate(() => window.contactd.charts.fit.data.datasets.map((d) =>
		    ({data: d.data, intervals: d.intervals})));
		/* each fit at its id, the calibration's newest last */
		assert.deepEqual(conv[0].data[1], {x: shown.fit_id, y: fit.solref[0]});
		assert.deepEqual(conv[1].data[1], {x: shown.fit_id, y: fit.solref[1]});
		/* the API's asymmetric intervals, not +- a standard error; axes not below zero */
		assert.ok(fit.intervals, 'the fit has intervals');
		assert.deepEqual(conv[0].intervals[1], fit.intervals.timeconst['1sigma']);
		assert.deepEqual(conv[1].intervals[1], fit.intervals.dampratio['1sigma']);
		const lows = await page.evaluate(() => ['y', 'y2'].map((k) => window.contactd.charts.fit.scales[k].min));
		assert.ok(lows.every((v) => v >= 0), 'convergence axes start at ' + lows);
		const drawnRange = await page.evaluate(() => {
			const c = window.contactd.charts.drops;
			return [c.scales.x.min, c.scales.x.max, c.scales.y.min];
		});
		assert.ok(drawnRange[0] === 0 && drawnRange[1] <= 0.1 * 1.25 && drawnRange[2] === 0,
		    'drops axes: ' + drawnRange);
		assert.ok(await page.evaluate(() => window.contactd.events.length) >= 2, 'two fit events');
		/* a daemon with the watch endpoint is watched by an EventSource (no headers) */
		const doc = await api(base2, 'GET', '/v1/openapi.json');
		const watchable = Object.keys(doc.paths).some((p) => /\/watch$/.test(p));
		assert.equal(await page.evaluate(() => window.contactd.stream), watchable ? 'eventsource' : 'fetch');
		const drops = await page.evaluate(() => window.contactd.charts.drops.data.datasets.map((d) => d.data));
		assert.deepEqual(drops[0], shown.measurements.drops.map((d) => ({x: d.height, y: d.rebound})));
		assert.deepEqual(drops[1].map((p) => p.y), fit.residuals.drops.map((r) => r.model));
		const res = await page.evaluate(() => window.contactd.charts.residuals.data.datasets[0].data);
		assert.deepEqual(res.map((p) => p.y), fit.residuals.drops.map((r, i) =>
		    r.residual / (shown.measurements.drops[i].sigma || fit.noise_scale.rebound)));
		/* a misfit has none, and says why */
		assert.ok(fit.mjcf ? await page.textContent('#mjcf') === fit.mjcf : /^No MJCF: /.test(await page.textContent('#mjcf')));
		/* the fit's hold of the reference object, as the API answers it (none for a misfit) */
		if (fit.status === 'misfit')
			assert.equal(await page.$('#fit-hold'), null);
		else
			assert.equal(await page.textContent('#fit-hold'), fit.hold.error ? 'none: ' + fit.hold.error.message :
			    'creeps ' + await page.evaluate((v) => CD.fmt(v, 4), fit.hold.creep_velocity) +
			    (fit.hold.holds ? ' (holds)' : ' (slips)'));
		/* exports: the calibration as the API answers it; the fits with their intervals */
		assert.deepEqual(JSON.parse(String(await download(page, '#tools-json'))), shown);
		const fits = parseCsv(String(await download(page, '#tools-csv')));
		assert.deepEqual(fits[2].slice(2, 5), [fit.solref[0], ...fit.intervals.timeconst['1sigma']]);
		assert.ok((await page.textContent('#fit-timeconst')).includes('68 %: '));
		await assertAccessible(page);
		const png = await shot(page, 'live-chart', '#chart-fit');
		const pts = await page.evaluate(() => window.contactd.charts.fit.getDatasetMeta(0).data.map((e) => ({x: e.x, y: e.y})));
		for (const p of pts)
			assert.ok(near(png, p.x + 1, p.y + 1, hex('#0072B2'), 3, 40), 'fit point ' + JSON.stringify(p));
		await shot(page, 'live');
		/* a revoked token ends the stream: the server's closing event is said on the page */
		execFileSync(CONTACTD, ['--db', path.join(tmp, 'cache.db'), 'token', 'revoke', token.split('.')[0]],
		    {encoding: 'utf8'});
		await page.waitForFunction(() => /the token was revoked/.test(document.getElementById('status').textContent));
		assert.equal(await page.evaluate(() => document.getElementById('status').className), 'status error');
		assert.deepEqual(page.consoleErrors.filter((e) => !/401/.test(e)), []);
		await page.close();
	});

	await check('live: a misfit is warned of; empty and bad calibration ids get a message', async () => {
		const token = tokenOf(execFileSync(CONTACTD, ['--db', path.join(tmp, 'cache.db'), 'token', 'create', 'so102'],
		    {encoding: 'utf8'}));
		const page = await open(context, base2 + '/live.html');
		for (const [id, message] of [['', /Enter a calibration id/], ['abc', /whole number/], ['0', /whole number/]]) {
			await page.fill('#calibration', id);
			await page.fill('#token', token);
			await page.click('#watch');
			await page.waitForFunction((m) => new RegExp(m).test(document.getElementById('status').textContent), message.source);
			assert.equal(await page.evaluate(() => document.getElementById('status').className), 'status error');
		}
		assert.deepEqual(page.consoleErrors, []);
		/* a calibration that does not exist: the daemon's 404, said in the status line */
		await page.fill('#calibration', '987654');
		await page.click('#watch');
		await page.waitForFunction(() => document.getElementById('status').className === 'status error');
		assert.ok(page.consoleErrors.every((e) => /404/.test(e)), page.consoleErrors.join('; '));
		page.consoleErrors.length = 0;
		/* drops that scatter 30 times their sigma: the fit is a misfit, shown loudly */
		const setup = {object: {shape: 'sphere', size: 0.02, mass: 0.1}, option: {timestep: 0.005}};
		const cal = await api(base2, 'POST', '/v1/robots/so102/calibrations', setup, token);
		await api(base2, 'POST', '/v1/calibrations/' + cal.id + '/measurements', {drops: [
			{height: 0.1, rebound: 0.004, sigma: 1e-4}, {height: 0.1, rebound: 0.03, sigma: 1e-4},
			{height: 0.05, rebound: 0.001, sigma: 1e-4}, {height: 0.05, rebound: 0.02, sigma: 1e-4},
			{height: 0.2, rebound: 0.002, sigma: 1e-4}],
		    presses: [{force: 19.81, deflection: 1e-4}, {force: 14.9, deflection: 3e-4}]}, token);
		let shown;
		for (let i = 0; i < 600; i++) {
			shown = await api(base2, 'GET', '/v1/calibrations/' + cal.id, undefined, token);
			if (shown.fit && shown.fit.state === 'done')
				break;
			await new Promise((r) => setTimeout(r, 100));
		}
		assert.equal(shown.fit.status, 'misfit');
		await page.fill('#calibration', String(cal.id));
		await page.click('#watch');
		await page.waitForFunction(() => window.contactd.charts.fit.data.datasets[0].data.length === 1);
		assert.ok(await page.isVisible('#fit-warning'));
		assert.match(await page.textContent('#fit-warning'), /^Misfit: /);
		assert.equal(await page.getAttribute('#fit-warning', 'role'), 'alert');
		assert.equal(shown.fit.hold, undefined);
		assert.equal(await page.$('#fit-hold'), null);
		/* its intervals, asymmetric about the fit */
		const iv = await page.evaluate(() => window.contactd.charts.fit.data.datasets[0].intervals[0]);
		assert.deepEqual(iv, shown.fit.intervals.timeconst['1sigma']);
		assert.notEqual(Math.round((iv[1] - shown.fit.solref[0]) * 1e9), Math.round((shown.fit.solref[0] - iv[0]) * 1e9));
		assert.match(page.url(), new RegExp('#calibration=' + cal.id + '$'));
		await shot(page, 'live-misfit');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('api: every operation of openapi.json rendered', async () => {
		const page = await open(context, base2 + '/api.html');
		const doc = await api(base2, 'GET', '/v1/openapi.json');
		await page.waitForFunction(() => window.contactd.answers.openapi);
		let ops = 0;
		for (const item of Object.values(doc.paths))
			ops += Object.keys(item).filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m)).length;
		assert.equal(await page.locator('details.api-op').count(), ops);
		assert.equal(await page.locator('details[id^="schema-"]').count(),
		    Object.keys(doc.components.schemas).length);
		assert.ok(await page.locator('#op-drop').isVisible());
		/* collapsed: the reference is a list of entries, not tens of thousands of pixels */
		const height = await page.evaluate(() => document.documentElement.scrollHeight);
		assert.ok(height < 8000, 'the collapsed reference is ' + height + ' px tall');
		await shot(page, 'api', null, true);
		/* a search shows and opens only what matches */
		await page.fill('#api-search', 'rebound');
		const shown = await page.evaluate(() => [...document.querySelectorAll('details.api-op, details.api-schema-box')]
		    .filter((d) => !d.hidden).map((d) => ({id: d.id, open: d.open})));
		assert.ok(shown.length > 0 && shown.length < 20, shown.length + ' entries match "rebound"');
		assert.ok(shown.every((d) => d.open));
		assert.ok(shown.some((d) => d.id === 'schema-DropAnswer'));
		/* the search is in the address: a reload shows the same entries */
		assert.match(page.url(), /\?q=rebound/);
		await page.reload();
		await page.waitForFunction(() => window.contactd.answers.openapi);
		assert.equal(await page.inputValue('#api-search'), 'rebound');
		assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('details.api-op, details.api-schema-box')]
		    .filter((d) => !d.hidden).map((d) => ({id: d.id, open: d.open}))), shown);
		await page.fill('#api-search', '');
		assert.doesNotMatch(page.url(), /\?q=/);
		/* a link to a schema opens it */
		await page.click('#api-expand');
		await page.click('#api-collapse');
		await page.evaluate(() => { location.hash = '#schema-SweepRequest'; });
		await page.waitForFunction(() => document.getElementById('schema-SweepRequest').open);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('cors: a page on a named origin reads the API; another origin is refused', async () => {
		const page = await open(context, named + '/');
		const ok = await page.evaluate(() => window.result);
		assert.equal(ok.ok, true, JSON.stringify(ok));
		assert.deepEqual(ok.value, await api(base2, 'POST', '/v1/drop', {duration: 0.5}));
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
		const refused = await open(context, stranger + '/');
		const no = await refused.evaluate(() => window.result);
		assert.equal(no.ok, false, 'a page on an origin not named must not read the answer');
		assert.ok(refused.consoleErrors.some((e) => /CORS|Access-Control-Allow-Origin/.test(e)),
		    'the browser says CORS refused it: ' + refused.consoleErrors.join('; '));
		await refused.close();
	});

	await checkSweepCellSameDrop(context, base2);
	await checkSweepScaleAndContour(context, base2);
	await checkSweepExports(context, base2);
	await checkSweepForm(context, base2);
	await checkQuestionPresets(context, base2);
	await checkLiveMidCalibration(context, base2);
	await modelChecks({check, open, api, shot, assertAccessible}, context, base2);
	await holdChecks({check, open, api, shot, assertAccessible, downloadNamed}, context, base2);
	const robotToken = (robot) => JSON.parse(execFileSync(CONTACTD,
	    ['--db', path.join(tmp, 'cache.db'), 'token', 'create', robot, '--json'], {encoding: 'utf8'})).token;
	await liveChecks({check, open, api, assertAccessible, robotToken}, context, base2);
	await context.close();
}

main().catch((e) => {
	failures++;
	console.log('FAIL: ' + (e && e.stack ? e.stack : e));
}).finally(() => {
	for (const c of children)
		if (c.exitCode === null)
			c.kill('SIGTERM');
	for (const s of servers)
		s.close();
	fs.rmSync(tmp, {recursive: true, force: true});
	console.log('browser: ' + passes + ' passed, ' + failures + ' failed');
	process.exitCode = failures ? 1 : 0;
});
