package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// One MCP message is one budget, on /mcp and on standard input alike:
//
//   - a message is one JSON-RPC request or notification: a batch (a JSON
//     array) is refused whole with one error, before any of it runs. The
//     MCP specification of 2025-06-18 removed batches, and the SDK still
//     takes them from a client that claims an older version, each call
//     with its own deadline and the answers never held to the frame;
//   - a message over the 4 MiB frame is refused (HTTP 413 on /mcp) without
//     being read past the frame;
//   - a call has the one deadline of the request (Options.Deadline);
//   - an answer is at most 4 MiB as JSON on the wire: a tool's answer is
//     measured before it is sent (a Shape is in it twice, as the text and
//     as the structured content's gql, and escaped), and one over the frame
//     is refused with 22Q07; on /mcp the answer is also held to the frame
//     as it is written (413, a JSON-RPC error), and on standard input an
//     answer over it is replaced by an error.

// JSON-RPC error codes of the refusals: the request's shape (a batch, a
// message over the frame) is an invalid request; an answer over the frame
// is a server error of its own.
const (
	codeRefused     = jsonrpc.CodeInvalidRequest
	codeAnswerFrame = -32001
)

// errBatch refuses a JSON-RPC batch.
func errBatch() *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.FrameBudget, "a JSON-RPC batch is refused: one message is one call").
		WithHint("send each request as its own message (MCP 2025-06-18 removed batches)")
}

// isBatch reports whether a message is a JSON array.
func isBatch(msg []byte) bool {
	msg = bytes.TrimLeft(msg, " \t\r\n")
	return len(msg) > 0 && msg[0] == '['
}

// refusal is a JSON-RPC error answer to the message with the id given
// ("id": null when it is not known), its data the server's error object.
func refusal(id jsonrpc.ID, code int, ge *gqlstatus.Error) []byte {
	data, _ := json.Marshal(wire.ErrorOf(ge))
	b, _ := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: int64(code), Message: ge.Error(), Data: data}})
	return b
}

// peekID is the id of a message, read from as much of it as there is
// (the start of a line over the frame); the zero ID when there is none.
func peekID(msg []byte) jsonrpc.ID {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc.ID{}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}
		}
		if key == "id" {
			var raw any
			if err := dec.Decode(&raw); err != nil {
				return jsonrpc.ID{}
			}
			if n, ok := raw.(json.Number); ok {
				f, _ := n.Float64()
				raw = f
			}
			id, err := jsonrpc.MakeID(raw)
			if err != nil {
				return jsonrpc.ID{}
			}
			return id
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return jsonrpc.ID{}
		}
	}
	return jsonrpc.ID{}
}

// writeRefusal answers an HTTP request with one JSON-RPC error.
func writeRefusal(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(msg)
}

// readMessage reads the body of a POST to /mcp, at most the frame, and
// refuses a batch. It answers the refusal itself and returns false.
func readMessage(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxFrame))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeRefusal(w, http.StatusRequestEntityTooLarge, refusal(peekID(body), codeRefused, errFrame("request body")))
			return nil, false
		}
		writeRefusal(w, http.StatusBadRequest, refusal(jsonrpc.ID{}, codeRefused,
			gqlstatus.Errorf(gqlstatus.InvalidOption, "the request body could not be read: %v", err)))
		return nil, false
	}
	if isBatch(body) {
		writeRefusal(w, http.StatusBadRequest, refusal(jsonrpc.ID{}, codeRefused, errBatch()))
		return nil, false
	}
	if code, ge := checkMessage("request body", body); ge != nil {
		writeRefusal(w, http.StatusBadRequest, refusal(peekID(body), code, ge))
		return nil, false
	}
	return body, true
}

// checkMessage refuses a message, on /mcp or standard input, before the
// SDK decodes it, by the rules of a /v1 body (checkText): bytes that are
// not UTF-8, a lone surrogate's escape (22G03) and a byte order mark
// (22Q06) are a parse error (-32700), as text that is not JSON is; a key
// given twice, of which the SDK's decoder would keep the last, is an
// invalid request (-32600, 22Q06). It returns the JSON-RPC code and the
// refusal, or nil.
func checkMessage(what string, msg []byte) (int, *gqlstatus.Error) {
	if ge := checkText(what, msg); ge != nil {
		return jsonrpc.CodeParseError, ge
	}
	if !json.Valid(msg) {
		err := json.Unmarshal(msg, new(any)) // the syntax error, to name it
		return jsonrpc.CodeParseError, gqlstatus.Errorf(gqlstatus.InvalidOption, "the %s is not JSON: %s", what, strings.TrimPrefix(err.Error(), "json: ")).
			WithHint("send one JSON-RPC request or notification, as JSON")
	}
	if err := wire.DuplicateKeys(what, msg); err != nil {
		return codeRefused, statusOf(err)
	}
	return 0, nil
}

// errAnswerFrame is what the capped writer returns to a write past the
// frame.
var errAnswerFrame = errors.New("the answer is over the 4 MiB frame")

// cappedWriter holds an answer to /mcp to the frame: a JSON answer is
// kept until the handler returns, at most MaxFrame bytes of it, and one
// over the frame is replaced by a 413 JSON-RPC error; an event stream
// passes through, and a write past the frame fails.
type cappedWriter struct {
	w      http.ResponseWriter
	code   int
	stream bool
	over   bool
	n      int
	buf    bytes.Buffer
}

func (c *cappedWriter) Header() http.Header { return c.w.Header() }

func (c *cappedWriter) WriteHeader(code int) {
	if c.code != 0 {
		return
	}
	c.code = code
	if strings.HasPrefix(c.w.Header().Get("Content-Type"), "text/event-stream") {
		c.stream = true
		c.w.WriteHeader(code)
	}
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if c.code == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.over || c.n+len(p) > MaxFrame {
		c.over = true
		return 0, errAnswerFrame
	}
	c.n += len(p)
	if c.stream {
		return c.w.Write(p)
	}
	return c.buf.Write(p)
}

// Flush flushes an event stream; a JSON answer is sent whole at the end.
func (c *cappedWriter) Flush() {
	if c.stream {
		http.NewResponseController(c.w).Flush()
	}
}

func (c *cappedWriter) Unwrap() http.ResponseWriter { return c.w }

// finish sends what the handler wrote, or the refusal of an answer over
// the frame, or, for a refusal the SDK wrote as plain text, the same
// refusal as a JSON-RPC error: every answer of /mcp is JSON-RPC.
func (c *cappedWriter) finish(body []byte) {
	switch {
	case c.stream || c.code == 0:
	case c.over:
		h := c.w.Header()
		h.Del("Content-Length")
		writeRefusal(c.w, http.StatusRequestEntityTooLarge, refusal(peekID(body), codeAnswerFrame, errFrame("answer")))
	case c.code >= 400 && !strings.HasPrefix(c.w.Header().Get("Content-Type"), "application/json"):
		h := c.w.Header()
		h.Del("Content-Length")
		h.Del("X-Content-Type-Options")
		code, ge := sdkRefusal(c.code, strings.TrimSpace(c.buf.String()))
		writeRefusal(c.w, c.code, refusal(peekID(body), code, ge))
	default:
		c.w.WriteHeader(c.code)
		c.w.Write(c.buf.Bytes())
	}
}

// answerSize is the size of a tool's answer as JSON on the wire, near
// enough: the result's content and the structured content, as the SDK
// marshals them.
func answerSize(res *mcp.CallToolResult, out any) (int, error) {
	n := 64 // the envelope
	if res != nil {
		for _, c := range res.Content {
			b, err := json.Marshal(c)
			if err != nil {
				return 0, err
			}
			n += len(b) + 1
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return 0, err
	}
	return n + len(b), nil
}

// sdkRefusal is the JSON-RPC code and the error of a refusal the SDK
// wrote as plain text with HTTP status code: what the request lacks,
// with what to send instead.
func sdkRefusal(status int, text string) (int, *gqlstatus.Error) {
	if status >= 500 {
		return jsonrpc.CodeInternalError, gqlstatus.Errorf(gqlstatus.Internal, "the MCP server failed: %s", text).
			WithHint("send the request again; if it fails again, report it with the server's log")
	}
	hint := "send one JSON-RPC request or notification as the body of a POST (MCP streamable HTTP)"
	switch status {
	case http.StatusMethodNotAllowed:
		hint = "send each MCP message as a POST to /mcp (the server keeps no sessions: there is no stream to GET or session to DELETE)"
	case http.StatusUnsupportedMediaType:
		hint = "send the message with Content-Type: application/json"
	case http.StatusRequestEntityTooLarge:
		return codeRefused, errFrame("request body")
	}
	if strings.HasPrefix(text, "Accept ") {
		hint = "send Accept: application/json, text/event-stream"
	}
	return codeRefused, gqlstatus.Errorf(gqlstatus.InvalidOption, "the MCP request is refused: %s", text).WithHint(hint)
}
