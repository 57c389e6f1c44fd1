// Package conformance runs goldfish's language-neutral conformance suite:
// text files in the cockroachdb/datadriven format, each a list of cases
//
//	<directive> [session=NAME]
//	<input: GQL text, any number of lines>
//	----
//	<expected output>
//	<blank line>
//
// Lines starting with '#' between cases are comments. An expected output
// that holds blank lines is fenced by two "----" lines before and after it,
// as datadriven writes it.
//
// # Directives
//
//   - commit [session=NAME]: Session.Commit of the whole input as one Δ;
//     prints the summary ("ok v=1 +1 node 2 properties set"), one line per
//     statement when there are several, the notices ("-- 01000: echo: …"),
//     or the error ("error: GQLSTATUS 40002: … (line 1, column 8)") with
//     its caret lines.
//   - ingest [session=NAME]: the same with Session.Ingest.
//   - commit and ingest take shape[=NAME] with no input: they commit the
//     text of the Shape the last recall with that shape=NAME (default
//     "shape") printed, header and comments included, as a model pastes
//     a Shape back (see echo.txt). Every recall keeps its text so.
//   - commit, ingest and recall take agent=NAME: the call is that agent's
//     (the registering agent of what a Commit registers, the reader of a
//     Recall), so one file can be a script of several agents' steps.
//   - dump [session=NAME]: the whole session, deterministically and
//     without engine ids (see goldfish.Dump); "dump summary" prints only
//     the version and the counts, for sessions too big to list.
//   - script [session=NAME] [format=gql|json]: the input run through
//     gqlsh's statement loop (package repl): statements split at ';', each
//     its own Commit, START TRANSACTION … COMMIT buffered into one Δ;
//     prints standard output, then standard error, then "exit 1" on
//     failure.
//   - vocabulary [session=NAME]: the session's views (with their values
//     or errors) and actions, with every counter (Session.Vocabulary).
//   - help TOPIC: the text of the help topic the envelope's help lines
//     name (goldfish.Help; GET /v1/help/TOPIC over HTTP), or the error
//     of a topic there is none for.
//   - export [session=NAME] [slice=NAME] [m=N] [k=N] [l=N] [f=N]
//     [nicks=A,B] [$NAME=VALUE ...]: Session.ExportSlice of the input (a
//     Recall's token; empty with nicks); prints the slice's text, or the
//     error, and keeps the text under the name slice= (default "slice").
//   - absorb [session=NAME] policy=keep|reject|remint [slice=NAME]
//     [agent=NAME]: Session.Absorb of the slice kept under slice=, or of
//     the input when there is one (a slice's text, given its final
//     newline back); prints what commit prints, then "unchanged N" and
//     "reminted FROM -> TO" lines.
//   - reset [cabinet]: a fresh, empty database, in memory or (cabinet) on
//     a new cabinet file.
//   - reopen [flush]: close the database and open its cabinet file again,
//     flushing every session first with flush, so what follows reads the
//     sessions as a new process would (from snapshots and logs).
//
// Each file starts with a fresh database; cases in a file share it, in
// order (and the slices kept, which a reset keeps too). The default
// session is "main".
//
// An engine reaches its sessions through a Transport: the embedded one
// (a goldfish.DB in this process) or a running server's HTTP API
// (RunRemote, "gqlsh conformance --url URL"), where each file and each
// reset works on sessions of fresh names; a script's statements go to the
// server as gqlsh sends them, its output (the shell's own) unjudged, and
// a reopen (which only the server's process can do) is skipped; both
// are reported as skipped, with the reason.
// Either way the engine formats the answers itself, so both are judged
// on the same text.
//
// The suite runs under go test (conformance_test.go, with datadriven's
// -rewrite flag to regenerate expected outputs, to be reviewed in the
// diff) and under "gqlsh conformance [DIR]", which uses this package's own
// reader so the binary does not link the testing package. The files are
// embedded (Suite), so gqlsh can run them with no source tree at hand.
package conformance
