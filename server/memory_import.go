package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// ImportOptions configure ImportMemory.
type ImportOptions struct {
	// Agent commits the Δs ("" for nobody).
	Agent string
	// Budget is the database's R (goldfish.DefaultBudget when zero): the
	// Δs are cut to fit it. A Δ the database still refuses as over R is
	// cut in two and tried again.
	Budget goldfish.Budget
	// Progress, when set, is called after each Commit with the items
	// (entities and relations) written so far and to write.
	Progress func(done, total int)
}

// ImportReport says what an import did.
type ImportReport struct {
	// Entities and Relations are the file's, once each.
	Entities, Relations int
	// Created are the entities made, Merged those already in the session
	// that gained observations, Linked the relations made.
	Created, Merged, Linked int
	// Commits is the number of Δs applied; Version the session's version
	// after them.
	Commits int
	Version uint64
}

// Changes is the number of entities and relations the import made or
// changed: 0 when the session held the file already.
func (r ImportReport) Changes() int { return r.Created + r.Merged + r.Linked }

// importItem is one statement of the import: its text with # for its
// number, its parameters, and its cost in R's rows and bytes.
type importItem struct {
	stmt        string
	params      []any
	rows, bytes int
	kind        itemKind
}

type itemKind int

const (
	createEntity itemKind = iota
	mergeEntity
	createRelation
)

// ImportMemory writes f into sess with the drop-in's mapping, applying
// only what the session lacks: an entity not there becomes a node, one
// there (a node of that nick and kind) gains the observations it lacks,
// a relation not there becomes an edge (the ingest rule, as the drop-in's
// create_relations). Before it writes anything it checks f against the
// session, and fails whole with *FileErrors when an entity is there as
// another kind, when a relation names an entity neither f nor the session
// holds, or when an entity is too large for one Δ, and with the bad
// lines ReadMemoryFile found. The writes are Δs cut to R, committed in
// order (entities first); see the file's comment for a run that stops
// midway.
func ImportMemory(ctx context.Context, sess *goldfish.Session, f *MemoryFile, o ImportOptions) (ImportReport, error) {
	rep := ImportReport{Entities: len(f.Entities), Relations: len(f.Relations)}
	if o.Budget.Rows <= 0 {
		o.Budget.Rows = goldfish.DefaultBudget.Rows
	}
	if o.Budget.Bytes <= 0 {
		o.Budget.Bytes = goldfish.DefaultBudget.Bytes
	}
	g, err := sess.Graph(ctx)
	if err != nil {
		return rep, err
	}
	items, err := planImport(f, g, o.Budget)
	if err != nil {
		return rep, err
	}
	rep.Version = g.Version
	done := 0
	for lo := 0; lo < len(items); {
		hi, rows, bytes := lo, 0, 0
		for hi < len(items) && (hi == lo || rows+items[hi].rows <= o.Budget.Rows && bytes+items[hi].bytes <= o.Budget.Bytes*3/4) {
			rows, bytes = rows+items[hi].rows, bytes+items[hi].bytes
			hi++
		}
		if err := commitItems(ctx, sess, items[lo:hi], o.Agent, &rep); err != nil {
			return rep, err
		}
		done += hi - lo
		lo = hi
		if o.Progress != nil {
			o.Progress(done, len(items))
		}
	}
	return rep, nil
}

// commitItems commits items as one Δ; one the database refuses as over R
// is cut in two.
func commitItems(ctx context.Context, sess *goldfish.Session, items []importItem, agent string, rep *ImportReport) error {
	var d delta
	for i, it := range items {
		d.add(i, it.stmt, it.bytes, it.params...)
	}
	res, err := sess.IngestWith(ctx, strings.Join(d.stmts, ";\n"), d.params, goldfish.CommitOptions{Agent: agent})
	if gqlstatus.CodeOf(err, "") == gqlstatus.CommitBudget && len(items) > 1 {
		if err := commitItems(ctx, sess, items[:len(items)/2], agent, rep); err != nil {
			return err
		}
		return commitItems(ctx, sess, items[len(items)/2:], agent, rep)
	}
	if err != nil {
		return err
	}
	if res.Applied {
		rep.Commits++
		rep.Version = res.Version
	}
	for i, st := range res.Stmts {
		switch {
		case items[i].kind == createEntity && st.NodesCreated > 0:
			rep.Created++
		case items[i].kind == mergeEntity && st.PropsSet > 0:
			rep.Merged++
		case items[i].kind == createRelation && st.EdgesCreated > 0:
			rep.Linked++
		case items[i].kind == mergeEntity && st.Bindings == 0:
			return gqlstatus.Errorf(gqlstatus.SerializationFailure, "the observations of an entity changed while they were imported").
				WithHint("run the import again: it applies only what is still missing")
		}
	}
	return nil
}

// planImport checks f against the session g and returns the statements
// that write what g lacks.
func planImport(f *MemoryFile, g goldfish.Graph, b goldfish.Budget) ([]importItem, error) {
	fe := &FileErrors{Name: f.name, Lines: slices.Clone(f.bad)}
	bad := func(line int, err *gqlstatus.Error) {
		err.Pos = gqlstatus.Pos{Line: line}
		fe.Lines = append(fe.Lines, err)
	}
	nodes := map[string]int{} // nick → node index in g
	for i, n := range g.Nodes {
		if nick, ok := n.Props["nick"].(string); ok {
			if _, dup := nodes[nick]; !dup {
				nodes[nick] = i
			}
		}
	}
	var items []importItem
	inFile := map[string]bool{}
	for i, e := range f.Entities {
		inFile[e.Name] = true
		it, ok, err := entityItem(e, nodes, g)
		if err == nil && it.bytes > b.Bytes-1024 {
			err = gqlstatus.Errorf(gqlstatus.CommitBudget, "entity %q is about %d bytes, too large for one Δ (R is %d bytes)", e.Name, it.bytes/2, b.Bytes).
				WithHint("split its observations, or open the database with a larger commit budget")
		}
		switch {
		case err != nil:
			bad(f.entityLine[i], err)
		case ok:
			items = append(items, it)
		}
	}
	edges := map[Relation]bool{}
	for _, e := range g.Edges {
		from, ok1 := g.Nodes[e.From].Props["nick"].(string)
		to, ok2 := g.Nodes[e.To].Props["nick"].(string)
		if ok1 && ok2 {
			edges[Relation{From: from, To: to, RelationType: e.Type}] = true
		}
	}
	for i, r := range f.Relations {
		var lack []string
		for _, end := range []string{r.From, r.To} {
			if _, there := nodes[end]; !there && !inFile[end] && !slices.Contains(lack, end) {
				lack = append(lack, fmt.Sprintf("%q", end))
			}
		}
		if len(lack) > 0 {
			bad(f.relationLine[i], gqlstatus.Errorf(gqlstatus.InvalidReference, "the relation %q -%s-> %q names %s, an entity neither the file nor the session holds",
				r.From, r.RelationType, r.To, joinAnd(lack)).
				WithHint("add the entity's line to the file, or drop the relation"))
			continue
		}
		if edges[r] {
			continue
		}
		items = append(items, importItem{stmt: "MATCH (a {nick: $f#}), (b {nick: $t#}) INSERT (a)-[:" + quoteName(r.RelationType) + "]->(b)",
			params: []any{"f", r.From, "t", r.To}, rows: 3, bytes: 2 * (len(r.From) + len(r.To) + 16), kind: createRelation})
	}
	if len(fe.Lines) > 0 {
		slices.SortStableFunc(fe.Lines, func(a, b *gqlstatus.Error) int { return cmp.Compare(a.Pos.Line, b.Pos.Line) })
		return nil, fe
	}
	return items, nil
}

// entityItem is the statement that writes what the session g lacks of
// entity e: false when it lacks nothing, an error when g holds e as
// another kind or with observations that are not a list of strings.
func entityItem(e Entity, nodes map[string]int, g goldfish.Graph) (importItem, bool, *gqlstatus.Error) {
	j, there := nodes[e.Name]
	if !there {
		obs := e.Observations
		if obs == nil {
			obs = []string{}
		}
		return importItem{stmt: "INSERT (" + kindLabel(e.EntityType) + "{nick: $n#, observations: $o#})",
			params: []any{"n", e.Name, "o", obs}, rows: 1, bytes: 2 * size(e.Name, obs)}, true, nil
	}
	n := g.Nodes[j]
	if kindOf(n.Labels) != e.EntityType {
		kind := "no kind"
		if len(n.Labels) > 0 {
			kind = fmt.Sprintf("a %q", n.Labels[0])
		}
		return importItem{}, false, gqlstatus.Errorf(gqlstatus.InvalidValueType, "entity %q is a %q here, and the session holds it as %s", e.Name, e.EntityType, kind).
			WithHint("give the line the session's type, or import into another --session")
	}
	old := n.Props["observations"]
	cur, err := stringList(e.Name, old)
	if err != nil {
		return importItem{}, false, err.(*gqlstatus.Error)
	}
	merged := addNew(slices.Clone(cur), e.Observations)
	if len(merged) == len(cur) && old != nil {
		return importItem{}, false, nil
	}
	list := make([]any, len(merged))
	for k, s := range merged {
		list[k] = s
	}
	if old == nil {
		return importItem{stmt: "MATCH (n {nick: $e#}) WHERE n.observations IS NULL SET n.observations = $v#",
			params: []any{"e", e.Name, "v", list}, rows: 2, bytes: 2 * size(e.Name, merged), kind: mergeEntity}, true, nil
	}
	return importItem{stmt: "MATCH (n {nick: $e#}) WHERE n.observations = $w# SET n.observations = $v#",
		params: []any{"e", e.Name, "w", old, "v", list}, rows: 2, bytes: 3 * size(e.Name, merged), kind: mergeEntity}, true, nil
}

func joinAnd(list []string) string {
	if len(list) == 2 {
		return list[0] + " and " + list[1]
	}
	return list[0]
}

// ExportReport says what an export wrote and what it left out: nodes
// without a nick or a kind, and edges that do not join two entities, are
// not of the memory tools' mapping.
type ExportReport struct {
	Entities, Relations int
	SkippedNodes        int
	SkippedEdges        int
	Version             uint64
}

// ExportMemory writes the session as a memory file: one entity line per
// node with a nick and a kind, sorted by name (then type), then one
// relation line per edge between two of them, sorted by from, type and
// to, each once. Observations that are not a list of strings fail the
// export (22G03), naming the entity.
func ExportMemory(ctx context.Context, sess *goldfish.Session, w io.Writer) (ExportReport, error) {
	g, err := sess.Graph(ctx)
	if err != nil {
		return ExportReport{}, err
	}
	rep := ExportReport{Version: g.Version}
	var entities []Entity
	entity := make([]bool, len(g.Nodes))
	for i, n := range g.Nodes {
		nick, ok := n.Props["nick"].(string)
		if !ok {
			rep.SkippedNodes++
			continue
		}
		obs, err := stringList(nick, n.Props["observations"])
		if err != nil {
			return rep, err
		}
		entity[i] = true
		entities = append(entities, Entity{Name: nick, EntityType: kindOf(n.Labels), Observations: obs})
	}
	slices.SortStableFunc(entities, func(a, b Entity) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.EntityType, b.EntityType))
	})
	seen := map[Relation]bool{}
	var relations []Relation
	for _, e := range g.Edges {
		if !entity[e.From] || !entity[e.To] {
			rep.SkippedEdges++
			continue
		}
		r := Relation{From: g.Nodes[e.From].Props["nick"].(string), To: g.Nodes[e.To].Props["nick"].(string), RelationType: e.Type}
		if !seen[r] {
			seen[r] = true
			relations = append(relations, r)
		}
	}
	slices.SortFunc(relations, func(a, b Relation) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.RelationType, b.RelationType), cmp.Compare(a.To, b.To))
	})
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range entities {
		if err := enc.Encode(fileEntity{"entity", e.Name, e.EntityType, e.Observations}); err != nil {
			return rep, err
		}
	}
	for _, r := range relations {
		if err := enc.Encode(fileRelation{"relation", r.From, r.To, r.RelationType}); err != nil {
			return rep, err
		}
	}
	rep.Entities, rep.Relations = len(entities), len(relations)
	return rep, nil
}

// fileEntity and fileRelation are the lines as the original writes them,
// its keys in its order.
type fileEntity struct {
	Type         string   `json:"type"`
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

type fileRelation struct {
	Type         string `json:"type"`
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}
