package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// Every text a request carries is read the same way, on /v1, on /mcp and
// on standard input (gqlsh mcp): what encoding/json, or the MCP SDK's
// decoder, would take and silently change is refused before it is
// decoded, so what is stored is what was sent. checkText holds the rules
// for the bytes (UTF-8, no lone surrogate, no byte order mark), and
// wire.CheckKeys those for the keys of a /v1 body.

// decode reads a request body into v, strictly: one JSON object, every
// key once and spelled as its field, no unknown fields, no null for a
// field the endpoint needs, nothing after it, UTF-8 throughout
// (checkBody).
func decode(r *http.Request, v any) error {
	body, err := readAll(r)
	if err != nil {
		return bodyError(err)
	}
	if err := checkBody(body); err != nil {
		return err
	}
	if err := wire.CheckKeys(body, reflect.TypeOf(v)); err != nil {
		return err
	}
	switch v.(type) {
	case *wire.RecallRequest:
		err = oversizeBody(body, "q")
	case *wire.CommitRequest:
		err = oversizeBody(body, "text")
	}
	if err != nil {
		return err
	}
	// json.Unmarshal decodes from the bytes as they are; a Decoder
	// would copy them into a buffer it grows by doubling, twice the
	// body's bytes again. The keys are checked above (no unknown field)
	// and no request type holds an interface (so numbers need no
	// UseNumber): the two decode alike, and a body Unmarshal refuses is
	// decoded again below for the Decoder's error, the one a client has
	// always been given.
	if json.Unmarshal(body, v) == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return bodyError(err)
		}
		return gqlstatus.Errorf(gqlstatus.InvalidOption, "the request body holds more than one JSON object").
			WithHint("send one object per request")
	}
	return nil
}

// readAll reads a request body into one buffer of its declared length
// (at most the frame, which the body is held to): io.ReadAll would grow
// its buffer from 512 bytes, copying the body about twice.
func readAll(r *http.Request) ([]byte, error) {
	if r.ContentLength <= 0 || r.ContentLength > MaxFrame {
		return io.ReadAll(r.Body)
	}
	// +1: room for the read that finds the end (net/http ends a body at
	// its Content-Length; a longer one is read on as io.ReadAll would).
	buf := make([]byte, 0, r.ContentLength+1)
	for {
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case len(buf) == cap(buf):
			rest, err := io.ReadAll(r.Body)
			return append(buf, rest...), err
		}
	}
}

// checkBody refuses what encoding/json would take and silently change:
// a body of null, which would leave every field unset (refused as an
// empty body is), and what checkText refuses.
func checkBody(body []byte) error {
	switch string(bytes.Trim(body, " \t\r\n")) {
	case "":
		return bodyError(io.EOF)
	case "null":
		return gqlstatus.Errorf(gqlstatus.InvalidOption, "the request body is null, not the JSON object the endpoint takes").
			WithHint("send one JSON object with the endpoint's fields")
	}
	if ge := checkText("request body", body); ge != nil {
		return ge
	}
	return nil
}

// checkText refuses, in the JSON text of a request (what: "request
// body", "message", "line"), what a decoder would take and change: bytes
// that are not UTF-8 and \u escapes of a lone UTF-16 surrogate, which it
// would replace with U+FFFD (22G03, as the embedding API refuses a
// string that is not UTF-8), and a leading byte order mark, which JSON
// does not take (22Q06; refused everywhere alike, never skipped).
func checkText(what string, body []byte) *gqlstatus.Error {
	if bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("\uFEFF")) {
		return gqlstatus.Errorf(gqlstatus.InvalidOption, "the %s starts with a byte order mark (U+FEFF), which JSON text does not", what).
			WithHint("send the JSON without a byte order mark: JSON is UTF-8 and has none (RFC 8259)")
	}
	if !utf8.Valid(body) {
		off := 0
		for off < len(body) {
			r, n := utf8.DecodeRune(body[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return gqlstatus.Errorf(gqlstatus.InvalidValueType, "the %s is not UTF-8: byte %d (0x%02x) begins no UTF-8 character", what, off, body[off]).
			WithHint("send the " + what + " as UTF-8 text; a value that is not text has no GQL type a property holds")
	}
	if off, esc := loneSurrogate(body); off >= 0 {
		return gqlstatus.Errorf(gqlstatus.InvalidValueType, "the %s's string at byte %d escapes %s, a lone UTF-16 surrogate: no UTF-8 text holds it", what, off, esc).
			WithHint(`escape a character outside the Basic Multilingual Plane as a surrogate pair ("\ud83d\ude00"), or send it as UTF-8`)
	}
	return nil
}

// loneSurrogate finds the first \u escape in a JSON string of body that
// is a high surrogate not followed by a low one, or a low surrogate
// alone: its offset and text, or -1. What is not JSON is left to the
// decoder.
func loneSurrogate(body []byte) (int, string) {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	// From string to string, and within one from escape to escape, a
	// jump at a time (bytes.IndexByte): a 256 KB text is one string.
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			return -1, ""
		}
		i += j + 1
		quote := -1 // the next quote at or after i, once found
		for {
			if i >= len(body) {
				return -1, ""
			}
			if quote < i {
				if quote = bytes.IndexByte(body[i:], '"'); quote < 0 {
					quote = len(body) // none: the string does not close
				} else {
					quote += i
				}
			}
			k := bytes.IndexByte(body[i:quote], '\\')
			if k < 0 {
				if quote == len(body) {
					return -1, ""
				}
				i = quote + 1 // the string closes
				break
			}
			i += k
			r, ok := hex4(i)
			switch {
			case !ok:
				i += 2 // an escape of one character
				continue
			case r >= 0xD800 && r < 0xDC00:
				if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo < 0xE000 {
					i += 12
					continue
				}
				return i, string(body[i : i+6])
			case r >= 0xDC00 && r < 0xE000:
				return i, string(body[i : i+6])
			}
			i += 6
		}
	}
}

func bodyError(err error) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return errFrame("request body")
	}
	var ge *gqlstatus.Error
	if errors.As(err, &ge) {
		return ge
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) {
		msg = "the request body is empty"
	}
	return gqlstatus.Errorf(gqlstatus.InvalidOption, "the request body is not the JSON object the endpoint takes: %s", strings.TrimPrefix(msg, "json: ")).
		WithHint("see the fields in the server's documentation (GQL text goes in a JSON string)")
}

// A request refused before its body is read (no token, a token without
// the session, shutting down, no such endpoint) is answered at once and
// its connection closed: the body is never read, so a client that drips
// one byte at a time holds no connection for it. net/http would
// otherwise read up to 256 KiB of what is left, before the answer and
// again when the handler returns, to keep the connection open.

// readBody is a request body that knows whether it was read to its end.
type readBody struct {
	io.ReadCloser
	eof bool
}

func (b *readBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.eof = true // the end, or an error after which nothing more is read
	}
	return n, err
}

// trackBody makes r's body tell unread whether it was read.
func trackBody(r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &readBody{ReadCloser: r.Body}
	}
}

// unread reports whether r has a body that was not read to its end.
func unread(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return false
	}
	b, ok := r.Body.(*readBody)
	return !ok || !b.eof
}

// dropUnread closes the connection of an answer to a request whose body
// is left unread, without reading any more of it: "Connection: close"
// before the header is written, and reads that fail at once for what
// net/http reads when the handler returns.
func dropUnread(w http.ResponseWriter, r *http.Request) {
	if !unread(r) {
		return
	}
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
}

// decodeIn reads the body of a request to the session its path names,
// after checking that the token may do verb ("read", "write") there: a
// token without the session is refused before the body is read, with
// the same 403 it gets after.
func decodeIn(r *http.Request, scope *Scope, verb string, v any) error {
	if err := checkScope(scope, r.PathValue("name"), verb); err != nil {
		return err
	}
	return decode(r, v)
}
