package values

import "github.com/goldfish-gql/goldfish/gqlstatus"

// The GQLSTATUS vocabulary the values carry: a code, a notice on a
// successful result, an error a caller can cause.
type (
	Code   = gqlstatus.Code
	Notice = gqlstatus.Notice
	Error  = gqlstatus.Error
)
