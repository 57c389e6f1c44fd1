package vocab

import (
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// The attention lines of an envelope, in the order of what most needs
// noticing, each within what the lines after it need at least.

// HelpReview is the help key the envelope gives when the vocabulary's
// health is degenerating: the review patterns (the help topic
// "vocabulary": gqlsh's :help vocabulary, GET /v1/help/vocabulary, the
// MCP resource goldfish://help/vocabulary).
const HelpReview = "vocabulary_review"

// HelpBrokenViews is the help key the envelope gives when views are
// broken and the health is not degenerating (whose review covers them):
// how to find and fix a broken view (the help topic "broken_views").
const HelpBrokenViews = "broken_views"

// aroundTail says what to do about an action worked around.
const aroundTail = " (revise it, CREATE OR REPLACE ACTION, rather than write around it)"

// aroundText writes one action worked around.
func aroundText(w values.WorkedAround) string {
	calls := "CALLs"
	if w.FailedCalls == 1 {
		calls = "CALL"
	}
	return w.Action + " (" + strconv.FormatUint(w.FailedCalls, 10) + " failed " + calls + ", then " + w.Target + " written raw)"
}

// gapText writes one vocabulary gap.
func gapText(g values.VocabularyGap) string {
	s := g.Kind + "." + g.Property + " (raw " + strconv.FormatUint(g.Raw, 10) + ", in actions " + strconv.FormatUint(g.InActions, 10)
	if g.BeforeCall != "" {
		s += ", before " + strconv.FormatUint(g.BeforeTimes, 10) + " of " + strconv.FormatUint(g.BeforeCalls, 10) + " CALLs of " + g.BeforeCall
	}
	return s + ")"
}

// signals is what attentionLines needs beside the envelope.
type signals struct {
	stale staleSet
	why   string
	only  Sections
	full  bool
	r     *Read
	p     *Prepared
}

// attentionLines writes the attention lines of att, shortening att's
// lists to what they show.
func attentionLines(lines *lineBudget, att *values.Attention, sg *signals) {
	stale, why, only, full, r, p := sg.stale, sg.why, sg.only, sg.full, sg.r, sg.p
	// At lean every line keeps room for the shortest form of each line
	// after it (a list's count, the health and help lines whole): a line
	// takes what it needs of the rest, so the lines first in the order
	// show most, and none after them is crowded out.
	var order [lineKinds]int64
	var healthLine preLine
	if lines.bounded {
		if att.SinceYourLastRead != nil {
			order[lineSince] = minMilli[lineSince]
		}
		if att.Yours != nil {
			order[lineYours] = minMilli[lineYours]
		}
		if len(att.YouElided) > 0 {
			order[lineElided] = minMilli[lineElided]
		}
		if stale.n > 0 && only&SectionAttention != 0 {
			order[lineStale] = minMilli[lineStale]
		}
		if len(att.WorkedAround) > 0 {
			order[lineAround] = minMilli[lineAround]
		}
		if len(att.Contested) > 0 {
			order[lineContested] = minMilli[lineContested]
		}
		if att.VocabularyHealth != "" {
			healthLine = (&lineBudget{limit: 1 << 62, bounded: true}).line("vocabulary_health", att.VocabularyHealth, why)
			order[lineHealth] = healthLine.milli
		}
		if att.Help != "" {
			order[lineHelp] = minMilli[lineHelp]
		}
		if len(att.VocabularyGaps) > 0 {
			order[lineGaps] = minMilli[lineGaps]
		}
		if len(att.IntentOverlap) > 0 {
			order[lineOverlap] = minMilli[lineOverlap]
		}
	}
	limit := lines.limit
	// keep sets the limit for the line of kind k: what the lines after
	// it need at least is kept back.
	keep := func(k int) {
		var after int64
		for _, m := range order[k+1:] {
			after += m
		}
		lines.limit = max(lines.milli, limit-after)
	}
	if len(att.BrokenViews) > 0 {
		if full {
			for _, b := range att.BrokenViews {
				lines.addLine("broken_views", b.Name, ": ", b.Error)
			}
		} else {
			keep(lineBroken)
			att.BrokenViews = addBroken(lines, att.BrokenViews)
		}
	}
	if att.FirstRead {
		lines.addLine("first_read", "true: ", att.Note)
	}
	if s := att.SinceYourLastRead; s != nil {
		keep(lineSince)
		lines.addSince(s)
	}
	if att.Yours != nil {
		keep(lineYours)
		lines.addYours(att.Yours)
	}
	if len(att.YouElided) > 0 {
		keep(lineElided)
		lines.addLine("you_elided", strings.Join(att.YouElided, ", "), " (changed since your last read; left out by only)")
	}
	if stale.n > 0 && only&SectionAttention != 0 {
		keep(lineStale)
		att.StaleActions = addListOf(lines, "stale_actions", stale.names, stale.n, func(s string) string { return s },
			" (not invoked in the last "+strconv.FormatUint(r.Settings.StaleReads, 10)+" Recalls: DROP ACTION or use them)")
	}
	if len(att.WorkedAround) > 0 {
		keep(lineAround)
		att.WorkedAround = addList(lines, "worked_around", att.WorkedAround, aroundText, aroundTail)
	}
	if len(att.Contested) > 0 {
		keep(lineContested)
		if lines.bounded {
			att.Contested = att.Contested[:lines.addPre(p.contestedLines)]
		} else {
			att.Contested = addList(lines, "contested", att.Contested, contestedText, contestedTail)
		}
	}
	if att.VocabularyHealth != "" {
		keep(lineHealth)
		if lines.bounded {
			lines.addPre([]preLine{healthLine})
		} else {
			lines.addLine("vocabulary_health", att.VocabularyHealth, why)
		}
	}
	if att.Help != "" {
		keep(lineHelp)
		lines.addPre([]preLine{helpLines[att.Help]})
	}
	if len(att.VocabularyGaps) > 0 {
		tail := " (CREATE ACTION for them)"
		for _, g := range att.VocabularyGaps {
			if g.BeforeCall != "" {
				tail = " (CREATE ACTION for them; a pair written before an action's CALLs may belong in that action)"
				break
			}
		}
		keep(lineGaps)
		att.VocabularyGaps = addList(lines, "vocabulary_gaps", att.VocabularyGaps, gapText, tail)
	}
	lines.limit = limit
	if len(att.IntentOverlap) > 0 {
		if lines.bounded {
			att.IntentOverlap = att.IntentOverlap[:lines.addPre(p.overlapLines)]
		} else {
			att.IntentOverlap = addListOf(lines, "intent_overlap", att.IntentOverlap, p.overlapN, overlapText, " (merge them)")
		}
	}
}

// The lines of the attention section, in their order, and the estimate
// of the shortest form of each (a list's count; the help line whole; the
// since line with its counts), an upper bound: the counts are written
// with seven digits.
const (
	lineBroken = iota
	lineSince
	lineYours
	lineElided
	lineStale
	lineAround
	lineContested
	lineHealth
	lineHelp
	lineGaps
	lineOverlap
	lineKinds
)

var minMilli [lineKinds]int64

// helpLines are the help lines, by key, written once: each says where
// every client reads its text.
var helpLines = map[string]preLine{}

// helpTails are what each help line says after its key.
var helpTails = map[string]string{
	HelpReview:      " (how to review: goldfish://help/vocabulary, GET /v1/help/vocabulary, gqlsh :help vocabulary)",
	HelpBrokenViews: " (how to fix: goldfish://help/broken_views, GET /v1/help/broken_views, gqlsh :help broken_views)",
}

// sepMilli is the estimate of the ", " between a list's entries.
var sepMilli = tokens.Milli([]byte(", "))

func init() {
	const n = "1000000"
	minMilli[lineSince] = lineMilli("since_your_last_read", "versions="+n+" elements_changed="+n+
		" actions_registered="+n+" actions_invoked="+n+" views_changed="+n)
	minMilli[lineYours] = lineMilli("yours", "never_invoked="+n+" broken_views="+n+" no_view_read="+n)
	minMilli[lineElided] = lineMilli("you_elided", "shape, views, actions, attention", " (changed since your last read; left out by only)")
	minMilli[lineStale] = lineMilli("stale_actions", n)
	minMilli[lineContested] = lineMilli("contested", n)
	minMilli[lineAround] = lineMilli("worked_around", n)
	for key, tail := range helpTails {
		helpLines[key] = (&lineBudget{limit: 1 << 62, bounded: true}).line("help", key, tail)
		minMilli[lineHelp] = max(minMilli[lineHelp], helpLines[key].milli)
	}
	minMilli[lineGaps] = lineMilli("vocabulary_gaps", n)
	minMilli[lineOverlap] = lineMilli("intent_overlap", n)
}
