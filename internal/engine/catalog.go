package engine

import (
	"github.com/goldfish-gql/goldfish/internal/catalog"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// The catalogue is a session of the engine's (catalog.Name): Recall
// only, its content the internal/catalog package's.

// CatalogName and SessionLabel name the catalogue and its nodes' label.
const (
	CatalogName  = catalog.Name
	SessionLabel = catalog.Label
)

// SessionInfo and KindCount describe a session as the catalogue lists it.
type (
	SessionInfo = catalog.Info
	KindCount   = catalog.KindCount
)

func newCatalog(db *DB) *Session {
	s := newSession(db, CatalogName)
	s.graph, s.catalog = store.New(), true
	s.hydrated.Store(true)
	return s
}

// catalogLoad builds the catalogue from the cabinet's metadata and
// dropped counter in one version, Σ weights + dropped (catalog.Queue):
// a function of the durable state, so it never goes back across a
// reopen.
func (db *DB) catalogLoad(metas []cabinet.Meta, dropped uint64) {
	db.catq.Load(db.catalog.graph, metas, dropped)
}

// catalogPut queues the creation or update of a session's catalogue node.
func (db *DB) catalogPut(m cabinet.Meta) { db.catq.Put(m) }

// catalogDelete queues the removal of a session's catalogue node.
func (db *DB) catalogDelete(name string) { db.catq.Delete(name) }

// catalogCurrent applies the queued catalogue changes (readers of the
// catalogue call it first).
func (db *DB) catalogCurrent() { db.catq.Apply(db.catalog.graph) }
