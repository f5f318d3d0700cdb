/*
 * live.c: the test harness of live.h.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live.h"

const char *const live_json_headers[] = {"Content-Type: application/json", NULL};

void live_sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&t, NULL);
}

double live_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

char *live_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			text = realloc(text, cap);
			ck_assert_ptr_nonnull(text);
		}
		got = fread(text + n, 1, 4096, f);
		n += got;
	} while (got > 0);
	fclose(f);
	text[n] = '\0';
	if (len)
		*len = n;
	return text;
}

void live_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	ck_assert_int_eq(fclose(f), 0);
}

int live_log_count(const struct live_daemon *d, const char *needle)
{
	char *text = live_read_file(d->log, NULL);
	const char *p;
	int n = 0;

	for (p = text; p && (p = strstr(p, needle)); p++)
		n++;
	free(text);
	return n;
}

void live_init(struct live_daemon *d)
{
	const char *tmp = getenv("TMPDIR");

	memset(d, 0, sizeof *d);
	snprintf(d->dir, sizeof d->dir, "%s/contactd-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(d->dir));
	snprintf(d->db, sizeof d->db, "%s/cache.db", d->dir);
	snprintf(d->log, sizeof d->log, "%s/contactd.log", d->dir);
}

void live_cleanup(struct live_daemon *d)
{
	char cmd[400];
	int status = d->pid > 0 ? live_stop(d) : 0;
	char *log = status != 0 ? live_read_file(d->log, NULL) : NULL;

	/* A daemon that does not exit 0 (a sanitizer's report, say) fails the test. */
	if (log)
		fprintf(stderr, "contactd's log:\n%s\n", log);
	free(log);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", d->dir);
	ck_assert_msg(status == 0, "contactd exited with status %d", status);
}

/*
 * The port of the daemon's "listening on ADDR:PORT, ..." line after byte offset from
 * of its log (earlier runs of the daemon log there too); 0 until it is logged.
 */
static unsigned logged_port(const struct live_daemon *d, size_t from)
{
	size_t len = 0;
	char *text = live_read_file(d->log, &len);
	const char *line = text && len > from ? strstr(text + from, "listening on ") : NULL;
	const char *colon;
	unsigned port = 0;

	if (line && strchr(line, ',')) {
		/* The last colon before the comma: an IPv6 address has more. */
		for (colon = strchr(line, ','); colon > line && *colon != ':'; colon--)
			;
		port = (unsigned)atoi(colon + 1);
	}
	free(text);
	return port;
}

void live_start(struct live_daemon *d, ...)
{
	const char *argv[32] = {CONTACTD, "--port", "0", "--db", d->db};
	size_t argc = 5, log_start = 0;
	double deadline = live_now() + LIVE_WAIT_S;
	char *previous = live_read_file(d->log, &log_start);
	va_list ap;

	va_start(ap, d);
	while (argc < 31 && (argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	free(previous);
	d->port = 0;
	d->pid = fork();
	ck_assert_int_ge(d->pid, 0);
	if (d->pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(127);
		execv(CONTACTD, (char *const *)argv);
		_exit(127);
	}
	while (!(d->port = logged_port(d, log_start)) && live_now() < deadline) {
		ck_assert_msg(waitpid(d->pid, NULL, WNOHANG) == 0, "contactd exited at start");
		live_sleep_ms(20);
	}
	ck_assert_msg(d->port > 0, "contactd did not start listening");
}

int live_stop(struct live_daemon *d)
{
	double deadline = live_now() + LIVE_WAIT_S;
	int status;
	pid_t got;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, SIGTERM);
	while ((got = waitpid(d->pid, &status, WNOHANG)) == 0 && live_now() < deadline)
		live_sleep_ms(10);
	if (got == 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &status, 0);
	}
	d->pid = 0;
	ck_assert_msg(got != 0, "contactd did not stop within %d s of SIGTERM", LIVE_WAIT_S);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static size_t on_body(char *data, size_t size, size_t n, void *p)
{
	struct live_reply *r = p;
	char *grown = realloc(r->body, r->len + size * n + 1);

	if (!grown)
		return 0; /* makes curl fail the transfer */
	r->body = grown;
	memcpy(r->body + r->len, data, size * n);
	r->len += size * n;
	r->body[r->len] = '\0';
	return size * n;
}

/* Copy the value of header line "Name: value\r\n" into out if its name is name. */
static void grab_header(const char *line, size_t n, const char *name, char *out, size_t size)
{
	size_t k = strlen(name), v;

	if (n <= k + 1 || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return;
	line += k + 1;
	n -= k + 1;
	while (n && *line == ' ') {
		line++;
		n--;
	}
	for (v = n; v && (line[v - 1] == '\r' || line[v - 1] == '\n'); v--)
		;
	if (v >= size)
		v = size - 1;
	memcpy(out, line, v);
	out[v] = '\0';
}

static size_t on_header(char *line, size_t size, size_t n, void *p)
{
	struct live_reply *r = p;
	size_t used;

	grab_header(line, size * n, "X-Cache", r->cache, sizeof r->cache);
	grab_header(line, size * n, "Content-Type", r->content_type, sizeof r->content_type);
	grab_header(line, size * n, "Allow", r->allow, sizeof r->allow);
	used = strlen(r->head);
	if (used + size * n < sizeof r->head) {
		memcpy(r->head + used, line, size * n);
		r->head[used + size * n] = '\0';
	}
	return size * n;
}

int live_header(const struct live_reply *r, const char *name, char *out, size_t size)
{
	const char *line = r->head;

	*out = '\0';
	while (*line) {
		size_t n = strcspn(line, "\n");

		grab_header(line, n, name, out, size);
		if (*out)
			return 1;
		line += n + (line[n] == '\n');
	}
	return 0;
}

struct upload {
	const char *data;
	size_t len, pos;
};

static size_t on_read(char *buf, size_t size, size_t n, void *p)
{
	struct upload *u = p;
	size_t k = size * n < u->len - u->pos ? size * n : u->len - u->pos;

	memcpy(buf, u->data + u->pos, k);
	u->pos += k;
	return k;
}

int live_try_request(const struct live_daemon *d, const char *method, const char *path,
    const char *const headers[], const char *body, size_t len, int chunked, struct live_reply *r)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *list = NULL;
	struct upload up = {body, len, 0};
	char url[512];
	CURLcode rc = CURLE_FAILED_INIT;
	size_t i;

	memset(r, 0, sizeof *r);
	if (!curl)
		goto out;
	snprintf(url, sizeof url, "http://127.0.0.1:%u%s", d->port, path);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)LIVE_WAIT_S);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
	list = curl_slist_append(list, "Expect:"); /* no 100-continue round trip */
	for (i = 0; headers && headers[i]; i++)
		list = curl_slist_append(list, headers[i]);
	if (body && chunked) {
		list = curl_slist_append(list, "Transfer-Encoding: chunked");
		curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(curl, CURLOPT_READDATA, &up);
	} else if (body) {
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
out:
	if (!r->body)
		r->body = calloc(1, 1);
	curl_slist_free_all(list);
	curl_easy_cleanup(curl);
	return rc == CURLE_OK && r->body ? 0 : -1;
}

void live_request(const struct live_daemon *d, const char *method, const char *path,
    const char *const headers[], const char *body, size_t len, int chunked, struct live_reply *r)
{
	int rc = live_try_request(d, method, path, headers, body, len, chunked, r);

	ck_assert_msg(rc == 0, "%s %s: no reply", method, path);
}

void live_post(
    const struct live_daemon *d, const char *path, const char *body, struct live_reply *r)
{
	live_request(d, "POST", path, live_json_headers, body, strlen(body), 0, r);
}

void live_get(const struct live_daemon *d, const char *path, struct live_reply *r)
{
	live_request(d, "GET", path, NULL, NULL, 0, 0, r);
}

void live_reply_free(struct live_reply *r)
{
	free(r->body);
	r->body = NULL;
}

json_t *live_json(const struct live_reply *r)
{
	json_error_t e;
	json_t *v = json_loadb(r->body, r->len, 0, &e);

	ck_assert_msg(v != NULL, "not JSON (%s): %s", e.text, r->body);
	return v;
}

void live_assert_error(const struct live_reply *r, long status, const char *code, const char *path)
{
	json_t *v = live_json(r);

	ck_assert_msg(r->status == status, "status %ld, want %ld: %s", r->status, status, r->body);
	ck_assert_str_eq(r->content_type, "application/json");
	ck_assert_int_eq(json_object_size(v), 3);
	ck_assert_str_eq(json_string_value(json_object_get(v, "error")), code);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(v, "message")));
	ck_assert_ptr_nonnull(json_string_value(json_object_get(v, "path")));
	if (path)
		ck_assert_str_eq(json_string_value(json_object_get(v, "path")), path);
	json_decref(v);
}

int live_connect(const struct live_daemon *d)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

int live_post_raw(
    const struct live_daemon *d, const char *path, const char *extra, const char *body)
{
	char head[1024];
	int fd = live_connect(d);
	size_t n = strlen(body);

	snprintf(head, sizeof head,
	    "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s"
	    "Content-Length: %zu\r\n\r\n",
	    path, extra, n);
	ck_assert_int_eq(send(fd, head, strlen(head), MSG_NOSIGNAL), (ssize_t)strlen(head));
	ck_assert_int_eq(send(fd, body, n, MSG_NOSIGNAL), (ssize_t)n);
	return fd;
}

/* Read a response from fd into buf: its headers, and its body too unless headers_only. */
static int read_reply(int fd, char *buf, size_t size, int headers_only)
{
	double deadline = live_now() + LIVE_WAIT_S;
	size_t n = 0;
	const char *end, *length;

	buf[0] = '\0';
	while (live_now() < deadline && n + 1 < size) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t got;

		if (poll(&p, 1, 100) <= 0)
			continue;
		got = recv(fd, buf + n, size - n - 1, 0);
		if (got <= 0)
			break;
		n += (size_t)got;
		buf[n] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (end && headers_only)
			return atoi(buf + 9);
		length = strcasestr(buf, "Content-Length: ");
		if (end && length && n >= (size_t)(end + 4 - buf) + (size_t)atol(length + 16))
			return atoi(buf + 9);
	}
	return 0;
}

int live_read_response(int fd, char *buf, size_t size)
{
	return read_reply(fd, buf, size, 0);
}

int live_read_headers(int fd, char *buf, size_t size)
{
	return read_reply(fd, buf, size, 1);
}

int live_closed_by_peer(int fd)
{
	double deadline = live_now() + LIVE_WAIT_S;
	char buf[512];

	while (live_now() < deadline) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof buf, 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 1;
	}
	return 0;
}

double live_metric(const struct live_daemon *d, const char *name)
{
	struct live_reply r;
	char needle[128];
	const char *at;
	double v = -1;

	snprintf(needle, sizeof needle, "\n%s ", name);
	live_get(d, "/metrics", &r);
	ck_assert_int_eq(r.status, 200);
	at = strstr(r.body, needle);
	if (at)
		v = atof(at + strlen(needle));
	live_reply_free(&r);
	return v;
}

void live_wait_metric(const struct live_daemon *d, const char *name, double at_least)
{
	double deadline = live_now() + LIVE_WAIT_S;

	while (live_metric(d, name) < at_least) {
		ck_assert_msg(live_now() < deadline, "%s never reached %g", name, at_least);
		live_sleep_ms(10);
	}
}

int live_metric_becomes(const struct live_daemon *d, const char *name, double value)
{
	double deadline = live_now() + LIVE_WAIT_S;

	while (live_metric(d, name) != value) {
		if (live_now() > deadline)
			return 0;
		live_sleep_ms(10);
	}
	return 1;
}

char *live_long_sweep(int points, double height)
{
	return live_long_sweep_cone(points, height, "pyramidal");
}

char *live_long_sweep_cone(int points, double height, const char *cone)
{
	char *body = NULL, values[512] = "";
	int i, n;

	for (i = 0; i < points; i++) {
		size_t len = strlen(values);

		snprintf(values + len, sizeof values - len, "%s%g", i ? ", " : "", 0.05 + 0.01 * i);
	}
	n = asprintf(&body,
	    "{\"query\": \"drop\", \"base\": {\"duration\": 500, \"height\": %g,"
	    " \"option\": {\"timestep\": 0.0001, \"cone\": \"%s\"}}, \"vary\": [{\"path\": "
	    "\"/body/size\","
	    " \"values\": [%s]}]}",
	    height, cone, values);
	ck_assert_int_gt(n, 0);
	return body;
}
