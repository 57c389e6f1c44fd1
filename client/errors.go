package client

import "github.com/goldfish-gql/goldfish/gqlstatus"

// Refusal is the error of a call the server refused: it answered with
// its error object (see the package's Errors). A caller that tells the
// server's verdict on a call from a failure to reach it (a test runner,
// a retry loop) asks errors.As for a *Refusal.
type Refusal struct {
	// Err is the server's error, its position in the text the call sent
	// and its Line that text's line, so Err.Caret() renders here.
	Err *gqlstatus.Error
	// Status is the HTTP status of the answer (wire.HTTPStatus): 400
	// for the caller's mistakes, 401 no valid token, 403 a token without
	// the session or the verb, 409 a conflict with the session's state,
	// 413 over the frame, 500 the server's fault, 503 not now.
	Status int
	// Caret is the caret lines the server rendered from the text it
	// ran ("" for none): they show what the server saw.
	Caret string
}

func (r *Refusal) Error() string { return r.Err.Error() }

// Unwrap gives the *gqlstatus.Error.
func (r *Refusal) Unwrap() error { return r.Err }

// TransportError is the error of a call that got no answer of the
// server's: it could not be reached, the answer was lost or cut short,
// the call was stopped, or what answered is not a goldfish server (see
// the package's Errors for the codes).
type TransportError struct {
	Err *gqlstatus.Error
	// Status is the HTTP status of an answer that came but is not the
	// server's JSON (0: no answer came).
	Status int
}

func (e *TransportError) Error() string { return e.Err.Error() }

// Unwrap gives the *gqlstatus.Error, whose cause is the transport's
// error (errors.Is(err, context.DeadlineExceeded) holds for a call its
// deadline stopped).
func (e *TransportError) Unwrap() error { return e.Err }
