-- 001: the calibration store on PostgreSQL (contactd --store postgresql://...): the
-- tables of schema/002_calibration.sql and schema/003_calibration_async.sql with the same
-- meaning, plus the lease of a running fit, so that several nodes share one store.
-- Applied by pgstore_open() inside a transaction under an advisory lock: no BEGIN/COMMIT.
-- Times are Unix seconds, as in the SQLite store; hashes and secrets are bytea.
CREATE TABLE robots (
	id bigserial PRIMARY KEY,
	name text NOT NULL UNIQUE,
	lab text, -- a lab's viewer tokens see all its robots
	created_at bigint NOT NULL
);
-- A robot's token (role 'robot') or a viewer's of one robot (robot_id) or of a lab (lab).
CREATE TABLE tokens (
	id text PRIMARY KEY, -- the token's public half; the secret is never stored
	role text NOT NULL DEFAULT 'robot' CHECK (role IN ('robot', 'viewer')),
	robot_id bigint REFERENCES robots (id),
	lab text,
	hash bytea NOT NULL CHECK (length(hash) = 32), -- BLAKE2b-256 of the secret
	created_at bigint NOT NULL,
	revoked_at bigint,   -- NULL while valid
	expires_at bigint,   -- NULL: never
	last_used_at bigint, -- to the minute
	replaces text,       -- the token this one rotated
	CHECK ((robot_id IS NULL) <> (lab IS NULL)),
	CHECK (role = 'viewer' OR robot_id IS NOT NULL)
);
CREATE INDEX tokens_by_replaces ON tokens (replaces);
CREATE TABLE calibrations (
	id bigserial PRIMARY KEY,
	robot_id bigint NOT NULL REFERENCES robots (id),
	setup text NOT NULL, -- canonical JSON {"geom", "object", "option", ...}
	created_at bigint NOT NULL
);
CREATE INDEX calibrations_by_robot ON calibrations (robot_id, id);
-- An upload: the measurements of one POST, deleted together by DELETE .../uploads/{id}.
CREATE TABLE uploads (
	id bigserial PRIMARY KEY,
	calibration_id bigint NOT NULL REFERENCES calibrations (id),
	created_at bigint NOT NULL
);
CREATE INDEX uploads_by_calibration ON uploads (calibration_id, id);
CREATE TABLE measurements (
	id bigserial PRIMARY KEY,
	calibration_id bigint NOT NULL REFERENCES calibrations (id),
	kind text NOT NULL CHECK (kind IN ('drop', 'press', 'trajectory')),
	body text NOT NULL, -- canonical JSON of one measurement, as validated
	created_at bigint NOT NULL,
	upload_id bigint REFERENCES uploads (id)
);
CREATE INDEX measurements_by_calibration ON measurements (calibration_id, id);
CREATE INDEX measurements_by_upload ON measurements (upload_id);
-- pending: waiting for a fit worker of any node; running: claimed by node owner, whose
-- lease (renewed while it computes) ends at lease_until; done, failed; superseded: a
-- newer fit of the same calibration covers it.
CREATE TABLE fits (
	id bigserial PRIMARY KEY,
	calibration_id bigint NOT NULL REFERENCES calibrations (id),
	measurements bigint NOT NULL, -- how many measurements the fit used
	fit text NOT NULL,            -- the fit, the error, or 'null' while pending
	created_at bigint NOT NULL,
	state text NOT NULL DEFAULT 'pending'
		CHECK (state IN ('pending', 'running', 'done', 'failed', 'superseded')),
	started_at bigint,
	done_at bigint,
	owner text,         -- the node (process) running it
	lease_until bigint  -- the server's clock, Unix seconds
);
CREATE INDEX fits_by_calibration ON fits (calibration_id, id);
CREATE INDEX fits_open ON fits (state, calibration_id) WHERE state IN ('pending', 'running');
-- Idempotency-Key (IETF httpapi draft): per robot, the key, the fingerprint of the
-- calibration and canonical upload it came with, and the answer sent first.
CREATE TABLE idempotency_keys (
	robot_id bigint NOT NULL REFERENCES robots (id),
	key text NOT NULL,
	fingerprint bytea NOT NULL CHECK (length(fingerprint) = 32),
	upload_id bigint NOT NULL,
	answer text NOT NULL,
	created_at bigint NOT NULL,
	PRIMARY KEY (robot_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (robot_id, created_at);
-- Secrets of the service itself, made on first use ('watch': the HMAC key of watch URLs),
-- shared by every node so that a URL one node signed is honoured by all.
CREATE TABLE server_secrets (
	name text PRIMARY KEY,
	secret bytea NOT NULL
);
