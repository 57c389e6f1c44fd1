package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/tokens"
)

// readGraphJSON serialises the whole session as the common knowledge-graph
// memory server's read_graph answer: {"entities":[{"name","entityType",
// "observations"}],"relations":[{"from","to","relationType"}]}. A node's
// name is its loc (or nick, or its id), its type its kind, and each other
// property one observation "key: value". The JSON is compact, one entity or
// relation per line (the server pretty-prints, which only adds tokens).
func readGraphJSON(snap *store.Snapshot) []byte {
	type entity struct {
		Name         string   `json:"name"`
		EntityType   string   `json:"entityType"`
		Observations []string `json:"observations"`
	}
	type relation struct {
		From         string `json:"from"`
		To           string `json:"to"`
		RelationType string `json:"relationType"`
	}
	names := map[store.ID]string{}
	nameOf := func(n *store.Node) string {
		if s := propString(n.Props, "loc"); s != "" {
			return s
		}
		if s := propString(n.Props, "nick"); s != "" {
			return s
		}
		return n.Kind() + "#" + strconv.FormatUint(uint64(n.ID), 10)
	}
	var ents [][]byte
	snap.ScanNodes(func(n *store.Node) bool {
		name := nameOf(n)
		names[n.ID] = name
		e := entity{Name: name, EntityType: n.Kind(), Observations: []string{}}
		for _, p := range n.Props {
			if p.Key == "loc" || p.Key == "nick" && name == propString(n.Props, "nick") {
				continue
			}
			e.Observations = append(e.Observations, p.Key+": "+p.Val.Literal())
		}
		b, _ := json.Marshal(e)
		ents = append(ents, b)
		return true
	})
	var rels [][]byte
	snap.ScanEdges(func(e *store.Edge) bool {
		b, _ := json.Marshal(relation{From: names[e.From], To: names[e.To], RelationType: e.Type})
		rels = append(rels, b)
		return true
	})
	slices.SortFunc(ents, bytes.Compare)
	slices.SortFunc(rels, bytes.Compare)
	var out bytes.Buffer
	out.WriteString("{\"entities\":[\n")
	for i, e := range ents {
		out.Write(e)
		if i < len(ents)-1 {
			out.WriteByte(',')
		}
		out.WriteByte('\n')
	}
	out.WriteString("],\"relations\":[\n")
	for i, r := range rels {
		out.Write(r)
		if i < len(rels)-1 {
			out.WriteByte(',')
		}
		out.WriteByte('\n')
	}
	out.WriteString("]}\n")
	return out.Bytes()
}

// countTokens counts the exact o200k tokens of text, in parallel chunks cut
// right after a newline. o200k's pre-tokeniser never joins a newline with
// what follows it unless that is whitespace or '/', and no line starts with
// either, so the sum equals the count of the whole text
// (TestCountTokensSplit checks it).
func countTokens(text []byte) (int, error) {
	const chunk = 1 << 20
	var parts [][]byte
	for len(text) > 0 {
		end := min(len(text), chunk)
		if end < len(text) {
			if i := bytes.IndexByte(text[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(text)
			}
		}
		parts = append(parts, text[:end])
		text = text[end:]
	}
	counts := make([]int, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				counts[i], errs[i] = tokens.Exact(string(parts[i]))
			}
		}()
	}
	for i := range parts {
		next <- i
	}
	close(next)
	wg.Wait()
	total := 0
	for i, n := range counts {
		if errs[i] != nil {
			return 0, errs[i]
		}
		total += n
	}
	return total, nil
}
