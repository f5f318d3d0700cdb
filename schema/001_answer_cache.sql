-- 001: the answer cache. One row per question the daemon has answered.
-- Applied by store_migrate() inside a transaction: no BEGIN/COMMIT here.
CREATE TABLE answer_cache (
	id INTEGER PRIMARY KEY,
	-- BLAKE2b-256 of the core version, endpoint and canonical request (store_cache_key())
	key BLOB NOT NULL UNIQUE CHECK (length(key) = 32),
	-- kept so that answers of older cores can be pruned by hand
	core_version TEXT NOT NULL,
	endpoint TEXT NOT NULL,
	-- the answer's canonical JSON text, exactly the bytes served
	answer TEXT NOT NULL,
	created_at INTEGER NOT NULL -- Unix seconds
);
