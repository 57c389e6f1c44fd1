package goldfish

import (
	"maps"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The help registry: the texts that teach an agent to keep its session's
// vocabulary. They live here, in the root package, because more than one
// interface serves them: the shell prints them (gqlsh :help TOPIC) and
// the server answers them over HTTP (GET /v1/help/{topic}) and MCP (the
// resource goldfish://help/{topic}), and both sit above the root. The
// attention envelope names them (help: vocabulary_review; broken_views)
// to every agent, whichever way it reads, so every way must be able to
// give the text, and give the same one. What concerns one interface alone
// (the shell's statements, :param, transactions) stays in that interface.

// helpTexts are the topics and their texts: plain text, lines of at most
// about 90 characters, as a terminal shows them and a model reads them.
var helpTexts = map[string]string{
	"vocabulary":   vocabularyHelp,
	"broken_views": brokenViewsHelp,
}

// Help returns the text of a help topic, and false for a topic it has no
// text for. Topics are lower case, as HelpTopics lists them.
func Help(topic string) (text string, ok bool) {
	text, ok = helpTexts[topic]
	return text, ok
}

// HelpTopics returns the topics Help answers, sorted.
func HelpTopics() []string { return slices.Sorted(maps.Keys(helpTexts)) }

// ErrNoHelp is the error of a topic Help has no text for (42002), the
// same wherever it is asked: it names the topics there are.
func ErrNoHelp(topic string) *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.InvalidReference, "there is no help topic %q", topic).
		WithHint("the topics are " + strings.Join(HelpTopics(), ", ") + " (GET /v1/help, gqlsh :help)")
}

// vocabularyHelp is how to review a vocabulary: what the help line of the
// attention envelope (vocabulary_review, when the vocabulary's health is
// degenerating) points to.
const vocabularyHelp = `A session's vocabulary is its views and actions, registered by Commits and shown after
every Recall's header:
  CREATE VIEW open_tasks INTENT 'how much work is left'
    AS 'size(nodes("TSK").filter(t, !("Settled" in t.labels)))';
  CREATE ACTION settle_task(nick STRING, why STRING = '')
    INTENT 'close a finished task and keep why it was closed'
    IF 'size(nodes("TSK").filter(t, t.nick == nick && !("Settled" in t.labels))) == 1'
    { MATCH (t:TSK {nick: $nick}) SET t:Settled, t.status = "done"
      INSERT (t)-[:has_note]->(:NOTE {text: $why}) };
  CALL settle_task('TSK_login', 'merged');   -- or settle_task(nick: 'TSK_login')
A view is CEL over nodes("KIND"), edges("TYPE"), count("KIND"), view("name") and version;
an action's IF sees its parameters too. :views and :actions list them with their counters.
Every Recall also carries the attention envelope: "// attention" lines after the header
(and "attention" in --format json) saying what to notice: broken_views, stale_actions,
contested, yours (what concerns the reading agent alone: its actions never invoked, the
broken views it registered or uses, no view read in stale_reads of its Recalls),
help (vocabulary_review when health is degenerating: this text), since_your_last_read
(per agent: --agent or :agent), you_elided, vocabulary_health, vocabulary_gaps (over
the last gap_window Commits; "before N of M CALLs of X" when an agent's raw Commits keep
writing the pair just before its CALLs of X), intent_overlap, low_salience. At full an
action also says how many of its CALLs failed. :set depth lean|full chooses how much of the
vocabulary shows (lean, the default, stays under 300 tokens: the most salient items first);
:set only views,actions keeps just those sections (shape, views, actions, attention), and
:set only alone keeps them all. An agent's first Recall of a session is shown at full once.
Review the vocabulary as you would a theory: is it enabling new work, or patching old failures?
  Fix a broken view: register it again, CREATE OR REPLACE VIEW name AS '…' (a revision).
  Retire a stale action (registered, never invoked): DROP ACTION name.
  Turn a vocabulary gap into an action: where raw Commits keep writing the same kind and
    property, register an action that writes it, and CALL it instead; where they write it
    just before CALLs of one action, make it part of that action (a parameter, or the
    write in its body).
  Revise an action whose CALLs fail (depth=full says how often and why): a wrong
    signature or a precondition nobody can meet is patched around by raw Commits.
  Merge overlapping intents: two actions that say the same why are one action with a
    parameter; CREATE OR REPLACE one, DROP the other.
  Settle a contested target: when two actions write the same TSK.status (or insert or
    delete the same kind's nodes or edge type), keep one action per target and DROP the
    others, or make one action that takes what differs as a parameter:
    CREATE OR REPLACE ACTION set_status(nick STRING, status STRING) { … SET t.status = $status }.
Views and IFs may read the system views (names starting with _ are reserved):
  view("_vocabulary_health") -- {broken, stale, contested, overlaps, gaps, raw_commits,
                                action_commits, state}, computed from the version read
  view("_contested")          -- [{target, actions}, …]
The session's settings, kept with it for every agent (:set alone shows them):
  :set stale_reads 10          -- Recalls after which an uninvoked action is stale
  :set decay 0.9               -- salience kept per Recall that does not use an item
  :set salience_threshold 0.1  -- under it an item is low_salience (left out at lean)
  :set gap_ratio 4             -- raw writes per action write that make a gap …
  :set gap_min 5               -- … once at least this many raw Commits wrote it
  :set gap_window 200          -- the latest Commits gaps are counted over (1 to 1000)
  :set history all             -- the versions kept readable (all, none, or N before the
                                  newest); :set at N reads one of them`

// brokenViewsHelp is for an agent whose Recalls name broken views: where
// their errors are, what usually breaks a view, and the two fixes.
const brokenViewsHelp = `A broken view is one whose CEL fails when it is evaluated: it stays registered, and every
Recall names it first in its attention envelope until it is revised or dropped.
Where the error is: the line "// attention broken_views: NAME: ERROR", the error cut short;
at depth=full (gqlsh :set depth full; "options": {"depth": "full"} in a Recall over HTTP
or MCP) the whole error; GET /v1/sessions/{name}/vocabulary gives each view's error too.
The usual causes:
  a key no node has yet: t.due fails on a node without due; test for it with has():
    CREATE OR REPLACE VIEW late AS 'nodes("TSK").filter(t, has(t.due) && t.due < version).size()';
  a type error: an operator on values it does not take (a string compared with a number);
  view("x") of a view x that is broken (fix x first) or not registered (register x).
The fixes:
  CREATE OR REPLACE VIEW name AS '…'   -- revises it: the same name, a new expression
  DROP VIEW name                       -- retires it, when nothing needs it any more`
