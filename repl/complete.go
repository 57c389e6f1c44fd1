package repl

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish"
)

// Keywords are the words Tab completes where no name fits.
var Keywords = []string{
	"AND", "CALL", "COMMIT", "CONTAINS", "DATE", "DATETIME", "DELETE", "DETACH",
	"ENDS", "FALSE", "IN", "INSERT", "IS", "LIMIT", "MATCH", "NOT", "NULL", "OR",
	"REMOVE", "ROLLBACK", "SET", "START", "STARTS", "TRANSACTION", "TRUE", "WHERE", "WITH",
}

// Complete is the Tab completer: given the line being edited and the
// cursor (a rune index), it returns the text before the word, the
// candidates for the word, and the text after the cursor, as liner's
// WordCompleter wants. It completes
//
//   - meta-commands at the start of a line when no statement is pending,
//     and their arguments (session names after :use, knobs after :set, …);
//   - labels after ':' in a node pattern or after a variable, edge types
//     after ':' in an edge pattern ("-[:");
//   - file names after :source, :output, :backup, :export and :absorb,
//     and the policy after :absorb FILE;
//   - property keys inside '{' (in key position) and after 'var.';
//   - nicks inside a string ("TSK_l → "TSK_login");
//   - keywords elsewhere, in the case the word was started in.
//
// Names come from the current session (labels, types, keys, nicks of live
// elements), gathered once per session version.
func (sh *Shell) Complete(line string, pos int) (head string, completions []string, tail string) {
	runes := []rune(line)
	if pos > len(runes) {
		pos = len(runes)
	}
	before, after := string(runes[:pos]), string(runes[pos:])

	if Blank(sh.pending) && strings.HasPrefix(strings.TrimLeft(before, " \t"), ":") {
		return sh.completeMeta(before, after)
	}

	// Inside a string: complete a nick.
	if q, at := openQuote(sh.pending + before); q != 0 {
		at -= len(sh.pending)
		if at >= 0 {
			prefix := before[at+1:]
			var out []string
			for _, n := range sh.names().nicks {
				if strings.HasPrefix(n, prefix) {
					out = append(out, n+string(q))
				}
			}
			if strings.HasPrefix(after, string(q)) {
				for i := range out {
					out[i] = strings.TrimSuffix(out[i], string(q))
				}
			}
			return before[:at+1], out, after
		}
		return before, nil, after
	}

	start := wordStart(before)
	word := before[start:]
	head = before[:start]
	prev, n := utf8.DecodeLastRuneInString(head) // right before the word, no blank between
	prevAt := len(head) - n
	v := sh.names()
	switch {
	case prev == ':' && innermostBracket(sh.pending+head) == '[':
		return head, withPrefix(v.types, word, ""), after
	case prev == ':':
		return head, withPrefix(v.labels, word, ""), after
	case prev == '.' && prevAt > 0 && isWordRune(lastRuneOf(head[:prevAt])):
		return head, withPrefix(v.keys, word, ""), after
	case inBraceKey(sh.pending + head):
		return head, withPrefix(v.keys, word, ": "), after
	}
	if word == "" {
		return head, nil, after
	}
	kw := Keywords
	if strings.ToLower(word) == word {
		kw = make([]string, len(Keywords))
		for i, k := range Keywords {
			kw[i] = strings.ToLower(k)
		}
	}
	var out []string
	for _, k := range kw {
		if strings.HasPrefix(strings.ToUpper(k), strings.ToUpper(word)) && len(k) > len(word) {
			out = append(out, k+" ")
		}
	}
	return head, out, after
}

// completeMeta completes a meta-command name or its argument.
func (sh *Shell) completeMeta(before, after string) (string, []string, string) {
	lead := len(before) - len(strings.TrimLeft(before, " \t"))
	fields := strings.Fields(before)
	endsInSpace := strings.HasSuffix(before, " ") || strings.HasSuffix(before, "\t")
	if len(fields) == 1 && !endsInSpace {
		var out []string
		for _, n := range MetaNames() {
			if strings.HasPrefix(n, fields[0]) {
				out = append(out, n+" ")
			}
		}
		return before[:lead], out, after
	}
	// an argument: the word under the cursor
	start := strings.LastIndexAny(before, " \t") + 1
	word := before[start:]
	argIndex := len(fields) - 1
	if endsInSpace {
		argIndex = len(fields)
	}
	var cands []string
	switch cmd := strings.TrimPrefix(fields[0], ":"); {
	case cmd == "use" && argIndex == 1:
		if names, ok := sh.sessionNames(); ok {
			cands = append(names, goldfish.CatalogName)
			sort.Strings(cands)
		}
	case cmd == "drop" && argIndex == 1:
		names, _ := sh.sessionNames()
		for _, n := range names {
			if n != sh.r.Session.Name() {
				cands = append(cands, n)
			}
		}
	case cmd == "help" && argIndex == 1:
		for _, m := range metaCmds {
			cands = append(cands, m.name)
		}
		for t := range helpTopics {
			cands = append(cands, t)
		}
		sort.Strings(cands)
	case cmd == "set" && argIndex == 1:
		cands = knobs
	case cmd == "set" && argIndex == 2 && strings.EqualFold(fields[1], "view"):
		cands = []string{"interior", "shell"}
	case cmd == "set" && argIndex == 2 && (strings.EqualFold(fields[1], "peaks") || strings.EqualFold(fields[1], "whole")):
		cands = []string{"on", "off"}
	case (cmd == "timing") && argIndex == 1:
		cands = []string{"on", "off"}
	case cmd == "format" && argIndex == 1:
		cands = []string{"gql", "json"}
	case cmd == "params" && argIndex == 1:
		cands = []string{"clear"}
	case cmd == "absorb" && argIndex == 2:
		cands = []string{"keep", "reject", "remint"}
	case cmd == "export" && argIndex == 2:
		cands = []string{"MATCH"}
	case (cmd == "source" || cmd == "output" || cmd == "backup" || cmd == "export" || cmd == "absorb") && argIndex == 1:
		return before[:start], fileNames(word), after
	case cmd == "param" && argIndex == 1:
		for n := range sh.r.Params {
			cands = append(cands, n)
		}
		sort.Strings(cands)
	}
	return before[:start], withPrefix(cands, word, " "), after
}

func withPrefix(list []string, prefix, suffix string) []string {
	var out []string
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s+suffix)
		}
	}
	return out
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordStart returns the byte offset where the identifier ending s begins.
func wordStart(s string) int {
	i := len(s)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !isWordRune(r) {
			break
		}
		i -= n
	}
	return i
}

func lastRuneOf(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// openQuote reports whether text ends inside a '…' or "…" string, with the
// quote and its byte offset. Comments and back-quoted names are skipped as
// Split skips them.
func openQuote(text string) (byte, int) {
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			closed := false
			for j < len(text) {
				if text[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if text[j] == c {
					closed = true
					break
				}
				j++
			}
			if !closed {
				if c == '`' {
					return 0, 0
				}
				return c, i
			}
			i = j + 1
		case c == '/' && i+1 < len(text) && text[i+1] == '/',
			c == '-' && i+1 < len(text) && text[i+1] == '-':
			i = skipLine(text, i)
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			i = skipBlock(text, i)
		default:
			i++
		}
	}
	return 0, 0
}

// inBraceKey reports whether text ends where a property key is written:
// inside an open '{' (outside strings and comments) right after the '{' or
// a ','.
func inBraceKey(text string) bool {
	depth := 0
	last := byte(0)
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(text, i, c)
			last = c
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '/',
			c == '-' && i+1 < len(text) && text[i+1] == '-':
			i = skipLine(text, i)
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			i = skipBlock(text, i)
			continue
		case c == '{':
			depth++
		case c == '}':
			depth--
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			last = c
		}
		i++
	}
	return depth > 0 && (last == '{' || last == ',')
}

// innermostBracket returns the innermost '(', '[' or '{' that text leaves
// open (outside strings and comments), or 0.
func innermostBracket(text string) byte {
	var open []byte
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(text, i, c)
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '/',
			c == '-' && i+1 < len(text) && text[i+1] == '-':
			i = skipLine(text, i)
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			i = skipBlock(text, i)
			continue
		case c == '(' || c == '[' || c == '{':
			open = append(open, c)
		case (c == ')' || c == ']' || c == '}') && len(open) > 0:
			open = open[:len(open)-1]
		case c == ';':
			open = open[:0]
		}
		i++
	}
	if len(open) == 0 {
		return 0
	}
	return open[len(open)-1]
}

// fileNames completes a file name: the entries of word's directory that
// start with its last element, directories with a '/' to go on.
func fileNames(word string) []string {
	dir, base := filepath.Split(word)
	read := dir
	if read == "" {
		read = "."
	}
	entries, err := os.ReadDir(read)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			out = append(out, dir+name+string(filepath.Separator))
		} else {
			out = append(out, dir+name+" ")
		}
	}
	sort.Strings(out)
	return out
}

// sessionNames are the host's sessions, for completion (false: none to
// offer; the host is unknown or did not answer in time).
func (sh *Shell) sessionNames() ([]string, bool) {
	if sh.host == nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	names, err := sh.host.Sessions(ctx)
	return visibleNames(names), err == nil
}

// vocab is what completion offers from a session.
type vocab struct {
	labels, types, keys, nicks []string
}

type vocabCache struct {
	session string
	version uint64
	ok      bool
	v       vocab
}

// names returns the current session's labels, edge types, property keys
// and nicks, sorted, from a cache keyed by session and version.
func (sh *Shell) names() vocab {
	s := sh.r.Session
	c := &sh.vocab
	v := s.Version()
	if c.ok && c.session == s.Name() && c.version == v {
		return c.v
	}
	names, err := s.Names(context.Background())
	if err != nil {
		return vocab{}
	}
	*c = vocabCache{session: s.Name(), version: v, ok: true,
		v: vocab{labels: visibleNames(names.Labels), types: visibleNames(names.EdgeTypes), keys: visibleNames(names.Keys), nicks: visibleNames(names.Nicks)}}
	return c.v
}
