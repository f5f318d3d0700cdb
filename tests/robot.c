/*
 * robot.c: the test robot of robot.h.
 */
#include <check.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot.h"

void robot_token_create(const struct live_daemon *d, const char *robot, char token[ROBOT_TOKEN_MAX])
{
	const char *argv[] = {CONTACTD, "--db", d->db, "token", "create", robot, NULL};
	char out[256];
	size_t len = 0;
	ssize_t got;
	int fds[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fds[0]);
		close(fds[1]);
		execv(CONTACTD, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while (len < sizeof out - 1 && (got = read(fds[0], out + len, sizeof out - 1 - len)) > 0)
		len += (size_t)got;
	close(fds[0]);
	out[len] = '\0';
	out[strcspn(out, "\n")] = '\0';
	/* the first line, "token: ID.SECRET", labelled for people */
	if (strncmp(out, "token: ", 7) == 0)
		memmove(out, out + 7, strlen(out + 7) + 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "contactd token create %s failed", robot);
	ck_assert_msg(
	    strlen(out) == ROBOT_TOKEN_MAX - 1 && out[16] == '.', "not a token: \"%s\"", out);
	memcpy(token, out, ROBOT_TOKEN_MAX);
}

void robot_request_with(const struct live_daemon *d, const char *token, const char *header,
    const char *method, const char *path, const char *body, size_t len, struct live_reply *r)
{
	char auth[ROBOT_TOKEN_MAX + 32];
	const char *headers[4] = {"Content-Type: application/json", NULL, NULL, NULL};
	int n = 1;

	if (token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		headers[n++] = auth;
	}
	if (header)
		headers[n++] = header;
	live_request(d, method, path, headers, body, body ? len : 0, 0, r);
}

void robot_request(const struct live_daemon *d, const char *token, const char *method,
    const char *path, const char *body, size_t len, struct live_reply *r)
{
	robot_request_with(d, token, NULL, method, path, body, len, r);
}

/* The stream read so far, and the first event once it is complete. */
struct stream {
	char *text;
	size_t len;
	struct robot_event *ev;
	int done;
};

/* The value of field line "name: value" (one space after the colon is optional), or NULL. */
static const char *field_value(const char *line, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(line, name, n) != 0 || line[n] != ':')
		return NULL;
	return line[n + 1] == ' ' ? line + n + 2 : line + n + 1;
}

/* Parse one event block (its lines, without the blank line that ends it) into s->ev. */
static void parse_event(struct stream *s, char *block)
{
	char *line, *save = NULL;
	const char *v;
	size_t data_len = 0;

	for (line = strtok_r(block, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n;
		char *grown;

		if (line[0] == ':')
			continue; /* a comment: the keep-alive */
		if ((v = field_value(line, "event"))) {
			snprintf(s->ev->name, sizeof s->ev->name, "%s", v);
		} else if ((v = field_value(line, "id"))) {
			s->ev->id = atoll(v);
		} else if ((v = field_value(line, "data"))) {
			/* several data lines join with newlines, as in the SSE specification */
			n = strlen(v);
			grown = realloc(s->ev->data, data_len + n + 2);
			ck_assert_ptr_nonnull(grown);
			s->ev->data = grown;
			if (data_len)
				s->ev->data[data_len++] = '\n';
			memcpy(s->ev->data + data_len, v, n + 1);
			data_len += n;
		}
	}
	s->done = s->ev->name[0] || s->ev->data;
}

static size_t on_stream(char *data, size_t size, size_t n, void *p)
{
	struct stream *s = p;
	char *grown = realloc(s->text, s->len + size * n + 1), *end;

	if (!grown)
		return 0;
	s->text = grown;
	memcpy(s->text + s->len, data, size * n);
	s->len += size * n;
	s->text[s->len] = '\0';
	/* each complete block ends with a blank line; one of comments alone is skipped */
	while (!s->done && (end = strstr(s->text, "\n\n"))) {
		size_t used = (size_t)(end - s->text) + 2;

		*end = '\0';
		parse_event(s, s->text);
		memmove(s->text, s->text + used, s->len - used + 1);
		s->len -= used;
	}
	return s->done ? 0 : size * n; /* 0 ends the transfer: the event is in */
}

void robot_first_event(
    const struct live_daemon *d, const char *token, const char *path, struct robot_event *ev)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *list = NULL;
	struct stream s = {NULL, 0, ev, 0};
	char url[512], auth[ROBOT_TOKEN_MAX + 32];
	const char *type = NULL;
	CURLcode rc;

	memset(ev, 0, sizeof *ev);
	ev->id = -1;
	ck_assert_ptr_nonnull(curl);
	snprintf(url, sizeof url, "http://127.0.0.1:%u%s", d->port, path);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
	list = curl_slist_append(list, auth);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_stream);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)LIVE_WAIT_S);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &ev->status);
	curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
	snprintf(ev->content_type, sizeof ev->content_type, "%s", type ? type : "");
	curl_slist_free_all(list);
	curl_easy_cleanup(curl);
	ck_assert_msg(s.done, "%s: no event (%s, status %ld): %s", path, curl_easy_strerror(rc),
	    ev->status, s.text ? s.text : "");
	free(s.text);
}

void robot_event_free(struct robot_event *ev)
{
	free(ev->data);
	ev->data = NULL;
}
