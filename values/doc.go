// Package values declares goldfish's public values once: the property
// value and property set every layer keeps (Value, Props), the Shape a
// Recall hands out with its rows, the options of a Recall, what a Commit
// did, the attention envelope, the vocabulary and the session's
// settings. The engine builds them, the store keeps them, the root
// package re-exports them by alias, and every surface (the GQL text, the
// JSON of the server and the shell, the memory tools, the browser, the
// Go client) renders them; nothing is copied field by field between
// layers.
//
// It imports nothing of goldfish's but the GQLSTATUS codes, so a program
// that only speaks to a server (package client) links it without the
// engine.
package values
