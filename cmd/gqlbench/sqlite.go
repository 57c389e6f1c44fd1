package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	_ "modernc.org/sqlite"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// peer is the SQLite side: the same graph in an in-memory database with a
// nodes table (id, kind, loc, nick, name, deg, props JSON; kind+loc, nick,
// kind+name and deg indexed) and an edges table (src, dst, type; indexed
// both ways). deg is a node's degree over edges other than contains, the
// analogue of goldfish's ρ* for the codebook-miss fallback.
type peer struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt
}

var peerSeq atomic.Int64

func openPeer() (*peer, error) {
	// A named in-memory database, private to this peer, one connection
	// (an in-memory database lives in its connection), journal off.
	dsn := fmt.Sprintf("file:gqlbench%d?mode=memory&cache=private&_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)", peerSeq.Add(1))
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE TABLE nodes (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, loc TEXT, nick TEXT, name TEXT, deg INTEGER NOT NULL, props TEXT NOT NULL)`,
		`CREATE TABLE edges (src INTEGER NOT NULL, dst INTEGER NOT NULL, type TEXT NOT NULL)`,
	} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, err
		}
	}
	return &peer{db: db, stmts: map[string]*sql.Stmt{}}, nil
}

func (p *peer) Close() error { return p.db.Close() }

// loader inserts rows inside one transaction with prepared statements.
type loader struct {
	tx           *sql.Tx
	nodes, edges *sql.Stmt
}

func (p *peer) begin() (*loader, error) {
	tx, err := p.db.Begin()
	if err != nil {
		return nil, err
	}
	n, err := tx.Prepare(`INSERT INTO nodes (id, kind, loc, nick, name, deg, props) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	e, err := tx.Prepare(`INSERT INTO edges (src, dst, type) VALUES (?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	return &loader{tx: tx, nodes: n, edges: e}, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (l *loader) node(id int64, kind, loc, nick, name string, deg int, props []byte) error {
	_, err := l.nodes.Exec(id, kind, nullable(loc), nullable(nick), nullable(name), deg, string(props))
	return err
}

func (l *loader) edge(src, dst int64, typ string) error {
	_, err := l.edges.Exec(src, dst, typ)
	return err
}

func (l *loader) commit() error { return l.tx.Commit() }

// index builds the indexes after the bulk load and prepares the queries.
func (p *peer) index() error {
	for _, q := range []string{
		`CREATE INDEX nodes_loc ON nodes (kind, loc)`,
		`CREATE INDEX nodes_nick ON nodes (nick)`,
		`CREATE INDEX nodes_name ON nodes (kind, name)`,
		`CREATE INDEX nodes_deg ON nodes (deg DESC, id)`,
		`CREATE INDEX edges_src ON edges (src, type, dst)`,
		`CREATE INDEX edges_dst ON edges (dst, type, src)`,
		`ANALYZE`,
	} {
		if _, err := p.db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Seed queries, one per token form; ?1 is the value, ?2 the kind, ?3 is L.
var seedSQL = map[string]string{
	"loc":     `SELECT id FROM nodes WHERE kind = ?2 AND loc = ?1 LIMIT ?3`,
	"nick":    `SELECT id FROM nodes WHERE nick = ?1 LIMIT ?3`,
	"keyword": `SELECT id FROM nodes WHERE props LIKE '%' || ?1 || '%' LIMIT ?3`,
	// a miss: the lookup finds nothing, so the highest-degree nodes
	// (the analogue of Peak_L) seed the walk
	"miss": `SELECT id FROM nodes WHERE kind = ?2 AND loc = ?1
	         UNION ALL SELECT id FROM (SELECT id FROM nodes ORDER BY deg DESC, id LIMIT ?3)
	         WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE kind = ?2 AND loc = ?1) LIMIT ?3`,
}

// walkSQL is the neighbourhood read: seeds, a recursive CTE over edges in
// both directions bounded to ?4 hops and ?5 rows, then the nodes with
// their properties and the edges between them (at most ?5 of each).
func walkSQL(seed string, shell bool) string {
	only := ""
	if shell {
		only = ` AND e.type = 'contains'`
	}
	return `WITH RECURSIVE
  seed(id) AS (` + seed + `),
  walk(id, d) AS (
    SELECT id, 0 FROM seed
    UNION
    SELECT e.dst, w.d + 1 FROM walk w JOIN edges e ON e.src = w.id WHERE w.d < ?4` + only + `
    UNION
    SELECT e.src, w.d + 1 FROM walk w JOIN edges e ON e.dst = w.id WHERE w.d < ?4` + only + `
    LIMIT ?5),
  picked(id) AS MATERIALIZED (SELECT id FROM walk GROUP BY id ORDER BY min(d), id LIMIT ?5)
SELECT 'n', n.id, n.kind, n.props FROM picked p JOIN nodes n ON n.id = p.id
UNION ALL
SELECT * FROM (SELECT 'e', e.src, e.dst, e.type FROM picked a JOIN edges e ON e.src = a.id
               WHERE e.dst IN (SELECT id FROM picked)` + only + ` LIMIT ?5)`
}

// read runs the neighbourhood read for one token and returns the rows.
func (p *peer) read(ctx context.Context, form string, shell bool, value, kind string, L, k, M int) (int, error) {
	key := form
	if shell {
		key += "/shell"
	}
	st, ok := p.stmts[key]
	if !ok {
		var err error
		st, err = p.db.PrepareContext(ctx, walkSQL(seedSQL[form], shell))
		if err != nil {
			return 0, fmt.Errorf("prepare %s: %w", form, err)
		}
		p.stmts[key] = st
	}
	rows, err := st.QueryContext(ctx, value, kind, L, k, M)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	var tag string
	var a int64
	var b, c any
	for rows.Next() {
		if err := rows.Scan(&tag, &a, &b, &c); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// propsJSON renders properties as a JSON object.
func propsJSON(p values.Props) []byte {
	m := make(map[string]any, len(p))
	for _, x := range p {
		m[x.Key] = goValue(x.Val)
	}
	b, _ := json.Marshal(m)
	return b
}

func goValue(v values.Value) any {
	switch v.Kind() {
	case values.KindNull:
		return nil
	case values.KindBool:
		return v.AsBool()
	case values.KindInt:
		return v.AsInt()
	case values.KindFloat:
		return v.AsFloat()
	case values.KindList:
		var out []any
		for _, e := range v.AsList() {
			out = append(out, goValue(e))
		}
		return out
	}
	return v.AsString()
}

func propString(p values.Props, key string) string {
	if v, ok := p.Get(key); ok && v.Kind() == values.KindString {
		return v.AsString()
	}
	return ""
}

// loadSnapshot copies a goldfish snapshot into the peer.
func (p *peer) loadSnapshot(snap *store.Snapshot) error {
	deg := map[store.ID]int{}
	snap.ScanEdges(func(e *store.Edge) bool {
		if !strings.EqualFold(e.Type, "contains") {
			deg[e.From]++
			deg[e.To]++
		}
		return true
	})
	l, err := p.begin()
	if err != nil {
		return err
	}
	snap.ScanNodes(func(n *store.Node) bool {
		err = l.node(int64(n.ID), n.Kind(), propString(n.Props, "loc"), propString(n.Props, "nick"),
			propString(n.Props, "name"), deg[n.ID], propsJSON(n.Props))
		return err == nil
	})
	if err != nil {
		return err
	}
	snap.ScanEdges(func(e *store.Edge) bool {
		err = l.edge(int64(e.From), int64(e.To), e.Type)
		return err == nil
	})
	if err != nil {
		return err
	}
	if err := l.commit(); err != nil {
		return err
	}
	return p.index()
}
