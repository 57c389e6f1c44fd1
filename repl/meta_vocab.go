package repl

import (
	"context"
	"fmt"
	"strings"
)

func (sh *Shell) metaViews(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, 0, ":views"); err != nil {
		return err
	}
	v, err := sh.r.Session.Vocabulary(ctx)
	if err != nil {
		return err
	}
	if len(v.Views) == 0 {
		sh.printf("no views; CREATE VIEW name AS '<CEL>' registers one\n")
		return nil
	}
	for _, x := range v.Views {
		if x.Broken() {
			sh.printf("%s: broken: %s\n", x.Name, x.Error)
		} else {
			sh.printf("%s = %s\n", x.Name, x.Text)
		}
		sh.printf("  AS '%s'\n", x.Expr)
		sh.printf("  %s; %s\n", registration(x.Intent, x.Agent, x.Registered, x.Revised, x.Revisions), salience(x.Salience, x.LowSalience))
	}
	return nil
}

func (sh *Shell) metaActions(ctx context.Context, args []string) error {
	if err := wantArgs(args, 0, 0, ":actions"); err != nil {
		return err
	}
	v, err := sh.r.Session.Vocabulary(ctx)
	if err != nil {
		return err
	}
	if len(v.Actions) == 0 {
		sh.printf("no actions; CREATE ACTION name(p STRING) { … } registers one\n")
		return nil
	}
	for _, a := range v.Actions {
		sh.printf("%s\n", a.Signature)
		if a.If != "" {
			sh.printf("  IF '%s'\n", a.If)
		}
		line := registration(a.Intent, a.Agent, a.Registered, a.Revised, a.Revisions)
		if a.Invocations == 0 {
			line += "; never invoked"
		} else {
			line += fmt.Sprintf("; invoked %d %s, last at v%d", a.Invocations, plural(a.Invocations, "time", "times"), a.LastInvoked)
		}
		sh.printf("  %s; %s\n", line, salience(a.Salience, a.LowSalience))
		if a.FailedCalls > 0 {
			sh.printf("  failed CALLs: %d (the latest: %s)\n", a.FailedCalls, a.LastFailure)
		}
	}
	return nil
}

// salience writes an item's salience as the envelope does at full.
func salience(v float64, low bool) string {
	s := fmt.Sprintf("salience %.2f", v)
	if low {
		s += " low_salience"
	}
	return s
}

// registration says why an item exists and who made it when.
func registration(intent, agent string, registered, revised uint64, revisions int) string {
	var parts []string
	if intent != "" {
		parts = append(parts, "intent: "+intent)
	}
	reg := fmt.Sprintf("registered at v%d", registered)
	if agent != "" {
		reg += " by " + agent
	}
	parts = append(parts, reg)
	if revisions > 0 {
		parts = append(parts, fmt.Sprintf("%d %s, the last at v%d", revisions, plural(revisions, "revision", "revisions"), revised))
	}
	return strings.Join(parts, "; ")
}
