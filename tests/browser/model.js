/*
 * model.js: the dashboard's Model page in the real browser (run.js calls it): upload
 * Menagerie's SO-101 scene and the file it includes, see every pair of the API's answer
 * in the table; paste a file whose pairs warn, see the warnings with their fixes; open a
 * pair as a drop, a rest and a stability question and find its parameters filled in,
 * the opened page's answer the API's to that request; paste MuJoCo #3328's grasp and open it
 * on the Hold page as the hold question with the model's values.
 */
'use strict';

const assert = require('assert/strict');
const fs = require('fs');
const path = require('path');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'mjcf');

/* a plane, a sphere of solref 0.003 (below 2h = 0.004: refsafe replaces it) with priority,
 * so its pair warns timeconst_below_2h */
const warned = '<mujoco><option timestep="0.002"/><worldbody>\n' +
    '<geom name="floor" type="plane" size="0 0 1"/>\n' +
    '<body name="ball" pos="0 0 0.05"><freejoint/><geom name="ball" size="0.05" mass="1" solref="0.003 1" priority="1"/></body>\n' +
    '</worldbody></mujoco>\n';

async function modelChecks({check, open, api, shot, assertAccessible}, context, base) {
	await check('model: uploaded SO-101 scene: every pair of the API\'s answer in the table; a pair opens as a drop with its parameters', async () => {
		const page = await open(context, base + '/model.html');
		await page.waitForFunction(() => window.contactd.answers.modelReady);
		await page.setInputFiles('#files', ['so101-scene_box-implicitfast.xml', 'so101-implicitfast.xml']
		    .map((f) => path.join(FIXTURES, f)));
		await page.waitForFunction(() => !document.getElementById('main-file').disabled);
		assert.equal(await page.inputValue('#main-file'), 'so101-scene_box-implicitfast.xml',
		    'the main file is the one the other does not include');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.model);
		const {request, answer: shown} = await page.evaluate(() => window.contactd.answers.model);
		assert.equal(request.mujoco, '3.14.0');
		const answer = await api(base, 'POST', '/v1/model', request);
		assert.deepEqual(shown, answer);
		assert.equal(answer.pairs.length, 193);
		assert.equal(await page.locator('#pairs tbody tr').count(), 193);
		const status = await page.textContent('#status');
		assert.ok(status.includes('29 geoms, 193 pairs') && status.includes('MuJoCo 3.14.0'), status);
		/* the box on the floor: geoms floor (0) and box (28), the body's rest in the table */
		const i = answer.pairs.findIndex((p) => p.geom1 === 0 && p.geom2 === 28);
		assert.ok(i >= 0, 'the box-floor pair');
		const row = page.locator('#pairs tbody tr[data-pair="' + i + '"]');
		assert.ok((await row.textContent()).includes('box (box)'));
		assert.ok((await page.textContent('#bodies')).includes('pair ' + i));
		await assertAccessible(page);
		await shot(page, 'model');
		assert.deepEqual(page.consoleErrors, []);
		await Promise.all([page.waitForURL(/drop\.html/), row.locator('a.open-drop').click()]);
		await page.waitForFunction(() => window.contactd.answers.drop && window.contactd.charts.drop);
		const drop = await page.evaluate(() => window.contactd.answers.drop);
		const p = answer.pairs[i];
		const rest = answer.bodies.find((b) => b.name === 'box').rest;
		assert.deepEqual(drop.request.geom.solref, p.solref);
		assert.deepEqual(drop.request.geom.solref, [0.015, 1]);
		assert.equal(drop.request.geom.condim, 3);
		assert.deepEqual(drop.request.geom.friction, [1, 0.03, 0.003]);
		assert.deepEqual(drop.request.body, {shape: 'box', size: [0.02, 0.02, 0.03], mass: 0.096});
		assert.equal(drop.request.height, rest.drop);
		assert.equal(drop.request.option.mujoco, '3.14.0');
		assert.equal(drop.request.option.timestep, 0.005);
		assert.equal(drop.request.option.cone, 'elliptic');
		assert.deepEqual(drop.answer, await api(base, 'POST', '/v1/drop', drop.request));
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('model: a pasted file\'s warnings with their fixes; a pair opens as a rest and a stability question', async () => {
		const page = await open(context, base + '/model.html');
		await page.waitForFunction(() => window.contactd.answers.modelReady);
		await page.fill('#xml', warned);
		await page.selectOption('#mujoco', '3.12.0');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.model);
		const {request, answer} = await page.evaluate(() => window.contactd.answers.model);
		assert.deepEqual(request, {main: 'model.xml', files: {'model.xml': warned}, mujoco: '3.12.0'});
		assert.deepEqual(answer, await api(base, 'POST', '/v1/model', request));
		const w = page.locator('#pairs tbody tr[data-pair="0"] li[data-code="timeconst_below_2h"]');
		assert.equal(await w.count(), 1);
		const text = await w.textContent();
		assert.ok(text.includes('refsafe replaces it with 0.004 s') && text.includes('Fix: set solref\'s timeconst to at least 0.004 s'), text);
		await page.check('#only-warned');
		assert.equal(await page.locator('#pairs tbody tr').count(), answer.pairs.filter((p) => p.warnings.length).length);
		/* the rest: a sweep of the rest over the pair's timeconst, its base the pair's scene */
		const rest = page.locator('#pairs tbody tr[data-pair="0"] a.open-rest');
		await Promise.all([page.waitForURL(/sweep\.html/), rest.click()]);
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep);
		const sweep = await page.evaluate(() => window.contactd.answers.sweep);
		const req = sweep.request || sweep.req;
		assert.equal(req.query, 'rest');
		assert.deepEqual(req.base.geom.solref, [0.003, 1]);
		assert.deepEqual(req.base.body, {shape: 'sphere', size: 0.05, mass: 1});
		assert.equal(req.base.option.mujoco, '3.12.0');
		assert.equal(req.vary[0].path, '/geom/solref/0');
		await page.goBack();
		await page.waitForFunction(() => window.contactd.answers.modelReady);
		/* the stability question of the same pair: its solref, the model's timestep */
		await page.fill('#xml', warned);
		await page.selectOption('#mujoco', '3.12.0');
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.model);
		await Promise.all([page.waitForURL(/sweep\.html/),
		    page.locator('#pairs tbody tr[data-pair="0"] a.open-stability').click()]);
		await page.waitForFunction(() => window.contactd.answers.sweep && window.contactd.charts.sweep);
		const stab = await page.evaluate(() => window.contactd.answers.sweep);
		const sreq = stab.request || stab.req;
		assert.equal(sreq.query, 'stability');
		assert.deepEqual(sreq.base.solref, [0.003, 1]);
		assert.equal(sreq.base.option.timestep, 0.002);
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});

	await check('model: at 1400 px every column of the pairs table, the warnings and the "open as" links are in view and clickable', async () => {
		const page = await open(context, base + '/model.html', 1400);
		await page.waitForFunction(() => window.contactd.answers.modelReady);
		/* Menagerie's SO-101 (long geom names), then the file whose pair warns */
		await page.setInputFiles('#files', ['so101-scene_box-implicitfast.xml', 'so101-implicitfast.xml']
		    .map((f) => path.join(FIXTURES, f)));
		await page.waitForFunction(() => !document.getElementById('main-file').disabled);
		for (const pasted of [null, warned]) {
			if (pasted) {
				await page.setInputFiles('#files', []);
				await page.waitForFunction(() => document.getElementById('main-file').disabled);
				await page.fill('#xml', pasted);
			}
			await page.evaluate(() => { window.contactd.answers.model = null; });
			await page.click('#run');
			await page.waitForFunction(() => window.contactd.answers.model);
			const {answer} = await page.evaluate(() => window.contactd.answers.model);
			const width = await page.evaluate(() => document.documentElement.clientWidth);
			/* nothing cut off: the table fits its box, which fits the window */
			const [sw, cw] = await page.evaluate(() => {
				const box = document.getElementById('pairs').parentElement;
				return [box.scrollWidth, box.clientWidth];
			});
			assert.ok(sw <= cw + 1, 'the pairs table is ' + sw + ' px wide in a ' + cw + ' px box');
			const heads = await page.evaluate(() => [...document.querySelectorAll('#pairs thead th')].map((th) => {
				const r = th.getBoundingClientRect();
				return {text: th.textContent, left: r.left, right: r.right};
			}));
			assert.deepEqual(heads.map((h) => h.text).slice(-2), ['warnings', 'open as']);
			for (const h of heads)
				assert.ok(h.left >= 0 && h.right <= width + 0.5, 'column "' + h.text + '" at ' + h.left + '..' + h.right +
				    ' of a ' + width + ' px window');
			/* the first pair's links (and a warned pair's warning), on screen, under the pointer */
			const warnedPair = answer.pairs.findIndex((p) => p.warnings.length);
			const row = pasted ? warnedPair : 0;
			assert.ok(row >= 0, 'a pair that warns');
			const tr = '#pairs tbody tr[data-pair="' + row + '"]';
			await page.evaluate((sel) => {
				const r = document.querySelector(sel).getBoundingClientRect();
				window.scrollBy(0, r.top - 200);
			}, tr);
			const targets = ['a.open-rest', 'a.open-drop', 'a.open-stability'].concat(pasted ? ['td.warn li'] : []);
			for (const t of targets) {
				const hit = await page.evaluate((sel) => {
					const el = document.querySelector(sel);
					const r = el.getBoundingClientRect();
					const under = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
					return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, same: under === el || el.contains(under),
					    scrolled: document.getElementById('pairs').parentElement.scrollLeft};
				}, tr + ' ' + t);
				assert.ok(hit.left >= 0 && hit.right <= width + 0.5 && hit.top >= 0 && hit.bottom <= 900 && hit.same &&
				    hit.scrolled === 0, t + ' of pair ' + row + ' in view and on top: ' + JSON.stringify(hit));
			}
			if (pasted) {
				const r = await page.locator(tr + ' a.open-rest').boundingBox();
				await Promise.all([page.waitForURL(/sweep\.html/), page.mouse.click(r.x + r.width / 2, r.y + r.height / 2)]);
			}
		}
		await page.close();
		assert.deepEqual(page.consoleErrors, []);
	});

	await check('model: a bad document\'s 422 names the file, the line and the element', async () => {
		const page = await open(context, base + '/model.html');
		await page.waitForFunction(() => window.contactd.answers.modelReady);
		await page.fill('#xml', '<mujoco>\n<worldbody>\n<geom class="nope"/>\n</worldbody>\n</mujoco>\n');
		await page.click('#run');
		await page.waitForFunction(() => document.getElementById('status').className === 'status error');
		const text = await page.textContent('#status');
		assert.ok(text.includes('model.xml:3: <geom>: unknown default class "nope"'), text);
		assert.ok(fs.existsSync(FIXTURES));
		await page.close();
	});

	await check('model: MuJoCo #3328\'s pasted grasp is a hold question with the model\'s values, opened on the Hold page', async () => {
		const page = await open(context, base + '/model.html');
		await page.waitForFunction(() => window.contactd.answers.modelReady);
		await page.fill('#xml', fs.readFileSync(path.join(FIXTURES, 'grasp-3328.xml'), 'utf8'));
		await page.click('#run');
		await page.waitForFunction(() => window.contactd.answers.model);
		const {request, answer: shown} = await page.evaluate(() => window.contactd.answers.model);
		assert.deepEqual(shown, await api(base, 'POST', '/v1/model', request));
		assert.equal(shown.grasps.length, 1);
		const q = shown.grasps[0].hold;
		assert.ok(shown.grasps[0].exact);
		assert.equal(q.object.shape, 'capsule');
		assert.deepEqual(q.object.size, [0.004, 0.02]);
		assert.equal(q.object.mass, 0.045);
		assert.deepEqual(q.pad.size, [0.008, 0.03, 0.02]);
		assert.equal(q.pad.mass, 0.2);
		assert.equal(q.pad.joint.damping, 100);
		assert.equal(q.pad.actuator.type, 'position');
		assert.equal(q.pad.actuator.kp, 20000);
		assert.equal(q.pad.actuator.squeeze, 0.002);
		assert.deepEqual(q.pad.friction, [0.7, 0.005, 0.0001]);
		assert.equal(q.option.impratio, 10);
		assert.equal(q.option.cone, 'elliptic');
		const item = page.locator('#grasps > li[data-object="1"]');
		assert.ok((await item.textContent()).includes('capsule between left_pad and right_pad: the hold question exactly'));
		await assertAccessible(page);
		assert.deepEqual(page.consoleErrors, []);
		await Promise.all([page.waitForURL(/hold\.html/), item.locator('a.open-hold').click()]);
		/* the Hold page's boxes hold the question's capsule and servo, its JSON box only what
		 * the form lacks, and its requests carry the question whole */
		await page.waitForFunction(() => window.contactd.answers.hold &&
		    document.getElementById('request').textContent.includes('capsule'));
		const inputs = {shape: 'capsule', size: '0.004', size1: '0.02', mass: '0.045', pad_hx: '0.008', pad_hy: '0.03',
		    pad_hz: '0.02', pad_mass: '0.2', friction: '0.7', timeconst: '0.02', damping: '100', armature: '0',
		    frictionloss: '0', actuator: 'position', kp: '20000', kv: '0', squeeze: '0.002', force_lo: '',
		    force_hi: '', impratio: '10', timestep: '0.002', duration: String(q.duration), axis: 'impratio'};
		for (const [id, want] of Object.entries(inputs))
			assert.equal(await page.inputValue('#' + id), want, '#' + id);
		assert.deepEqual(await page.evaluate(() => ['size1-box', 'size2-box', 'servo-box', 'motor-box']
		    .map((id) => document.getElementById(id).hidden)), [false, true, false, true], 'a capsule\'s sizes, a servo\'s fields');
		const extra = JSON.parse(await page.inputValue('#extra'));
		for (const [part, keys] of [['object', ['shape', 'size', 'mass']], ['pad', ['size', 'mass', 'joint', 'actuator']]])
			for (const k of keys)
				assert.equal(extra[part][k], undefined, part + '.' + k + ' is in the form: ' + JSON.stringify(extra));
		assert.deepEqual(extra.object.friction, [0.7, 0.005, 0.0001], 'what the form lacks is in the JSON box');
		const sent = JSON.parse((await page.textContent('#request')).split('\n\n')[0]);
		const asked = JSON.parse(JSON.stringify(q));
		asked.option.mujoco = shown.mujoco;
		delete asked.option.cone; /* what the chart varies */
		const got = JSON.parse(JSON.stringify(sent.base));
		delete got.option.cone;
		assert.deepEqual(got, asked, 'the Hold page asks the grasp\'s question');
		assert.equal(sent.base.grip_force, undefined, 'a servo\'s question has no grip force');
		assert.deepEqual(page.consoleErrors, []);
		await page.close();
	});
}

module.exports = {modelChecks};
