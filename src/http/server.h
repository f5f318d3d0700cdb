/*
 * server.h: the daemon's state and one request's, shared by the modules of the front
 * end that drive a request (http.c, respond.c, framing.c, jobs.c, routes.c). Internal:
 * handlers below the router see only struct http_request (respond.h).
 *
 * MHD runs an epoll event loop in a pool of internal threads; each request is handled
 * start to finish on one pool thread, but for a question computed in the compute pool
 * (jobs.h) while its connection is suspended.
 */
#ifndef CONTACTD_HTTP_SERVER_H
#define CONTACTD_HTTP_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <microhttpd.h>

#include "base/cache.h"
#include "base/error.h"
#include "http/admit.h"
#include "http/hotcache.h"
#include "http/http_config.h"
#include "http/metrics.h"
#include "http/request.h"
#include "service/service.h"
#include "store/store.h"

struct guard;
struct offload_call;
struct upkeep;
struct framing_copy;
struct http_stream;

struct http_server {
	struct http_config cfg;
	struct store *store;
	struct store_cache cache; /* the store's answer cache, as svc_ask() takes it */
	struct cache guarded;     /* the same, large answers left out (what svc_ask() gets) */
	struct svc_limits limits;
	struct metrics *metrics;
	struct MHD_Daemon *daemon;
	unsigned port;
	atomic_long in_flight; /* requests between their headers and their completion */
	atomic_bool stopping;
	struct admit *pool;       /* computes the questions that miss the caches */
	struct admit *store_pool; /* runs the calibration routes (offload.h) */
	struct upkeep *upkeep;
	struct guard *guard;      /* head deadline, lifetime, body rate, per-address limit */
	atomic_size_t body_bytes; /* request body memory all exchanges hold (body_held) */
	/* Guards the list of computing requests and each one's computing/abandoned/orphan. */
	pthread_mutex_t jobs_lock;
	struct exchange *jobs;
};

/*
 * A computation other than a question that a request starts (a calibration's audit), run
 * in the compute pool as a question is (jobs.h): off the HTTP threads, on its client's
 * share, under a question's CPU budget, stopped when its client leaves.
 */
struct http_task {
	/* On a compute thread: the answer's JSON text into *text (malloc'd, then the
	 * request's), or -1 with err. Its long loops poll the thread's budget (core/budget.h);
	 * what it answers once stopped is discarded for the budget's 503. */
	int (*compute)(void *ctx, char **text, struct err *err);
	/* Answers compute()'s error (NULL: http_respond_error()). */
	enum MHD_Result (*respond_error)(
	    struct MHD_Connection *conn, struct http_request *req, const struct err *e);
	void (*free_ctx)(void *ctx); /* called once ctx is done with (NULL: nothing to free) */
	void *ctx;
};

/* One request, from its headers to its completion (MHD's per-request pointer). */
struct exchange {
	struct http_request req; /* first member: handlers get &x->req, responders cast back */
	struct http_server *srv;
	struct timespec start;
	char *body;
	size_t body_len, body_cap;
	size_t body_seen; /* body bytes arrived, kept or not */
	size_t body_held; /* of srv->body_bytes, this request's (framing.c) */
	/* the largest body its route takes (svc_body_limit(): a batch's is larger) */
	size_t body_limit;
	/* the question its URL names, SVC_ENDPOINT_COUNT if none */
	enum svc_endpoint body_endpoint;
	/* the body was given up (http_framing_too_large() answers): over its limit, or, with
	 * body_no_room, no room for it under --body-memory-mb */
	int body_too_large, body_no_room;
	unsigned status; /* 0 until a response is queued */
	long long bytes; /* response body bytes, -1 when unknown (a stream) */
	enum metrics_cache cache;
	enum err_code code;
	const char *allow;            /* the Allow header of a 405 */
	const char *origin;           /* Origin header, NULL when absent */
	const char *preflight_method; /* Access-Control-Request-Method, NULL when absent */
	struct {
		char name[32], value[160];
	} extra[HTTP_EXTRA_HEADERS]; /* http_add_header() */
	int nextra;
	char client[64];
	/* A question computed in the pool while its connection is suspended (jobs.h). */
	struct MHD_Connection *conn;
	struct admit_job job;
	enum svc_endpoint endpoint;
	struct http_task task; /* the computation when not a question (task.compute set) */
	int format;            /* index of the negotiated media type */
	/* body is a model's MJCF, made a JSON request by its job (svc_model_xml()) */
	int xml_body;
	char *mujoco; /* an XML body's ?mujoco=, NULL when absent; owned, freed with the body */
	unsigned char hot[HOT_KEY_BYTES];
	char *computed;             /* the answer text, or NULL with job_err */
	struct http_stream *stream; /* a streamed sweep's rows to come (stream.h), until answered */
	struct err job_err;
	int computing;       /* queued or running in the pool (jobs_lock) */
	int resumed;         /* its job ended: on_request() answers it */
	int abandoned;       /* shutdown answered it 503 while it still ran (jobs_lock) */
	int orphan;          /* the request ended while it ran: the job frees it (jobs_lock) */
	int fd;              /* its connection's socket, peeked at for a close while it computes */
	const char *stopped; /* its computation was stopped: "client-gone", "over-budget" */
	struct exchange *prev_job, *next_job;
	/* A calibration route run in the store pool (offload.h), until answered; while its
	 * handler runs (deferring) its one response is kept, to be queued once the connection
	 * resumes */
	struct offload_call *offload;
	int deferring;
	struct MHD_Response *deferred_resp;
	unsigned deferred_status;
	/* The request head's checks (framing.c); the URI log callback allocates the exchange,
	 * before the first call of the request handler sets it up (started). */
	const char *version; /* "HTTP/1.1", ... */
	int nul_in_target;   /* the raw request target has %00, which the decoded one hides */
	struct framing_copy *copies; /* header values trimmed (http_framing_header()) */
	int started;
};

#endif
