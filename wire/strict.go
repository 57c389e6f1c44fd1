package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// encoding/json reads a request more loosely than its fields are
// documented: of a key given twice it keeps the last, it matches a key to
// a field whatever its case ("TEXT" sets text), and null leaves a field
// as it was (a Commit of "", answered as a Commit of nothing). Each of
// those changes a request silently, so CheckKeys refuses them before the
// body is decoded. It scans the bytes once, without decoding the values,
// so the check costs little beside the decoding (BenchmarkCheckKeys).

// CheckKeys checks the objects of a request body against the type t it
// is decoded into: every key once in its object, every key of an object
// decoded into a struct exactly the name of one of its fields, and no
// null for a field the request needs (one without omitempty). Objects
// into a map, an interface or a type it does not know (t nil) are
// checked for keys given twice only. A refusal is 22Q06 and names the
// key, its place in the body and what to send. Text that is not JSON is
// left to the decoder, whose error says what is wrong with it.
func CheckKeys(body []byte, t reflect.Type) error { return checkKeys("request body", body, t) }

// DuplicateKeys refuses a key given twice in an object of a JSON text
// (what names it: "message", "line"), as CheckKeys does: the MCP
// messages, whose decoder keeps the last.
func DuplicateKeys(what string, body []byte) error { return checkKeys(what, body, nil) }

func checkKeys(what string, body []byte, t reflect.Type) error {
	c := keyCheck{what: what, b: body}
	err := c.value(t)
	if err == errNotJSON {
		return nil
	}
	return err
}

// errNotJSON stops a check at text that is not JSON, or nested deeper
// than encoding/json takes (which then refuses it).
var errNotJSON = errors.New("not JSON")

// maxDepth is encoding/json's limit of nesting.
const maxDepth = 10000

type keyCheck struct {
	what string
	b    []byte
	i    int
	// path is where the scan is, for a refusal: a key or a list's
	// index per level.
	path []step
}

// step is one level of a keyCheck's path: an object's key (its text
// unescaped) or a list's index.
type step struct {
	key   []byte
	index int
	list  bool
}

func (c *keyCheck) space() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return
		}
	}
}

// value checks the value at c.i, decoded into t, and moves past it.
func (c *keyCheck) value(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	c.space()
	if c.i >= len(c.b) {
		return errNotJSON
	}
	switch c.b[c.i] {
	case '{':
		return c.object(t)
	case '[':
		return c.list(t)
	case '"':
		_, _, err := c.str()
		return err
	}
	for ; c.i < len(c.b); c.i++ { // a number, true, false or null: the decoder reads it
		switch c.b[c.i] {
		case ' ', '\t', '\r', '\n', ',', ']', '}':
			return nil
		}
	}
	return nil
}

// str moves past the string at c.i and returns its raw text, between
// the quotes, and whether it holds an escape.
func (c *keyCheck) str() ([]byte, bool, error) {
	start := c.i + 1
	end, escaped := StringEnd(c.b, start)
	if end < 0 {
		c.i = len(c.b)
		return nil, false, errNotJSON
	}
	c.i = end + 1
	return c.b[start:end], escaped, nil
}

func (c *keyCheck) list(t reflect.Type) error {
	if len(c.path) >= maxDepth {
		return errNotJSON
	}
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	c.i++
	c.space()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return nil
	}
	c.path = append(c.path, step{list: true})
	for n := 0; ; n++ {
		c.path[len(c.path)-1].index = n
		if err := c.value(elem); err != nil {
			return err
		}
		if end, err := c.after(']'); end || err != nil {
			return err
		}
	}
}

// object checks the keys of the object at c.i.
func (c *keyCheck) object(t reflect.Type) error {
	if len(c.path) >= maxDepth {
		return errNotJSON
	}
	var fields map[string]field
	var elem reflect.Type
	switch {
	case t == nil:
	case t.Kind() == reflect.Struct:
		fields = fieldsOf(t)
	case t.Kind() == reflect.Map:
		elem = t.Elem()
	}
	c.i++
	c.space()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return nil
	}
	c.path = append(c.path, step{})
	var few [8][]byte
	seen := few[:0] // the keys so far; a map past a few
	var many map[string]bool
	for {
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			return errNotJSON
		}
		off := c.i
		key, escaped, err := c.str()
		if err != nil {
			return err
		}
		if escaped || !utf8.Valid(key) {
			// As a decoder reads it: escapes undone, and bytes that are
			// not UTF-8 as U+FFFD (two such keys are the same key).
			var k string
			if err := json.Unmarshal(c.b[off:c.i], &k); err != nil {
				return errNotJSON
			}
			key = []byte(k)
		}
		c.path[len(c.path)-1].key = key
		switch {
		case many != nil && many[string(key)], many == nil && slices.ContainsFunc(seen, func(k []byte) bool { return bytes.Equal(k, key) }):
			return c.refuse(off, fmt.Sprintf("%s appears twice in the %s", c.at(), c.what),
				"give each field once: a JSON decoder would keep only the last")
		case many != nil:
			many[string(key)] = true
		case len(seen) < len(few):
			seen = append(seen, key)
		default:
			many = map[string]bool{string(key): true}
			for _, k := range seen {
				many[string(k)] = true
			}
		}
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return errNotJSON
		}
		c.i++
		vt := elem
		if fields != nil {
			f, ok := fields[string(key)]
			if !ok {
				return c.unknown(off, fields)
			}
			c.space()
			if f.required && bytes.HasPrefix(c.b[c.i:], []byte("null")) {
				return c.refuse(c.i, fmt.Sprintf("the %s's field %s is null", c.what, c.at()),
					fmt.Sprintf("give %q a value: it is required, and null would leave it empty", key))
			}
			vt = f.typ
		}
		if err := c.value(vt); err != nil {
			return err
		}
		if end, err := c.after('}'); end || err != nil {
			return err
		}
	}
}

// after reads what follows a member of a list or an object: a comma,
// or its closing bracket (end, leaving the member's path step).
func (c *keyCheck) after(closing byte) (end bool, err error) {
	c.space()
	if c.i >= len(c.b) {
		return false, errNotJSON
	}
	c.i++
	switch c.b[c.i-1] {
	case closing:
		c.path = c.path[:len(c.path)-1]
		return true, nil
	case ',':
		return false, nil
	}
	return false, errNotJSON
}

// unknown refuses the key at off, which none of fields is: as a field in
// another case, or as a key the endpoint does not take.
func (c *keyCheck) unknown(off int, fields map[string]field) error {
	key := string(c.path[len(c.path)-1].key)
	names := slices.Sorted(maps.Keys(fields))
	for _, name := range names {
		if strings.EqualFold(name, key) {
			return c.refuse(off, fmt.Sprintf("the %s's field %s is spelled %q: field names are case-sensitive", c.what, c.at(), name),
				fmt.Sprintf("write %q", name))
		}
	}
	return c.refuse(off, fmt.Sprintf("the %s's field %s is not one the endpoint takes", c.what, c.at()),
		"its fields here are "+strings.Join(names, ", "))
}

// at names where the scan is: "options.M", "params.l[0].date", quoted.
func (c *keyCheck) at() string {
	var b strings.Builder
	for _, p := range c.path {
		if p.list {
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(p.key)
	}
	return strconv.Quote(b.String())
}

// refuse is a refusal at byte off of the body, with its line and column
// (no source line: a body may be one line of megabytes).
func (c *keyCheck) refuse(off int, msg, hint string) error {
	ge := gqlstatus.Errorf(gqlstatus.InvalidOption, "%s (byte %d)", msg, off).WithHint(hint)
	ge.Pos = posAt(c.b, off)
	return ge
}

// posAt is the line and column (in runes) of byte off of text.
func posAt(text []byte, off int) gqlstatus.Pos {
	off = min(off, len(text))
	before := text[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return gqlstatus.Pos{Line: line, Col: len([]rune(string(before[start:]))) + 1, Offset: off}
}

// field is what CheckKeys knows of a struct's field: its type, and
// whether the request needs it (no omitempty: null is refused).
type field struct {
	typ      reflect.Type
	required bool
}

// extraFields are the keys a type reads in its UnmarshalJSON beside its
// tagged fields.
var extraFields = map[reflect.Type]map[string]field{
	reflect.TypeFor[RecallSettings](): {"rows": {typ: reflect.TypeFor[bool]()}},
}

// fieldCache holds fieldsOf's answers by type.
var fieldCache sync.Map

// fieldsOf are the JSON names of a struct's fields as encoding/json
// reads them: the tag's name or the field's, those of an embedded struct
// without a name promoted, "-" and unexported fields left out.
func fieldsOf(t reflect.Type) map[string]field {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]field)
	}
	out := map[string]field{}
	maps.Copy(out, extraFields[t])
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, f := range fieldsOf(ft) {
					if _, ok := out[k]; !ok {
						out[k] = f
					}
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out[name] = field{typ: ft, required: !slices.Contains(strings.Split(opts, ","), "omitempty")}
	}
	fieldCache.Store(t, out)
	return out
}
