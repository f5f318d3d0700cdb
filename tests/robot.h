/*
 * robot.h: a robot's side of contactd's calibration service, for tests that run the
 * real daemon (live.h): a bearer token made by `contactd token create`, requests that
 * carry it, and the first event of a calibration's event stream.
 *
 * Like live.h, these assert with ck_assert, from the test's main thread only.
 */
#ifndef CONTACTD_TESTS_ROBOT_H
#define CONTACTD_TESTS_ROBOT_H

#include <stddef.h>

#include "live.h"

/* "<id>.<secret>": 16 and 64 hex digits, and the NUL. */
#define ROBOT_TOKEN_MAX 82

/*
 * Run `contactd --db d->db token create robot` (the CONTACTD program) and put the token
 * it prints into token. The daemon may or may not be running on that database.
 */
void robot_token_create(
    const struct live_daemon *d, const char *robot, char token[ROBOT_TOKEN_MAX]);

/*
 * One request with "Authorization: Bearer <token>" (none when token is NULL) and a JSON
 * body of len bytes (none when body is NULL); the reply into r (free with
 * live_reply_free()).
 */
void robot_request(const struct live_daemon *d, const char *token, const char *method,
    const char *path, const char *body, size_t len, struct live_reply *r);

/* robot_request() with one more header line ("Name: value"; NULL: none). */
void robot_request_with(const struct live_daemon *d, const char *token, const char *header,
    const char *method, const char *path, const char *body, size_t len, struct live_reply *r);

/* One Server-Sent Event. */
struct robot_event {
	long status;            /* of the stream's response */
	char content_type[128]; /* its Content-Type */
	char name[32];          /* the "event:" field */
	long long id;           /* the "id:" field, -1 if none */
	char *data;             /* the "data:" field; robot_event_free() frees it */
};

/*
 * GET path with the token and read its stream up to the end of its first event (comment
 * lines such as keep-alives are skipped), then close the connection. Asserts that an
 * event came within LIVE_WAIT_S seconds.
 */
void robot_first_event(
    const struct live_daemon *d, const char *token, const char *path, struct robot_event *ev);

void robot_event_free(struct robot_event *ev);

#endif
