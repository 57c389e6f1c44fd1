package planner

import (
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// codedError is a condition found below the layer that words it for the
// user (an operator's evaluation, a DATETIME's text), with its GQLSTATUS.
type codedError struct {
	code gqlstatus.Code
	msg  string
}

func (e *codedError) Error() string             { return e.msg }
func (e *codedError) GQLStatus() gqlstatus.Code { return e.code }

// txStartCode is the code of a START TRANSACTION that does not open its
// text: inside a transaction the standard's "active GQL-transaction",
// after other statements an invalid transaction state.
func txStartCode(inTx bool) gqlstatus.Code {
	if inTx {
		return gqlstatus.ActiveTransaction
	}
	return gqlstatus.InvalidTransactionState
}
