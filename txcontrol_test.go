package goldfish_test

import (
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestTxControl: a shell learns that a statement is START TRANSACTION,
// COMMIT or ROLLBACK from the grammar, so what follows the words is
// checked too.
func TestTxControl(t *testing.T) {
	for _, c := range []struct {
		text     string
		kind     goldfish.TxKind
		readOnly bool
		err      bool
	}{
		{"START TRANSACTION READ ONLY", goldfish.TxStart, true, false},
		{"commit work", goldfish.TxCommit, false, false},
		{"ROLLBACK", goldfish.TxRollback, false, false},
		{"START TRANSACTION GARBAGE HERE", goldfish.TxNone, false, true},
		{"COMMIT banana", goldfish.TxNone, false, true},
		{"INSERT (:A)", goldfish.TxNone, false, false},
	} {
		kind, ro, err := goldfish.TxControl(c.text)
		if kind != c.kind || ro != c.readOnly || (err != nil) != c.err {
			t.Errorf("%q: %v %v %v", c.text, kind, ro, err)
		}
	}
}
