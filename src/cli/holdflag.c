/*
 * holdflag.c: `contact hold`'s grasp flags (holdflag.h), each one field of the request.
 */
#include "cli/holdflag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/jtext.h"

/* How a flag's value is written into the request. */
enum holdflag_form {
	FORM_NAME,    /* a string */
	FORM_NUMBER,  /* one number */
	FORM_NUMBERS, /* numbers separated by commas: an array (one alone: a number) */
	FORM_PAIR,    /* two numbers separated by a comma: an array */
};

/* One flag: its name, the members of its field's path from the request's root, its
 * form and its help. */
struct holdflag {
	const char *name;
	const char *path[3];
	enum holdflag_form form;
	const char *help;
};

static const struct holdflag flags[] = {
    {"shape", {"object", "shape", NULL}, FORM_NAME, "sphere | capsule | box"},
    {"size", {"object", "size", NULL}, FORM_NUMBERS,
        "the object's, m: R (sphere), R,HALF_LENGTH (capsule), HX,HY,HZ (box)"},
    {"damping", {"pad", "joint", "damping"}, FORM_NUMBER, "each pad joint's damping, N s/m"},
    {"armature", {"pad", "joint", "armature"}, FORM_NUMBER, "each pad joint's armature, kg"},
    {"frictionloss", {"pad", "joint", "frictionloss"}, FORM_NUMBER,
        "each pad joint's frictionloss, N"},
    {"actuator", {"pad", "actuator", "type"}, FORM_NAME,
        "motor (pushes with grip_force) | position (a servo)"},
    {"kp", {"pad", "actuator", "kp"}, FORM_NUMBER, "the servo's stiffness, N/m"},
    {"kv", {"pad", "actuator", "kv"}, FORM_NUMBER, "the servo's damping, N s/m"},
    {"squeeze", {"pad", "actuator", "squeeze"}, FORM_NUMBER,
        "the servo's ctrl, m past the touching pose"},
    {"forcerange", {"pad", "actuator", "forcerange"}, FORM_PAIR,
        "LO,HI: the servo's force clamped to it, N"},
};

#define NFLAGS (sizeof flags / sizeof flags[0])

_Static_assert(NFLAGS == HOLDFLAG_COUNT, "holdflag.h's count is the table's");

const struct option holdflag_options[HOLDFLAG_COUNT] = {
    {"shape", required_argument, NULL, HOLDFLAG_FIRST + 0},
    {"size", required_argument, NULL, HOLDFLAG_FIRST + 1},
    {"damping", required_argument, NULL, HOLDFLAG_FIRST + 2},
    {"armature", required_argument, NULL, HOLDFLAG_FIRST + 3},
    {"frictionloss", required_argument, NULL, HOLDFLAG_FIRST + 4},
    {"actuator", required_argument, NULL, HOLDFLAG_FIRST + 5},
    {"kp", required_argument, NULL, HOLDFLAG_FIRST + 6},
    {"kv", required_argument, NULL, HOLDFLAG_FIRST + 7},
    {"squeeze", required_argument, NULL, HOLDFLAG_FIRST + 8},
    {"forcerange", required_argument, NULL, HOLDFLAG_FIRST + 9},
};

int holdflag_take(struct holdflag_set *set, int opt, const char *arg)
{
	if (opt < HOLDFLAG_FIRST || opt >= HOLDFLAG_FIRST + (int)NFLAGS)
		return -1;
	set->value[opt - HOLDFLAG_FIRST] = arg;
	set->given = 1;
	return 0;
}

void holdflag_usage(FILE *f)
{
	size_t i;
	char head[32];

	for (i = 0; i < NFLAGS; i++) {
		snprintf(head, sizeof head, "--%s", flags[i].name);
		fprintf(f, "  %-15s %s\n", head, flags[i].help);
	}
}

/* The comma-separated numbers of text as a JSON value (one alone: a number when one is
 * allowed), or NULL when text is not of that form. want: the count (0: 1 to 3). */
static json_t *numbers_value(const char *text, size_t want)
{
	json_t *array = json_array();
	const char *at = text;
	char *end;
	double x;

	while (array) {
		x = strtod(at, &end);
		if (end == at || !isfinite(x) || (*end != ',' && *end != '\0') ||
		    json_array_append_new(array, json_real(x)) != 0)
			break;
		if (*end == '\0') {
			size_t n = json_array_size(array);

			if (want ? n != want : n > 3)
				break;
			if (want == 0 && n == 1) {
				json_t *one = json_incref(json_array_get(array, 0));

				json_decref(array);
				return one;
			}
			return array;
		}
		at = end + 1;
	}
	json_decref(array);
	return NULL;
}

/* The JSON value flag f's text stands for; NULL when it is not of f's form. */
static json_t *flag_value(const struct holdflag *f, const char *text)
{
	switch (f->form) {
	case FORM_NAME:
		return json_string(text);
	case FORM_NUMBER: {
		json_t *one = numbers_value(text, 1), *x;

		x = one ? json_incref(json_array_get(one, 0)) : NULL;
		json_decref(one);
		return x;
	}
	case FORM_NUMBERS:
		return numbers_value(text, 0);
	case FORM_PAIR:
		return numbers_value(text, 2);
	}
	return NULL;
}

/* Set value (stolen) at f's path in root, making the objects on the way; -1 when a
 * member on the way is not an object (the service then says what it is). */
static int set_path(json_t *root, const struct holdflag *f, json_t *value)
{
	json_t *at = root, *next;
	size_t i;

	for (i = 0; i + 1 < 3 && f->path[i + 1]; i++) {
		next = json_object_get(at, f->path[i]);
		if (!next) {
			next = json_object();
			if (json_object_set_new(at, f->path[i], next) != 0)
				break;
		}
		if (!json_is_object(next))
			break;
		at = next;
	}
	if (i + 1 < 3 && f->path[i + 1]) {
		json_decref(value);
		return -1;
	}
	return json_object_set_new(at, f->path[i], value);
}

char *holdflag_apply(
    const struct holdflag_set *set, const char *text, size_t len, char *why, size_t why_size)
{
	json_error_t jerr;
	json_t *request = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *value;
	char *out = NULL;
	size_t i;

	if (!json_is_object(request)) {
		snprintf(why, why_size, "the request is not a JSON object: %s", jerr.text);
		goto out;
	}
	for (i = 0; i < NFLAGS; i++) {
		if (!set->value[i])
			continue;
		value = flag_value(&flags[i], set->value[i]);
		if (!value) {
			snprintf(why, why_size, "--%s takes %s, not \"%s\"", flags[i].name,
			    flags[i].form == FORM_PAIR ? "two numbers LO,HI"
			        : flags[i].form == FORM_NUMBERS
			        ? "1 to 3 numbers separated by commas"
			        : "a number",
			    set->value[i]);
			goto out;
		}
		if (set_path(request, &flags[i], value) != 0) {
			snprintf(why, why_size, "--%s: the request's /%s is not an object",
			    flags[i].name, flags[i].path[0]);
			goto out;
		}
	}
	out = jtext_line(request);
	if (!out)
		snprintf(why, why_size, "out of memory");
out:
	json_decref(request);
	return out;
}
