package conformance

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// publicCorpus is GQL and Cypher text gathered from public documentation,
// test suites and grammars (corpus/README.md): text nobody here wrote, so
// it shows how goldfish meets statements written for other engines.
//
//go:embed corpus/public.tsv
var publicCorpus []byte

// corpusCase is one line of corpus/public.tsv.
type corpusCase struct {
	line      int
	source    string
	features  []string
	statement string
}

// The outcome of running one corpus statement.
type corpusClass int

const (
	classAccepted corpusClass = iota
	classRefused              // 42001 naming the feature and what to write instead
	classBare                 // 42001 "unexpected …": the grammar could not read it
	classOther                // another GQLSTATUS error
	classInternal             // a panic or an error without a GQLSTATUS
)

var classNames = [...]string{"accepted", "refused by name", "bare syntax error", "other error", "internal error"}

func (c corpusClass) String() string { return classNames[c] }

// readCorpus parses the corpus: a header line, then source, feature and
// statement separated by tabs, with \t, \n and \\ standing for a tab, a
// newline and a backslash inside a field.
func readCorpus(data []byte) ([]corpusCase, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var cases []corpusCase
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			if text != "source\tfeature\tstatement" {
				return nil, fmt.Errorf("line 1: header is %q, want \"source<TAB>feature<TAB>statement\"", text)
			}
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("line %d: %d fields, want 3", line, len(fields))
		}
		var c corpusCase
		c.line = line
		for i, f := range fields {
			v, err := unescapeField(f)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			if strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("line %d: field %d is empty", line, i+1)
			}
			fields[i] = v
		}
		c.source, c.statement = fields[0], fields[2]
		for _, f := range strings.Split(fields[1], ";") {
			if f = strings.TrimSpace(f); f != "" {
				c.features = append(c.features, f)
			}
		}
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

func unescapeField(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", errors.New("field ends in a lone backslash")
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf("unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}

// TestPublicCorpusFormat keeps the corpus file readable and sorted, so a
// bad edit fails at once whether or not the strict run is on.
func TestPublicCorpusFormat(t *testing.T) {
	cases, err := readCorpus(publicCorpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 150 {
		t.Errorf("the corpus holds %d statements; it should hold at least 150", len(cases))
	}
	seen := map[string]int{}
	for i, c := range cases {
		if prev, ok := seen[c.statement]; ok {
			t.Errorf("line %d repeats the statement of line %d", c.line, prev)
		}
		seen[c.statement] = c.line
		if i > 0 {
			a, b := strings.ToLower(featureKey(cases[i-1])), strings.ToLower(featureKey(c))
			if a > b {
				t.Errorf("line %d: feature %q sorts before the %q of the line above", c.line, featureKey(c), featureKey(cases[i-1]))
			}
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func featureKey(c corpusCase) string { return strings.Join(c.features, "; ") }

// runCorpusCase runs one statement on a fresh database, as a Recall when
// goldfish reads it as one and as a Commit otherwise, and says what came of
// it. A panic is caught: it is a defect to report, not a reason to stop.
// detail is the whole error as goldfish prints it, msg its message alone.
func runCorpusCase(ctx context.Context, stmt string) (class corpusClass, detail, msg string) {
	defer func() {
		if r := recover(); r != nil {
			class, detail, msg = classInternal, fmt.Sprintf("panic: %v", r), ""
		}
	}()
	db, err := goldfish.Open()
	if err != nil {
		return classInternal, "open: " + err.Error(), ""
	}
	defer db.Close()
	s, err := db.Session(ctx, "main")
	if err != nil {
		return classInternal, "session: " + err.Error(), ""
	}
	if s.IsRecall(stmt) {
		_, err = s.Recall(ctx, stmt, goldfish.RecallOptions{})
	} else {
		_, err = s.Commit(ctx, stmt, nil)
	}
	return classify(err)
}

func classify(err error) (corpusClass, string, string) {
	if err == nil {
		return classAccepted, "", ""
	}
	var ge *goldfish.Error
	if !errors.As(err, &ge) || ge.Code == "" {
		return classInternal, err.Error(), ""
	}
	if ge.Code == goldfish.CodeSyntax {
		if strings.HasPrefix(ge.Msg, "unexpected") {
			return classBare, ge.Error(), ge.Msg
		}
		return classRefused, ge.Error(), ge.Msg
	}
	return classOther, ge.Error(), ge.Msg
}

// TestPublicCorpus runs every corpus statement through goldfish and counts
// the outcomes per class and per feature. Out-of-subset GQL must be refused
// by name (42001 naming the feature and what to write instead); a bare
// "unexpected …" syntax error or an internal error is a defect, and fails
// the test.
func TestPublicCorpus(t *testing.T) {
	cases, err := readCorpus(publicCorpus)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	type tally [len(classNames)]int
	var total tally
	perFeature := map[string]*tally{}
	var accepted, refused, bare, internal, other []string
	// What the refusals name: the feature of an "X is outside the goldfish
	// subset of GQL" message, or the whole message of any other refusal.
	named := map[string]int{}
	outside := 0
	for _, c := range cases {
		class, detail, msg := runCorpusCase(ctx, c.statement)
		total[class]++
		if class == classRefused {
			if f, _, ok := strings.Cut(msg, " is outside the goldfish subset"); ok {
				outside++
				named[f]++
			} else {
				named["(other reason) "+firstLine(msg)]++
			}
		}
		for _, f := range c.features {
			if perFeature[f] == nil {
				perFeature[f] = new(tally)
			}
			perFeature[f][class]++
		}
		where := fmt.Sprintf("public.tsv:%d [%s] %s", c.line, featureKey(c), c.statement)
		switch class {
		case classAccepted:
			accepted = append(accepted, where)
		case classRefused:
			refused = append(refused, where+"\n\t-> "+detail)
		case classBare:
			bare = append(bare, where+"\n\t-> "+detail)
		case classInternal:
			internal = append(internal, where+"\n\t-> "+detail)
		case classOther:
			other = append(other, where+"\n\t-> "+detail)
		}
	}

	var sum strings.Builder
	fmt.Fprintf(&sum, "%d statements:", len(cases))
	for i, n := range total {
		fmt.Fprintf(&sum, " %s %d;", classNames[i], n)
	}
	t.Log(strings.TrimSuffix(sum.String(), ";"))
	t.Logf("of the %d refused by name, %d say \"… is outside the goldfish subset of GQL\" and %d give another reason", total[classRefused], outside, total[classRefused]-outside)
	reasons := make([]string, 0, len(named))
	for r := range named {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if named[reasons[i]] != named[reasons[j]] {
			return named[reasons[i]] > named[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	var rs strings.Builder
	fmt.Fprintf(&rs, "what the refusals name:\n")
	for _, r := range reasons {
		fmt.Fprintf(&rs, "  %4d  %s\n", named[r], r)
	}
	t.Log(rs.String())

	features := make([]string, 0, len(perFeature))
	for f := range perFeature {
		features = append(features, f)
	}
	sort.Strings(features)
	var tab strings.Builder
	fmt.Fprintf(&tab, "per feature (accepted/refused/bare/other/internal):\n")
	for _, f := range features {
		n := perFeature[f]
		fmt.Fprintf(&tab, "  %-50s %3d %3d %3d %3d %3d\n", f, n[classAccepted], n[classRefused], n[classBare], n[classOther], n[classInternal])
	}
	t.Log(tab.String())
	for _, s := range accepted {
		t.Log("accepted: " + s)
	}
	for _, s := range refused {
		t.Log("refused by name: " + s)
	}
	for _, s := range other {
		t.Log("other error: " + s)
	}

	for _, s := range bare {
		t.Error("bare syntax error: " + s)
	}
	for _, s := range internal {
		t.Error("internal error: " + s)
	}
}
