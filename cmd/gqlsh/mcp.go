package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/server"
)

// runMCP is gqlsh mcp: the MCP server on standard input and output, for
// an agent that starts gqlsh as its memory. Diagnostics go to standard
// error; standard output carries only the protocol.
func runMCP(args []string, e env) int {
	fs := flag.NewFlagSet("gqlsh mcp", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	storage := storageFlags{postgresSharedWith: "other hosts"}
	storage.register(fs)
	session := fs.String("session", server.DefaultMemorySession, "session `NAME` of the memory-server tools, and of recall and commit when a call names none")
	deadline := fs.Duration("deadline", 30*time.Second, "cancel a tool call's work after `D` (0: no deadline)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gqlsh mcp [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME] [--session NAME] [--memory-budget SIZE]\n\nServes MCP on standard input and output: the tools recall, commit and\nsessions, and the knowledge-graph memory server's tools on --session.")
		fs.PrintDefaults()
	}
	if code, done := parseNoArgs(fs, args, e.stdout, e.stderr); done {
		return code
	}
	if !storage.check("gqlsh mcp", e) {
		return 2
	}
	db, backend, err := openDB(storage.options(e))
	if err != nil {
		fmt.Fprintf(e.stderr, "gqlsh: %v\n", err)
		return 1
	}
	storage.warn("gqlsh mcp", e)
	srv, err := server.New(db, server.Options{MemorySession: *session, Deadline: *deadline, Version: version,
		Logger: slog.New(slog.NewTextHandler(e.stderr, nil))})
	if err != nil {
		db.Close()
		fmt.Fprintf(e.stderr, "gqlsh mcp: %v\n", err)
		return 2
	}
	unrecord := serving(e, backend, db.CabinetPath(), servingMCP, "")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := 0
	// One line is one message and one budget: a batch, a line over the
	// frame or an answer over it is refused, and the next line served.
	if err := srv.MCP().Run(ctx, srv.StdioTransport(e.stdin, e.stdout)); err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(e.stderr, "gqlsh mcp: %v\n", err)
		code = 1
	}
	if err := srv.Flush(context.Background()); err != nil {
		fmt.Fprintf(e.stderr, "gqlsh mcp: %v\n", err)
		code = 1
	}
	unrecord() // before the file is free for another to record itself
	if err := db.Close(); err != nil {
		fmt.Fprintf(e.stderr, "gqlsh mcp: closing %s: %v\n", backend, err)
		code = 1
	}
	return code
}
