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

const CONTACTD = process.env.CONTACTD;
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

/* ---- the page checks ---- */

let failures = 0, passes = 0;

async function check(name, fn) {
	try {
		await fn();
		passes++;
		console.log('PASS: ' + name);
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

	await check('sweep: the stability heat map holds the API\'s answer and draws it', async () => {
		const page = await open(context, base2 + '/sweep.html');
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep);
		const {request} = await page.evaluate(() => window.contactd.answers.sweep);
		const answer = await api(base2, 'POST', '/v1/sweep', request);
		assert.equal(request.query, 'stability');
		assert.deepEqual(request.vary.map((v) => v.path), ['/solref/0', '/solref/1']);
		const cols = answer.columns, gi = cols.indexOf('guard_gap'), mi = cols.indexOf('growth');
		const held = await page.evaluate(() => window.contactd.charts.sweep.data.datasets.map((d) =>
		    ({label: d.label, heatmap: !!d.heatmap, data: d.data, min: d.min, max: d.max})));
		assert.equal(held[0].heatmap, true);
		assert.deepEqual(held[0].data, answer.rows.map((r) => ({x: r[0], y: r[1], v: r[mi], mark: r[gi]})));
		const growth = answer.rows.map((r) => r[mi]);
		assert.equal(held[0].min, Math.min(...growth));
		assert.equal(held[0].max, Math.max(...growth));
		/* the guard gap is where the answer says: refsafe on and still unstable */
		assert.ok(answer.rows.some((r) => r[gi] === true), 'this map should cross the guard gap');
		/* the clamp: timeconst = 2 * timestep (the preset's timestep is 2 ms) */
		assert.ok(held[1].label.startsWith('refsafe clamp'));
		assert.ok(held[1].data.every((p) => p.x === 0.004));
		await assertAccessible(page);
		/* pixels: the least and the greatest growth are painted in the ramp's two ends */
		const png = await shot(page, 'sweep-chart', '#chart');
		const probe = await page.evaluate(([mi]) => {
			const c = window.contactd.charts.sweep, ds = c.data.datasets[0], box = c.canvas.getBoundingClientRect();
			const at = (v) => ds.data.find((p) => p.v === v);
			const px = (p) => ({x: c.scales.x.getPixelForValue(p.x), y: c.scales.y.getPixelForValue(p.y)});
			return {lo: px(at(ds.min)), hi: px(at(ds.max)), lowColor: CD.ramp(0), highColor: CD.ramp(1),
			    ratio: box.width / c.canvas.width};
		}, [mi]);
		const pad = 1; /* the element screenshot starts at the canvas' border box */
		for (const [p, color] of [[probe.lo, probe.lowColor], [probe.hi, probe.highColor]])
			assert.ok(near(png, p.x + pad, p.y + pad, rgb(color), 2, 6),
			    'pixel at ' + JSON.stringify(p) + ' is ' + png.pixel(p.x, p.y) + ', not ' + color);
		await shot(page, 'sweep');
		assert.deepEqual(page.consoleErrors, []);

		/* lines: one field, from the keyboard (focus the preset, press Enter) */
		await page.focus('#preset-rebound');
		await page.keyboard.press('Enter');
		await page.waitForFunction(() => window.contactd.answers.sweep.request.query === 'drop' &&
		    window.contactd.charts.sweep.data.datasets[0].showLine);
		const line = await page.evaluate(() => window.contactd.answers.sweep.request);
		const lineAnswer = await api(base2, 'POST', '/v1/sweep', line);
		const ri = lineAnswer.columns.indexOf('rebound');
		const lineData = await page.evaluate(() => window.contactd.charts.sweep.data.datasets[0].data);
		assert.deepEqual(lineData, lineAnswer.rows.map((r) => ({x: r[0], y: r[ri]})));
		const lpng = await shot(page, 'sweep-line-chart', '#chart');
		const pts = await page.evaluate(() => {
			const c = window.contactd.charts.sweep;
			return c.getDatasetMeta(0).data.map((e) => ({x: e.x, y: e.y}));
		});
		const blue = hex('#0072B2');
		const hits = pts.filter((p) => near(lpng, p.x + 1, p.y + 1, blue, 3, 40)).length;
		assert.ok(hits >= pts.length - 1, hits + ' of ' + pts.length + ' points drawn in the line colour');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('every page: readable at phone width, no console error', async () => {
		for (const [name, ready] of [['sweep', 'window.contactd.charts.sweep'],
		    ['drop', 'window.contactd.charts.drop'], ['live', 'window.contactd.charts.fit'],
		    ['api', 'window.contactd.answers.openapi'], ['index', 'window.contactd.answers.health']]) {
			const page = await open(context, base2 + '/' + (name === 'index' ? '' : name + '.html'), 390);
			/* a function, not the string: a string predicate is evaluated with eval(),
			 * which the pages' Content-Security-Policy refuses once the first poll fails */
			await page.waitForFunction((path) => path.split('.').reduce((o, k) => o && o[k], window), ready);
			const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
			assert.ok(overflow <= 0, name + ': the page is ' + overflow + ' px wider than the phone');
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
		await shot(page, 'drop');
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
			{drops: [{height: 0.1, rebound: 0.004}], presses: [{force: 9.81, deflection: 1e-4}]},
			{drops: [{height: 0.05, rebound: 0.002}], presses: [{force: 4.9, deflection: 0.6e-4}]},
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
		    ({data: d.data, errors: d.errors})));
		assert.deepEqual(conv[0].data[1], {x: 2, y: fit.solref[0]});
		assert.deepEqual(conv[1].data[1], {x: 2, y: fit.solref[1]});
		assert.equal(conv[0].errors[1], fit.stderr.timeconst);
		assert.equal(conv[1].errors[1], fit.stderr.dampratio);
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
		assert.equal(await page.textContent('#mjcf'), fit.mjcf);
		assert.ok((await page.textContent('#fit-timeconst')).includes('±'));
		await assertAccessible(page);
		const png = await shot(page, 'live-chart', '#chart-fit');
		const pts = await page.evaluate(() => window.contactd.charts.fit.getDatasetMeta(0).data.map((e) => ({x: e.x, y: e.y})));
		for (const p of pts)
			assert.ok(near(png, p.x + 1, p.y + 1, hex('#0072B2'), 3, 40), 'fit point ' + JSON.stringify(p));
		await shot(page, 'live');
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
		assert.equal(await page.locator('section.api-op').count(), ops);
		assert.equal(await page.locator('section[id^="schema-"]').count(),
		    Object.keys(doc.components.schemas).length);
		assert.ok(await page.locator('#op-drop').isVisible());
		await shot(page, 'api', null, true);
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
