package values

import (
	"errors"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The GQLSTATUS vocabulary the values carry: a code, a notice on a
// successful result, an error a caller can cause.
type (
	Code   = gqlstatus.Code
	Notice = gqlstatus.Notice
	Error  = gqlstatus.Error
)

// ErrDropped is the cause of the error of a call on a session that was
// dropped: a server answers it 409, and a client gives it back as the
// cause, so errors.Is finds it on both sides of the wire.
var ErrDropped = errors.New("goldfish: session was dropped")

// ValueCode is the GQLSTATUS of a value no property can hold: err is
// Value.Check's error, a conversion's, or one that knows its code
// (gqlstatus.CodeOf); anything else is an invalid value type.
func ValueCode(err error) Code {
	switch {
	case errors.Is(err, ErrTooDeep):
		return gqlstatus.ValueBudget
	case errors.Is(err, ErrNotFinite):
		return gqlstatus.NumericOutOfRange
	case errors.Is(err, ErrDateFormat):
		return gqlstatus.InvalidDateTimeFormat
	case errors.Is(err, ErrDateRange):
		return gqlstatus.DateTimeOverflow
	}
	return gqlstatus.CodeOf(err, gqlstatus.InvalidValueType)
}
