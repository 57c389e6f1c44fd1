package goldfish

import "github.com/goldfish-gql/goldfish/parser"

// TxKind says what a transaction statement does (see TxControl).
type TxKind uint8

// The transaction statements.
const (
	TxNone     TxKind = iota // not a transaction statement
	TxStart                  // START TRANSACTION [READ ONLY | READ WRITE]
	TxCommit                 // COMMIT [WORK]
	TxRollback               // ROLLBACK [WORK]
)

// TxControl reads the text of one statement as START TRANSACTION, COMMIT
// or ROLLBACK, parsed with the grammar, for a caller that collects the
// statements of a transaction one at a time (a shell) and sends them as
// one Δ at COMMIT. Any other statement is TxNone, with no error: its
// errors come when it runs. Text that starts like a transaction statement
// but is not one (START TRANSACTION GARBAGE, COMMIT banana) is a syntax
// error (*Error, 42001) at its position. readOnly reports START
// TRANSACTION READ ONLY, which refuses (25G03) any statement of the Δ
// that changes data; a caller that sends the collected statements without
// their START TRANSACTION must keep that promise itself, or send the
// START TRANSACTION READ ONLY with them.
func TxControl(text string) (kind TxKind, readOnly bool, err error) {
	k, ro, err := parser.TxControl(text)
	switch k {
	case parser.TxStart:
		kind = TxStart
	case parser.TxCommit:
		kind = TxCommit
	case parser.TxRollback:
		kind = TxRollback
	}
	return kind, ro, err
}
