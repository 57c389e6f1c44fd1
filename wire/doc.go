// Package wire declares, once, the JSON a goldfish server and its
// clients exchange over HTTP (the /v1 API of package server, docs/design.md#interfaces)
// and the JSON lines `gqlsh --format json` prints: every request body,
// every answer, the error objects, the mapping of a GQLSTATUS error to
// its HTTP status and back, and the conversions between those forms and
// package values' types. The server writes these types, the shell prints
// them, and the Go client (package client) and the conformance runner
// read them, so a field is named, tagged and converted in one place.
//
// It imports only the standard library, values and gqlstatus: a program
// that speaks to a server links the wire without the engine.
package wire

// MaxFrame is the most bytes of one request body or answer (docs/design.md#budgets):
// the server refuses a request or an answer over it (22Q07), and a
// client reads no more of an answer.
const MaxFrame = 4 << 20
