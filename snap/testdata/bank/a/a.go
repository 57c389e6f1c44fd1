// Package a commits from three functions.
package a

import "example.com/bank/db"

// Save commits.
func Save(t *db.Tx) error { return t.Commit() }

// Flush commits too.
func Flush(t *db.Tx) error { return t.Commit() }

// Close commits, then rolls back.
func Close(t *db.Tx) {
	_ = t.Commit()
	t.Rollback()
}
