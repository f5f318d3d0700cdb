/* heatmap.js: a heat map layer for Chart.js 3 (which has none): a scatter dataset
 * marked `heatmap: true` holds points {x, y, v, mark} on a grid; each is drawn as the
 * cell around it, coloured by v between the dataset's `min` and `max`: on CD.ramp, or
 * with `diverging: true` on CD.growthColor: blues up to 1, reds above (growth per step,
 * whose 1 is the stability boundary). A null v (a diverged point) is grey; `mark` outlines
 * the cell (the guard gap). With `log: true` the colour follows log(v).
 * `contour: level` draws the boundary between cells at most level and cells above it
 * (a null cell counts as above): growth = 1 separates stable from unstable. Each entry
 * of `contours` ({data, color, dash}) adds the same boundary of another grid (a
 * second MuJoCo release, an earlier run). `diffs` lists the indices of cells another
 * answer changes (a second release): each gets a ringed dot.
 * Cell edges lie halfway between neighbouring grid values in pixels, so logarithmic
 * axes work too. What was drawn is left on the dataset (cdCells, cdContour) for the
 * tooltip mode below, the SVG export and the tests. */
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

	/* The colour of point p (value v) on the dataset's scale; a point drawn apart (p.apart
	 * names an entry of ds.apart: an energy-gaining or a diverged drop) has its own colour
	 * and is not on the scale. */
	color(ds, v, p) {
		if (p && p.apart && ds.apart && ds.apart[p.apart])
			return ds.apart[p.apart].color;
		if (v === null || v === undefined || !Number.isFinite(v))
			return '#9a9a9a';
		if (ds.diverging)
			return CD.growthColor(v, Math.min(ds.min, 0.999), Math.max(ds.max, 1.001));
		const f = (x) => (ds.log ? Math.log(x) : x);
		const lo = f(ds.min), span = f(ds.max) > lo ? f(ds.max) - lo : 1;
		return CD.ramp((f(v) - lo) / span);
	},

	/* The boundary between cells v <= level and cells above it, as 2-point segments. */
	boundary(data, level, xs, ys, xe, ye) {
		const above = new Map();
		for (const p of data)
			above.set(xs.indexOf(p.x) + ',' + ys.indexOf(p.y), !(p.v !== null && p.v <= level));
		const segs = [];
		for (let i = 0; i < xs.length; i++)
			for (let j = 0; j < ys.length; j++) {
				const here = above.get(i + ',' + j);
				if (here === undefined)
					continue;
				const right = above.get(i + 1 + ',' + j), up = above.get(i + ',' + (j + 1));
				if (right !== undefined && right !== here)
					segs.push([[xe[i + 1], ye[j]], [xe[i + 1], ye[j + 1]]]);
				if (up !== undefined && up !== here)
					segs.push([[xe[i], ye[j + 1]], [xe[i + 1], ye[j + 1]]]);
			}
		return segs;
	},

	beforeDatasetsDraw(chart) {
		const ctx = CD.clipToArea(chart);
		for (const ds of chart.data.datasets) {
			if (!ds.heatmap)
				continue;
			const xs = [...new Set(ds.data.map((p) => p.x))].sort((a, b) => a - b);
			const ys = [...new Set(ds.data.map((p) => p.y))].sort((a, b) => a - b);
			const xe = CDHeatmap.edges(chart.scales.x, xs);
			const ye = CDHeatmap.edges(chart.scales.y, ys);
			ds.cdCells = [];
			ds.data.forEach((p, index) => {
				const i = xs.indexOf(p.x), j = ys.indexOf(p.y);
				const x0 = Math.min(xe[i], xe[i + 1]), x1 = Math.max(xe[i], xe[i + 1]);
				const y0 = Math.min(ye[j], ye[j + 1]), y1 = Math.max(ye[j], ye[j + 1]);
				const fill = CDHeatmap.color(ds, p.v, p);
				ctx.fillStyle = fill;
				ctx.fillRect(x0, y0, x1 - x0 + 0.5, y1 - y0 + 0.5);
				ds.cdCells.push({x0, x1, y0, y1, index, fill,
				    title: ds.cellText ? ds.cellText(p) : p.x + ', ' + p.y + ': ' + p.v});
			});
			/* marked cells: a hatched outline on top of the colours */
			/* thin and translucent: a boundary drawn over marked cells stays visible */
			ctx.strokeStyle = ds.markColor || 'rgba(255,0,170,0.75)';
			ctx.lineWidth = 1;
			for (const c of ds.cdCells) {
				if (!ds.data[c.index].mark)
					continue;
				ctx.strokeRect(c.x0 + 1, c.y0 + 1, c.x1 - c.x0 - 2, c.y1 - c.y0 - 2);
				ctx.beginPath();
				ctx.moveTo(c.x0 + 1, c.y1 - 1);
				ctx.lineTo(c.x1 - 1, c.y0 + 1);
				ctx.stroke();
			}
			/* cells another answer (a second release) changes: a ringed dot */
			for (const index of ds.diffs || []) {
				const c = ds.cdCells.find((k) => k.index === index);
				ctx.beginPath();
				ctx.arc((c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2, Math.max(2, Math.min(5, (c.x1 - c.x0) / 5, (c.y1 - c.y0) / 5)), 0, 2 * Math.PI);
				ctx.fillStyle = '#fff';
				ctx.fill();
				ctx.lineWidth = 2;
				ctx.strokeStyle = '#000';
				ctx.stroke();
			}
			/* the level's contours: this grid's, then the comparison's */
			ds.cdContour = [];
			if (ds.contour === undefined)
				continue;
			const lines = [{data: ds.data, color: ds.contourColor || '#000', dash: null, halo: ds.contourHalo}]
			    .concat(ds.contours || []);
			for (const line of lines) {
				/* another grid (an earlier run) has cells of its own */
				const lx = [...new Set(line.data.map((p) => p.x))].sort((a, b) => a - b);
				const ly = [...new Set(line.data.map((p) => p.y))].sort((a, b) => a - b);
				const segs = CDHeatmap.boundary(line.data, ds.contour, lx, ly,
				    CDHeatmap.edges(chart.scales.x, lx), CDHeatmap.edges(chart.scales.y, ly));
				const path = () => {
					ctx.beginPath();
					for (const s of segs) {
						ctx.moveTo(s[0][0], s[0][1]);
						ctx.lineTo(s[1][0], s[1][1]);
					}
				};
				/* a dark halo under a light line keeps it visible on light and dark cells */
				if (line.halo) {
					ctx.strokeStyle = line.halo;
					ctx.lineWidth = 5;
					ctx.setLineDash([]);
					path();
					ctx.stroke();
				}
				ctx.strokeStyle = line.color;
				ctx.lineWidth = 3;
				ctx.setLineDash(line.dash || []);
				path();
				ctx.stroke();
				ctx.setLineDash([]);
				for (const s of segs)
					ds.cdContour.push(Object.assign(s.slice(), {color: line.color, dash: !!line.dash}));
			}
		}
		ctx.restore();
	},
};

/* A tooltip anywhere inside a heat-map cell (Chart.js finds only points near the
 * pointer): the mode 'cdCell' answers the cell under the pointer. */
if (window.Chart)
	Chart.Interaction.modes.cdCell = function (chart, e) {
		const pos = Chart.helpers.getRelativePosition(e, chart);
		const out = [];
		chart.data.datasets.forEach((ds, datasetIndex) => {
			if (!ds.heatmap || !ds.cdCells)
				return;
			const c = ds.cdCells.find((k) => pos.x >= k.x0 && pos.x < k.x1 && pos.y >= k.y0 && pos.y < k.y1);
			if (c)
				out.push({element: chart.getDatasetMeta(datasetIndex).data[c.index], datasetIndex, index: c.index});
		});
		return out;
	};

/* The colour scale of a heat-map dataset, as the colour bar draws it: {label, min,
 * max, scale (in words), contour, apart (the colours drawn apart, in the legend), and
 * sample(f), the colour at f in [0, 1] along the bar}. diverging: the growth scale, 1 in
 * the middle, logarithmic on each side. */
function cdScaleSpec(ds, label) {
	const lo = Math.min(ds.min, 0.999), hi = Math.max(ds.max, 1.001);
	const sample = ds.diverging
	    ? (f) => CD.growthColor(f < 0.5 ? Math.exp(Math.log(lo) * (1 - 2 * f)) : Math.exp(Math.log(hi) * (2 * f - 1)), lo, hi)
	    : (f) => CD.ramp(f);
	const scale = ds.diverging ? 'blues at most 1 (stable), reds above 1 (unstable), logarithmic on each side of 1'
	    : 'viridis, dark purple to yellow' + (ds.log ? ', logarithmic' : ', linear');
	return {label, min: ds.min, max: ds.max, scale, sample, contour: ds.contour,
	    apart: Object.values(ds.apart || {}).filter((a) => a.count > 0).map((a) => ({label: a.label, color: a.color}))};
}

/* Draw the colour bar of spec (cdScaleSpec) into a <canvas>. */
function cdColorBar(canvasId, spec) {
	const canvas = document.getElementById(canvasId);
	const ctx = canvas.getContext('2d');
	const w = canvas.width, h = canvas.height;
	ctx.clearRect(0, 0, w, h);
	for (let x = 0; x < w; x++) {
		ctx.fillStyle = spec.sample(x / (w - 1));
		ctx.fillRect(x, 0, 1, h);
	}
	if (/^blues/.test(spec.scale)) {
		ctx.fillStyle = '#000';
		ctx.fillRect(Math.floor(w / 2) - 1, 0, 2, h);
	}
	canvas.setAttribute('aria-label', CD.colorbarText(spec));
}
