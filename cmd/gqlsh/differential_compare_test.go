package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Comparing the two servers' graphs, entities and relations for
// TestMemoryDifferential, and reading their answers.

// compareGraphs compares two graphs' entities and relations; a relation
// the original made to an entity that was not there is excused.
func compareGraphs(what string, want, got dGraph, m *diffModel, final bool) []difference {
	ds := compareEntities(what+": entities", want.Entities, got.Entities, m)
	return append(ds, compareRelations(what+": relations", want.Relations, got.Relations, m)...)
}

func entityKey(e dEntity) string {
	if e.Observations == nil {
		e.Observations = []string{}
	}
	b, _ := json.Marshal(e)
	return string(b)
}

func dedupeEntities(list []dEntity) []dEntity {
	seen := map[string]bool{}
	var out []dEntity
	for _, e := range list {
		if k := entityKey(e); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

func dedupeStrings(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// compareEntities compares two lists of entities as sets: each entity by
// its name, type and observations.
func compareEntities(what string, want, got []dEntity, m *diffModel) []difference {
	byName := func(list []dEntity) map[string][]dEntity {
		out := map[string][]dEntity{}
		for _, e := range dedupeEntities(list) {
			out[e.Name] = append(out[e.Name], e)
		}
		return out
	}
	w, g := byName(want), byName(got)
	var lacks, extra []string
	var ds []difference
	for name, we := range w {
		ge, ok := g[name]
		if !ok {
			lacks = append(lacks, name)
			continue
		}
		if len(we) != len(ge) {
			if m.twice(name) && len(ge) == 1 && slices.ContainsFunc(we, func(e dEntity) bool { return entityKey(e) == entityKey(ge[0]) }) {
				// goldfish holds the name once, as one of the original's.
				ds = append(ds, difference{excused: "name-twice"})
				continue
			}
			ds = append(ds, difference{category: what + ": the original holds one name as several entities",
				detail: fmt.Sprintf("%q: original %d entities %s, goldfish %d", name, len(we), clip(entityKey(we[0])+" "+entityKey(we[1]), 300), len(ge))})
			continue
		}
		a, b := we[0], ge[0]
		switch {
		case entityKey(a) == entityKey(b):
		case a.EntityType != b.EntityType:
			ds = append(ds, difference{category: what + ": an entityType differs", detail: fmt.Sprintf("%q: original %q, goldfish %q", name, a.EntityType, b.EntityType)})
		case slices.Equal(slices.Sorted(slices.Values(a.Observations)), slices.Sorted(slices.Values(b.Observations))):
			ds = append(ds, difference{category: what + ": observations in another order", detail: fmt.Sprintf("%q: original %q, goldfish %q", name, clipStrings(a.Observations), clipStrings(b.Observations))})
		default:
			ds = append(ds, difference{category: what + ": observations differ", detail: fmt.Sprintf("%q: original %q, goldfish %q", name, clipStrings(a.Observations), clipStrings(b.Observations))})
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(lacks)
	sort.Strings(extra)
	lacks, lacksD := splitDiverged(lacks, m)
	extra, extraD := splitDiverged(extra, m)
	if len(lacks) > 0 {
		ds = append(ds, difference{category: what + ": goldfish lacks entities the original has", detail: fmt.Sprintf("%d lacking: %q", len(lacks), clipStrings(lacks))})
	}
	if len(extra) > 0 {
		ds = append(ds, difference{category: what + ": goldfish has entities the original has not", detail: fmt.Sprintf("%d extra: %q", len(extra), clipStrings(extra))})
	}
	var unexplained []string
	for _, n := range append(lacksD, extraD...) {
		if c := m.ncause[n]; c != "" {
			ds = append(ds, difference{excused: c})
		} else {
			unexplained = append(unexplained, n)
		}
	}
	if len(unexplained) > 0 {
		ds = append(ds, difference{category: what + ": entities the memories already disagree on (an earlier difference no rule explains)",
			detail: fmt.Sprintf("%q", clipStrings(unexplained))})
	}
	return ds
}

// compareRelations compares two lists of relations as sets; one of the
// original's in dangling is excused when goldfish lacks it.
func compareRelations(what string, want, got []dRelation, m *diffModel) []difference {
	w, g := map[dRelation]bool{}, map[dRelation]bool{}
	for _, r := range want {
		w[r] = true
	}
	for _, r := range got {
		g[r] = true
	}
	var lacks, extra []string
	var ds []difference
	diverged := 0
	for r := range w {
		if !g[r] {
			if m.dangling[r] {
				ds = append(ds, difference{excused: "relation-to-missing"})
				continue
			}
			if c := m.relCause(r); c != "" {
				ds = append(ds, difference{excused: c})
				continue
			}
			if m.callLeftOut {
				ds = append(ds, difference{excused: "relations-left-out"})
				continue
			}
			if m.diverged(r.From) || m.diverged(r.To) {
				diverged++
				continue
			}
			lacks = append(lacks, r.String())
		}
	}
	for r := range g {
		if !w[r] {
			if c := m.relCause(r); c != "" {
				ds = append(ds, difference{excused: c})
				continue
			}
			if m.diverged(r.From) || m.diverged(r.To) {
				diverged++
				continue
			}
			extra = append(extra, r.String())
		}
	}
	if diverged > 0 {
		ds = append(ds, difference{category: what + ": relations of entities the memories already disagree on (an earlier difference no rule explains)",
			detail: fmt.Sprintf("%d relations", diverged)})
	}
	sort.Strings(lacks)
	sort.Strings(extra)
	if len(lacks) > 0 {
		ds = append(ds, difference{category: what + ": goldfish lacks relations the original has", detail: fmt.Sprintf("%d lacking: %s", len(lacks), clip(strings.Join(lacks, ", "), 400))})
	}
	if len(extra) > 0 {
		ds = append(ds, difference{category: what + ": goldfish has relations the original has not", detail: fmt.Sprintf("%d extra: %s", len(extra), clip(strings.Join(extra, ", "), 400))})
	}
	return ds
}

// parseMemoryFile reads a memory.jsonl as the original loads it.
func parseMemoryFile(text string) (dGraph, error) {
	g := dGraph{Entities: []dEntity{}, Relations: []dRelation{}}
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var item struct {
			Type string `json:"type"`
			dEntity
			dRelation
		}
		if err := json.Unmarshal([]byte(line), &item); err != nil {
			return g, fmt.Errorf("line %d: %v", i+1, err)
		}
		switch item.Type {
		case "entity":
			g.Entities = append(g.Entities, item.dEntity)
		case "relation":
			g.Relations = append(g.Relations, item.dRelation)
		}
	}
	return g, nil
}

func outcome(a diffAnswer) string {
	if a.IsError {
		return "fails"
	}
	return "succeeds"
}

// answerText is an answer shortened for the report.
func answerText(a diffAnswer) string {
	s := a.Text
	if a.Threw != "" {
		s = "threw " + a.Threw
	}
	if a.IsError {
		s = "isError: " + s
	}
	if len(a.Structured) > 0 && string(a.Structured) != "null" && !a.IsError {
		s = "structured " + string(a.Structured)
	}
	return clip(strings.Join(strings.Fields(s), " "), 400)
}

func clipStrings(list []string) []string {
	out := make([]string, 0, len(list))
	for i, s := range list {
		if i == 12 {
			out = append(out, fmt.Sprintf("… %d more", len(list)-12))
			break
		}
		out = append(out, clip(s, 80))
	}
	return out
}

// splitDiverged splits names into those the memories agree on and those
// an earlier difference made them disagree on.
func splitDiverged(names []string, m *diffModel) (same, diverged []string) {
	for _, n := range names {
		if m.diverged(n) {
			diverged = append(diverged, n)
		} else {
			same = append(same, n)
		}
	}
	return same, diverged
}
