package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// The drop-in's writes: each a Commit (or a few, in chunks) of the
// memory session, serialised per session (memoryLocks).

// memorySession opens the memory session for a write.
func (s *Server) memoryWrite(ctx context.Context, sc *Scope) (*memorySession, func(), error) {
	sess, agent, err := s.sessionAs(ctx, sc, s.opts.MemorySession, "write", "")
	if err != nil {
		return nil, nil, err
	}
	return &memorySession{sess, agent}, s.memory.lock(s.opts.MemorySession), nil
}

// memorySession is the memory session a tool writes, and the agent the
// token writes as (a token bound to one agent writes as it).
type memorySession struct {
	*goldfish.Session
	agent string
}

// delta builds Δs of statements with their parameters, a chunk at a time.
type delta struct {
	stmts  []string
	params map[string]any
	items  []int // the item each statement is for
	bytes  int
}

func (d *delta) add(item int, stmt string, bytes int, params ...any) {
	if d.params == nil {
		d.params = map[string]any{}
	}
	n := len(d.stmts)
	for i := 0; i+1 < len(params); i += 2 {
		d.params[fmt.Sprintf("%s%d", params[i], n)] = params[i+1]
	}
	d.stmts = append(d.stmts, strings.ReplaceAll(stmt, "#", fmt.Sprint(n)))
	d.items = append(d.items, item)
	d.bytes += bytes
}

func (d *delta) full() bool { return len(d.stmts) >= chunk || d.bytes >= chunkBytes }

// commitDelta sends the Δ (if it has statements) and resets it. The
// drop-in's writes use the ingest rule: an edge gets its id from (from,
// type, to), so a relation made again is found rather than doubled, and
// the tools' own writes do not count as raw Commits in the attention
// envelope's vocabulary gaps (the tools are the vocabulary here). Its
// nodes carry no loc, so they get fresh ids as under the default rule.
func (s *Server) commitDelta(ctx context.Context, sess *memorySession, d *delta) (*goldfish.CommitResult, []int, error) {
	if len(d.stmts) == 0 {
		return nil, nil, nil
	}
	text, params, items := strings.Join(d.stmts, ";\n"), d.params, d.items
	*d = delta{}
	res, err := sess.IngestWith(ctx, text, params, goldfish.CommitOptions{Agent: sess.agent})
	if err != nil {
		return nil, nil, s.callError(ctx, err)
	}
	s.metrics.committed(res)
	return res, items, nil
}

// createEntities makes the entities that are not there yet in one
// Commit: every item is checked first, and a call too large for one
// Commit is refused whole, so an error never follows a part of the write.
func (s *Server) createEntities(ctx context.Context, sc *Scope, entities []Entity) (*mcp.CallToolResult, EntitiesJSON, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, EntitiesJSON{}, err
	}
	defer unlock()
	out := EntitiesJSON{Entities: []Entity{}}
	var existed, stmts []string
	var made []int
	seen := map[string]bool{}
	for i, e := range entities {
		if seen[e.Name] {
			existed = append(existed, e.Name)
			continue
		}
		seen[e.Name] = true
		_, _, ok, err := sess.NodeByNick(ctx, e.Name)
		if err != nil {
			return nil, out, s.callError(ctx, err)
		}
		if ok {
			existed = append(existed, e.Name)
			continue
		}
		stmts = append(stmts, "INSERT ("+kindLabel(e.EntityType)+"{nick: "+values.String(e.Name).Literal()+
			", observations: "+stringsLiteral(e.Observations)+"})")
		made = append(made, i)
	}
	version := sess.Version()
	if len(stmts) > 0 {
		res, err := s.commitAll(ctx, sess, stmts, "entities")
		if err != nil {
			return nil, out, err
		}
		version = res.Version
		for _, i := range made {
			out.Entities = append(out.Entities, entities[i])
		}
	}
	var notes []string
	if len(existed) > 0 {
		notes = append(notes, "already there, left as they are: "+quoteNames(existed))
	}
	return writeAnswer(out.Entities, version, notes), out, nil
}

// createRelations makes the relations that are not there yet in one
// Commit, all or nothing as createEntities; a relation whose entity is
// missing is not made and is listed in the answer, as the original skips
// it.
func (s *Server) createRelations(ctx context.Context, sc *Scope, relations []Relation) (*mcp.CallToolResult, RelationsJSON, error) {
	for _, r := range relations {
		if r.RelationType == "" {
			return nil, RelationsJSON{}, gqlstatus.Errorf(gqlstatus.InvalidValueType, "the relation from %q to %q has an empty relationType; nothing was created", r.From, r.To).
				WithHint("give every relation a type: it is the edge's type")
		}
	}
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, RelationsJSON{}, err
	}
	defer unlock()
	out := RelationsJSON{Relations: []Relation{}}
	var missing, stmts []string
	var made []int
	seen := map[Relation]bool{}
	for i, r := range relations {
		if seen[r] {
			continue
		}
		seen[r] = true
		// The ingest rule gives an edge its id from (from, type, to), so a
		// relation that is there already is found, not made twice.
		stmts = append(stmts, "MATCH (a {nick: "+values.String(r.From).Literal()+"}), (b {nick: "+values.String(r.To).Literal()+
			"}) INSERT (a)-[:"+quoteName(r.RelationType)+"]->(b)")
		made = append(made, i)
	}
	version := sess.Version()
	if len(stmts) > 0 {
		res, err := s.commitAll(ctx, sess, stmts, "relations")
		if err != nil {
			return nil, out, err
		}
		version = res.Version
		for j, st := range res.Stmts {
			r := relations[made[j]]
			switch {
			case st.EdgesCreated > 0:
				out.Relations = append(out.Relations, r)
			case st.Bindings == 0:
				missing = append(missing, r.From+" -"+r.RelationType+"-> "+r.To)
			}
		}
	}
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, "not made, an entity is missing (create it first): "+strings.Join(missing, ", "))
	}
	return writeAnswer(out.Relations, version, notes), out, nil
}

// commitAll applies one call's statements as one Δ, with the drop-in's
// rule (commitDelta's). A call over one Commit's budget (R, or the text's
// bytes) is refused whole, saying to split it: nothing of it is written.
func (s *Server) commitAll(ctx context.Context, sess *memorySession, stmts []string, what string) (*goldfish.CommitResult, error) {
	res, err := sess.IngestWith(ctx, strings.Join(stmts, ";\n"), nil, goldfish.CommitOptions{Agent: sess.agent})
	if err != nil {
		var ge *gqlstatus.Error
		if errors.As(err, &ge) && (ge.Code == gqlstatus.CommitBudget || ge.Code == gqlstatus.TextLimit) {
			return nil, gqlstatus.Errorf(gqlstatus.CommitBudget, "%s; nothing was written", ge.Msg).
				WithHint(fmt.Sprintf("split the %d %s into calls of fewer (one call is one change, at most 500 elements and 256 KiB)", len(stmts), what))
		}
		return nil, s.callError(ctx, err)
	}
	s.metrics.committed(res)
	return res, nil
}

// kindLabel is the label an entity of entityType gets, with a space
// after it: none for an empty entityType, which the original takes (a
// node without a kind; the memory reads give it back as "").
func kindLabel(entityType string) string {
	if entityType == "" {
		return ""
	}
	return ":" + quoteName(entityType) + " "
}

// stringsLiteral writes a list of strings as a GQL list literal ([] for
// none).
func stringsLiteral(list []string) string {
	vs := make([]values.Value, len(list))
	for i, o := range list {
		vs[i] = values.String(o)
	}
	return values.List(vs...).Literal()
}

// errRetry says an observation list changed between its read and its
// write: the whole call is made again on what is there now.
var errRetry = errors.New("an observation list changed while it was written")

// editObservations reads each entity's observations, lets edit change
// them, and writes back the lists that changed, each only if it still
// holds what was read. missing says what to do about an entity that is
// not there: fail the call (add) or skip it (delete).
func (s *Server) editObservations(ctx context.Context, sc *Scope, names []string, failMissing bool,
	edit func(i int, cur []string) []string) (uint64, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return 0, err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		v, err := s.editOnce(ctx, sess, names, failMissing, edit)
		if !errors.Is(err, errRetry) || attempt == 8 {
			return v, err
		}
	}
}

func (s *Server) editOnce(ctx context.Context, sess *memorySession, names []string, failMissing bool,
	edit func(i int, cur []string) []string) (uint64, error) {
	type entry struct {
		old  any // the property as read: nil when missing
		list []string
	}
	lists := map[string]*entry{}
	var order []string
	for i, name := range names {
		e, ok := lists[name]
		if !ok {
			n, _, found, err := sess.NodeByNick(ctx, name)
			if err != nil {
				return 0, s.callError(ctx, err)
			}
			if !found {
				if failMissing {
					return 0, gqlstatus.Errorf(gqlstatus.InvalidReference, "Entity with name %s not found", name).
						WithHint("nothing was added; create the entity first (create_entities)")
				}
				continue
			}
			old := n.Props["observations"]
			cur, err := stringList(name, old)
			if err != nil {
				return 0, err
			}
			e = &entry{old: old, list: cur}
			lists[name] = e
			order = append(order, name)
		}
		e.list = edit(i, e.list)
	}
	var stmts []string
	for _, name := range order {
		e := lists[name]
		old, _ := stringList(name, e.old)
		if e.old != nil && slices.Equal(old, e.list) {
			continue
		}
		match := "MATCH (n {nick: " + values.String(name).Literal() + "}) WHERE n.observations "
		if e.old == nil {
			match += "IS NULL"
		} else {
			match += "= " + stringsLiteral(old)
		}
		stmts = append(stmts, match+" SET n.observations = "+stringsLiteral(e.list))
	}
	if len(stmts) == 0 {
		return sess.Version(), nil
	}
	res, err := s.commitAll(ctx, sess, stmts, "entities' observations")
	if err != nil {
		return 0, err
	}
	for _, st := range res.Stmts {
		if st.Bindings == 0 {
			// Changed since it was read (by a Commit that is not a memory
			// tool's): the call is made again on what is there now; what
			// this one wrote is what that one would.
			return res.Version, errRetry
		}
	}
	return res.Version, nil
}

// stringList reads an observations property: a list of strings, or
// nothing.
func stringList(entity string, v any) ([]string, error) {
	if v == nil {
		return []string{}, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "the observations of %s are not a list", entity).
			WithHint("set them to a list of strings with commit")
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		str, ok := x.(string)
		if !ok {
			return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "the observations of %s hold a %T, not only strings", entity, x).
				WithHint("set them to a list of strings with commit")
		}
		out = append(out, str)
	}
	return out, nil
}

func (s *Server) addObservations(ctx context.Context, sc *Scope, adds []observationAdd) (*mcp.CallToolResult, ObservationsJSON, error) {
	names := make([]string, len(adds))
	for i, a := range adds {
		names[i] = a.EntityName
	}
	var results []AddedObservations
	version, err := s.editObservations(ctx, sc, names, true, func(i int, cur []string) []string {
		if i == 0 {
			results = make([]AddedObservations, len(adds))
		}
		// As the original: a content the entity holds already is left
		// out, one given twice in this add is added twice.
		added := []string{}
		held := slices.Clone(cur)
		for _, c := range adds[i].Contents {
			if !slices.Contains(held, c) {
				cur = append(cur, c)
				added = append(added, c)
			}
		}
		results[i] = AddedObservations{EntityName: adds[i].EntityName, AddedObservations: added}
		return cur
	})
	if err != nil {
		return nil, ObservationsJSON{}, err
	}
	out := ObservationsJSON{Results: results}
	if out.Results == nil {
		out.Results = []AddedObservations{}
	}
	return writeAnswer(out.Results, version, nil), out, nil
}

func (s *Server) deleteObservations(ctx context.Context, sc *Scope, dels []observationDeletion) (*mcp.CallToolResult, DeletedJSON, error) {
	names := make([]string, len(dels))
	for i, d := range dels {
		names[i] = d.EntityName
	}
	version, err := s.editObservations(ctx, sc, names, false, func(i int, cur []string) []string {
		return slices.DeleteFunc(cur, func(o string) bool { return slices.Contains(dels[i].Observations, o) })
	})
	if err != nil {
		return nil, DeletedJSON{}, err
	}
	msg := "Observations deleted successfully"
	return textResult(fmt.Sprintf("%s\n// version %d", msg, version)), DeletedJSON{Success: true, Message: msg}, nil
}

func (s *Server) deleteEntities(ctx context.Context, sc *Scope, names []string) (*mcp.CallToolResult, DeletedJSON, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, DeletedJSON{}, err
	}
	defer unlock()
	version, deleted := sess.Version(), 0
	var stmts []string
	for _, n := range dedupe(names) {
		stmts = append(stmts, "MATCH (n {nick: "+values.String(n).Literal()+"}) DETACH DELETE n")
	}
	if len(stmts) > 0 {
		res, err := s.commitAll(ctx, sess, stmts, "names")
		if err != nil {
			return nil, DeletedJSON{}, err
		}
		version, deleted = res.Version, res.Total.NodesRecycled
	}
	msg := "Entities deleted successfully"
	return textResult(fmt.Sprintf("%s\n// version %d, %d found", msg, version, deleted)), DeletedJSON{Success: true, Message: msg}, nil
}

func (s *Server) deleteRelations(ctx context.Context, sc *Scope, relations []Relation) (*mcp.CallToolResult, DeletedJSON, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, DeletedJSON{}, err
	}
	defer unlock()
	version, deleted := sess.Version(), 0
	var stmts []string
	seen := map[Relation]bool{}
	for _, r := range relations {
		if seen[r] || r.RelationType == "" {
			continue
		}
		seen[r] = true
		stmts = append(stmts, "MATCH (a {nick: "+values.String(r.From).Literal()+"})-[r:"+quoteName(r.RelationType)+
			"]->(b {nick: "+values.String(r.To).Literal()+"}) DELETE r")
	}
	if len(stmts) > 0 {
		res, err := s.commitAll(ctx, sess, stmts, "relations")
		if err != nil {
			return nil, DeletedJSON{}, err
		}
		version, deleted = res.Version, res.Total.EdgesRecycled
	}
	msg := "Relations deleted successfully"
	return textResult(fmt.Sprintf("%s\n// version %d, %d found", msg, version, deleted)), DeletedJSON{Success: true, Message: msg}, nil
}

// writeAnswer is the text of a write that answers with what it made, as
// the original's: the list as JSON, then the session version it made and
// what it left alone, as comment lines.
func writeAnswer(made any, version uint64, notes []string) *mcp.CallToolResult {
	b, _ := json.Marshal(made)
	text := string(b) + fmt.Sprintf("\n// version %d", version)
	for _, n := range notes {
		text += "\n// " + n
	}
	return textResult(text)
}

// quoteName writes a label or edge type as a GQL identifier: bare when
// it is one, else in backquotes (a backquote doubled), so any entityType
// or relationType the original takes is a kind or type here.
func quoteName(name string) string {
	bare := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			bare = false
			break
		}
	}
	if bare && !reserved[strings.ToUpper(name)] {
		return name
	}
	// Quoted as every name is written (escapes included: a backslash
	// before a u stays itself), and quoted even when it is an identifier
	// the grammar reserves.
	if q := values.KeyLiteral(name); q[0] == '`' {
		return q
	}
	return "`" + name + "`"
}

// reserved are words a bare label may not be; quoting them is always
// right, so the list need only hold the ones a type is likely to be.
var reserved = map[string]bool{"MATCH": true, "INSERT": true, "SET": true, "REMOVE": true, "DELETE": true,
	"DETACH": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "IN": true, "IS": true, "NULL": true,
	"TRUE": true, "FALSE": true, "LIMIT": true, "RETURN": true, "CALL": true, "CREATE": true, "DROP": true,
	"VIEW": true, "ACTION": true, "START": true, "COMMIT": true, "ROLLBACK": true, "TRANSACTION": true,
	"CONTAINS": true, "STARTS": true, "ENDS": true, "WITH": true, "AS": true, "OPTIONAL": true, "ORDER": true,
	"BY": true, "DATE": true, "DATETIME": true, "NEXT": true, "USE": true, "CASE": true, "EXISTS": true}

func size(name string, obs []string) int {
	n := len(name) + 16
	for _, o := range obs {
		n += len(o) + 4
	}
	return n
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, x := range list {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sessionsText is what a model reads of the sessions tool: one line a
// session.
func sessionsText(list wire.Sessions) string {
	if len(list.Sessions) == 0 {
		return "no sessions yet: a commit to a new name makes one"
	}
	var b strings.Builder
	for i, in := range list.Sessions {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s v=%d nodes=%d edges=%d", in.Name, in.Version, in.Nodes, in.Edges)
	}
	return b.String()
}
