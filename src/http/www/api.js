/* api.js: the API reference page: renders the daemon's own /v1/openapi.json (paths,
 * request and answer schemas, examples, errors) with no code from elsewhere. */
'use strict';

function el(tag, attrs, ...children) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {}))
		e.setAttribute(k, v);
	for (const c of children)
		if (c !== null && c !== undefined)
			e.append(c);
	return e;
}

/* Text with `code` spans, as nodes (never as HTML). */
function prose(text) {
	const p = el('p');
	String(text || '').split(/(`[^`]*`)/).forEach((part) => {
		if (/^`[^`]*`$/.test(part))
			p.append(el('code', {}, part.slice(1, -1)));
		else if (part)
			p.append(part);
	});
	return p;
}

const refName = (ref) => ref.replace(/^#\/components\/schemas\//, '');
const anchor = (name) => 'schema-' + name;

function typeOf(s) {
	if (!s)
		return 'any';
	if (s.$ref)
		return refName(s.$ref);
	if (s.enum)
		return s.enum.map((v) => JSON.stringify(v)).join(' | ');
	if (s.type === 'array')
		return 'array of ' + typeOf(s.items);
	if (s.oneOf || s.anyOf)
		return (s.oneOf || s.anyOf).map(typeOf).join(' or ');
	return Array.isArray(s.type) ? s.type.join(' | ') : s.type || 'object';
}

function typeNode(s) {
	if (s && s.$ref)
		return el('a', {href: '#' + anchor(refName(s.$ref))}, refName(s.$ref));
	if (s && s.type === 'array' && s.items && s.items.$ref)
		return el('span', {}, 'array of ', typeNode(s.items));
	return el('span', {}, typeOf(s));
}

/* A schema's properties as a nested list (refs are links, not expanded). */
function schemaNode(s, depth) {
	const box = el('div', {class: 'api-schema'});
	if (!s)
		return box;
	if (s.description && depth > 0)
		box.append(prose(s.description));
	const props = s.properties || {};
	const required = new Set(s.required || []);
	if (Object.keys(props).length) {
		const ul = el('ul');
		for (const [name, p] of Object.entries(props)) {
			const li = el('li', {}, el('code', {}, name), ' — ', typeNode(p),
			    required.has(name) ? ' (required)' : null,
			    p.default !== undefined ? ', default ' + JSON.stringify(p.default) : null);
			if (p.description)
				li.append(prose(p.description));
			if (p.type === 'object' && p.properties && depth < 3)
				li.append(schemaNode(p, depth + 1));
			ul.append(li);
		}
		box.append(ul);
	}
	return box;
}

function operation(path, method, op) {
	const id = 'op-' + (op.operationId || method + path).replace(/[^A-Za-z0-9_-]/g, '-');
	const sec = el('details', {class: 'api-op', id},
	    el('summary', {}, el('h3', {id: id + '-h'}, el('code', {class: 'method'}, method), ' ', el('code', {}, path)),
	        op.summary ? ' — ' + op.summary : null));
	if (op.description)
		sec.append(prose(op.description));
	if (op.parameters && op.parameters.length) {
		const ul = el('ul');
		for (const p of op.parameters)
			ul.append(el('li', {}, el('code', {}, p.name), ' (' + p.in + ') — ', typeNode(p.schema),
			    p.description ? prose(p.description) : null));
		sec.append(el('h4', {}, 'Parameters'), ul);
	}
	const body = op.requestBody && op.requestBody.content;
	if (body) {
		for (const [type, media] of Object.entries(body)) {
			sec.append(el('h4', {}, 'Request body (' + type + '): ', typeNode(media.schema)));
			for (const [name, ex] of Object.entries(media.examples || {}))
				sec.append(el('p', {}, 'Example ', el('em', {}, ex.summary || name), ':'),
				    el('pre', {class: 'code'}, JSON.stringify(ex.value, null, 1)));
		}
	}
	const ul = el('ul');
	for (const [status, r] of Object.entries(op.responses || {})) {
		const media = r.content ? Object.entries(r.content)[0] : null;
		ul.append(el('li', {}, el('strong', {}, status), ' — ', r.description || '',
		    media ? el('span', {}, ' (' + media[0] + ': ', typeNode(media[1].schema), ')') : null));
	}
	sec.append(el('h4', {}, 'Answers'), ul);
	return sec;
}

/* The search box and the expand/collapse buttons: the reference is long, so every
 * operation and schema starts collapsed; a search shows (and opens) only the entries
 * whose text holds every word searched for. */
function tools() {
	const input = el('input', {type: 'search', id: 'api-search', placeholder: 'e.g. sweep rebound',
	    autocomplete: 'off', spellcheck: 'false'});
	const all = () => [...document.querySelectorAll('details.api-op, details.api-schema-box')];
	const count = el('span', {id: 'api-count', class: 'key', 'aria-live': 'polite'});
	const search = () => {
		const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
		let shown = 0;
		for (const d of all()) {
			const text = d.textContent.toLowerCase();
			const hit = words.every((w) => text.includes(w));
			d.hidden = !hit;
			d.open = hit && words.length > 0;
			shown += hit ? 1 : 0;
		}
		count.textContent = words.length ? shown + ' of ' + all().length + ' entries match' : '';
	};
	/* the search is the page's state: in the address (?q=), for a reload or a link */
	input.addEventListener('input', () => {
		search();
		const url = new URL(location.href);
		if (input.value.trim())
			url.searchParams.set('q', input.value.trim());
		else
			url.searchParams.delete('q');
		history.replaceState(null, '', url.href);
	});
	input.value = new URLSearchParams(location.search).get('q') || '';
	input.cdSearch = search;
	const button = (label, id, open) => {
		const b = el('button', {type: 'button', class: 'secondary small', id}, label);
		b.addEventListener('click', () => all().forEach((d) => {
			if (!d.hidden)
				d.open = open;
		}));
		return b;
	};
	return el('div', {class: 'api-tools'}, el('label', {for: 'api-search'}, 'Search the reference'), input,
	    el('div', {class: 'toolbar'}, button('Expand all', 'api-expand', true),
	        button('Collapse all', 'api-collapse', false), count));
}

/* A link to an entry opens it (and its search may have hidden it). */
function openTarget() {
	const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
	if (target && target.tagName === 'DETAILS') {
		target.hidden = false;
		target.open = true;
		target.scrollIntoView();
	}
}
window.addEventListener('hashchange', openTarget);

async function render() {
	const out = document.getElementById('reference');
	let doc;
	try {
		doc = await CD.api('v1/openapi.json');
	} catch (e) {
		CD.status('status', CD.errorText(e), 'error');
		return;
	}
	window.contactd.answers.openapi = doc;
	out.textContent = '';
	out.append(tools());
	out.append(el('p', {}, 'OpenAPI ' + doc.openapi + ', ' + doc.info.title + ' ' + doc.info.version + '.'));
	if (doc.info.description)
		out.append(prose(doc.info.description));
	const toc = el('ul');
	const ops = [];
	for (const [path, item] of Object.entries(doc.paths))
		for (const [method, op] of Object.entries(item))
			if (['get', 'post', 'put', 'delete', 'patch'].includes(method)) {
				const node = operation(path, method, op);
				ops.push(node);
				toc.append(el('li', {}, el('a', {href: '#' + node.id}, method.toUpperCase() + ' ' + path),
				    op.summary ? ' — ' + op.summary : null));
			}
	out.append(el('nav', {'aria-label': 'Endpoints'}, el('h2', {}, 'Endpoints'), toc));
	out.append(el('h2', {}, 'Operations'), ...ops);
	out.append(el('h2', {}, 'Schemas'));
	for (const [name, s] of Object.entries((doc.components || {}).schemas || {})) {
		const sec = el('details', {class: 'api-schema-box', id: anchor(name)},
		    el('summary', {}, el('h3', {id: anchor(name) + '-h'}, name, ' ', el('small', {}, '(' + typeOf(s) + ')'))));
		if (s.description)
			sec.append(prose(s.description));
		sec.append(schemaNode(s, 0));
		out.append(sec);
	}
	document.getElementById('api-search').cdSearch();
	CD.status('status', ops.length + ' operations, ' +
	    Object.keys((doc.components || {}).schemas || {}).length + ' schemas.', 'ok');
	openTarget();
}

render();
