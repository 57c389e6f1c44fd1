package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// Mint chooses how new elements get their engine ids (docs/design.md#commit).
type Mint uint8

const (
	// MintDefault gives every new element a fresh engine id.
	MintDefault Mint = iota
	// MintIngest gives nodes with a loc property an id from (kind, loc) and
	// edges between nodes an id from (source, type, target), so re-ingesting
	// the same artefact updates instead of duplicating.
	MintIngest
)

// WorkPerRow is the work budget per element of R when Budget.Work is zero.
// With R's 500 rows, the 1,000,000 units let a MATCH test a simple WHERE
// on about a hundred thousand candidates or pairs (a join of two labels of
// a few hundred nodes each), ample for one that finds its nodes through a
// nick, a property or a label and follows their edges, and stop a
// cartesian product of three such labels after a small part of it.
const WorkPerRow = 2000

// CheckDeltaText refuses a Δ text over the R byte budget b (22Q02): a
// check that needs no parse, so a caller makes it before parsing, and an
// oversized text costs nothing to refuse.
func CheckDeltaText(text string, b values.Budget) error {
	if b.Bytes > 0 && len(text) > b.Bytes {
		return gqlstatus.Errorf(gqlstatus.CommitBudget,
			"Δ text is %d bytes, over the R budget of %d bytes; nothing applied", len(text), b.Bytes).
			WithHint("split the Δ into smaller commits")
	}
	return nil
}

// CheckRecallText refuses a Recall's token over the R byte budget b
// (42Q01) before it is parsed: a token names a few kinds, properties, a
// keyword or nicks, and a text that large only costs its parse.
func CheckRecallText(text string, b values.Budget) error {
	if b.Bytes > 0 && len(text) > b.Bytes {
		return gqlstatus.Errorf(gqlstatus.TextLimit,
			"the Recall's token is %d bytes, over the R budget of %d bytes; nothing was read", len(text), b.Bytes).
			WithHint("narrow the token to a few labels, properties, a keyword or nicks; pass long values as $parameters")
	}
	return nil
}

// ActionRunner resolves CALL name(args); nil means no actions are registered.
type ActionRunner func(name string) bool

// CommitOptions configure one Commit.
type CommitOptions struct {
	Mint   Mint
	Budget values.Budget
	// BeforePublish, when set, runs after every statement succeeded and
	// before the new version is published, with the writer lock still
	// held: a cabinet uses it to queue the Δ for the write-ahead log in
	// version order. An error rolls the Δ back.
	BeforePublish func(version uint64) error
	// Replay re-applies a Δ from the log: its values are not checked
	// again beyond the nesting limit (see executor.storable).
	Replay bool
	// DuplicateEchoes replays a Δ logged before an INSERT that restates a
	// live element bound to it: such a pattern is created again, as it
	// was then, so the replayed state is the state that was acknowledged.
	DuplicateEchoes bool
	// Agent names who commits ("" for nobody): the registering agent of
	// the vocabulary the Δ creates. Replay passes the one its log entry
	// kept.
	Agent string
}

// Commit applies a planned Δ to g atomically: every statement runs inside one
// store transaction, which is published only when all of them succeed.
func Commit(ctx context.Context, g *store.Graph, plan *planner.Plan, params map[string]values.Value, opts CommitOptions) (*values.CommitResult, error) {
	if opts.Budget.Rows <= 0 {
		opts.Budget.Rows = values.DefaultBudget.Rows
	}
	if opts.Budget.Bytes <= 0 {
		opts.Budget.Bytes = values.DefaultBudget.Bytes
	}
	if opts.Budget.Work <= 0 {
		opts.Budget.Work = WorkPerRow * opts.Budget.Rows
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := CheckDeltaText(plan.Text, opts.Budget); err != nil {
		return nil, err
	}
	for _, st := range plan.Stmts {
		if st.Read {
			err := gqlstatus.At(gqlstatus.WrongVerb, st.Pos, plan.Text,
				"a MATCH without INSERT, SET, REMOVE or DELETE is a Recall, not a Commit").
				WithHint("send it to Recall, or add the change to make")
			for _, n := range st.Notices {
				// The change may be what a comment hid.
				err.Hint += "; at " + n.Pos.String() + ", " + n.Msg
			}
			return nil, err
		}
	}
	celParams, err := paramValues(plan, params)
	if err != nil {
		return nil, err
	}
	tx := g.Begin()
	defer tx.Rollback()
	// The Δ's ledger Delta comes in the executor's allocation, and only
	// a Commit's executor carries one.
	xd := &struct {
		executor
		delta vocab.Delta
	}{executor: executor{tx: tx, plan: plan, params: celParams, opts: opts,
		assigned: map[assignKey]values.Value{}, textBytes: len(plan.Text)}}
	x := &xd.executor
	x.ledger = &xd.delta
	x.ledger.SetAgent(opts.Agent)
	x.meter.start(ctx, "Δ", opts.Budget.Work)
	// A Δ returns no table: its success is ISO's "omitted result".
	res := &values.CommitResult{Status: gqlstatus.Omitted}
	for i, st := range plan.Stmts {
		x.stmt = i
		sr, err := x.statement(st)
		if err != nil {
			return nil, annotate(err, st, plan.Text)
		}
		res.Stmts = append(res.Stmts, sr)
	}
	if err := x.settle(res.Stmts); err != nil {
		return nil, err
	}
	if !plan.RolledBack {
		x.unsettledNotices(res.Stmts)
	}
	x.checkDefined(res.Stmts)
	for _, sr := range res.Stmts {
		res.Total.Add(sr.Counts)
		if res.Status == gqlstatus.Omitted && sr.Status != string(gqlstatus.Omitted) {
			res.Status = gqlstatus.Code(sr.Status)
		}
	}
	if plan.RolledBack || !x.changed {
		res.Version = g.Snapshot().Version()
		return res, nil
	}
	if !x.ledger.Empty() {
		tx.SetExt(Vocabulary(tx.Snapshot()).Record(x.ledger))
	}
	if opts.BeforePublish != nil {
		next := g.Snapshot().Version() + 1
		if err := opts.BeforePublish(next); err != nil {
			return nil, err
		}
	}
	snap := tx.Commit()
	res.Version = snap.Version()
	res.Applied = true
	return res, nil
}

// annotate ties an error to the statement that raised it and makes sure a
// caller can tell that nothing applied.
func annotate(err error, st *planner.Statement, text string) error {
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) {
		ge = &gqlstatus.Error{Code: gqlstatus.Internal, Cause: err,
			Msg:  "the Δ failed inside goldfish (" + err.Error() + "); nothing applied",
			Hint: "report the statement: this is a fault in goldfish"}
	}
	if ge.Stmt == 0 {
		ge.Stmt = st.Index
	}
	if !ge.Pos.Valid() && st.Pos.Valid() {
		ge.Locate(st.Pos, text)
	} else if ge.Line == "" && ge.Pos.Valid() {
		ge.Locate(ge.Pos, text)
	}
	return ge
}

type assignKey struct {
	id  store.ID
	key string
}

type executor struct {
	meter
	tx      *store.Tx
	plan    *planner.Plan
	params  []ref.Val
	opts    CommitOptions
	touched int // elements written or bound so far in the Δ
	bytes   int
	// textBytes is the Δ's text, which the byte budget counts (an action's
	// body runs with its own plan, whose text is its definition's).
	textBytes int
	assigned  map[assignKey]values.Value
	// ledger gathers what the Δ changed and wrote, for the vocabulary's
	// ledger; an action's body shares its CALL's (inBody set).
	ledger *vocab.Delta
	// stmt is the place of the statement running; settled the tasks the
	// Δ labelled Settled, whose delete_on_settle nodes go at its end.
	stmt    int
	settled []settling
	// statuses are the SETs of a task's status, checked once the Δ has
	// run (unsettledNotices).
	statuses []statusWrite
	inBody   bool
	// fresh holds the elements the running statement created: they are
	// not echo targets, so a statement restating one node twice (a Shape
	// of two identical nodes, pasted into an empty session) creates both,
	// as the same statements committed one by one would.
	fresh map[store.ID]struct{}
	// changed says the Δ changed data (a Δ of echoes alone, or whose
	// MATCHes bound nothing, makes no version); echoAt is where the
	// running statement's first echo is, for its notice.
	changed bool
	echoAt  gqlstatus.Pos
}

// touch records that the Δ created, deleted or changed element id.
func (x *executor) touch(id store.ID) { x.ledger.Touch(id) }

// wrote records that the Δ wrote key on an element of kind (a node's
// kind, an edge's type). An ingest Δ loads an artefact in bulk, which is
// no agent's edit of the session: it counts no writes.
func (x *executor) wrote(kind, key string) {
	if x.opts.Mint != MintIngest {
		x.ledger.Wrote(kind, key, x.inBody)
	}
}

func (x *executor) errAt(code gqlstatus.Code, pos gqlstatus.Pos, format string, args ...any) *gqlstatus.Error {
	return gqlstatus.At(code, pos, x.plan.Text, format, args...)
}

// charge counts elements against R and fails the Δ when it is exceeded.
func (x *executor) charge(rows, bytes int) error {
	x.touched += rows
	x.bytes += bytes
	if x.touched > x.opts.Budget.Rows {
		return gqlstatus.Errorf(gqlstatus.CommitBudget,
			"Δ writes or binds more than %d elements (the R budget); nothing applied", x.opts.Budget.Rows).
			WithHint("narrow the MATCH or split the Δ into smaller commits")
	}
	if x.bytes+x.textBytes > x.opts.Budget.Bytes {
		return gqlstatus.Errorf(gqlstatus.CommitBudget,
			"Δ writes more than %d bytes (the R budget); nothing applied", x.opts.Budget.Bytes).
			WithHint("split the Δ into smaller commits")
	}
	return nil
}

func (x *executor) statement(st *planner.Statement) (values.StmtResult, error) {
	sr := values.StmtResult{Index: st.Index, Status: string(gqlstatus.Omitted)}
	sr.Notices = append(sr.Notices, st.Notices...) // the parser's warnings about its text
	x.fresh, x.echoAt = nil, gqlstatus.Pos{}
	if err := x.check(); err != nil {
		return sr, err
	}
	switch {
	case st.Call != nil:
		return sr, x.call(st.Call, &sr)
	case st.Define != nil:
		return sr, x.define(st.Define, &sr)
	}
	rows := []*planner.Row{{Vars: make([]planner.Element, len(st.Vars)), Params: x.params}}
	for _, step := range st.Steps {
		var err error
		switch s := step.(type) {
		case *planner.MatchStep:
			rows, err = x.match(rows, s, &sr)
			if err == nil && len(rows) == 0 {
				sr.Status = string(gqlstatus.NoData)
				sr.Notices = append(sr.Notices, gqlstatus.Notice{Code: gqlstatus.NoData, Pos: s.Pos,
					Msg: "MATCH bound nothing; the rest of the statement did not run"})
				return sr, nil
			}
		case *planner.LimitStep:
			rows, err = x.limit(rows, s)
		case *planner.InsertStep:
			err = x.insert(rows, s, &sr)
		case *planner.SetStep:
			err = x.set(rows, s, &sr)
		case *planner.RemoveStep:
			err = x.remove(rows, s, &sr)
		case *planner.DeleteStep:
			err = x.delete(rows, s, &sr)
		}
		if err != nil {
			return sr, err
		}
	}
	x.echoNotice(&sr)
	if sr.Status == string(gqlstatus.Omitted) && len(sr.Notices) > 0 {
		sr.Status = string(sr.Notices[0].Code)
	}
	return sr, nil
}

func (x *executor) limit(rows []*planner.Row, s *planner.LimitStep) ([]*planner.Row, error) {
	v, err := x.eval(s.Count, rows[0])
	if err != nil {
		return nil, err
	}
	if v.Kind() != values.KindInt {
		return nil, x.errAt(gqlstatus.InvalidValueType, s.Count.Pos, "LIMIT takes an integer, not %s", v.Kind())
	}
	n := v.AsInt()
	if n < 0 {
		return nil, x.errAt(gqlstatus.NegativeLimit, s.Count.Pos, "LIMIT is negative (%d)", n).WithHint("write LIMIT 0 or more")
	}
	if int64(len(rows)) > n {
		rows = rows[:n]
	}
	return rows, nil
}

// eval computes a planned value for one row.
func (x *executor) eval(v planner.Value, row *planner.Row) (values.Value, error) {
	switch {
	case v.Const != nil:
		return *v.Const, nil
	case v.Prog != nil:
		out, cost, err := v.Prog.Eval(x.ctx, row)
		if err != nil {
			return values.Value{}, x.located(err)
		}
		if err := x.evaluated(cost); err != nil {
			return values.Value{}, err
		}
		val, err := planner.FromCEL(out)
		if err != nil {
			return values.Value{}, x.errAt(values.ValueCode(err), v.Pos, "%v", err)
		}
		return val, nil
	default:
		val, err := planner.FromCEL(x.params[v.Param])
		if err != nil {
			return values.Value{}, x.errAt(values.ValueCode(err), v.Pos, "parameter $%s: %v", x.plan.Params[v.Param], err)
		}
		return val, nil
	}
}

// paramValues converts the caller's parameters to CEL values in slot order.
func paramValues(plan *planner.Plan, params map[string]values.Value) ([]ref.Val, error) {
	out := make([]ref.Val, len(plan.Params))
	for i, name := range plan.Params {
		v, ok := params[name]
		if !ok {
			e := gqlstatus.Errorf(gqlstatus.InvalidReference, "parameter $%s is not given", name).
				WithHint(fmt.Sprintf("pass a value for %s with the statement", name))
			if isElidedParam(name) {
				e = elidedParam(name)
			}
			if i < len(plan.ParamPos) && plan.ParamPos[i].Valid() {
				e.Locate(plan.ParamPos[i], plan.Text)
			}
			return nil, e
		}
		out[i] = planner.ToCEL(v)
	}
	return out, nil
}
