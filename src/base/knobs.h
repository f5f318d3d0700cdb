/*
 * knobs.h: the knobs the layers above base share: JSON's nesting limit, the first
 * allocation of a request body, and the calibration store interface's timing contract
 * (base/calstore.h), which the store engines implement and the calibration layer relies on.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_BASE_KNOBS_H
#define CONTACTD_BASE_KNOBS_H

/* Levels of nesting a request's JSON may have: the deepest the API defines (an eval
 * batch's call's arguments, a sweep's base's geoms) nest about 5; a bound keeps a hostile
 * document from recursing the parser deep. */
#define LIMIT_MAX_JSON_DEPTH 16

/* bytes: the first allocation of a request body, grown by doubling (most bodies fit) */
#define BODY_CHUNK_BYTES 4096

/* A token's last use is recorded to this many seconds (one write per token per interval). */
#define CALIB_TOKEN_USE_GRANULARITY_S 60

/* A store shared by several nodes (PostgreSQL): a claimed fit holds a lease this long,
 * renewed every CALIB_FIT_LEASE_S / 4 while its node computes it; every CALIB_FIT_ADOPT_S
 * each node looks for fits whose lease lapsed (their node died) and pending fits nobody
 * claimed, so a dead node's fit is taken over within CALIB_FIT_LEASE_S + CALIB_FIT_ADOPT_S
 * (12 s; the promise is 15 s). */
#define CALIB_FIT_LEASE_S 10
#define CALIB_FIT_ADOPT_S 2
#endif
