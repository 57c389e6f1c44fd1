package planner

import (
	"errors"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
)

// codedError is a condition found below the layer that words it for the
// user (an operator's evaluation, a DATETIME's text), with its GQLSTATUS.
type codedError struct {
	code gqlstatus.Code
	msg  string
}

func (e *codedError) Error() string             { return e.msg }
func (e *codedError) GQLStatus() gqlstatus.Code { return e.code }

// ValueCode is the GQLSTATUS of a value no property can hold: err is
// store.Value.Check's error, FromCEL's, or a conversion's that knows its
// code; anything else is an invalid value type.
func ValueCode(err error) gqlstatus.Code {
	switch {
	case errors.Is(err, store.ErrTooDeep):
		return gqlstatus.ValueBudget
	case errors.Is(err, store.ErrNotFinite):
		return gqlstatus.NumericOutOfRange
	case errors.Is(err, store.ErrDateFormat):
		return gqlstatus.InvalidDateTimeFormat
	case errors.Is(err, store.ErrDateRange):
		return gqlstatus.DateTimeOverflow
	}
	return gqlstatus.CodeOf(err, gqlstatus.InvalidValueType)
}

// txStartCode is the code of a START TRANSACTION that does not open its
// text: inside a transaction the standard's "active GQL-transaction",
// after other statements an invalid transaction state.
func txStartCode(inTx bool) gqlstatus.Code {
	if inTx {
		return gqlstatus.ActiveTransaction
	}
	return gqlstatus.InvalidTransactionState
}
