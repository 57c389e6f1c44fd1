package repl

import "github.com/goldfish-gql/goldfish/gqlstatus"

// The conditions the shell reports itself, each under one name so that
// the GQLSTATUS of each is chosen here and nowhere else. Each takes the
// nearest code of package gqlstatus.
const (
	// codeInput: the input cannot be GQL text at all: bytes that are not
	// UTF-8, a statement longer than the size limit, a block comment
	// never closed.
	codeInput = gqlstatus.Syntax
	// codeUsage: a meta-command that does not exist, or one given the
	// wrong number or form of arguments.
	codeUsage = gqlstatus.Syntax
	// codeValue: a meta-command argument outside what it takes: a budget
	// above its ceiling, a view or format that does not exist, a
	// parameter value that is not one literal.
	codeValue = gqlstatus.InvalidValueType
	// codeNoSuch: a meta-command names what is not there: a parameter to
	// remove, a session to drop.
	codeNoSuch = gqlstatus.InvalidReference
	// codeFile: a file the shell cannot read or write (-f, :source,
	// :output, :backup), or one given where another is wanted.
	codeFile = gqlstatus.InvalidReference
	// codeTxState: what the open transaction does not allow (a nested
	// START TRANSACTION, :use or :purge before COMMIT), and a transaction
	// still open when the input ends.
	codeTxState = gqlstatus.Syntax
)
