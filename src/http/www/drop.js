/* drop.js: the drop page: one /v1/drop with "trajectory": true, plotted with its
 * metrics (peak penetration, rebound, the floor). */
'use strict';

const metricNames = [
	['peak_penetration', 'Peak penetration (m)'],
	['rebound', 'Rebound (m)'],
	['max_height', 'Highest after release (m)'],
	['final_penetration', 'Final penetration (m)'],
	['jitter', 'Jitter over the last 0.5 s (m)'],
	['energy_gain', 'Energy gain'],
	['steps', 'Steps'],
	['solref_fallback', 'solref replaced by the default'],
	['diverged', 'Diverged'],
];

function readRequest() {
	const tc = CD.number('timeconst'), dr = CD.number('dampratio');
	return {
		body: {shape: document.getElementById('shape').value, size: CD.number('size'),
		    mass: CD.number('mass')},
		geom: {solref: [tc, dr]},
		option: {timestep: CD.number('timestep'), refsafe: document.getElementById('refsafe').checked,
		    integrator: document.getElementById('integrator').value},
		height: CD.number('height'),
		duration: CD.number('duration'),
		trajectory: true,
	};
}

function showMetrics(answer) {
	const dl = document.getElementById('metrics');
	dl.textContent = '';
	for (const [key, label] of metricNames) {
		const dt = document.createElement('dt');
		dt.textContent = label;
		const dd = document.createElement('dd');
		dd.id = 'm-' + key;
		dd.textContent = CD.fmt(answer[key], 6);
		dl.append(dt, dd);
	}
}

function draw(answer) {
	const tr = answer.trajectory;
	const path = tr.t.map((t, i) => ({x: t, y: tr.z[i]}));
	const t1 = tr.t[tr.t.length - 1] || 0;
	const level = (y, label, color, dash) => ({type: 'line', label, data: [{x: 0, y}, {x: t1, y}],
	    borderColor: color, backgroundColor: color, borderDash: dash, borderWidth: 1.5, pointRadius: 0});
	const datasets = [{type: 'line', label: 'bottom height z (m)', data: path,
	    borderColor: CD.colors[0], backgroundColor: CD.colors[0], borderWidth: 1.5, pointRadius: 0,
	    spanGaps: false}];
	datasets.push(level(0, 'floor (z = 0)', '#444', []));
	if (answer.peak_penetration !== null)
		datasets.push(level(-answer.peak_penetration, 'peak penetration', CD.colors[1], [5, 3]));
	if (answer.rebound)
		datasets.push(level(answer.rebound, 'rebound', CD.colors[2], [2, 2]));
	const old = window.contactd.charts.drop;
	if (old)
		old.destroy();
	window.contactd.charts.drop = new Chart(document.getElementById('chart'), {
		type: 'line', data: {datasets}, options: CD.chartOptions({
		    scales: {x: {type: 'linear', title: {display: true, text: 'time (s)'}},
		        y: {type: 'linear', title: {display: true, text: 'bottom height (m)'}}}})});
	CD.describe('chart', 'Bottom height over ' + CD.fmt(t1) + ' s, ' + path.length +
	    ' points; peak penetration ' + CD.fmt(answer.peak_penetration) + ' m, rebound ' +
	    CD.fmt(answer.rebound) + ' m');
}

async function run() {
	let req;
	try {
		req = readRequest();
	} catch (e) {
		CD.status('status', e.message, 'error');
		return;
	}
	document.getElementById('request').textContent = JSON.stringify(req, null, 2);
	CD.status('status', 'Simulating…');
	try {
		const answer = await CD.api('v1/drop', req);
		window.contactd.answers.drop = {request: req, answer};
		draw(answer);
		showMetrics(answer);
		CD.status('status', answer.steps + ' steps, ' + answer.trajectory.t.length +
		    ' points plotted' + (answer.diverged ? '; the simulation diverged' : '') + '.',
		    answer.diverged ? 'error' : 'ok');
	} catch (e) {
		CD.status('status', CD.errorText(e), 'error');
	}
}

document.getElementById('form').addEventListener('submit', (ev) => {
	ev.preventDefault();
	run();
});
run();
