// Package golang ingests a Go source tree into a goldfish session (docs/design.md#sessions-slices-and-model-snap,
// Model Snap): one PKG node per package (loc: import path), one FILE node per
// file (loc: path relative to the tree), and FN, TYPE, VAR and CONST nodes
// for the package-level declarations (loc: "importpath.Name", methods and
// interface methods "importpath.Type.Name"; properties name, sig, at
// "file:line", doc (the doc comment's first line) and, for a method, recv),
// joined by contains edges PKG→FILE→declaration, imports edges PKG→PKG,
// has_method edges TYPE→FN, calls edges FN→FN, refs edges FN→VAR/CONST and
// implements edges TYPE→TYPE. A recursive function's call of itself is a
// calls edge from its node to itself (a self-loop).
//
// Everything goes through Session.Ingest, so every node gets its id from
// (kind, loc) and every edge from (source, type, target): ingesting the same
// tree again changes nothing (every Δ reports Applied=false).
//
// Declarations come from go/parser and go/ast. Calls, refs and implements
// come from the typed pass (typed.go): the go command lists the packages
// (golang.org/x/tools/go/packages) while the tree is parsed, and go/types
// checks the same syntax trees, so what it resolves maps to the nodes by
// position. A package that cannot be listed or checked falls back to the
// syntax-only reading of calls: f(…) to a package-level function of the
// same package, and p.F(…) where p names an import of the file and F is a
// function of the imported package in the tree; Stats say which packages
// were read so. Options.NoTypes asks for that reading everywhere.
//
// Files are selected as the go command would for the running platform
// (build constraints and file-name suffixes, go/build's default context);
// _test.go files and testdata, vendor-less "_" and "." directories are
// skipped unless Options say otherwise.
//
// Every Δ uses one of a few fixed statement texts with $parameters (one per
// kind and chunk size, sizes 1, 2, 4, … 64), so the database's plan cache
// parses each text once, whatever the size of the tree.
//
// LoadGraph reads the tree the same way and returns its elements, each
// node under its package and file, for a caller that places them in
// several sessions (package snap).
package golang

import (
	"context"
	"fmt"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// Options configure a load.
type Options struct {
	// Tests includes _test.go files (their packages keep the directory's
	// import path, with "_test" appended for external test packages).
	Tests bool
	// NoCalls leaves calls edges out.
	NoCalls bool
	// Prefix is the import path of the tree's root directory. Empty: read
	// from the nearest go.mod ("std" and "cmd" give the standard library's
	// own paths), else the directory's base name.
	Prefix string
	// Only, when not empty, keeps the packages whose import path equals
	// one of these or lies below one of them.
	Only []string
	// Workers parse in parallel (default GOMAXPROCS).
	Workers int
	// NoTypes resolves calls by syntax only, without loading the
	// packages with the go command and type-checking them.
	NoTypes bool
	// Progress, when set, is called during the typed pass each time a
	// package is type-checked, with the packages checked so far and the
	// packages listed (the tree's and their dependencies), one call at a
	// time.
	Progress func(done, total int)
}

// Stats report a load and an ingest.
type Stats struct {
	Packages, Files int
	Decls           int // FN + TYPE + VAR + CONST nodes
	Nodes, Edges    int // elements the Δs carry (each once)
	Imports, Calls  int // edges of those types
	Refs            int // refs edges (functions to package-level vars and consts)
	Implements      int // implements edges
	// External counts the calls edges to functions outside the tree
	// (LoadGraph's External nodes; Load leaves them out).
	External int
	// Resolve says how calls were resolved: ModeTyped, ModeSyntax or
	// ModeMixed. Typed counts the packages type-checked, Untyped those
	// resolved by syntax only, TypeErrors those checked despite errors;
	// TypeNote says why some were not type-checked.
	Resolve                    string
	Typed, Untyped, TypeErrors int
	TypeNote                   string
	Deltas                     int // Ingest calls
	Applied                    int // Δs that changed the session
	SourceBytes                int64
	Load                       time.Duration // parse and build the Δs
	Ingest                     time.Duration // apply them
}

// Elements is Nodes+Edges.
func (s Stats) Elements() int { return s.Nodes + s.Edges }

// Delta is one Ingest call: a fixed statement text and its parameters.
type Delta struct {
	Text   string
	Params map[string]any
}

// Tree is a loaded source tree: the Δs that ingest it, in a deterministic
// order, and what they carry.
type Tree struct {
	Deltas []Delta
	Stats  Stats
}

// IngestDir loads the Go tree under dir and ingests it into s.
func IngestDir(ctx context.Context, s *goldfish.Session, dir string, opts Options) (Stats, error) {
	t, err := Load(dir, opts)
	if err != nil {
		return Stats{}, err
	}
	return t.Ingest(ctx, s)
}

// Ingest applies the tree's Δs to s, in order, each as one Ingest call.
func (t *Tree) Ingest(ctx context.Context, s *goldfish.Session) (Stats, error) {
	st := t.Stats
	st.Deltas, st.Applied = 0, 0
	t0 := time.Now()
	for _, d := range t.Deltas {
		res, err := s.Ingest(ctx, d.Text, d.Params)
		if err != nil {
			return st, fmt.Errorf("ingest Δ %d: %w", st.Deltas, err)
		}
		st.Deltas++
		if res.Applied {
			st.Applied++
		}
	}
	st.Ingest = time.Since(t0)
	return st, nil
}
