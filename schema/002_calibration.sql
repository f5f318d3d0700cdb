-- 002: pad calibrations (issue #4): robots, their bearer tokens, calibrations, the
-- measurements robots upload and every fit the service answered with.
-- Applied by store_migrate() inside a transaction: no BEGIN/COMMIT here.
CREATE TABLE robots (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL -- Unix seconds
);
CREATE TABLE tokens (
	-- the token's public half, 16 hex digits; the secret is never stored
	id TEXT PRIMARY KEY,
	robot_id INTEGER NOT NULL REFERENCES robots (id),
	-- BLAKE2b-256 of the secret (auth_hash())
	hash BLOB NOT NULL CHECK (length(hash) = 32),
	created_at INTEGER NOT NULL,
	revoked_at INTEGER -- NULL while valid
);
CREATE TABLE calibrations (
	id INTEGER PRIMARY KEY,
	robot_id INTEGER NOT NULL REFERENCES robots (id),
	-- canonical JSON {"geom", "object", "option"} (calreq_setup_json())
	setup TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX calibrations_by_robot ON calibrations (robot_id, id);
CREATE TABLE measurements (
	id INTEGER PRIMARY KEY,
	calibration_id INTEGER NOT NULL REFERENCES calibrations (id),
	kind TEXT NOT NULL CHECK (kind IN ('drop', 'press', 'trajectory')),
	-- canonical JSON of one measurement, as validated
	body TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX measurements_by_calibration ON measurements (calibration_id, id);
CREATE TABLE fits (
	id INTEGER PRIMARY KEY,
	calibration_id INTEGER NOT NULL REFERENCES calibrations (id),
	-- how many measurements the fit used: all of the calibration's up to then
	measurements INTEGER NOT NULL,
	fit TEXT NOT NULL, -- the answer's "fit" object, canonical JSON
	created_at INTEGER NOT NULL
);
CREATE INDEX fits_by_calibration ON fits (calibration_id, id);
