package exec

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// AbsorbPolicy says what Absorb does with the slice's ids (docs/design.md#sessions-slices-and-model-snap). Its
// values are what a log entry keeps, so they are only ever appended.
type AbsorbPolicy uint8

const (
	// AbsorbKeep keeps the slice's ids. An element whose id the session
	// holds with the same content is left as it is; one whose id (or,
	// for a node, nick) the session holds otherwise fails the whole
	// Absorb (40002), naming it.
	AbsorbKeep AbsorbPolicy = 1
	// AbsorbReject keeps the slice's ids as AbsorbKeep does, but skips the
	// clashing elements, and the edges of a skipped node, listing them.
	AbsorbReject AbsorbPolicy = 2
	// AbsorbRemint gives every element a fresh id and rewrites the edges
	// to the new ids. A node whose nick a live node holds is skipped, with
	// its edges, and listed: a nick is never held twice, and never
	// silently taken over.
	AbsorbRemint AbsorbPolicy = 3
)

// Valid reports whether p is one of the policies.
func (p AbsorbPolicy) Valid() bool { return p >= AbsorbKeep && p <= AbsorbRemint }

func (p AbsorbPolicy) String() string {
	switch p {
	case AbsorbKeep:
		return "keep"
	case AbsorbReject:
		return "reject"
	case AbsorbRemint:
		return "remint"
	}
	return fmt.Sprintf("policy(%d)", uint8(p))
}

// AbsorbOptions configure one Absorb.
type AbsorbOptions struct {
	Policy AbsorbPolicy
	// Budget bounds the Δ: the slice bound, not R (a slice is by design
	// larger than a Δ); Work is unused (an Absorb binds nothing).
	Budget values.Budget
	// BeforePublish is as for CommitOptions: it runs before the version
	// is published, and an error from it applies nothing (another host
	// took the version).
	BeforePublish func(version uint64) error
}

// Absorb commits the slice d into g as one atomic Δ under opts.Policy:
// all of it applies, in one version, or none of it. What it does depends
// only on d and g's state, so replaying it on the same state does the
// same: the ids kept are the slice's, and the fresh ones come from g's
// counter, which a snapshot restores.
func Absorb(ctx context.Context, g *store.Graph, d *SliceData, opts AbsorbOptions) (*values.AbsorbResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if !opts.Policy.Valid() {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "%s is not an Absorb policy", opts.Policy).
			WithHint("absorb with keep, reject or remint")
	}
	if b := opts.Budget.Bytes; b > 0 && len(d.Text) > b {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the slice is %d bytes, over the slice bound of %d bytes; nothing applied", len(d.Text), b).
			WithHint("export fewer anchors or a smaller M")
	}
	if r := opts.Budget.Rows; r > 0 && d.Rows() > r {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the slice holds %d rows, over the slice bound of %d rows; nothing applied", d.Rows(), r).
			WithHint("export fewer anchors or a smaller M")
	}
	var m meter
	m.start(ctx, "Δ", 0)
	if err := m.check(); err != nil {
		return nil, err
	}
	tx := g.Begin()
	defer tx.Rollback()
	a := absorber{tx: tx, d: d, policy: opts.Policy, m: &m,
		res: &values.AbsorbResult{CommitResult: values.CommitResult{Status: gqlstatus.Omitted}},
		ids: make([]store.ID, len(d.Nodes)), skipped: make([]bool, len(d.Nodes))}
	a.sr = values.StmtResult{Index: 1, Status: string(gqlstatus.Omitted)}
	for i := range d.Nodes {
		if err := a.node(i); err != nil {
			return nil, err
		}
	}
	for i := range d.Edges {
		if err := a.edge(i); err != nil {
			return nil, err
		}
	}
	res := a.res
	if len(a.sr.Notices) > 0 {
		a.sr.Status = string(gqlstatus.Warning)
		res.Status = gqlstatus.Warning
	}
	res.Stmts = []values.StmtResult{a.sr}
	res.Total.Add(a.sr.Counts)
	if !a.changed {
		res.Version = g.Snapshot().Version()
		return res, nil
	}
	// The elements an Absorb writes count as changed for the readers'
	// envelope; as an ingest, it is a load, no agent's edit of their
	// properties, so it counts no writes.
	if !a.ledger.Empty() {
		tx.SetExt(Vocabulary(tx.Snapshot()).Record(&a.ledger))
	}
	if opts.BeforePublish != nil {
		if err := opts.BeforePublish(g.Snapshot().Version() + 1); err != nil {
			return nil, err
		}
	}
	snap := tx.Commit()
	res.Version, res.Applied = snap.Version(), true
	return res, nil
}

type absorber struct {
	tx      *store.Tx
	d       *SliceData
	policy  AbsorbPolicy
	m       *meter
	res     *values.AbsorbResult
	sr      values.StmtResult
	changed bool // the Δ changed data
	ledger  vocab.Delta
	ids     []store.ID // each slice node's id in the session
	skipped []bool     // each slice node's fate
}

// clash is what keep refuses and reject and remint skip.
func (a *absorber) clash(v, reason string, pos gqlstatus.Pos) error {
	if a.policy == AbsorbKeep {
		return gqlstatus.At(gqlstatus.IntegrityViolation, pos, a.d.Text,
			"slice element %s clashes with this session: %s; nothing applied", v, reason).
			WithHint("absorb with reject to skip the clashing elements, or with remint to give the slice fresh ids")
	}
	a.res.Skipped = append(a.res.Skipped, values.SkippedElement{Element: v, Reason: reason, Line: pos.Line, Column: pos.Col})
	a.sr.Notices = append(a.sr.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Pos: pos,
		Msg: fmt.Sprintf("%s skipped %s: %s", a.policy, v, reason)})
	return nil
}

// held says why the session holds id otherwise than the slice element
// would have it ("" when the id is free); same reports that it holds it
// as a live element with the same content. live finds the element of
// the slice's sort (node or edge) and compares it.
func (a *absorber) held(id store.ID, live func(ws *store.Snapshot) (found, same bool, what string)) (reason string, same bool) {
	ws := a.tx.Snapshot()
	if found, same, what := live(ws); found {
		if same {
			return "", true
		}
		return fmt.Sprintf("id %d holds %s here", id, what), false
	}
	if n, ok := ws.Node(id); ok {
		return fmt.Sprintf("id %d holds a node here, %s", id, nodeLiteral(n)), false
	}
	if _, ok := ws.Edge(id); ok {
		return fmt.Sprintf("id %d holds an edge here", id), false
	}
	if _, ok := ws.RecycledNode(id); ok {
		return fmt.Sprintf("id %d holds a deleted node here (Purge frees it)", id), false
	}
	if _, ok := ws.RecycledEdge(id); ok {
		return fmt.Sprintf("id %d holds a deleted edge here (Purge frees it)", id), false
	}
	return "", false
}

// nodeLiteral writes a node as a Shape does, (:Kind {props}), short.
func nodeLiteral(n *store.Node) string {
	text, _ := n.Rendering()
	if len(text) > 120 {
		cut := 117
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return "(" + text + ")"
}

func (a *absorber) node(i int) error {
	if err := a.m.spend(1); err != nil {
		return err
	}
	n := &a.d.Nodes[i]
	id := n.ID
	if a.policy == AbsorbRemint {
		id = 0
	} else {
		reason, same := a.held(id, func(ws *store.Snapshot) (bool, bool, string) {
			live, ok := ws.Node(id)
			if !ok {
				return false, false, ""
			}
			return true, sameNode(live, n), "another node, " + nodeLiteral(live)
		})
		if same {
			a.ids[i] = id
			a.res.Unchanged++
			return nil
		}
		if reason != "" {
			a.skipped[i] = true
			return a.clash(n.Var, reason, n.Pos)
		}
	}
	if nick, ok := n.Props.Get(store.NickKey); ok {
		if _, taken := a.tx.Snapshot().NodeByNick(nick.AsString()); taken {
			a.skipped[i] = true
			return a.clash(n.Var, "another live node has the nick "+nick.Literal()+" here", n.Pos)
		}
	}
	if id == 0 {
		id = a.tx.NewID()
	}
	if _, err := a.tx.InsertNode(id, n.Labels, n.Props); err != nil {
		return a.storeErr(err, n.Var, n.Pos)
	}
	a.ids[i] = id
	a.wrote(n.Var, prefixOf(kindOfLabels(n.Labels)).name, id, len(n.Props))
	a.sr.NodesCreated++
	return nil
}

func (a *absorber) edge(i int) error {
	if err := a.m.spend(1); err != nil {
		return err
	}
	e := &a.d.Edges[i]
	for _, end := range [2]int{e.From, e.To} {
		if a.skipped[end] {
			return a.clash(e.Var, "its end "+a.d.Nodes[end].Var+" was skipped", e.Pos)
		}
	}
	from, to := a.ids[e.From], a.ids[e.To]
	id := e.ID
	if a.policy == AbsorbRemint {
		id = a.tx.NewID()
	} else {
		reason, same := a.held(id, func(ws *store.Snapshot) (bool, bool, string) {
			live, ok := ws.Edge(id)
			if !ok {
				return false, false, ""
			}
			return true, live.Type == e.Type && live.From == from && live.To == to && live.Props.Equal(e.Props),
				"another edge, :" + live.Type
		})
		if same {
			a.res.Unchanged++
			return nil
		}
		if reason != "" {
			return a.clash(e.Var, reason, e.Pos)
		}
	}
	if _, err := a.tx.InsertEdge(id, e.Type, from, to, e.Props); err != nil {
		return a.storeErr(err, e.Var, e.Pos)
	}
	a.wrote(e.Var, edgePrefix, id, len(e.Props))
	a.sr.EdgesCreated++
	return nil
}

// wrote counts an element written.
func (a *absorber) wrote(v, prefix string, id store.ID, props int) {
	a.sr.PropsSet += props
	a.changed = true
	a.ledger.Touch(id)
	if a.policy == AbsorbRemint {
		if a.res.Reminted == nil {
			a.res.Reminted = map[string]string{}
		}
		a.res.Reminted[v] = idVar(prefix, id)
	}
}

func (a *absorber) storeErr(err error, v string, pos gqlstatus.Pos) error {
	e := gqlstatus.At(gqlstatus.IntegrityViolation, pos, a.d.Text, "slice element %s cannot be written here (%v); nothing applied", v, err).
		WithHint("absorb with reject or remint")
	if err == store.ErrNickClash {
		e.Msg = fmt.Sprintf("slice element %s repeats a nick the slice gives another node; nothing applied", v)
		e.Hint = "export the slice again"
	}
	e.Cause = err
	return e
}

// sameNode reports whether a live node has a slice node's content: its
// kind, its labels and its properties.
func sameNode(n *store.Node, s *SliceNode) bool {
	if kindOfLabels(s.Labels) != n.Kind() || len(s.Labels) != len(n.Labels) || !n.Props.Equal(s.Props) {
		return false
	}
	for _, l := range s.Labels {
		if !slices.Contains(n.Labels, l) {
			return false
		}
	}
	return true
}

func kindOfLabels(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return labels[0]
}
