package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"unsafe"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/wire"
)

// A GQL text the parser refuses before reading it (parser.Check: its
// bytes, its UTF-8, a list's items, an expression's size, a label
// expression's terms, the nesting) is refused by recall and commit right
// after the token's scope, before the session is opened (textFirst),
// on /v1 and on /mcp alike. On /mcp the SDK would decode the call
// several times over first, about 50 bytes allocated per byte of the
// text, so a 256 KB text cost 13 MiB to refuse. mcpHTTP finds the text
// in the message without decoding the message, checks it, and on a
// refusal hands the SDK the message with the text emptied and the
// refusal in the request's context: the SDK checks the headers and the
// arguments as it always does, and the tool answers the refusal where
// it would have answered it, in the same words.

// oversizeKey is the context key of a text's refusal (an error).
type oversizeKey struct{}

// oversizeFloor is the size of the smallest message withoutOversize
// looks into (a variable for the test that compares both paths).
var oversizeFloor = 4 << 10

// textArgument is the argument of each tool that holds GQL text.
var textArgument = map[string]string{"recall": "q", "commit": "text"}

// withoutOversize returns the message to hand the SDK and the request to
// serve it with: msg and r themselves, unless msg is a tools/call of a
// tool with GQL text whose text the parser refuses before reading it.
// Then the text is replaced by "" and the refusal goes with r's context
// for textFirst. Small messages are left as they are: the SDK decodes
// them cheaply, and the tool finds the same refusal itself.
func withoutOversize(msg []byte, r *http.Request) ([]byte, *http.Request) {
	if len(msg) < oversizeFloor {
		return msg, r
	}
	var method, tool string
	_, _, ok := member(msg, "method", func(v []byte) bool { return json.Unmarshal(v, &method) == nil && method == "tools/call" })
	if !ok {
		return msg, r
	}
	pStart, pEnd, ok := member(msg, "params", nil)
	if !ok {
		return msg, r
	}
	params := msg[pStart:pEnd]
	if _, _, ok := member(params, "name", func(v []byte) bool { return json.Unmarshal(v, &tool) == nil }); !ok || textArgument[tool] == "" {
		return msg, r
	}
	aStart, aEnd, ok := member(params, "arguments", nil)
	if !ok {
		return msg, r
	}
	args := params[aStart:aEnd]
	tStart, tEnd, ok := member(args, textArgument[tool], nil)
	if !ok || args[tStart] != '"' {
		return msg, r
	}
	err := checkJSONText(args[tStart:tEnd])
	if err == nil {
		return msg, r
	}
	at := pStart + aStart + tStart
	out := make([]byte, 0, len(msg)-(tEnd-tStart)+2)
	out = append(append(append(out, msg[:at]...), `""`...), msg[pStart+aStart+tEnd:]...)
	return out, r.WithContext(context.WithValue(r.Context(), oversizeKey{}, statusOf(err)))
}

// checkJSONText is goldfish.CheckText of a JSON string (valid JSON, as
// checkMessage or checkBody has made sure). A string with no escape is
// its own text, taken as it is: json.Unmarshal would validate and
// unquote it rune by rune, most of the cost of refusing it.
func checkJSONText(str []byte) error {
	var text string
	if bytes.IndexByte(str, '\\') < 0 {
		// The bytes as they are, not a copy: the check keeps nothing of
		// the text but, in a refusal, its line, and the request's body
		// is never written after it is read.
		if len(str) > 2 {
			text = unsafe.String(&str[1], len(str)-2)
		}
	} else if err := json.Unmarshal(str, &text); err != nil {
		return nil // left to the decoder, which says what is wrong
	}
	if err := goldfish.CheckText(text); err != nil {
		return statusOf(err)
	}
	return nil
}

// oversizeBody refuses the body of a /v1 Recall or Commit whose text
// (key) the parser refuses before reading it, before the body is decoded
// (textFirst refuses it after, were it found only then): found as
// withoutOversize finds a tool's text, a 256 KB text costs one scan and
// a copy instead of json.Unmarshal's decoding.
func oversizeBody(body []byte, key string) error {
	if len(body) < oversizeFloor {
		return nil
	}
	start, end, ok := member(body, key, nil)
	if !ok || body[start] != '"' {
		return nil
	}
	return checkJSONText(body[start:end])
}

// member finds the value of key in the JSON object obj (valid JSON, each
// key once, as checkMessage has made sure) and returns where it starts
// and ends; want, when not nil, must take the value. It decodes nothing
// but the keys it passes, and allocates nothing for them.
func member(obj []byte, key string, want func([]byte) bool) (start, end int, ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return 0, 0, false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return 0, 0, false
		}
		kEnd := skipValue(obj, i)
		if kEnd < 0 {
			return 0, 0, false
		}
		k := obj[i:kEnd]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return 0, 0, false
		}
		vStart := skipSpace(obj, i+1)
		vEnd := skipValue(obj, vStart)
		if vEnd < 0 {
			return 0, 0, false
		}
		// A key spelled with escapes is not the plain key: the SDK reads
		// it as the same name, so such a message is left to it.
		if string(k) == `"`+key+`"` {
			if want != nil && !want(obj[vStart:vEnd]) {
				return 0, 0, false
			}
			return vStart, vEnd, true
		}
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return 0, 0, false
		}
		i++
	}
}

// skipSpace returns the index of the first byte at or after i that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value that starts at i
// in b (valid JSON), or -1 when b ends first.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			// To the closing quote, a jump at a time (a 256 KB text
			// is one string).
			if i, _ = wire.StringEnd(b, i+1); i < 0 {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return -1
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return i // a number, true, false or null that ends the text
	}
	return -1
}

// textFirst checks what recall and commit check before they open the
// session: the token's scope for it, then the text, which the parser
// must not refuse before reading it (or the refusal /mcp found, see
// withoutOversize). The refusal of such a text is then the same
// whatever else the call holds, and costs one scan of the text.
func textFirst(ctx context.Context, scope *Scope, name, verb, text string) error {
	if err := checkScope(scope, name, verb); err != nil {
		return err
	}
	if err, ok := ctx.Value(oversizeKey{}).(error); ok {
		return err
	}
	if err := goldfish.CheckText(text); err != nil {
		return statusOf(err)
	}
	return nil
}
