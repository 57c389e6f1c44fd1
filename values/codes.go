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
