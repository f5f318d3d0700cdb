/*
 * live.js: the live calibration page (run.js calls it). Each measurement has its own x
 * on the residual chart, named "drop 1", "press 1", ...; a misfit's MJCF box says why
 * there is none, and no note beside it says to paste one.
 */
'use strict';

const assert = require('assert/strict');

async function liveChecks({check, open, api, assertAccessible, robotToken}, context, base) {
	const tokens = {};
	const setup = {object: {shape: 'sphere', size: 0.02, mass: 0.1}, option: {timestep: 0.005}};
	/* A calibration of robot with these uploads, each fitted before the next; its last
	 * state as GET answers it. */
	const calibrated = async (robot, uploads) => {
		const token = tokens[robot] = tokens[robot] || robotToken(robot);
		const cal = await api(base, 'POST', '/v1/robots/' + robot + '/calibrations', setup, token);
		let shown = null;
		for (const u of uploads) {
			const up = await api(base, 'POST', '/v1/calibrations/' + cal.id + '/measurements?wait=60', u, token);
			assert.equal(up.fit.state, 'done', 'the fit of the upload is done');
			shown = await api(base, 'GET', '/v1/calibrations/' + cal.id, undefined, token);
		}
		return {token, cal, shown};
	};
	const watch = async (id, token) => {
		const page = await open(context, base + '/live.html#calibration=' + id, 1400);
		await page.fill('#token', token);
		await page.click('#watch');
		await page.waitForFunction(() => window.contactd.answers.calibration &&
		    window.contactd.charts.residuals && window.contactd.charts.fit.data.datasets[0].data.length >= 1);
		return page;
	};

	await check('live: opened after three fits, the convergence shows the whole history from the API', async () => {
		const {token, cal, shown} = await calibrated('so106', [
			{drops: [{height: 0.1, rebound: 0.004}], presses: [{force: 19.81, deflection: 1e-4}]},
			{drops: [{height: 0.05, rebound: 0.002}], presses: [{force: 14.9, deflection: 0.6e-4}]},
			{drops: [{height: 0.2, rebound: 0.009}], presses: [{force: 12, deflection: 0.25e-4}]}]);
		const {fits} = await api(base, 'GET', '/v1/calibrations/' + cal.id + '/fits', undefined, token);
		assert.equal(fits.length, 3, 'a done fit per waited upload');
		assert.deepEqual(fits[2], shown.fit, 'the newest listed is the calibration\'s fit');
		const page = await watch(cal.id, token);
		await page.waitForFunction(() => window.contactd.charts.fit.data.datasets[0].data.length === 3);
		const drawn = await page.evaluate(() => window.contactd.charts.fit.data.datasets.map((d) =>
		    ({data: d.data, intervals: d.intervals})));
		assert.deepEqual(drawn[0].data, fits.map((f) => ({x: f.id, y: f.solref[0]})));
		assert.deepEqual(drawn[1].data, fits.map((f) => ({x: f.id, y: f.solref[1]})));
		assert.deepEqual(drawn[0].intervals, fits.map((f) => f.intervals.timeconst['1sigma']));
		/* the axis spans them all */
		const [lo, hi] = await page.evaluate(() => ['min', 'max'].map((k) => window.contactd.charts.fit.scales.x[k]));
		assert.ok(lo <= fits[0].id && hi >= fits[2].id, 'x axis ' + lo + '..' + hi);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('live: every measurement at its own x on the residual chart, named drop 1, press 1', async () => {
		const {token, cal, shown} = await calibrated('so104', [
			{drops: [{height: 0.1, rebound: 0.004}, {height: 0.05, rebound: 0.002}],
			    presses: [{force: 19.81, deflection: 1e-4}, {force: 14.9, deflection: 0.6e-4}]}]);
		const page = await watch(cal.id, token);
		const fit = shown.fit;
		const sets = await page.evaluate(() => window.contactd.charts.residuals.data.datasets.map((d) => ({label: d.label, data: d.data})));
		const drops = sets.find((s) => s.label === 'drops').data, presses = sets.find((s) => s.label === 'presses').data;
		assert.equal(drops.length, fit.residuals.drops.length);
		assert.equal(presses.length, fit.residuals.presses.length);
		const xs = drops.concat(presses).map((p) => p.x);
		assert.equal(new Set(xs).size, xs.length, 'each measurement at its own x: ' + xs);
		/* each point sits at the tick named for it */
		const ticks = await page.evaluate(() => {
			const s = window.contactd.charts.residuals.scales.x;
			return s.ticks.map((t) => ({value: t.value, label: String(t.label)}));
		});
		const name = (x) => (ticks.find((t) => t.value === x) || {}).label;
		drops.forEach((p, i) => assert.equal(name(p.x), 'drop ' + (i + 1)));
		presses.forEach((p, i) => assert.equal(name(p.x), 'press ' + (i + 1)));
		/* and inside the chart's x range, apart by at least 20 px */
		const px = await page.evaluate(() => window.contactd.charts.residuals.data.datasets.map((d, k) =>
		    window.contactd.charts.residuals.getDatasetMeta(k).data.map((e) => e.x)));
		const all = [].concat(...px).sort((a, b) => a - b);
		for (let i = 1; i < all.length; i++)
			assert.ok(all[i] - all[i - 1] >= 20, 'points ' + (all[i] - all[i - 1]) + ' px apart');
		await assertAccessible(page);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('live: a misfit\'s MJCF box says why there is none; no note says to paste one', async () => {
		/* a stiff pad, timeconst below 2 timesteps (refsafe would replace it: an ok fit's notes
		 * would say to paste solref_direct, a misfit's must not, since it gives none): its presses as the daemon models them, exactly, and its
		 * drops scattered by up to half their model rebound, far beyond their sigma */
		const stiff = [0.7 * 2 * setup.option.timestep, 1];
		const probe = await calibrated('so105', [{presses: [{force: 19.81, deflection: 1e-4}, {force: 14.9, deflection: 1e-4}],
		    drops: [{height: 0.1, rebound: 0.004}, {height: 0.05, rebound: 0.002}]}]);
		const model = await api(base, 'POST', '/v1/calibrations/' + probe.cal.id + '/evaluate', {solref: stiff}, probe.token);
		const scatter = [0.65, 0.97, 0.5, 1.5];
		const {token, cal, shown} = await calibrated('so105', [{
		    presses: model.presses.map((p) => ({force: p.force, deflection: p.model, sigma: 1e-7})),
		    drops: [0, 0, 1, 1].map((k, i) => ({height: model.drops[k].height, rebound: model.drops[k].model * scatter[i],
		        sigma: 1e-4}))}]);
		const fit = shown.fit;
		assert.equal(fit.status, 'misfit');
		assert.ok(!fit.mjcf, 'a misfit has no MJCF');
		assert.equal(fit.refsafe.would_replace, true, 'the fitted pad is below refsafe: ' + JSON.stringify(fit.solref));
		assert.ok((fit.notes || []).every((n) => !/\bpaste\b/.test(n)), 'the API\'s notes say paste: ' + JSON.stringify(fit.notes));
		const page = await watch(cal.id, token);
		const box = await page.textContent('#mjcf');
		assert.match(box, /^No MJCF: a misfit gives none/);
		const notes = await page.evaluate(() => [...document.querySelectorAll('#notes li')].map((li) => li.textContent));
		assert.ok(notes.every((n) => !/\bpaste\b/.test(n)), 'no note says paste: ' + JSON.stringify(notes));
		/* every note of the API's, as the API says it */
		assert.deepEqual(notes, fit.notes);
		assert.equal(await page.isDisabled('#copy'), true);
		await assertAccessible(page);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
}

module.exports = {liveChecks};
