/*
 * mjcf.c: loading an MJCF document and its includes with libxml2, walking it as
 * MuJoCo's compiler does, reading attributes.
 */
#include "model/mjcf.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>

#include "core/budget.h"
#include "model/knobs.h"

static pthread_once_t parser_once = PTHREAD_ONCE_INIT;

static void parser_init(void)
{
	/* libxml2 is thread-safe once its globals are set up, before any thread parses */
	xmlInitParser();
}

int mjcf_is(xmlNodePtr el, const char *name)
{
	return el && el->type == XML_ELEMENT_NODE && strcmp((const char *)el->name, name) == 0;
}

int mjcf_fail(xmlNodePtr el, struct err *err, const char *fmt, ...)
{
	char msg[ERR_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!el)
		return err_set(err, ERR_BAD_VALUE, "", "%s", msg);
	return err_set(err, ERR_BAD_VALUE, "", "%s:%ld: <%s>: %s",
	    el->doc && el->doc->URL ? (const char *)el->doc->URL : "?", xmlGetLineNo(el),
	    (const char *)el->name, msg);
}

int mjcf_stopped(struct err *err)
{
	return err_set(err, ERR_UNAVAILABLE, "",
	    "stopped: the question's compute budget ran out or its client left");
}

char *mjcf_attr(xmlNodePtr el, const char *name)
{
	return (char *)xmlGetProp(el, (const xmlChar *)name);
}

int mjcf_reals(xmlNodePtr el, const char *name, double *out, int max, int exact, struct err *err)
{
	char *text = mjcf_attr(el, name), *p, *end;
	int n = 0;

	if (!text)
		return 0;
	for (p = text;;) {
		double v;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		if (n == max) {
			xmlFree(text);
			return mjcf_fail(el, err, "%s has more than %d numbers", name, max);
		}
		errno = 0;
		end = p;
		/* MuJoCo reads decimal numbers only: strtod's hex ("0x10"), inf and nan are not */
		v = strspn(p, "0123456789+-.eE") < strcspn(p, " \t\n\r") ? NAN : strtod(p, &end);
		if (!isfinite(v) ||
		    (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) {
			xmlFree(text);
			return mjcf_fail(el, err, "%s is not a list of finite numbers", name);
		}
		out[n++] = v;
		p = end;
	}
	xmlFree(text);
	if (exact && n != max)
		return mjcf_fail(el, err, "%s needs %d numbers, not %d", name, max, n);
	if (n == 0)
		return mjcf_fail(el, err, "%s is empty", name);
	return n;
}

int mjcf_int(xmlNodePtr el, const char *name, int *out, struct err *err)
{
	char *text = mjcf_attr(el, name), *end;
	long v;

	if (!text)
		return 0;
	errno = 0;
	v = strtol(text, &end, 10);
	while (*end == ' ')
		end++;
	if (end == text || *end || errno || v < -2147483647L || v > 2147483647L) {
		xmlFree(text);
		return mjcf_fail(el, err, "%s is not an integer", name);
	}
	xmlFree(text);
	*out = (int)v;
	return 1;
}

int mjcf_word(xmlNodePtr el, const char *name, const char *const words[], int *out, struct err *err)
{
	char *text = mjcf_attr(el, name);
	char allowed[160] = "";
	int i;

	if (!text)
		return 0;
	for (i = 0; words[i]; i++) {
		if (strcmp(text, words[i]) == 0) {
			xmlFree(text);
			*out = i;
			return 1;
		}
		if (*words[i]) {
			strncat(allowed, i ? ", " : "", sizeof allowed - strlen(allowed) - 1);
			strncat(allowed, words[i], sizeof allowed - strlen(allowed) - 1);
		}
	}
	xmlFree(text);
	return mjcf_fail(el, err, "%s must be one of %s", name, allowed);
}

int mjcf_disk_reader(void *ctx, const char *name, char **text, size_t *len, struct err *err)
{
	const char *dir = ctx;
	char path[4096];
	FILE *f;
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (name[0] == '/' || !dir || !*dir)
		snprintf(path, sizeof path, "%s", name);
	else
		snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return err_set(err, ERR_NOT_FOUND, "", "cannot read %s: %s", path, strerror(errno));
	for (;;) {
		size_t got;
		if (n == cap) {
			char *grown;
			cap = cap ? 2 * cap : 65536;
			if (cap > (size_t)MJCF_MAX_BYTES + 1)
				cap = (size_t)MJCF_MAX_BYTES + 1;
			if (n == cap) {
				free(buf);
				fclose(f);
				return err_set(err, ERR_TOO_LARGE, "", "%s is over %ld bytes", name,
				    (long)MJCF_MAX_BYTES);
			}
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return err_set(err, ERR_INTERNAL, "", "out of memory");
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return err_set(err, ERR_NOT_FOUND, "", "cannot read %s", path);
	}
	fclose(f);
	*text = buf ? buf : malloc(1);
	*len = n;
	return *text ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

int mjcf_normal_name(const char *name, char *out, size_t size)
{
	/* out[0, fixed) is never popped: a leading '/' and leading ".." components */
	size_t o = 0, fixed = 0;
	const char *p = name;

	if (*p == '/' && size > 1)
		out[o++] = '/';
	fixed = o;
	while (*p) {
		size_t k;
		int up;
		while (*p == '/')
			p++;
		k = strcspn(p, "/");
		up = k == 2 && p[0] == '.' && p[1] == '.';
		if (k == 0 || (k == 1 && p[0] == '.') ||
		    (up && fixed == 1 && out[0] == '/' && o == 1)) {
			p += k; /* "", "." and the root's ".." name no other directory */
			continue;
		}
		if (up && o > fixed) {
			while (o > fixed && out[o - 1] != '/')
				o--;
			if (o > fixed)
				o--; /* the '/' before the dropped component */
			p += k;
			continue;
		}
		if (o + 1 + k + 1 > size)
			return -1;
		if (o > 0 && out[o - 1] != '/')
			out[o++] = '/';
		memcpy(out + o, p, k);
		o += k;
		if (up)
			fixed = o;
		p += k;
	}
	if (o == 0 || (o == 1 && out[0] == '/'))
		return -1; /* no file left: "", ".", "a/..", "/" */
	out[o] = '\0';
	return 0;
}

void mjcf_free(struct mjcf_doc *doc)
{
	size_t i;

	for (i = 0; i < doc->count; i++) {
		free(doc->files[i].name);
		free(doc->files[i].text);
		if (doc->files[i].doc)
			xmlFreeDoc(doc->files[i].doc);
	}
	free(doc->files);
	memset(doc, 0, sizeof *doc);
}

struct loader {
	mjcf_reader read;
	void *ctx;
	struct mjcf_doc *doc;
	size_t bytes;
};

/* The deepest element nesting under node (node at depth), refused past the limit. */
static int check_depth(xmlNodePtr node, int depth, struct err *err)
{
	xmlNodePtr c;

	if (depth > MJCF_MAX_DEPTH)
		return mjcf_fail(node, err, "elements nest deeper than %d", MJCF_MAX_DEPTH);
	for (c = node->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && check_depth(c, depth + 1, err) != 0)
			return -1;
	return 0;
}

/* The end of the markup at s[i] that closes with `close`, past it; n when it never does. */
static size_t skip_past(const char *s, size_t n, size_t i, const char *close, long *line)
{
	size_t k = strlen(close);

	for (; i + k <= n; i++) {
		if (memcmp(s + i, close, k) == 0)
			return i + k;
		*line += s[i] == '\n';
	}
	return n;
}

/*
 * Refuse, before libxml2 reads the n bytes s of file `name`, what it would take long on:
 * an element with more than MJCF_MAX_ATTRIBUTES attributes (its duplicate check is
 * quadratic), a namespace declaration (each prefixed name is looked up through every
 * declaration in scope; MuJoCo refuses them anyway) and a DTD (refused after parsing
 * before). The scan follows XML's markup up to the first byte that is not well-formed;
 * libxml2 stops at its first fatal error (stop_at_fatal()), so it never reads further.
 */
static int check_markup(const char *s, size_t n, const char *name, struct err *err)
{
	long line = 1;
	size_t i = 0;

	while (i < n) {
		size_t tag, tag_len, attrs = 0;
		if (s[i] != '<') {
			line += s[i++] == '\n';
			continue;
		}
		if (n - i >= 4 && memcmp(s + i, "<!--", 4) == 0) {
			i = skip_past(s, n, i + 4, "-->", &line);
			continue;
		}
		if (n - i >= 9 && memcmp(s + i, "<![CDATA[", 9) == 0) {
			i = skip_past(s, n, i + 9, "]]>", &line);
			continue;
		}
		if (n - i >= 2 && s[i + 1] == '?') {
			i = skip_past(s, n, i + 2, "?>", &line);
			continue;
		}
		if (n - i >= 2 && s[i + 1] == '!')
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s:%ld: a DTD is not accepted in MJCF", name, line);
		if (n - i >= 2 && s[i + 1] == '/') {
			i = skip_past(s, n, i + 2, ">", &line);
			continue;
		}
		/* a start tag: its name, then name="value" up to the '>' outside the values */
		tag = ++i;
		while (i < n && !strchr(" \t\r\n/>", s[i]))
			i++;
		tag_len = i - tag;
		while (i < n && s[i] != '>') {
			char c = s[i];
			if (c == '"' || c == '\'') {
				const char *q = memchr(s + i + 1, c, n - i - 1);
				size_t to = q ? (size_t)(q - s) + 1 : n;
				for (; i < to; i++)
					line += s[i] == '\n';
				continue;
			}
			if (c == '=' && ++attrs > MJCF_MAX_ATTRIBUTES)
				return err_set(err, ERR_TOO_LARGE, "",
				    "%s:%ld: <%.*s>: more than %d attributes on one element (the "
				    "limit "
				    "of a model's elements)",
				    name, line, (int)(tag_len < 64 ? tag_len : 64), s + tag,
				    MJCF_MAX_ATTRIBUTES);
			if (n - i >= 5 && memcmp(s + i, "xmlns", 5) == 0 &&
			    strchr(" \t\r\n", s[i - 1]) &&
			    (n - i == 5 || strchr(":= \t\r\n", s[i + 5])))
				return err_set(err, ERR_BAD_VALUE, "",
				    "%s:%ld: <%.*s>: a namespace declaration (xmlns) is not MJCF",
				    name, line, (int)(tag_len < 64 ? tag_len : 64), s + tag);
			line += c == '\n';
			i++;
		}
	}
	return 0;
}

/* libxml2 goes on reading after a fatal error (a document it then refuses): stop there. */
static void stop_at_fatal(void *ctxt, xmlErrorPtr e)
{
	if (e && e->level == XML_ERR_FATAL)
		xmlStopParser(ctxt);
}

static int load_file(
    struct loader *l, const char *name, xmlNodePtr from, int level, struct err *err);

/* Read every <include> under node, depth first, in document order. */
static int load_includes(struct loader *l, xmlNodePtr node, int level, struct err *err)
{
	xmlNodePtr c;

	for (c = node->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (mjcf_is(c, "include")) {
			char *file = mjcf_attr(c, "file");
			int rc;
			if (!file)
				return mjcf_fail(c, err, "include needs a file attribute");
			if (c->children && xmlFirstElementChild(c)) {
				xmlFree(file);
				return mjcf_fail(c, err, "include has child elements");
			}
			if (level + 1 > MJCF_MAX_INCLUDE_DEPTH) {
				xmlFree(file);
				return mjcf_fail(
				    c, err, "includes nest deeper than %d", MJCF_MAX_INCLUDE_DEPTH);
			}
			rc = core_budget_poll() ? mjcf_stopped(err)
			                        : load_file(l, file, c, level + 1, err);
			xmlFree(file);
			if (rc != 0)
				return -1;
		} else if (load_includes(l, c, level, err) != 0) {
			return -1;
		}
	}
	return 0;
}

static int load_file(
    struct loader *l, const char *name, xmlNodePtr from, int level, struct err *err)
{
	struct mjcf_doc *doc = l->doc;
	struct mjcf_file *f, *grown;
	xmlParserCtxtPtr ctxt;
	size_t i;

	char normal[MJCF_MAX_NAME + 1];

	if (strlen(name) == 0 || strlen(name) > MJCF_MAX_NAME ||
	    mjcf_normal_name(name, normal, sizeof normal) != 0)
		return mjcf_fail(
		    from, err, "a file name of 1 to %d bytes is needed", MJCF_MAX_NAME);
	name = normal; /* b.xml, ./b.xml and a/../b.xml are one file */
	for (i = 0; i < doc->count; i++)
		if (strcmp(doc->files[i].name, name) == 0)
			return mjcf_fail(from, err, "file \"%s\" is already included", name);
	if (doc->count >= MJCF_MAX_FILES)
		return err_set(
		    err, ERR_TOO_LARGE, "", "more than %d files in one model", MJCF_MAX_FILES);
	grown = realloc(doc->files, (doc->count + 1) * sizeof *grown);
	if (!grown)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	doc->files = grown;
	f = &doc->files[doc->count];
	memset(f, 0, sizeof *f);
	f->from = from;
	f->name = strdup(name);
	if (!f->name)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	doc->count++;
	if (l->read(l->ctx, name, &f->text, &f->len, err) != 0) {
		if (from && err->code == ERR_NOT_FOUND)
			return mjcf_fail(from, err, "%s", err->message);
		return -1;
	}
	l->bytes += f->len;
	if (l->bytes > (size_t)MJCF_MAX_BYTES)
		return err_set(err, ERR_TOO_LARGE, "", "the model's files are over %ld bytes",
		    (long)MJCF_MAX_BYTES);
	if (f->len > (size_t)MJCF_MAX_BYTES)
		return err_set(
		    err, ERR_TOO_LARGE, "", "%s is over %ld bytes", name, (long)MJCF_MAX_BYTES);
	if (check_markup(f->text, f->len, name, err) != 0)
		return -1;
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	ctxt->sax->serror = stop_at_fatal; /* called with ctxt, its userData */
	/* no network, no entity substitution, no DTD loading: a document is only its bytes */
	f->doc = xmlCtxtReadMemory(ctxt, f->text, (int)f->len, name, NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	if (!f->doc) {
		xmlErrorPtr e = xmlCtxtGetLastError(ctxt);
		char msg[ERR_MESSAGE_MAX];
		snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not XML");
		msg[strcspn(msg, "\n")] = '\0';
		err_set(err, ERR_BAD_VALUE, "", "%s:%d: %s", name, e ? e->line : 0, msg);
		xmlFreeParserCtxt(ctxt);
		return -1;
	}
	xmlFreeParserCtxt(ctxt);
	if (f->doc->intSubset || f->doc->extSubset)
		return err_set(err, ERR_BAD_VALUE, "", "%s: a DTD is not accepted in MJCF", name);
	{
		xmlNodePtr root = xmlDocGetRootElement(f->doc);
		if (!root)
			return err_set(err, ERR_BAD_VALUE, "", "%s: no root element", name);
		if (!from && !mjcf_is(root, "mujoco"))
			return mjcf_fail(root, err, "the root element must be <mujoco>");
		if (check_depth(root, 1, err) != 0)
			return -1;
		if (!from)
			doc->root = root;
		return load_includes(l, root, level, err);
	}
}

int mjcf_load(const char *main, mjcf_reader read, void *ctx, struct mjcf_doc *doc, struct err *err)
{
	struct loader l = {read, ctx, doc, 0};

	pthread_once(&parser_once, parser_init);
	memset(doc, 0, sizeof *doc);
	if (load_file(&l, main, NULL, 0, err) != 0) {
		mjcf_free(doc);
		return -1;
	}
	return 0;
}

/* The root element of the file an <include> read. */
static xmlNodePtr included_root(const struct mjcf_doc *doc, xmlNodePtr include)
{
	size_t i;

	for (i = 1; i < doc->count; i++)
		if (doc->files[i].from == include)
			return xmlDocGetRootElement(doc->files[i].doc);
	return NULL;
}

/* Elements the calling thread's walks visited, to poll its budget every CORE_BUDGET_STEPS. */
static _Thread_local unsigned long walked;

xmlNodePtr mjcf_next(const struct mjcf_doc *doc, xmlNodePtr el, struct mjcf_iter *it)
{
	/* a walk of many elements (or many walks) ends early once the budget stopped: the
	 * caller's model is then incomplete, and mdl_compile() says so */
	if ((++walked & (CORE_BUDGET_STEPS - 1)) == 0 && core_budget_poll())
		return NULL;
	if (it->depth < 0) {
		it->depth = 0;
		it->stack[0] = el->children;
	}
	for (;;) {
		xmlNodePtr n = it->stack[it->depth];
		if (!n) {
			if (it->depth == 0)
				return NULL;
			it->depth--;
			continue;
		}
		it->stack[it->depth] = n->next;
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (mjcf_is(n, "include")) {
			xmlNodePtr root = included_root(doc, n);
			if (root && it->depth + 1 < MJCF_ITER_DEPTH) {
				it->depth++;
				it->stack[it->depth] = root->children;
			}
			continue;
		}
		return n;
	}
}
