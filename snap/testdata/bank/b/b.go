// Package b commits from one function.
package b

import "example.com/bank/db"

// Done commits.
func Done(t *db.Tx) error { return t.Commit() }
