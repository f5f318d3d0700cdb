-- 003: calibrations real robots can rely on (issue #8): fits computed after the
-- upload commits (a fit row is 'pending' until a fit worker has run it), uploads and
-- measurement ids, Idempotency-Key records, read-only viewer tokens (of one robot or
-- of a lab), token expiry and last use, and the server's secret for watch URLs.
-- Applied by store_migrate() inside a transaction: no BEGIN/COMMIT here.

-- An upload: the measurements of one POST, deleted together by DELETE .../uploads/{id}.
CREATE TABLE uploads (
	id INTEGER PRIMARY KEY,
	calibration_id INTEGER NOT NULL REFERENCES calibrations (id),
	created_at INTEGER NOT NULL
);
CREATE INDEX uploads_by_calibration ON uploads (calibration_id, id);
-- NULL for measurements uploaded before this migration
ALTER TABLE measurements ADD COLUMN upload_id INTEGER REFERENCES uploads (id);
CREATE INDEX measurements_by_upload ON measurements (upload_id);

-- pending: waiting for a fit worker; running: being fitted; done: fit holds the answer;
-- failed: fit holds {"error", "message"}; superseded: a newer fit of the same calibration
-- covers it (it was pending or running when that one started). Rows older than this
-- migration were computed inside their upload: done.
ALTER TABLE fits ADD COLUMN state TEXT NOT NULL DEFAULT 'done'
	CHECK (state IN ('pending', 'running', 'done', 'failed', 'superseded'));
ALTER TABLE fits ADD COLUMN started_at INTEGER;
ALTER TABLE fits ADD COLUMN done_at INTEGER;
CREATE INDEX fits_by_state ON fits (state, calibration_id);

-- Idempotency-Key (IETF httpapi draft): per robot, the key, the BLAKE2b-256 fingerprint
-- of the calibration and canonical upload it came with, and the answer sent first.
CREATE TABLE idempotency_keys (
	robot_id INTEGER NOT NULL REFERENCES robots (id),
	key TEXT NOT NULL,
	fingerprint BLOB NOT NULL CHECK (length(fingerprint) = 32),
	upload_id INTEGER NOT NULL,
	answer TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (robot_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

-- A robot may belong to a lab, whose viewer tokens see all its robots.
ALTER TABLE robots ADD COLUMN lab TEXT;

-- Tokens: a robot's (role 'robot': upload and read its own calibrations) or a viewer's
-- (role 'viewer': read only) of one robot (robot_id) or of a lab (lab).
CREATE TABLE tokens_003 (
	id TEXT PRIMARY KEY,
	role TEXT NOT NULL DEFAULT 'robot' CHECK (role IN ('robot', 'viewer')),
	robot_id INTEGER REFERENCES robots (id),
	lab TEXT,
	hash BLOB NOT NULL CHECK (length(hash) = 32),
	created_at INTEGER NOT NULL,
	revoked_at INTEGER,   -- NULL while valid
	expires_at INTEGER,   -- NULL: never
	last_used_at INTEGER, -- to the minute
	replaces TEXT,        -- the token this one rotated
	CHECK ((robot_id IS NULL) <> (lab IS NULL)),
	CHECK (role = 'viewer' OR robot_id IS NOT NULL)
);
INSERT INTO tokens_003 (id, role, robot_id, hash, created_at, revoked_at)
	SELECT id, 'robot', robot_id, hash, created_at, revoked_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_003 RENAME TO tokens;

-- Secrets of the server itself, made on first use (e.g. 'watch': the HMAC key of watch URLs).
CREATE TABLE server_secrets (
	name TEXT PRIMARY KEY,
	secret BLOB NOT NULL
);
