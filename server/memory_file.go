package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The memory server's file (memory.jsonl: one JSON object a line, an
// entity {"type":"entity","name","entityType","observations"} or a
// relation {"type":"relation","from","to","relationType"}), read into a
// session and written out of one with the drop-in tools' mapping
// (memory.go): an entity is a node of kind entityType with nick = name
// and the list property observations, a relation an edge of type
// relationType between the nodes whose nicks are from and to. So after
// ImportMemory the drop-in's read_graph shows what the original showed,
// and the original reads what ExportMemory writes as it read the file
// that was imported.
//
// ReadMemoryFile checks the whole file first and ImportMemory checks it
// against the session; a bad line anywhere fails the import whole, with
// every bad line named, before anything is written. The writes are then
// Δs of as many statements as R allows, so a large file is a few
// Commits, not one: a process that dies midway leaves the Δs it
// committed, and running the import again completes it, because an
// import applies only what the session lacks (a second run of the same
// file applies nothing).

// MemoryFile is a memory server's file, read and checked: entities with
// the observations of every line that names them, and relations without
// repeats, each in the order the file first names it.
type MemoryFile struct {
	Entities  []Entity
	Relations []Relation
	// Lines is the number of lines read (blank lines included).
	Lines int
	// entityLine and relationLine are the line each item first appears
	// on, for the errors ImportMemory finds against the session.
	entityLine   []int
	relationLine []int
	// name and bad are the file's name and its bad lines, which
	// ImportMemory reports with those it finds against the session.
	name string
	bad  []*gqlstatus.Error
}

// MemoryLine is one decoded line: an entity or a relation.
type MemoryLine struct {
	Entity   *Entity
	Relation *Relation
}

// FileErrors are the bad lines of a memory file, all of them, sorted by
// line: GQLSTATUS 22000 (data exception), nothing imported. Each line's
// error carries its own code and the line in its Pos.
type FileErrors struct {
	Name  string
	Lines []*gqlstatus.Error
}

func (e *FileErrors) Error() string {
	name := e.Name
	if name == "" {
		name = "the memory file"
	}
	return fmt.Sprintf("GQLSTATUS %s: %d bad %s in %s; nothing imported: mend %s and import again",
		gqlstatus.DataException, len(e.Lines), plural(len(e.Lines), "line", "lines"), name, plural(len(e.Lines), "it", "them"))
}

// GQLStatus is 22000.
func (e *FileErrors) GQLStatus() gqlstatus.Code { return gqlstatus.DataException }

// fileLine is a line as JSON says it; a nil field is one the line lacks.
type fileLine struct {
	Type         *string          `json:"type"`
	Name         *string          `json:"name"`
	EntityType   *string          `json:"entityType"`
	Observations *json.RawMessage `json:"observations"`
	From         *string          `json:"from"`
	To           *string          `json:"to"`
	RelationType *string          `json:"relationType"`
}

// maxNameBytes bounds a name or a type: a nick or a label longer than
// this is a value no Recall token could name.
const maxNameBytes = 4096

// DecodeMemoryLine decodes one non-blank line of a memory file. Its
// errors say what is wrong with the line (the caller adds the line
// number); other fields than the format's are ignored, as the original
// ignores them.
func DecodeMemoryLine(b []byte) (MemoryLine, error) {
	if !utf8.Valid(b) {
		return MemoryLine{}, gqlstatus.Errorf(gqlstatus.DataException, "the line is not valid UTF-8").
			WithHint("save the file as UTF-8")
	}
	var l fileLine
	if err := json.Unmarshal(b, &l); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return MemoryLine{}, gqlstatus.Errorf(gqlstatus.InvalidValueType, "%s is a JSON %s, not a string", te.Field, te.Value).
				WithHint("write it as the memory server does: a JSON string")
		}
		return MemoryLine{}, gqlstatus.Errorf(gqlstatus.DataException, "the line is not one JSON object: %v", err).
			WithHint(`each line is {"type":"entity",…} or {"type":"relation",…}`)
	}
	if l.Type == nil {
		return MemoryLine{}, gqlstatus.Errorf(gqlstatus.DataException, `the line has no "type"`).
			WithHint(`give it "type":"entity" or "type":"relation"`)
	}
	missing := func(fields ...string) error {
		return gqlstatus.Errorf(gqlstatus.DataException, "the %s lacks %s", *l.Type, strings.Join(fields, ", ")).
			WithHint("every " + *l.Type + " needs them, as the memory server writes it")
	}
	switch *l.Type {
	case "entity":
		if lack := lacking("name", l.Name != nil, "entityType", l.EntityType != nil,
			"observations", l.Observations != nil && string(*l.Observations) != "null"); len(lack) > 0 {
			return MemoryLine{}, missing(lack...)
		}
		var obs []string
		if err := json.Unmarshal(*l.Observations, &obs); err != nil {
			return MemoryLine{}, gqlstatus.Errorf(gqlstatus.InvalidValueType, "observations is not an array of strings").
				WithHint(`write them as ["…", "…"]`)
		}
		e := &Entity{Name: *l.Name, EntityType: *l.EntityType, Observations: obs}
		if err := holdable("name", e.Name); err != nil {
			return MemoryLine{}, err
		}
		if len(e.EntityType) > maxNameBytes { // empty is a node without a kind, as create_entities makes
			return MemoryLine{}, holdable("entityType", e.EntityType)
		}
		return MemoryLine{Entity: e}, nil
	case "relation":
		if lack := lacking("from", l.From != nil, "to", l.To != nil, "relationType", l.RelationType != nil); len(lack) > 0 {
			return MemoryLine{}, missing(lack...)
		}
		r := &Relation{From: *l.From, To: *l.To, RelationType: *l.RelationType}
		if err := holdable("relationType", r.RelationType); err != nil {
			return MemoryLine{}, err
		}
		return MemoryLine{Relation: r}, nil
	default:
		return MemoryLine{}, gqlstatus.Errorf(gqlstatus.DataException, "unknown type %q", *l.Type).
			WithHint(`a line is "type":"entity" or "type":"relation"`)
	}
}

// lacking lists the fields (name, present pairs) that are not present.
func lacking(fields ...any) []string {
	var out []string
	for i := 0; i+1 < len(fields); i += 2 {
		if !fields[i+1].(bool) {
			out = append(out, fields[i].(string))
		}
	}
	return out
}

// holdable refuses a name or type goldfish cannot hold as a nick or a
// label: empty, or over maxNameBytes.
func holdable(field, v string) error {
	switch {
	case v == "":
		return gqlstatus.Errorf(gqlstatus.InvalidName, "%s is empty", field).
			WithHint("give it a value: goldfish names a node by its name and gives it its type as its kind")
	case len(v) > maxNameBytes:
		return gqlstatus.Errorf(gqlstatus.InvalidName, "%s is %d bytes, over the %d goldfish holds", field, len(v), maxNameBytes).
			WithHint("shorten it")
	}
	return nil
}

// ReadMemoryFile reads and checks a memory file; name is for the errors.
// A bad line does not stop the reading: every bad line is in the
// returned *FileErrors, and the file is returned with it (its good lines)
// so that ImportMemory reports them with the bad lines only the session
// shows; it imports nothing while there is one. An entity named on several lines is one entity:
// its first line gives its type (another type on a later line is a bad
// line), and each later line adds the observations it lacks, as the
// original's add_observations does; a relation repeated is one relation.
func ReadMemoryFile(r io.Reader, name string) (*MemoryFile, error) {
	f := &MemoryFile{name: name}
	bad := func(line int, err error) {
		ge, ok := err.(*gqlstatus.Error)
		if !ok {
			ge = gqlstatus.Errorf(gqlstatus.DataException, "%v", err)
		}
		ge.Pos = gqlstatus.Pos{Line: line}
		f.bad = append(f.bad, ge)
	}
	entities := map[string]int{}
	relations := map[Relation]bool{}
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			f.Lines++
			if t := bytes.TrimSpace(b); len(t) > 0 {
				f.add(t, f.Lines, entities, relations, bad)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, gqlstatus.Errorf(gqlstatus.FileAccess, "reading %s: %v", name, err).WithHint("check the file")
		}
	}
	if len(f.bad) > 0 {
		return f, &FileErrors{Name: name, Lines: slices.Clone(f.bad)}
	}
	return f, nil
}

func (f *MemoryFile) add(b []byte, line int, entities map[string]int, relations map[Relation]bool, bad func(int, error)) {
	l, err := DecodeMemoryLine(b)
	if err != nil {
		bad(line, err)
		return
	}
	if e := l.Entity; e != nil {
		i, seen := entities[e.Name]
		if !seen {
			entities[e.Name] = len(f.Entities)
			f.Entities = append(f.Entities, Entity{Name: e.Name, EntityType: e.EntityType, Observations: slices.Clone(e.Observations)})
			f.entityLine = append(f.entityLine, line)
			return
		}
		first := &f.Entities[i]
		if first.EntityType != e.EntityType {
			bad(line, gqlstatus.Errorf(gqlstatus.InvalidValueType, "entity %q is a %q here and a %q on line %d", e.Name, e.EntityType, first.EntityType, f.entityLine[i]).
				WithHint("a node has one kind: give both lines the same entityType"))
			return
		}
		first.Observations = addNew(first.Observations, e.Observations)
		return
	}
	if r := *l.Relation; !relations[r] {
		relations[r] = true
		f.Relations = append(f.Relations, r)
		f.relationLine = append(f.relationLine, line)
	}
}

// addNew appends the contents cur lacks, as the original's
// add_observations does (each one checked against cur as it was).
func addNew(cur, contents []string) []string {
	old := cur
	for _, c := range contents {
		if !slices.Contains(old, c) {
			cur = append(cur, c)
		}
	}
	return cur
}
