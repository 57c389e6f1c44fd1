package postgres

import "strings"

// queries holds the cabinet's SQL with its schema filled in. Parameters
// are cast where the server could not infer their type, so the same
// text runs on every engine that speaks the protocol.
type queries struct {
	schema string

	createSchema, createLayout, layout, setLayout string

	sessions, orphan                                     string
	loadSession, loadSnap, loadChunks, loadLog, loadAttn string
	head, since, heads, headsOf, lockRow                 string

	// create inserts version 1 of a session not yet in the table,
	// advance moves one from version $2 to $3; both insert the log
	// entry in the same statement, and return the session's gen (and,
	// in their notify forms, notify the channel).
	create, advance, createNotify, advanceNotify string
	whyNot                                       string

	setMeta, putAttn                                      string
	delChunks, putChunk, putSnap, trim, flushMeta, notify string
	// The history (history.go): where it starts, its base's head and
	// chunks, and the log in a range.
	historyHead, loadBaseChunks, logRange string
	baseVersion, delBase, delBaseChunks   string
	putBaseChunk, putBase                 string
	drop                                  []string
	// dropped reads the dropped counter; drop[0] adds the dropped row's
	// weight (version + meta_version) plus one to it, in the drop's
	// transaction, before the row goes.
	dropped string
}

func newQueries(schema string) queries {
	r := strings.NewReplacer("{S}", schema)
	f := func(s string) string { return r.Replace(s) }
	createBody := `WITH s AS (
		INSERT INTO {S}.sessions (name, gen, version, meta, meta_version)
		VALUES ($1::text, $2::bigint, 1, $3::bytea, $4::bigint)
		ON CONFLICT (name) DO NOTHING RETURNING gen),
	l AS (INSERT INTO {S}.log (session, version, entry) SELECT $1::text, 1, $5::bytea FROM s RETURNING version)
	SELECT s.gen, `
	advanceBody := `WITH s AS (
		UPDATE {S}.sessions SET version = $3::bigint,
			meta = COALESCE($5::bytea, meta),
			meta_version = CASE WHEN $5::bytea IS NULL THEN meta_version ELSE $3::bigint END
		WHERE name = $1::text AND version = $2::bigint AND ($4::bigint = 0 OR gen = $4::bigint)
		RETURNING gen),
	l AS (INSERT INTO {S}.log (session, version, entry) SELECT $1::text, $3::bigint, $6::bytea FROM s RETURNING version)
	SELECT s.gen, `
	return queries{
		schema:       schema,
		createSchema: f(`CREATE SCHEMA IF NOT EXISTS {S}`),
		createLayout: f(`CREATE TABLE IF NOT EXISTS {S}.schema_version (id INT PRIMARY KEY, version BIGINT NOT NULL)`),
		layout:       f(`SELECT version FROM {S}.schema_version WHERE id = 1`),
		setLayout: f(`INSERT INTO {S}.schema_version (id, version) VALUES (1, $1::bigint)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version`),

		sessions: f(`SELECT s.name, s.gen, s.version, s.meta, s.meta_version, COALESCE(p.version, 0)
			FROM {S}.sessions s LEFT JOIN {S}.snapshots p ON p.session = s.name`),
		orphan: f(`SELECT x.session FROM (
				SELECT session FROM {S}.log UNION SELECT session FROM {S}.snapshots UNION SELECT session FROM {S}.chunks
				UNION SELECT session FROM {S}.bases UNION SELECT session FROM {S}.base_chunks) x
			WHERE NOT EXISTS (SELECT 1 FROM {S}.sessions s WHERE s.name = x.session) LIMIT 1`),
		loadSession: f(`SELECT gen, version, meta, meta_version FROM {S}.sessions WHERE name = $1::text`),
		loadSnap:    f(`SELECT version, chunks, size FROM {S}.snapshots WHERE session = $1::text`),
		loadChunks:  f(`SELECT n, data FROM {S}.chunks WHERE session = $1::text ORDER BY n`),
		loadLog: f(`SELECT version, entry FROM {S}.log WHERE session = $1::text
			AND version > COALESCE((SELECT version FROM {S}.snapshots WHERE session = $1::text), 0) ORDER BY version`),
		historyHead: f(`SELECT COALESCE((SELECT version FROM {S}.bases WHERE session = $1::text), -1),
			COALESCE((SELECT chunks FROM {S}.bases WHERE session = $1::text), 0),
			COALESCE((SELECT size FROM {S}.bases WHERE session = $1::text), 0),
			EXISTS (SELECT 1 FROM {S}.log WHERE session = $1::text AND version = 1)`),
		loadBaseChunks: f(`SELECT n, data FROM {S}.base_chunks WHERE session = $1::text ORDER BY n`),
		logRange:       f(`SELECT version, entry FROM {S}.log WHERE session = $1::text AND version > $2::bigint AND version <= $3::bigint ORDER BY version`),
		baseVersion:    f(`SELECT COALESCE((SELECT version FROM {S}.bases WHERE session = $1::text), -1)`),
		delBase:        f(`DELETE FROM {S}.bases WHERE session = $1::text`),
		delBaseChunks:  f(`DELETE FROM {S}.base_chunks WHERE session = $1::text`),
		putBaseChunk:   f(`INSERT INTO {S}.base_chunks (session, n, data) VALUES ($1::text, $2::bigint, $3::bytea)`),
		putBase: f(`INSERT INTO {S}.bases (session, version, chunks, size) VALUES ($1::text, $2::bigint, $3::bigint, $4::bigint)
			ON CONFLICT (session) DO UPDATE SET version = excluded.version, chunks = excluded.chunks, size = excluded.size`),
		loadAttn: f(`SELECT data FROM {S}.attention WHERE session = $1::text`),
		head: f(`SELECT s.gen, s.version, COALESCE(p.version, 0)
			FROM {S}.sessions s LEFT JOIN {S}.snapshots p ON p.session = s.name WHERE s.name = $1::text`),
		since:   f(`SELECT version, entry FROM {S}.log WHERE session = $1::text AND version > $2::bigint ORDER BY version`),
		heads:   f(`SELECT name, gen, version, meta, meta_version FROM {S}.sessions`),
		headsOf: f(`SELECT name, gen, version, meta, meta_version FROM {S}.sessions WHERE name = ANY($1::text[])`),

		create:        f(createBody + `false FROM s, l`),
		createNotify:  f(createBody + `pg_notify($6::text, $1::text) IS NULL FROM s, l`),
		advance:       f(advanceBody + `false FROM s, l`),
		advanceNotify: f(advanceBody + `pg_notify($7::text, $1::text) IS NULL FROM s, l`),
		whyNot:        f(`SELECT gen, version FROM {S}.sessions WHERE name = $1::text`),
		lockRow:       f(`SELECT gen, version FROM {S}.sessions WHERE name = $1::text FOR UPDATE`),

		setMeta: f(`UPDATE {S}.sessions SET meta = $2::bytea, meta_version = $3::bigint
			WHERE name = $1::text AND meta_version < $3::bigint AND version >= $3::bigint AND ($4::bigint = 0 OR gen = $4::bigint)`),
		putAttn: f(`INSERT INTO {S}.attention (session, data) VALUES ($1::text, $2::bytea)
			ON CONFLICT (session) DO UPDATE SET data = excluded.data`),
		delChunks: f(`DELETE FROM {S}.chunks WHERE session = $1::text`),
		putChunk:  f(`INSERT INTO {S}.chunks (session, n, data) VALUES ($1::text, $2::bigint, $3::bytea)`),
		putSnap: f(`INSERT INTO {S}.snapshots (session, version, chunks, size) VALUES ($1::text, $2::bigint, $3::bigint, $4::bigint)
			ON CONFLICT (session) DO UPDATE SET version = excluded.version, chunks = excluded.chunks, size = excluded.size`),
		trim:      f(`DELETE FROM {S}.log WHERE session = $1::text AND version <= $2::bigint`),
		flushMeta: f(`UPDATE {S}.sessions SET meta = $2::bytea, meta_version = $3::bigint WHERE name = $1::text AND meta_version <= $3::bigint`),
		notify:    `SELECT pg_notify($1::text, $2::text)`,
		dropped:   f(`SELECT COALESCE((SELECT total FROM {S}.dropped WHERE id = 1), 0)`),
		drop: []string{
			f(`INSERT INTO {S}.dropped (id, total)
				SELECT 1, COALESCE(SUM(version + meta_version + 1), 0) FROM {S}.sessions WHERE name = $1::text
				ON CONFLICT (id) DO UPDATE SET total = {S}.dropped.total + excluded.total`),
			f(`DELETE FROM {S}.log WHERE session = $1::text`),
			f(`DELETE FROM {S}.chunks WHERE session = $1::text`),
			f(`DELETE FROM {S}.snapshots WHERE session = $1::text`),
			f(`DELETE FROM {S}.base_chunks WHERE session = $1::text`),
			f(`DELETE FROM {S}.bases WHERE session = $1::text`),
			f(`DELETE FROM {S}.attention WHERE session = $1::text`),
			f(`DELETE FROM {S}.sessions WHERE name = $1::text`),
		},
	}
}
