package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// StdioTransport is the MCP transport of gqlsh mcp: newline-delimited
// JSON-RPC on in and out, one message a line (as the MCP specification
// has it), each line one budget as one POST to /mcp is: a batch is
// refused with one error, a line over the 4 MiB frame is refused for its
// id without being held, a line a /v1 body would be refused for
// (checkMessage: not UTF-8, a byte order mark, a key given twice) or
// that is not JSON-RPC is answered with an error, and the connection
// serves the next line after each; an
// answer over the frame is replaced by a 22Q07 error. Each connection has
// an id of its own, so its recalls and commits that name no agent act as
// one agent of its own. Closing the
// connection closes in when it is an io.Closer, never out.
func (s *Server) StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return &stdioTransport{in: in, out: out, s: s}
}

type stdioTransport struct {
	in  io.Reader
	out io.Writer
	s   *Server
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{in: t.in, out: t.out, s: t.s, id: newConnectionID(), incoming: make(chan lineOrErr), closed: make(chan struct{})}
	go c.readLines()
	return c, nil
}

type lineOrErr struct {
	msg jsonrpc.Message
	err error
}

type stdioConn struct {
	in  io.Reader
	out io.Writer
	s   *Server
	// id names the connection: its recalls and commits that name no
	// agent act as the connection's agent (mcp_identity.go), one per
	// process of gqlsh mcp.
	id       string
	writeMu  sync.Mutex
	incoming chan lineOrErr
	closed   chan struct{}
	once     sync.Once
}

// peekBytes is how much of a line over the frame is kept to find its id.
const peekBytes = 64 << 10

// readLines reads the lines of in and hands on the messages; what it
// refuses it answers itself.
func (c *stdioConn) readLines() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	var line []byte
	over := false
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case over:
			// The rest of a line over the frame: skipped.
		case len(line)+len(chunk) > MaxFrame:
			over = true
			line = append(line, chunk[:min(len(chunk), max(0, peekBytes-len(line)))]...)
		default:
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || len(bytes.TrimSpace(line)) == 0 && !over) {
			c.hand(lineOrErr{err: err})
			return
		}
		if msg, ok := c.message(line, over); ok {
			if !c.hand(lineOrErr{msg: msg}) {
				return
			}
		}
		if err != nil {
			c.hand(lineOrErr{err: err})
			return
		}
		line, over = line[:0], false
		if cap(line) > peekBytes {
			line = nil // a long line's buffer is not kept
		}
	}
}

// hand passes a message or the end of input to Read; false once closed.
func (c *stdioConn) hand(m lineOrErr) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// message decodes one line, or answers its refusal and reports false.
func (c *stdioConn) message(line []byte, over bool) (jsonrpc.Message, bool) {
	switch {
	case over:
		c.refuse(refusal(peekID(line), codeRefused, errFrame("message")))
	case len(bytes.TrimSpace(line)) == 0:
	case isBatch(line):
		c.refuse(refusal(jsonrpc.ID{}, codeRefused, errBatch()))
	default:
		if code, ge := checkMessage("line", line); ge != nil {
			c.refuse(refusal(peekID(line), code, ge))
			return nil, false
		}
		msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
		if err != nil {
			code := jsonrpc.CodeParseError
			if json.Valid(line) {
				code = jsonrpc.CodeInvalidRequest
			}
			c.refuse(refusal(peekID(line), code, errNotMessage(err)))
			return nil, false
		}
		return msg, true
	}
	return nil, false
}

func (c *stdioConn) refuse(msg []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.out.Write(append(msg, '\n'))
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case m := <-c.incoming:
		return m.msg, m.err
	}
}

// Write writes one message a line; an answer over the frame is replaced
// by its refusal, and another message over it is not sent.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if len(data) > MaxFrame {
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			c.s.opts.Logger.Warn("an MCP message over the frame was not sent", "bytes", len(data))
			return nil
		}
		data = refusal(resp.ID, codeAnswerFrame, errFrame("answer"))
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return errors.New("the MCP connection is closed")
	default:
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

func (c *stdioConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		if cl, ok := c.in.(io.Closer); ok {
			err = cl.Close()
		}
	})
	return err
}

// SessionID is the connection's id, made when it was: the SDK's
// req.Session.ID() in a tool call.
func (c *stdioConn) SessionID() string { return c.id }

func errNotMessage(err error) *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.InvalidOption, "the line is not a JSON-RPC message: %v", err).
		WithHint("send one JSON-RPC request or notification per line")
}
