/*
 * calask.c: base/questions.h over the scene request and the hold question.
 */
#include "service/calask.h"

#include "core/hold.h"
#include "service/hold.h"
#include "service/request.h"

static int ask_scene_parse(json_t *v, struct core_scene *scene, json_t **canonical, struct err *err)
{
	struct req_scene rs;

	if (req_scene_parse(v, "", 0, &rs, err) != 0)
		return -1;
	*scene = rs.scene;
	if (canonical) {
		*canonical = req_scene_json(&rs);
		if (!*canonical)
			return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	}
	return 0;
}

static int ask_hold_parse(json_t *v, struct core_hold *h, struct err *err)
{
	struct hold_request r;

	if (hold_parse_at(v, "", &r, err) != 0)
		return -1;
	*h = r.scene;
	return 0;
}

static json_t *ask_hold_json(const struct core_hold *h)
{
	const struct hold_request r = {*h};

	return hold_request_json(&r);
}

static int ask_hold_answer(const struct core_hold *h, json_t **answer, struct err *err)
{
	const struct hold_request r = {*h};

	return hold_run(&r, answer, err);
}

const struct questions calask_questions = {
    .scene_parse = ask_scene_parse,
    .hold_parse = ask_hold_parse,
    .hold_json = ask_hold_json,
    .hold_answer = ask_hold_answer,
};
