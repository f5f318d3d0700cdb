/* heatmap.js: a heat map layer for Chart.js 3 (which has none): a scatter dataset
 * marked `heatmap: true` holds points {x, y, v, mark} on a grid; each is drawn as the
 * cell around it, coloured by v on CD.ramp between the dataset's `min` and `max`.
 * A null v (a diverged point) is grey; `mark` outlines the cell (the guard gap).
 * With `log: true` the colour follows log(v) (growth spans decades).
 * Cell edges lie halfway between neighbouring grid values in pixels, so logarithmic
 * axes work too. */
'use strict';

const CDHeatmap = {
	id: 'cdHeatmap',

	/* Pixel edges of the cells centred on the sorted distinct values. */
	edges(scale, values) {
		const px = values.map((v) => scale.getPixelForValue(v));
		const out = [];
		for (let i = 0; i <= px.length; i++) {
			if (px.length === 1)
				out.push(i === 0 ? px[0] - 20 : px[0] + 20);
			else if (i === 0)
				out.push(px[0] - (px[1] - px[0]) / 2);
			else if (i === px.length)
				out.push(px[i - 1] + (px[i - 1] - px[i - 2]) / 2);
			else
				out.push((px[i - 1] + px[i]) / 2);
		}
		return out;
	},

	beforeDatasetsDraw(chart) {
		const ctx = chart.ctx;
		const area = chart.chartArea;
		ctx.save();
		ctx.beginPath();
		ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
		ctx.clip();
		for (const ds of chart.data.datasets) {
			if (!ds.heatmap)
				continue;
			const xs = [...new Set(ds.data.map((p) => p.x))].sort((a, b) => a - b);
			const ys = [...new Set(ds.data.map((p) => p.y))].sort((a, b) => a - b);
			const xe = CDHeatmap.edges(chart.scales.x, xs);
			const ye = CDHeatmap.edges(chart.scales.y, ys);
			const f = (v) => (ds.log ? Math.log(v) : v);
			const lo = f(ds.min), span = f(ds.max) > lo ? f(ds.max) - lo : 1;
			for (const p of ds.data) {
				const i = xs.indexOf(p.x), j = ys.indexOf(p.y);
				const x0 = Math.min(xe[i], xe[i + 1]), x1 = Math.max(xe[i], xe[i + 1]);
				const y0 = Math.min(ye[j], ye[j + 1]), y1 = Math.max(ye[j], ye[j + 1]);
				ctx.fillStyle = p.v === null ? '#9a9a9a' : CD.ramp((f(p.v) - lo) / span);
				ctx.fillRect(x0, y0, x1 - x0 + 0.5, y1 - y0 + 0.5);
			}
			/* marked cells: a hatched outline on top of the colours */
			ctx.strokeStyle = ds.markColor || '#ff00aa';
			ctx.lineWidth = 1.5;
			for (const p of ds.data) {
				if (!p.mark)
					continue;
				const i = xs.indexOf(p.x), j = ys.indexOf(p.y);
				const x0 = Math.min(xe[i], xe[i + 1]), x1 = Math.max(xe[i], xe[i + 1]);
				const y0 = Math.min(ye[j], ye[j + 1]), y1 = Math.max(ye[j], ye[j + 1]);
				ctx.strokeRect(x0 + 1, y0 + 1, x1 - x0 - 2, y1 - y0 - 2);
				ctx.beginPath();
				ctx.moveTo(x0 + 1, y1 - 1);
				ctx.lineTo(x1 - 1, y0 + 1);
				ctx.stroke();
			}
		}
		ctx.restore();
	},
};

/* Draw a colour bar for [min, max] into a <canvas> with labelled ends. */
function cdColorBar(canvasId, min, max, label, log) {
	const canvas = document.getElementById(canvasId);
	const ctx = canvas.getContext('2d');
	const w = canvas.width, h = canvas.height;
	ctx.clearRect(0, 0, w, h);
	for (let x = 0; x < w; x++) {
		ctx.fillStyle = CD.ramp(x / (w - 1));
		ctx.fillRect(x, 0, 1, h);
	}
	canvas.setAttribute('aria-label',
	    label + ': colour from ' + CD.fmt(min) + ' (dark purple) to ' + CD.fmt(max) + ' (yellow)' +
	    (log ? ', logarithmic' : ''));
}
