package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/snap"
)

// benchSnap runs Model Snap of the source tree into a database in memory,
// syntax only and then typed (type-checked calls and implements edges),
// each whole: the typed reading is judged by its ratio to the syntax-only
// one measured in the same run, on the same machine.
func benchSnap(ctx context.Context, cfg Config, rep *Report, logf func(string, ...any)) error {
	run := func(noTypes bool) (snap.Report, error) {
		settle()
		db, err := goldfish.Open()
		if err != nil {
			return snap.Report{}, err
		}
		defer db.Close()
		return snap.Go(ctx, db, filepath.Clean(cfg.Src), snap.Options{Prefix: "std", NoTypes: noTypes})
	}
	syntax, err := run(true)
	if err != nil {
		return fmt.Errorf("syntax only: %w", err)
	}
	typed, err := run(false)
	if err != nil {
		return fmt.Errorf("typed: %w", err)
	}
	rep.Snap = SnapReport{TypedSec: typed.Seconds(), SyntaxSec: syntax.Seconds(), Ratio: typed.Seconds() / syntax.Seconds(),
		TypedElements: typed.Elements, SyntaxElements: syntax.Elements}
	logf("model snap: typed %.1fs (%d elements), syntax only %.1fs (%d elements): %.2f×",
		typed.Seconds(), typed.Elements, syntax.Seconds(), syntax.Elements, rep.Snap.Ratio)
	return nil
}
