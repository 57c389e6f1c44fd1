// Package planner turns a parsed script into a plan that can only be a
// Commit (bind with MATCH, then mutate) or a Recall (seed, walk, emit), and
// refuses everything else by name with advice. It resolves variables,
// checks the subset's rules before anything runs, and compiles WHERE
// predicates and computed values to CEL programs with a cost limit.
package planner
