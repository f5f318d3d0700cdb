/*
 * calstore.c: the records of the calibration store interface (see calstore.h).
 */
#include "base/calstore.h"

#include <stdlib.h>
#include <string.h>

const char *const calstore_kinds[CALSTORE_KINDS] = {"drop", "press", "trajectory"};
const char *const calstore_lists[CALSTORE_KINDS] = {"drops", "presses", "trajectories"};

void calstore_fit_clear(struct calstore_fit *f)
{
	free(f->text);
	memset(f, 0, sizeof *f);
}

void calstore_receipt_clear(struct calstore_receipt *r)
{
	json_decref(r->ids);
	memset(r, 0, sizeof *r);
}

int calstore_kind_index(const char *kind)
{
	int k;

	for (k = 0; k < CALSTORE_KINDS; k++)
		if (strcmp(kind, calstore_kinds[k]) == 0)
			return k;
	return -1;
}

json_t *calstore_lists_new(void)
{
	return json_pack(
	    "{s:[], s:[], s:[]}", calstore_lists[0], calstore_lists[1], calstore_lists[2]);
}

void calstore_claim_clear(struct calstore_claim *c)
{
	json_decref(c->all);
	memset(c, 0, sizeof *c);
}

int calstore_upload_each(const json_t *upload, calstore_add_fn add, struct calstore_write *w,
    json_t **ids, struct err *err)
{
	int k;

	*ids = calstore_lists_new();
	if (!*ids)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	for (k = 0; k < CALSTORE_KINDS; k++) {
		json_t *list = json_object_get(*ids, calstore_lists[k]), *m;
		size_t i;

		json_array_foreach (json_object_get(upload, calstore_lists[k]), i, m) {
			char *text =
			    json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
			long long id;
			int rc = text ? add(w, k, text, &id, err)
			              : err_set(err, ERR_INTERNAL, NULL, "out of memory");

			free(text);
			if (rc != 0)
				return -1;
			if (json_array_append_new(list, json_integer(id)) != 0)
				return err_set(err, ERR_INTERNAL, NULL, "out of memory");
		}
	}
	return 0;
}
