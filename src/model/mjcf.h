/*
 * mjcf.h: an MJCF document as MuJoCo's compiler reads it: a main file and the files it
 * <include>s, parsed with libxml2, walked with every <include> replaced by the children
 * of the included file's root element (as MuJoCo splices them), and read attribute by
 * attribute. No physics here: model.h compiles what this reads.
 *
 * Errors name the file, the line and the element ("scene.xml:12: <geom>: ..."), with
 * code bad_value (a 422 over HTTP) for a document MuJoCo would refuse or that this layer
 * does not read, too_large past the limits of model/knobs.h (MJCF_*).
 */
#ifndef CONTACTD_MODEL_MJCF_H
#define CONTACTD_MODEL_MJCF_H

#include <stddef.h>
#include <libxml/tree.h>

#include "base/error.h"

/* Reads the file `name` (as written in an <include>, or the main file's name) into a
 * malloc'ed buffer *text of *len bytes the loader owns afterwards; 0, or -1 with err. */
typedef int (*mjcf_reader)(void *ctx, const char *name, char **text, size_t *len, struct err *err);

/* includes nest at most this deep in one walk (MJCF_MAX_INCLUDE_DEPTH is smaller) */
#define MJCF_ITER_DEPTH 16

struct mjcf_file {
	char *name;      /* as the main file or an <include file=...> names it */
	xmlNodePtr from; /* the <include> element that read it; NULL for the main file */
	char *text;      /* its bytes, as read */
	size_t len;
	xmlDocPtr doc;
};

/* A loaded document: its files in the order they were first read (the main file
 * first). */
struct mjcf_doc {
	struct mjcf_file *files;
	size_t count;
	xmlNodePtr root; /* the main file's <mujoco> element */
};

/*
 * Load the main file `main` and, recursively, every file its <include> elements name,
 * through read(ctx, ...) with each name as mjcf_normal_name() writes it (so a file is
 * included once however its name is spelt). Limits: MJCF_MAX_BYTES over all files,
 * MJCF_MAX_FILES files, MJCF_MAX_INCLUDE_DEPTH nested includes, MJCF_MAX_DEPTH nested
 * elements, MJCF_MAX_ATTRIBUTES attributes on one element (too_large, counted before
 * libxml2 reads the file); a file included twice, a DTD, a namespace declaration and XML
 * errors are refused (bad_value naming file and line). Polls the calling thread's budget
 * (core/budget.h) between files: unavailable once it stopped. On success *doc is filled and owned
 * by the caller (mjcf_free); on failure nothing is left allocated. Thread-safe.
 */
int mjcf_load(const char *main, mjcf_reader read, void *ctx, struct mjcf_doc *doc, struct err *err);

/* A reader of files on disk: ctx is the directory (a NUL-terminated path) names are
 * relative to, as MuJoCo reads includes relative to the main file's directory; an
 * absolute name is read as is. Refuses files over MJCF_MAX_BYTES (too_large); a missing
 * or unreadable file is not_found naming it. */
int mjcf_disk_reader(void *ctx, const char *name, char **text, size_t *len, struct err *err);

/* The file name `name` as one file is named however it is written: lexically, without
 * "." components, empty components and a component followed by ".." ("./a/../b.xml" is
 * "b.xml"); a leading "/" and leading ".."s are kept. Written to out (size bytes); -1 when
 * it does not fit or no file is left ("", ".", "a/.."). */
int mjcf_normal_name(const char *name, char *out, size_t size);

/* Fill err (unavailable: a stopped computation's answer is its budget's, core/budget.h)
 * once the calling thread's budget stopped a load, a compile or a pairing; -1. */
int mjcf_stopped(struct err *err);

/* Free what mjcf_load filled; doc may be zeroed. */
void mjcf_free(struct mjcf_doc *doc);

/*
 * The element children of el in MuJoCo's order: an <include> stands for the children of
 * the included file's root. Start with it->depth = -1; each call returns the next element (or NULL
 * at the end) and keeps its place in *it. doc is the loaded document the includes were read into.
 * Polls the calling thread's budget every CORE_BUDGET_STEPS elements (over all walks), and
 * returns NULL once it stopped.
 */
struct mjcf_iter {
	xmlNodePtr stack[MJCF_ITER_DEPTH]; /* the next node to visit at each include level */
	int depth;                         /* -1: not started */
};
xmlNodePtr mjcf_next(const struct mjcf_doc *doc, xmlNodePtr el, struct mjcf_iter *it);

/* 1 when el's name is `name`. */
int mjcf_is(xmlNodePtr el, const char *name);

/* Fill err (bad_value) naming el's file, line and element, then the message; -1. */
int mjcf_fail(xmlNodePtr el, struct err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The attribute `name` of el, a static-free copy the caller frees (xmlFree); NULL when
 * absent. */
char *mjcf_attr(xmlNodePtr el, const char *name);

/* Read up to max reals of attribute name into out (entries past the count given keep
 * their values, as MuJoCo's reader leaves them). exact: exactly max required. Returns
 * the count read (0 when absent), -1 with err on a malformed or non-finite number, or one
 * MuJoCo does not read as a decimal number ("0x10", "inf", "nan"). */
int mjcf_reals(xmlNodePtr el, const char *name, double *out, int max, int exact, struct err *err);

/* An integer attribute; 0 absent (out untouched), 1 read, -1 with err. */
int mjcf_int(xmlNodePtr el, const char *name, int *out, struct err *err);

/* A keyword attribute: the index of its value in words (NULL-terminated); 0 absent, 1
 * read (*out set), -1 with err naming the allowed words. */
int mjcf_word(
    xmlNodePtr el, const char *name, const char *const words[], int *out, struct err *err);

#endif
