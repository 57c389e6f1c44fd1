package engine

import (
	"context"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/internal/params"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// Slices (docs/design.md#sessions-slices-and-model-snap, Path B) move elements from one session to another:
// ExportSlice writes the neighbourhoods of a few anchors with their
// engine ids, Absorb commits them into another session as one Δ through
// the write path. The facade's slice.go documents the text.

// MaxSliceBytes is the most bytes a slice may hold (the parser's text
// limit, so every slice parses).
const MaxSliceBytes = values.MaxSliceBytes

// ExportSlice writes the slice of the session around its anchors: the
// seeds of q, a Recall's token (at most L of them, found as a Recall
// finds its seeds, never by peaks), or the nodes opts.Nicks names. Each
// anchor's neighbourhood is walked as a Recall walks (k hops, M rows, F
// per node); the slice is their union, with the edges between its nodes
// while rows remain: at most M × |anchors| rows, with engine ids.
//
// Refused: a q that is not a Recall's token (42Q04), the outline MATCH ()
// (42Q04: a slice never takes a whole session), the catalogue (42Q02), a
// nick no live node has (42002), more nicks than L or budgets above their
// ceilings (22Q01), a slice over MaxSliceBytes (22Q02).
func (s *Session) ExportSlice(ctx context.Context, q string, opts values.SliceOptions) (*values.Slice, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	if s.catalog {
		return nil, gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session is kept by the engine and is no slice's source", CatalogName).
			WithHint("read it with Recall; export slices of the sessions themselves")
	}
	if err := ctx.Err(); err != nil {
		return nil, gqlstatus.Interrupted(ctx, "ExportSlice")
	}
	byNicks := len(opts.Nicks) > 0
	switch blank := strings.TrimSpace(q) == ""; {
	case byNicks && !blank:
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "ExportSlice takes q or nicks, not both").
			WithHint("leave q empty to anchor the slice at the nicks")
	case !byNicks && blank:
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "ExportSlice needs anchors: give q, a Recall's token, or nicks").
			WithHint(`e.g. MATCH (t:TSK {nick: "TSK_login"})`)
	}
	capL := opts.L != 0
	// The budgets resolve as a Recall's do.
	o, err := resolveRecall(values.RecallOptions{M: opts.M, K: opts.K, L: opts.L, F: opts.F}, s.db.cfg.Ceilings)
	if err != nil {
		return nil, err
	}
	opts.M, opts.K, opts.L, opts.F = o.M, o.K, o.L, o.F
	var plan *planner.Plan
	var vals map[string]values.Value
	if !byNicks {
		if plan, err = s.db.plan(q); err != nil {
			return nil, err
		}
		if !plan.Read() {
			return nil, gqlstatus.Errorf(gqlstatus.WrongVerb, "ExportSlice takes a Recall's token: one MATCH of node patterns with optional WHERE and LIMIT").
				WithHint("send INSERT, SET, REMOVE and DELETE to Commit; name the anchors with q or with nicks")
		}
		vals = map[string]values.Value{}
		if err := params.Recall(vals, opts.Params, s.db.cfg.Budget.Bytes); err != nil {
			return nil, err
		}
	}
	return exec.ExportSlice(ctx, s.snapshot(), plan, vals, exec.SliceOptions{SliceOptions: opts,
		MaxL: s.db.cfg.Ceilings.L, CapL: capL, Session: s.name})
}

// ParseAbsorbPolicy reads "keep", "reject" or "remint".
func ParseAbsorbPolicy(p string) (exec.AbsorbPolicy, error) {
	switch p {
	case "keep":
		return exec.AbsorbKeep, nil
	case "reject":
		return exec.AbsorbReject, nil
	case "remint":
		return exec.AbsorbRemint, nil
	}
	return 0, gqlstatus.Errorf(gqlstatus.InvalidOption, "%q is not an Absorb policy", p).
		WithHint("absorb with keep, reject or remint")
}

// sliceBounds are what the database's slices may hold.
func (db *DB) sliceBounds() exec.SliceBounds {
	c := db.cfg.Ceilings
	return exec.SliceBounds{Rows: c.M * c.L, PerAnchor: c.M, Bytes: MaxSliceBytes, Catalog: CatalogName}
}

// readSlice reads a slice's text: its header, its INSERT through the
// parser and planner (not the plan cache: a slice is read once), and
// every check of exec.ReadSlice.
func readSlice(text string, b exec.SliceBounds) (*exec.SliceData, error) {
	return exec.ReadSlice(text, func(text string) (*planner.Plan, error) { return compileText(text, nil) }, b)
}

// Absorb commits a slice that ExportSlice wrote into the session as one
// atomic Δ under policy (keep, reject or remint), through the write path.
func (s *Session) Absorb(ctx context.Context, slice string, policy values.AbsorbPolicy, o values.CommitOptions) (*values.AbsorbResult, error) {
	end, err := s.beginWrite(ctx, o)
	if err != nil {
		return nil, err
	}
	defer end()
	p, err := ParseAbsorbPolicy(string(policy))
	if err != nil {
		return nil, err
	}
	if s.catalog {
		s.wmu.Lock()
		err := s.refuseWrite()
		s.wmu.Unlock()
		return nil, err
	}
	t0 := time.Now()
	b := s.db.sliceBounds()
	d, err := readSlice(slice, b)
	if o.Timing != nil {
		o.Timing.Parse = time.Since(t0)
	}
	if err != nil {
		return nil, err
	}
	xo := exec.AbsorbOptions{Policy: p, Budget: values.Budget{Rows: b.Rows, Bytes: b.Bytes}}
	var res *values.AbsorbResult
	err = s.write(ctx, &change{what: "Absorb",
		waiting: "nothing applied: the Absorb was waiting for the session's other Commits; allow it more time",
		entry:   cabinet.Entry{Kind: cabinet.EntryAbsorb, Mint: uint8(p), Text: slice, Agent: o.Agent},
		apply: func(claim func(uint64) error) (bool, error) {
			xo.BeforePublish = claim
			var err error
			res, err = exec.Absorb(ctx, s.graph, d, xo)
			return err == nil && res.Applied, err
		},
		summary: func() *versionChange { return changeOf(&res.CommitResult) }})
	if err != nil && (res == nil || res.Applied) {
		return nil, err
	}
	if res != nil {
		res.Policy = policy
	}
	return res, err
}
