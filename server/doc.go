// Package server serves a goldfish database to programs that are not Go:
// HTTP/JSON endpoints for Recall and Commit, the Model Context Protocol
// (MCP) on standard input and output or on streamable HTTP, and the tools
// of the common knowledge-graph memory server as a drop-in on one
// session. It is built over the embedding API only (package goldfish),
// as the shell is.
//
// # HTTP
//
//	POST /v1/sessions/{name}/recall  {"q", "params", "agent", "at_version", "options": {"M","k","L","F","T","view","depth","only","pinned","nopeaks","exact"}}
//	POST /v1/sessions/{name}/commit  {"text", "params", "agent", "mint": "default"|"ingest"}
//	GET  /v1/sessions/{name}/vocabulary  its views and actions, with every counter
//	GET  /v1/sessions/{name}/settings    its attention settings (POST: change some)
//	GET  /v1/sessions/{name}/dump        the whole session, as Session.Dump lists it
//	POST /v1/sessions/{name}/export  {"q", "params", "nicks", "options": {"M","k","L","F"}}
//	POST /v1/sessions/{name}/absorb  {"slice", "policy", "agent"}
//	GET  /v1/sessions                the sessions the token may read
//	GET  /healthz                    200 while serving, 503 once shutdown began
//	GET  /readyz                     200 when it can work: 503 with the cabinet unreachable, while Warm replays logs, or shutting down
//	GET  /metrics                    Prometheus text format
//	/mcp                             MCP, streamable HTTP (stateless, JSON responses; one message a POST)
//
// A Recall answers with the object `gqlsh --format json` prints for it
// (gql, cue, seeds, rows, tokens, version, notices, attention), a Commit
// with the shell's object for a Commit (status, version, applied, the
// counts, notices, and for a Δ of several statements what each did). An
// error answers with {"gqlstatus", "message", "hint", "line", "column"}
// and a status code that says whose it is: 400 the
// caller's mistake, 401 no valid token, 403 a token without the session
// or the verb, 409 a conflict with the session's state (a nick taken, a
// name registered, a precondition false, a Commit other hosts beat to
// its version past its retries), 413 a frame over 4 MiB, 500
// the server's fault, 503 (with Retry-After) shutting down, over the
// request deadline, the cabinet unreachable or a Commit's connection to
// it lost on the way. A body is decoded strictly: one object, UTF-8,
// every key once and spelled as its field, no unknown field, no null for
// a field the endpoint needs. A request refused for its token, its scope
// or its path is answered before its body is read, and its connection
// closed.
//
// # MCP
//
// One MCP message is one call and one budget, on /mcp (one POST) and on
// standard input (one line) alike. A JSON-RPC batch is refused whole
// with one error (-32600, 22Q07; HTTP 400) before any of it runs,
// whatever protocol version the client claims: the MCP specification of
// 2025-06-18 removed batches. A message is checked as a /v1 body is
// before the SDK decodes it (not UTF-8, a lone surrogate, a byte order
// mark: a parse error; a key given twice: an invalid request), and a
// tool's argument named in another case than its schema's is refused;
// every answer of /mcp is JSON-RPC. A message over the 4 MiB frame is refused
// (22Q07; HTTP 413) without being read past it. The call has the one
// deadline of the request (Options.Deadline). Its answer is at most
// 4 MiB as JSON on the wire: a tool measures its answer before it is
// sent and refuses one over the frame with 22Q07 (a Shape is in it
// twice, as text and as the structured content's gql); /mcp holds every
// answer to the frame as it is written (over it, HTTP 413 with a JSON-RPC
// error), and StdioTransport replaces an answer over it by an error. On
// standard input a refused line does not end the connection.
//
// tools/list shows a token only the tools it may call: commit to a token
// that may write some session, the memory tools that read to one that may
// read the memory session, those that write to one that may write it.
// Its input schemas are strict (one JSON type per property, every object
// closed with additionalProperties: false and every property required),
// as strict function calling takes them; a call may still leave the
// optional properties out, and empty ("", 0, [], false) takes the
// default. The memory tools' schemas are the original server's with
// every object closed.
//
// A recall or commit that names no agent acts as its connection's own
// agent ("mcp-" and 12 hex digits of the SHA-256 of the token's id and
// the connection's id; mcp_identity.go): /mcp issues an Mcp-Session-Id
// to a POST that carries none, which clients echo, and StdioTransport
// gives each connection an id. A call without one reads as nobody.
//
// # Tokens
//
// With a tokens file (ParseTokens) every request but /healthz and
// /metrics carries "Authorization: Bearer TOKEN". The file holds only
// SHA-256 hashes of the tokens, each with the session-name globs it may
// read and write; write implies read. A token sees nothing of a session
// outside its globs: not its Shapes, not its name in /v1/sessions, not
// its node in the catalogue, and the catalogue's version is its own.
// Without a tokens file the server trusts every caller, which is why the
// command serves it on loopback addresses only.
//
// # Concurrency
//
// A Server is safe for concurrent use; every call goes to the database,
// which orders Commits per session. The drop-in's writes to its session
// are serialised by the server as well, since each is a read of the
// entities it changes followed by a Commit.
package server
