package vocab

import (
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/values"
)

// The yours section (docs/design.md#the-vocabulary-and-attention, "presence is meaningful"): what the
// envelope says to one named agent about its own part of the vocabulary.
// Another agent's registrations are never "yours".
//
//   - never_invoked: the actions it registered that no CALL has invoked
//     in the stale_reads Recalls of the session since their registration
//     (an action just registered is not yet news);
//   - broken_views: the broken views it registered, or that it uses: named
//     with view("…") by its views and by the IFs of its actions and of the
//     actions its Commits in the ledger's window called, directly or
//     through other views;
//   - no_view_read: when it registered views, how many of its Recalls
//     passed since it last read views (a Recall of only=views, or a Commit
//     of its naming views), once that is stale_reads or more.

func yoursEmpty(y *values.Yours) bool {
	return y == nil || len(y.NeverInvoked) == 0 && len(y.BrokenViews) == 0 && y.NoViewRead == 0
}

// yoursOf is what a version says of one agent, whatever its reads.
type yoursOf struct {
	neverInvoked []int // indexes into the Prepared's actions
	broken       []string
	hasViews     bool
}

// maxYoursCached bounds the agents a Prepared remembers yours for.
const maxYoursCached = 256

// yoursFor returns what the version says of the agent (computed once per
// version and agent).
func (p *Prepared) yoursFor(agent string) *yoursOf {
	p.mu.Lock()
	defer p.mu.Unlock()
	if y, ok := p.yours[agent]; ok {
		return y
	}
	y := &yoursOf{}
	var roots []string // the views the agent's items name
	for i := range p.acts {
		a := p.acts[i].a
		if a.Agent == agent {
			roots = append(roots, a.Refs...)
			if a.Invocations == 0 {
				y.neverInvoked = append(y.neverInvoked, i)
			}
		}
	}
	for _, name := range p.State.CalledBy(agent, values.MaxGapWindow) {
		if a, ok := p.State.Action(name); ok && a.Agent != agent {
			roots = append(roots, a.Refs...)
		}
	}
	uses := map[string]bool{}
	for i := range p.views {
		if v := p.views[i].v; v.Agent == agent {
			y.hasViews = true
			uses[v.Name] = true
			roots = append(roots, v.Refs...)
		}
	}
	for len(roots) > 0 {
		name := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if uses[name] {
			continue
		}
		uses[name] = true
		if v, ok := p.State.View(name); ok {
			roots = append(roots, v.Refs...)
		}
	}
	for _, b := range p.broken {
		if uses[b.Name] {
			y.broken = append(y.broken, b.Name)
		}
	}
	if p.yours == nil || len(p.yours) >= maxYoursCached {
		p.yours = map[string]*yoursOf{}
	}
	p.yours[agent] = y
	return y
}

// yours builds the read's yours section; nil when it has nothing to say.
func yours(p *Prepared, rk *ranking, r *Read) *values.Yours {
	if p.Empty() || r.Agent == "" {
		return nil
	}
	of := p.yoursFor(r.Agent)
	y := &values.Yours{BrokenViews: of.broken}
	for _, i := range of.neverInvoked {
		if r.Tick >= rk.am[i].RegTick+r.Settings.StaleReads {
			y.NeverInvoked = append(y.NeverInvoked, p.acts[i].name)
		}
	}
	if of.hasViews && r.Only != SectionViews && r.Seen.Reads > 0 {
		if n := r.Seen.Reads - min(r.Seen.ViewRead, r.Seen.Reads); n >= r.Settings.StaleReads {
			y.NoViewRead = n
		}
	}
	if yoursEmpty(y) {
		return nil
	}
	return y
}

// addYours writes the yours line: at lean each list as nameList
// shortens it, fewer names until the line fits.
func (l *lineBudget) addYours(y *values.Yours) {
	for n := leanList; ; n-- {
		if !l.bounded {
			n = 1 << 30
		}
		var parts, tails []string
		if len(y.NeverInvoked) > 0 {
			parts = append(parts, "never_invoked="+nameList(y.NeverInvoked, n))
			tails = append(tails, "CALL your actions or DROP them")
		}
		if len(y.BrokenViews) > 0 {
			parts = append(parts, "broken_views="+nameList(y.BrokenViews, n))
			tails = append(tails, "the views you registered or use are broken: CREATE OR REPLACE VIEW")
		}
		if y.NoViewRead > 0 {
			parts = append(parts, "no_view_read="+strconv.FormatUint(y.NoViewRead, 10))
			tails = append(tails, "no view read in your last "+strconv.FormatUint(y.NoViewRead, 10)+" Recalls: only=views reads them")
		}
		if l.addLine("yours", strings.Join(parts, " "), " ("+strings.Join(tails, "; ")+")") {
			return
		}
		if n <= 0 {
			l.addLine("yours", strings.Join(parts, " ")) // the counts alone rather than nothing
			return
		}
	}
}

// yoursPrint mixes the yours section into a fingerprint.
func yoursPrint(h uint64, y *values.Yours) uint64 {
	if y == nil {
		return h
	}
	for _, list := range [][]string{y.NeverInvoked, {"\x00"}, y.BrokenViews, {"\x00"}} {
		for _, s := range list {
			for i := 0; i < len(s); i++ {
				h = (h ^ uint64(s[i])) * 1099511628211
			}
			h = (h ^ 0x100) * 1099511628211
		}
	}
	if y.NoViewRead > 0 {
		h = (h ^ 0x200) * 1099511628211
	}
	return h
}
