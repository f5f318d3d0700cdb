/*
 * hold.js: the dashboard's Hold page against POST /v1/hold (run.js calls it). At the
 * page's defaults, untouched, and with the SO-101 preset, every point the page shows
 * (its verdict, creep and time_to_slip, in the table and the tooltip) is what /v1/hold
 * answers for that point's request; the page's duration is the API's own default (a
 * request without one answers the same); the release is /v1/health's default with no
 * comparison; the legend names the hollow markers; the exports give a unit for every
 * numeric column, the unit the OpenAPI document's description of that field states.
 */
'use strict';

const assert = require('assert/strict');

/* The unit a field's OpenAPI description states: its first "(unit)" ("How far (m) the
 * object has descended", "m*g (N)"); '' when it states none (a count, a ratio). */
function statedUnit(description) {
	for (const m of String(description || '').matchAll(/\(([^()]{1,6})\)/g))
		if (/^(m|s|N|kg|m\/s|m\/s²|1\/s|1\/s²)$/.test(m[1]))
			return m[1];
	return '';
}

/* The schema a field's pointer names under the schema root ($refs followed). */
const deref = (doc, s) => (s && s.$ref ? deref(doc, doc.components.schemas[s.$ref.split('/').pop()]) : s);
const schemaAt = (doc, root, pointer) => pointer.split('/').slice(1).reduce((s, key) =>
    deref(doc, s && s.properties ? s.properties[key] : undefined), deref(doc, doc.components.schemas[root]));

/* The single /v1/hold request of a sweep row: the base with the row's values at the
 * varied fields (the answer's first columns name them as JSON Pointers, an alias
 * resolved). */
function rowRequest(run, row) {
	const req = JSON.parse(JSON.stringify(run.request.base));
	run.request.vary.forEach((v, k) => {
		const keys = run.answer.columns[k].split('/').slice(1);
		let o = req;
		for (const key of keys.slice(0, -1))
			o = o[key] = o[key] || {};
		o[keys[keys.length - 1]] = row[k];
	});
	return req;
}

async function holdChecks({check, open, api, shot, assertAccessible, downloadNamed}, context, base) {
	/* Every point the page shows, row by row of its table and point by point of its
	 * chart's tooltips, against /v1/hold of the point's own request. Returns the
	 * answers, in the table's order. */
	const samePoints = async (page) => {
		const runs = await page.evaluate(() => window.contactd.answers.hold);
		const shown = await page.evaluate(() => [...document.querySelectorAll('#points-table tbody tr')].map((tr) => ({
			release: tr.dataset.release, cone: tr.dataset.cone, index: Number(tr.dataset.index),
			verdict: tr.querySelector('.verdict').textContent, creep: tr.querySelector('.creep').textContent,
			slipTime: tr.querySelector('.time-to-slip').textContent})));
		const rows = [].concat(...runs.map((r) => r.answer.rows));
		assert.equal(shown.length, rows.length, 'a table row per point');
		const answers = [];
		for (const run of runs) {
			const c = run.answer.columns, release = run.answer.rows[0][c.indexOf('mujoco')];
			for (const cone of ['pyramidal', 'elliptic']) {
				const mine = run.answer.rows.filter((r) => r[1] === cone);
				for (let i = 0; i < mine.length; i++) {
					const req = rowRequest(run, mine[i]);
					const one = await api(base, 'POST', '/v1/hold', req);
					answers.push(one);
					const row = shown.find((s) => s.release === release && s.cone === cone && s.index === i);
					assert.ok(row, 'the table has ' + cone + ' point ' + i + ' of ' + release);
					const at = cone + ' point ' + i + ' of ' + release + ' (' + JSON.stringify(req) + ')';
					const fmt = (v) => page.evaluate((x) => CD.fmt(x), v);
					assert.equal(row.creep, await fmt(one.creep_velocity), 'creep of ' + at);
					if (one.holds === true)
						assert.equal(row.verdict, 'holds', at);
					else if (one.holds === false && one.falls)
						assert.equal(row.verdict, 'falls at ' + await fmt(one.fall_time) + ' s', at);
					else if (one.holds === false)
						assert.equal(row.verdict, 'slips: past the slip limit at ' + await fmt(one.time_to_slip) + ' s', at);
					else
						assert.match(row.verdict, /^not reproducible/, at);
					if (one.time_to_slip === null)
						assert.match(row.slipTime, /^(never|— )/, at);
					else
						assert.equal(row.slipTime, await fmt(one.time_to_slip) + ' s' + (one.time_to_slip_extrapolated ?
						    ' (extrapolated beyond the ' + await fmt(req.duration) + ' s run)' : ''), at);
					/* the tooltip says the same */
					const tip = await page.evaluate(([rel, cn, k]) => {
						const ch = window.contactd.charts.hold;
						const ds = ch.data.datasets.find((d) => d.cdCone === cn && d.cdRelease === rel);
						return ch.options.plugins.tooltip.callbacks.label({dataset: ds, dataIndex: k, raw: ds.data[k]});
					}, [release, cone, i]);
					assert.ok(tip.includes('; ' + row.verdict + '; time to slip ' + row.slipTime), tip);
				}
			}
		}
		return answers;
	};

	await check('hold: at the page\'s defaults each point says what POST /v1/hold says (verdict, creep, time_to_slip), the SO-101 preset too; the API\'s duration and release; a legend for hollow markers; units in exports', async () => {
		const page = await open(context, base + '/hold.html', 1400);
		await page.waitForFunction(() => window.contactd.answers.hold && window.contactd.charts.hold);
		const runs = await page.evaluate(() => window.contactd.answers.hold);
		const health = await api(base, 'GET', '/v1/health');
		/* the release: the API's default, no comparison unless asked */
		assert.equal(await page.inputValue('#mujoco'), health.mujoco);
		assert.equal(await page.inputValue('#compare'), '');
		assert.equal(runs.length, 1, 'one release drawn by default');
		assert.equal(runs[0].request.base.option.mujoco, health.mujoco);
		/* the duration is the API's: the request without it answers the same */
		const doc = await api(base, 'GET', '/v1/openapi.json');
		assert.equal(runs[0].request.base.duration, schemaAt(doc, 'HoldRequest', '/duration').default);
		const probe = rowRequest(runs[0], runs[0].answer.rows[0]);
		const bare = JSON.parse(JSON.stringify(probe));
		delete bare.duration;
		assert.deepEqual(await api(base, 'POST', '/v1/hold', bare), await api(base, 'POST', '/v1/hold', probe));
		await samePoints(page);
		/* the legend's key to the hollow markers */
		const legend = await page.evaluate(() => window.contactd.charts.hold.legend.legendItems.map((l) =>
		    ({text: l.text, fill: l.fillStyle, canvas: l.pointStyle instanceof HTMLCanvasElement})));
		const key = legend.find((l) => /^hollow marker: does not hold/.test(l.text));
		assert.ok(key, 'a legend entry for the hollow markers: ' + JSON.stringify(legend));
		assert.equal(key.fill, '#fff');
		assert.ok(key.canvas, 'the key is the marker, drawn');
		const svg = String((await downloadNamed(page, '#tools-svg')).bytes);
		assert.match(svg, /<circle class="legend-swatch"[^>]* fill="#fff"/);
		assert.ok(svg.includes('>hollow marker: does not hold'), 'the SVG\'s legend has the key');
		/* exports: a unit for every numeric column, the one the API's description states */
		const cols = runs[0].answer.columns;
		const numeric = cols.filter((c, k) => runs[0].answer.rows.some((r) => typeof r[k] === 'number'));
		assert.ok(numeric.includes('time_to_slip') && numeric.includes('creep_velocity'), String(numeric));
		const exp = JSON.parse(String((await downloadNamed(page, '#tools-export')).bytes));
		const csvHead = String((await downloadNamed(page, '#tools-csv')).bytes).split('\n')
		    .find((l) => l.startsWith('# units: '));
		assert.ok(csvHead, 'the CSV states its units');
		for (const c of numeric) {
			const field = c.startsWith('/') ? schemaAt(doc, 'HoldRequest', c) : doc.components.schemas.HoldAnswer.properties[c];
			assert.ok(field, 'the API describes ' + c);
			assert.equal(exp.units[c], statedUnit(field.description), 'the unit of ' + c + ' (' + field.description + ')');
			assert.ok(csvHead.includes(c + ' ' + (exp.units[c] || '1') + ';') || csvHead.endsWith(c + ' ' + (exp.units[c] || '1')),
			    c + ' in ' + csvHead);
		}
		await assertAccessible(page);
		/* the SO-101 preset: every point is /v1/hold's, and the status counts its slips */
		await page.click('#preset-so101');
		await page.waitForFunction(() => window.contactd.answers.hold[0].request.base.pad.condim === 6 &&
		    document.querySelectorAll('#points-table tbody tr').length > 0);
		const so101 = await page.evaluate(() => window.contactd.answers.hold);
		assert.equal(so101[0].request.base.duration, schemaAt(doc, 'HoldRequest', '/duration').default);
		const answers = await samePoints(page);
		const slipping = answers.filter((a) => a.holds === false).length;
		const status = await page.textContent('#status');
		assert.ok(slipping ? status.includes(slipping + ' do not hold') : status.includes('every point holds'), status);
		await shot(page, 'hold-so101');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
}

module.exports = {holdChecks};
