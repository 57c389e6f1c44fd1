// Package db is called from two other packages in the callers tests.
package db

// Tx is a transaction.
type Tx struct{ n int }

// Commit ends the transaction.
func (t *Tx) Commit() error { return nil }

// Rollback undoes the transaction.
func (t *Tx) Rollback() { t.n = 0 }

// Walk counts down by calling itself.
func Walk(n int) int {
	if n == 0 {
		return 0
	}
	return Walk(n - 1)
}
