package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// encode writes v as the server and the shell do: <, > and & as they are.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// shapeWithRows is a Shape of every value kind a property holds.
func shapeWithRows() *values.Shape {
	seed := values.MakeProps(map[string]values.Value{
		"nick": values.String("t1"), "n": values.Int(3), "f": values.Float(2), "g": values.Float(2.5),
		"b": values.Bool(true), "d": values.DateValue("2026-01-31"), "dt": values.DateTimeValue("2026-01-31T10:00:00+02:00"),
		"l": values.List(values.Int(1), values.Float(1), values.String("x <&> y"), values.List(values.DateValue("2000-02-29"))),
	})
	mod := values.MakeProps(map[string]values.Value{"loc": values.String("a/b.go"), "body": values.String("long")})
	sh := &values.Shape{
		Text:    "// goldfish session=main version=3 cue=match seeds=1 k=2 rows=3/50 tokens=99\nINSERT\n  (t1:TSK {…}),\n  (t1)-[:touches]->(m1)\n",
		Session: "main", Cue: values.CueMatch, Seeds: 1, Rows: 3, Tokens: 99, K: 2, M: 50, Version: 3,
		Trimmed: 1, Elided: 1, Clamps: []string{"t1: 3 more touches"},
		Notices:   []gqlstatus.Notice{{Code: gqlstatus.Warning, Msg: "LIMIT clamped", Pos: gqlstatus.Pos{Line: 1, Col: 21, Offset: 20}}},
		Status:    gqlstatus.Warning,
		Attention: &values.Attention{StaleActions: []string{"close"}, VocabularyHealth: "stable"},
	}
	sh.SetRows([]values.ShapeNode{
		{Var: "t1", Labels: []string{"TSK", "Open"}, Props: seed, Seed: true, More: 3,
			Elided: []values.ElidedValue{{Key: "g", Param: "$elided1"}}},
		{Var: "m1", Labels: []string{"MOD"}, Props: mod, Hop: 1, Trimmed: true},
		{Var: "p1", Labels: []string{"PIN"}, Hop: -1, Pinned: true},
	}, []values.ShapeEdge{{Type: "touches", From: 0, To: 1, Props: values.MakeProps(map[string]values.Value{"w": values.Float(0.5)})}})
	return sh
}

// TestShapeRoundTrip: a Shape rendered with its rows and read back is the
// Shape, rows and text included, each value of its own kind (an integral
// FLOAT stays FLOAT, a DATE a DATE).
func TestShapeRoundTrip(t *testing.T) {
	sh := shapeWithRows()
	b := encode(t, wire.ShapeOf(sh, true))
	var back wire.Shape
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := back.Value()
	if !reflect.DeepEqual(got, sh) {
		t.Fatalf("read back:\n%+v\nwant:\n%+v\nJSON: %s", got, sh, b)
	}
	kinds := map[string]values.ValueKind{"n": values.KindInt, "f": values.KindFloat, "d": values.KindDate, "dt": values.KindDateTime, "l": values.KindList}
	for key, want := range kinds {
		if v, _ := got.Nodes()[0].Props.Get(key); v.Kind() != want {
			t.Errorf("%s: %v, want %v", key, v.Kind(), want)
		}
	}
	if l, _ := got.Nodes()[0].Props.Get("l"); l.AsList()[1].Kind() != values.KindFloat || l.AsList()[3].AsList()[0].Kind() != values.KindDate {
		t.Errorf("a list's elements changed kind: %v", l)
	}
	// The outline's counts come back too.
	out := &values.Shape{Text: "x", Cue: values.CueOutline, Session: "s",
		Outline: &values.Outline{Kinds: []values.NameCount{{Name: "A", Count: 2}}, Types: []values.NameCount{}}}
	out.SetRows([]values.ShapeNode{{Var: "a1", Labels: []string{"A"}}}, nil)
	var ob wire.Shape
	if err := json.Unmarshal(encode(t, wire.ShapeOf(out, true)), &ob); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ob.Value(), out) {
		t.Errorf("the outline read back:\n%+v\nwant:\n%+v", ob.Value(), out)
	}
}

// TestShapeWithoutRows: without "rows" the answer has none of the rows'
// keys, the bytes it always had, and reads back as the Shape's text and
// facts.
func TestShapeWithoutRows(t *testing.T) {
	sh := shapeWithRows()
	b := encode(t, wire.ShapeOf(sh, false))
	want := `{"status":"01000","cue":"match","seeds":1,"rows":3,"tokens":99,"version":3,"trimmed":1,"elided":1,` +
		`"notices":[{"code":"01000","message":"LIMIT clamped"}],"attention":{"stale_actions":["close"],"vocabulary_health":"stable"},` +
		`"gql":"// goldfish session=main version=3 cue=match seeds=1 k=2 rows=3/50 tokens=99\nINSERT\n  (t1:TSK {…}),\n  (t1)-[:touches]->(m1)\n"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	// json.Marshal escapes as it always did: the custom marshaller keeps
	// what the encoder asks for.
	esc, _ := json.Marshal(wire.ShapeOf(sh, false))
	if !strings.Contains(string(esc), `-\u003e`) {
		t.Errorf("json.Marshal did not escape: %s", esc)
	}
	var back wire.Shape
	if err := json.Unmarshal(b, &back); err != nil || back.Detail != nil {
		t.Fatalf("%v %+v", err, back.Detail)
	}
	got := back.Value()
	if got.Text != sh.Text || got.Nodes() != nil || got.Session != "" || got.Seeds != 1 || got.Status != gqlstatus.Warning {
		t.Errorf("read back %+v", got)
	}
}

// TestRecallSettingsRows: "rows" is read and written with the settings,
// and only there; an unknown option is refused as before.
func TestRecallSettingsRows(t *testing.T) {
	var req wire.RecallRequest
	if err := json.Unmarshal([]byte(`{"q": "MATCH ()", "options": {"M": 3, "k": 0, "rows": true, "only": "shape,views"}}`), &req); err != nil {
		t.Fatal(err)
	}
	if !req.Options.Rows || req.Options.M != 3 || req.Options.K == nil || *req.Options.K != 0 || len(req.Options.Only) != 2 {
		t.Errorf("%+v", req.Options)
	}
	o, err := req.RecallOptions()
	if err != nil || o.K != values.NoWalk || o.M != 3 {
		t.Errorf("%+v %v", o, err)
	}
	if b := encode(t, wire.RecallSettings{M: 3}); string(b) != `{"M":3}` {
		t.Errorf("without rows: %s", b)
	}
	if b := encode(t, wire.RecallSettings{M: 3, Rows: true}); string(b) != `{"M":3,"rows":true}` {
		t.Errorf("with rows: %s", b)
	}
	for _, bad := range []string{`{"foo": 1}`, `{"M": "x"}`, `5`} {
		var s wire.RecallSettings
		err := json.Unmarshal([]byte(bad), &s)
		if err == nil || strings.Contains(err.Error(), "recallFields") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := (wire.RecallRequest{Options: wire.RecallSettings{K: new(int)}}).RecallOptions(); err != nil {
		t.Error(err)
	}
	k := -1
	if _, err := (wire.RecallRequest{Options: wire.RecallSettings{K: &k}}).RecallOptions(); gqlstatus.CodeOf(err, "") != gqlstatus.RecallBudget {
		t.Errorf("k=-1: %v", err)
	}
}

// TestCommitForms: the server's and the shell's Commit are one object,
// the Δ's statement count each's own, and the shell's transaction lines
// add "transaction" after the notices.
func TestCommitForms(t *testing.T) {
	res := &values.CommitResult{Status: gqlstatus.Omitted, Version: 2, Applied: true, Total: values.Counts{NodesCreated: 2},
		Stmts: []values.StmtResult{
			{Index: 1, Status: "00001", Counts: values.Counts{NodesCreated: 1}, Action: "close",
				Notices: []gqlstatus.Notice{{Code: gqlstatus.Warning, Msg: "echo", Pos: gqlstatus.Pos{Line: 1, Col: 8}}}},
			{Index: 2, Status: "00001", Counts: values.Counts{NodesCreated: 1}},
		}}
	server := encode(t, wire.CommitOf(res, len(res.Stmts)))
	if !strings.Contains(string(server), `"statements":2,`) || !strings.Contains(string(server), `"notices":[{"code":"01000","message":"echo","line":1,"column":8}],"actions":["close"],"results":[`) {
		t.Errorf("server: %s", server)
	}
	if shell := encode(t, wire.CommitOf(res, 1)); strings.Contains(string(shell), `"statements"`) {
		t.Errorf("shell, one statement typed: %s", shell)
	}
	var back wire.Commit
	if err := json.Unmarshal(server, &back); err != nil || !reflect.DeepEqual(back.Value(), res) {
		t.Errorf("read back %+v (%v), want %+v", back.Value(), err, res)
	}
	line := encode(t, wire.ShellCommit{Commit: wire.Commit{Status: "00001", Version: 2, Notices: []wire.Notice{}}, Transaction: "started"})
	want := `{"status":"00001","version":2,"applied":false,"nodes_created":0,"edges_created":0,"properties_set":0,"labels_added":0,` +
		`"labels_removed":0,"nodes_recycled":0,"edges_recycled":0,"nodes_updated":0,"bindings":0,"notices":[],"transaction":"started"}`
	if string(line) != want {
		t.Errorf("transaction line:\n%s\nwant\n%s", line, want)
	}
}

// TestErrorForms: the server's error object and the shell's error line,
// from one error, each in its published form; the status says whose the
// error is, and the object reads back as the error (a dropped session's
// cause included).
func TestErrorForms(t *testing.T) {
	ge := gqlstatus.At(gqlstatus.Syntax, gqlstatus.Pos{Line: 2, Col: 3}, "INSERT (:A);\nX Y", "unexpected %q", "Y").WithHint("write INSERT")
	ge.Stmt = 2
	if b := encode(t, wire.ErrorOf(ge)); string(b) != `{"gqlstatus":"42001","message":"unexpected \"Y\"","hint":"write INSERT","statement":2,"line":2,"column":3,"caret":"  X Y\n    ^"}` {
		t.Errorf("server: %s", b)
	}
	if b := encode(t, wire.ShellErrorOf(ge, "a.gql")); string(b) != `{"status":"42001","error":"unexpected \"Y\"","hint":"write INSERT","statement":2,"file":"a.gql","line":2,"column":3}` {
		t.Errorf("shell: %s", b)
	}
	plain := gqlstatus.Errorf(gqlstatus.InvalidOption, "no")
	if b := encode(t, wire.ErrorOf(plain)); string(b) != `{"gqlstatus":"22Q06","message":"no","line":0,"column":0}` {
		t.Errorf("server, no position: %s", b)
	}
	if b := encode(t, wire.ShellErrorOf(plain, "")); string(b) != `{"status":"22Q06","error":"no"}` {
		t.Errorf("shell, no position: %s", b)
	}

	dropped := &gqlstatus.Error{Code: gqlstatus.InvalidReference, Msg: "dropped", Cause: values.ErrDropped}
	for _, c := range []struct {
		ge   *gqlstatus.Error
		want int
	}{
		{ge, http.StatusBadRequest}, {dropped, http.StatusConflict}, {gqlstatus.Errorf(gqlstatus.InvalidReference, "x"), http.StatusBadRequest},
		{gqlstatus.Errorf(gqlstatus.Unauthenticated, "x"), http.StatusUnauthorized}, {gqlstatus.Errorf(gqlstatus.AccessDenied, "x"), http.StatusForbidden},
		{gqlstatus.Errorf(gqlstatus.FrameBudget, "x"), http.StatusRequestEntityTooLarge}, {gqlstatus.Errorf(gqlstatus.IntegrityViolation, "x"), http.StatusConflict},
		{gqlstatus.Errorf(gqlstatus.Internal, "x"), http.StatusInternalServerError}, {gqlstatus.Errorf(gqlstatus.CabinetUnavailable, "x"), http.StatusServiceUnavailable},
		{gqlstatus.Errorf(gqlstatus.CompletionUnknown, "x"), http.StatusServiceUnavailable}, {gqlstatus.Errorf(gqlstatus.Damaged, "x"), http.StatusInternalServerError},
	} {
		if got := wire.HTTPStatus(c.ge); got != c.want {
			t.Errorf("%s: %d, want %d", c.ge.Code, got, c.want)
		}
	}
	e, ok := wire.ReadError(encode(t, wire.ErrorOf(dropped)))
	if back := e.GQLError(wire.HTTPStatus(dropped)); !ok || !errors.Is(back, values.ErrDropped) || back.Code != gqlstatus.InvalidReference {
		t.Errorf("a dropped session read back: %v %v", back, ok)
	}
	e, _ = wire.ReadError(encode(t, wire.ErrorOf(ge)))
	if back := e.GQLError(http.StatusBadRequest); back.Error() != ge.Error() || back.Cause != nil || e.Caret != ge.Caret() {
		t.Errorf("read back %q, want %q", back.Error(), ge.Error())
	}
	for _, other := range []string{`<html>`, `{"status": "ok"}`, ``} {
		if _, ok := wire.ReadError([]byte(other)); ok {
			t.Errorf("%q read as the server's error", other)
		}
	}
}

// TestTemporalParams: {"date": …} and {"datetime": …} are read by the
// literals' rules without a parse: the same values, 22007 for text that
// is no date, 22008 for an instant outside the years 0000–9999, 22G03
// for what is no date object; each refusal says what to write.
func TestTemporalParams(t *testing.T) {
	read := func(body string) (any, error) {
		var p wire.Params
		err := json.Unmarshal([]byte(`{"p": `+body+`}`), &p)
		return p["p"], err
	}
	v, err := read(`{"date": "2026-01-31"}`)
	if err != nil || v != (values.Date{Year: 2026, Month: 1, Day: 31}) {
		t.Errorf("date: %#v %v", v, err)
	}
	for text, want := range map[string]string{
		"2026-01-31T10:00:00+02:00":         "2026-01-31T10:00:00+02:00",
		"2026-01-31t10:00:00z":              "2026-01-31T10:00:00Z",
		"2026-01-31 10:00":                  "2026-01-31T10:00:00Z",
		"2026-01-31T10:00:00.123456789123Z": "2026-01-31T10:00:00.123456789Z",
	} {
		v, err := read(`{"datetime": "` + text + `"}`)
		tm, ok := v.(time.Time)
		if err != nil || !ok || tm.Format(time.RFC3339Nano) != want {
			t.Errorf("datetime %s: %#v %v, want %s", text, v, err, want)
		}
	}
	v, err = read(`[1, 2.0, {"date": "2000-02-29"}]`)
	if l, ok := v.([]any); err != nil || !ok || l[0] != int64(1) || l[1] != 2.0 || l[2] != (values.Date{Year: 2000, Month: 2, Day: 29}) {
		t.Errorf("a list: %#v %v", v, err)
	}
	for body, want := range map[string]gqlstatus.Code{
		`{"date": "2026-02-30"}`:                      gqlstatus.InvalidDateTimeFormat,
		`{"date": "2026-1-1"}`:                        gqlstatus.InvalidDateTimeFormat,
		`{"date": "10000-01-01"}`:                     gqlstatus.InvalidDateTimeFormat,
		`{"date": "2026-01-31T10:00:00Z"}`:            gqlstatus.InvalidDateTimeFormat,
		`{"datetime": "2026-01-31"}`:                  gqlstatus.InvalidDateTimeFormat,
		`{"datetime": "2026-01-31T25:00:00Z"}`:        gqlstatus.InvalidDateTimeFormat,
		`{"datetime": "9999-12-31T23:00:00-02:00"}`:   gqlstatus.DateTimeOverflow,
		`{"datetime": "0000-01-01T00:30:00+01:00"}`:   gqlstatus.DateTimeOverflow,
		`{"date": "2026'01"}`:                         gqlstatus.InvalidValueType,
		`{"time": "10:00"}`:                           gqlstatus.InvalidValueType,
		`{"date": 20260131}`:                          gqlstatus.InvalidValueType,
		`{"date": "2026-01-31", "datetime": "x"}`:     gqlstatus.InvalidValueType,
		`[{"datetime": "9999-12-31T23:00:00-02:00"}]`: gqlstatus.DateTimeOverflow,
	} {
		_, err := read(body)
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) || ge.Code != want {
			t.Errorf("%s: %v, want %s", body, err, want)
			continue
		}
		if want != gqlstatus.InvalidValueType && (!strings.Contains(ge.Msg, body[strings.Index(body, "{"):strings.Index(body, ":")]) || !strings.Contains(ge.Hint, "write")) {
			t.Errorf("%s: %q (hint %q) does not say what was sent and what to write", body, ge.Msg, ge.Hint)
		}
	}
	if _, err := wire.EncodeParams(map[string]any{"d": values.Date{Year: 2026, Month: 1, Day: 31}}); err != nil {
		t.Error(err)
	}
}
