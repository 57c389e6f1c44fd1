package conformance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish"
)

// recallArgs are the arguments of the recall directive besides session and
// the $NAME=VALUE parameters:
//
//	recall [session=NAME] [agent=NAME] [m=N] [k=N] [l=N] [f=N] [view=shell] \
//	       [pinned=LAW,TSK] [nopeaks] [exact] [whole] [depth=lean|full] \
//	       [only=views,actions,...] [at=VERSION] [notices] [json] [$NAME=VALUE ...]
//
// Its input is the Recall text; its output is the Shape text as emitted
// (header included), then with notices its status, matched count and
// notices a line each, then with json the Shape's attention as JSON on a
// line of its own, or the error in the form commit errors use.
var recallArgs = map[string]bool{
	"m": true, "k": true, "l": true, "f": true, "t": true,
	"view": true, "pinned": true, "nopeaks": true, "exact": true, "whole": true, "after": true,
	"depth": true, "only": true, "json": true, "notices": true, "at": true,
}

// formatShapeNotices writes, for a recall directive's notices argument, the
// Shape's status, what it matched and its notices, a line each.
func formatShapeNotices(sh *goldfish.Shape) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s", sh.Status)
	if sh.Matched > 0 {
		fmt.Fprintf(&b, " matched %d", sh.Matched)
		if sh.MatchedAtLeast {
			b.WriteString(" (at least)")
		}
	}
	b.WriteByte('\n')
	for _, n := range sh.Notices {
		fmt.Fprintf(&b, "notice %s: %s\n", n.Code, n.Msg)
	}
	return b.String()
}

// recallOptions turns a recall directive's arguments into options. A
// budget argument must be an integer: m=0, l=0, f=0 and t=0 take the
// default, as a budget left out does, but k=0 walks no hop (the seeds
// alone: goldfish.NoWalk). A $NAME=VALUE argument is a parameter, its
// VALUE read as a literal (see paramValue).
func recallOptions(args map[string]string) (goldfish.RecallOptions, error) {
	var o goldfish.RecallOptions
	budgets := map[string]*int{"m": &o.M, "k": &o.K, "l": &o.L, "f": &o.F, "t": &o.T, "after": &o.After}
	for k, v := range args {
		switch {
		case budgets[k] != nil:
			n, err := strconv.Atoi(v)
			if err != nil {
				return o, fmt.Errorf("recall: %s=%q is not an integer", k, v)
			}
			*budgets[k] = n
			if k == "k" && n == 0 {
				o.K = goldfish.NoWalk // k=0 is a value: the seeds alone; leave k out for the default
			}
		case k == "at":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return o, fmt.Errorf("recall: at=%q is not a version", v)
			}
			o.AtVersion = n
		case k == "view":
			o.View = v
		case k == "depth":
			o.Depth = v
		case k == "only":
			o.Only = strings.Split(v, ",")
		case k == "json":
		case k == "pinned":
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					o.Pinned = append(o.Pinned, p)
				}
			}
		case k == "nopeaks":
			if v != "" {
				return o, fmt.Errorf("recall: nopeaks takes no value")
			}
			o.NoPeaks = true
		case k == "exact":
			if v != "" {
				return o, fmt.Errorf("recall: exact takes no value")
			}
			o.ExactTokens = true
		case k == "whole":
			if v != "" {
				return o, fmt.Errorf("recall: whole takes no value")
			}
			o.Whole = true
		case strings.HasPrefix(k, "$") && len(k) > 1:
			if o.Params == nil {
				o.Params = map[string]any{}
			}
			o.Params[k[1:]] = paramValue(v)
		}
	}
	return o, nil
}

// paramValue reads a parameter's value: null, true, false, an integer, a
// float, a double-quoted string (Go escapes), else the bare text as a
// string. Values hold no spaces (directive arguments are space-separated);
// write "a\x20b" for one that needs a space.
func paramValue(v string) any {
	switch v {
	case "null":
		return nil
	case "true":
		return true
	case "false":
		return false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if s, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
		return s
	}
	return v
}
