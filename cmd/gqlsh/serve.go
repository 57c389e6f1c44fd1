package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/goldfish-gql/goldfish/server"
)

const serveUsage = `Usage: gqlsh serve [--listen ADDR] [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME] [--poll D] [--tokens FILE] [--private-metrics] [--deadline D] [--session NAME] [--memory-budget SIZE]

Serves the sessions over HTTP/JSON and MCP (streamable HTTP on /mcp):
  POST /v1/sessions/NAME/recall   {"q", "params", "agent", "options": {"M","k","L","F","T","view","depth","only","pinned","nopeaks","exact"}}
  POST /v1/sessions/NAME/commit   {"text", "params", "agent", "mint"}
  POST /v1/sessions/NAME/export    {"q", "params", "nicks", "options": {"M","k","L","F"}}
  POST /v1/sessions/NAME/absorb    {"slice", "policy", "agent"}
  GET  /v1/sessions/NAME/vocabulary, /settings (POST to change), /dump, /diff, /history, /versions
  GET  /v1/sessions, GET /healthz, GET /readyz, GET /metrics
  GET  /ui/                        the memory browser (a page; it asks for a token when the server has them)

With --postgres URL (else $GOLDFISH_POSTGRES, unless --cabinet or --mem)
the sessions live in PostgreSQL, shared with every other gqlsh serve on
the same database and schema; each Recall knows the others' Commits at most
--poll old.

Without --tokens every caller may do everything, so the server listens on a
loopback address only; with --tokens FILE (lines from gqlsh token) each
request needs "Authorization: Bearer TOKEN" and sees only its sessions;
/healthz, /readyz and /metrics need none (/metrics shows totals only), and
with --private-metrics /metrics needs a token that may read every session.
/readyz answers 503 while the cabinet is unreachable (with PostgreSQL, a
ping of the server at most once a second), as every request that needs it
does (with Retry-After), and while the sessions a kill left with Commits
since their last flush are replayed, in the background, at start.
SIGTERM or Ctrl-C stops it: no new requests, the ones in flight finish, the
sessions written are flushed, exit status 0.

Options:
`

// runServe is gqlsh serve.
func runServe(args []string, e env) int {
	fs := flag.NewFlagSet("gqlsh serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	listen := fs.String("listen", "127.0.0.1:7717", "listen on `ADDR` (host:port; a non-loopback host needs --tokens)")
	storage := storageFlags{postgresSharedWith: "other servers"}
	storage.register(fs)
	poll := fs.Duration("poll", 0, "with PostgreSQL, how old a Recall's knowledge of other servers' Commits may be, at most `D` (default 1s)")
	tokensFile := fs.String("tokens", "", "accept only the tokens listed in `FILE` (lines from gqlsh token)")
	privateMetrics := fs.Bool("private-metrics", false, "with --tokens, serve /metrics only to a token that may read every session (default: to anyone, totals only)")
	deadline := fs.Duration("deadline", 30*time.Second, "cancel a request's work after `D` (0: no deadline)")
	session := fs.String("session", server.DefaultMemorySession, "session `NAME` of the memory-server tools on /mcp")
	grace := fs.Duration("grace", 30*time.Second, "at shutdown, wait at most `D` for requests in flight")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	if code, done := parseNoArgs(fs, args, e.stdout, e.stderr); done {
		return code
	}
	if !storage.check("gqlsh serve", e) {
		return 2
	}
	if *poll < 0 {
		fmt.Fprintf(e.stderr, "gqlsh serve: --poll %s: give a positive interval\n", *poll)
		return 2
	}
	var tokens *server.Tokens
	if *tokensFile != "" {
		t, err := readTokens(*tokensFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "gqlsh serve: --tokens %s: %v\n", *tokensFile, err)
			return 2
		}
		tokens = t
	} else if !loopback(*listen) {
		fmt.Fprintf(e.stderr, "gqlsh serve: --listen %s is not a loopback address: without --tokens anyone who reaches it may read and write every session; give --tokens FILE (gqlsh token makes the lines) or listen on 127.0.0.1\n", *listen)
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(e.stderr, "gqlsh serve: %v\n", err)
		return 1
	}
	opts := storage.options(e)
	opts.poll = *poll
	db, backend, err := openDB(opts)
	if err != nil {
		ln.Close()
		fmt.Fprintf(e.stderr, "gqlsh: %v\n", err)
		return 1
	}
	storage.warn("gqlsh serve", e)
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	so := server.Options{Tokens: tokens, Deadline: *deadline, MemorySession: *session, Version: version, Logger: logger, PrivateMetrics: *privateMetrics}
	srv, err := server.New(db, so)
	if err != nil {
		ln.Close()
		db.Close()
		fmt.Fprintf(e.stderr, "gqlsh serve: %v\n", err)
		return 2
	}
	// A slow client holds a connection at most this long; the work of a
	// request is bounded by --deadline.
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	auth := "no tokens (loopback only)"
	if tokens != nil {
		auth = fmt.Sprintf("%d tokens", tokens.Len())
	}
	fmt.Fprintf(e.stderr, "gqlsh serve: listening on http://%s (%s, %s)\n", ln.Addr(), backend, auth)
	unrecord := serving(e, backend, db.CabinetPath(), servingServe, listenURL(ln.Addr()))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The sessions a kill left with logs to replay are hydrated in the
	// background: /readyz says so until they are, /healthz and the
	// requests are served meanwhile.
	wctx, stopWarm := context.WithCancel(ctx)
	warmed := srv.Warm(wctx)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	code := 0
	select {
	case err := <-served:
		fmt.Fprintf(e.stderr, "gqlsh serve: %v\n", err)
		code = 1
	case <-ctx.Done():
		stop() // a second signal ends the process at once
		fmt.Fprintln(e.stderr, "gqlsh serve: shutting down: finishing the requests in flight")
		srv.Drain()
		sctx, cancel := context.WithTimeout(context.Background(), *grace)
		if err := hs.Shutdown(sctx); err != nil {
			fmt.Fprintf(e.stderr, "gqlsh serve: requests still in flight after %s: %v\n", *grace, err)
			code = 1
		}
		if err := srv.Flush(sctx); err != nil {
			fmt.Fprintf(e.stderr, "gqlsh serve: %v\n", err)
			code = 1
		}
		cancel()
	}
	stopWarm()
	<-warmed
	unrecord() // before the file is free for another to record itself
	if err := db.Close(); err != nil {
		fmt.Fprintf(e.stderr, "gqlsh serve: closing %s: %v\n", backend, err)
		code = 1
	}
	if code == 0 {
		fmt.Fprintln(e.stderr, "gqlsh serve: stopped")
	}
	return code
}

func readTokens(path string) (*server.Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return server.ParseTokens(f)
}

// loopback reports whether addr's host is a loopback address or
// localhost (an empty host is every interface: not loopback).
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// globList is a flag of globs, repeatable and comma-separated.
type globList []string

func (g *globList) String() string { return strings.Join(*g, ",") }

func (g *globList) Set(v string) error {
	*g = append(*g, server.SplitGlobs(v)...)
	return nil
}

// runToken is gqlsh token: a new token and its tokens-file line.
func runToken(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gqlsh token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var read, write, agents globList
	fs.Var(&read, "read", "the token may read the sessions `GLOB[,GLOB…]` match (repeatable)")
	fs.Var(&write, "write", "the token may read and write the sessions `GLOB[,GLOB…]` match (repeatable)")
	fs.Var(&agents, "agent", "the token reads and commits only as the agents `NAME[,NAME…]` name or match (repeatable; default: any agent)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gqlsh token --read GLOB[,GLOB…] | --write GLOB[,GLOB…] [--agent NAME[,NAME…]]\n\nPrints a new token on the first line and, on the second, the line to append\nto the server's tokens file (gqlsh serve --tokens FILE), which holds only a\nhash of the token. Globs match session names: * any run of characters, ? one.\nEach flag may be repeated, and takes a comma-separated list.\n\nWith --agent, every Recall and Commit of the token must name one of its agents\n(globs as for sessions); one that names none acts as the token's agent when it\nhas exactly one, a name without * ? or [, and is refused otherwise.")
		fs.PrintDefaults()
	}
	if code, done := parseNoArgs(fs, args, stdout, stderr); done {
		return code
	}
	token, line, err := server.NewBoundToken(read, write, agents)
	if err != nil {
		fmt.Fprintf(stderr, "gqlsh token: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintln(stdout, line)
	return 0
}

// postgresURL is the PostgreSQL URL openDB opens, or "" for a cabinet
// file or memory.
func (o dbOptions) postgresURL() string {
	switch {
	case o.mem:
		return ""
	case o.postgres != "", o.cabinet != "":
		return o.postgres
	}
	lookup := o.lookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	url, _ := lookup("GOLDFISH_POSTGRES")
	return url
}
