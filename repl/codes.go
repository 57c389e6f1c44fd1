package repl

import "github.com/goldfish-gql/goldfish/gqlstatus"

// The conditions the shell reports itself, each under one name so that
// the GQLSTATUS of each is chosen here and nowhere else. Each takes the
// nearest code of package gqlstatus.
const (
	// codeInput: the input cannot be GQL text at all: bytes that are not
	// UTF-8, a block comment never closed.
	codeInput = gqlstatus.Syntax
	// codeTooLong: a statement or meta-command line longer than the most
	// one may hold.
	codeTooLong = gqlstatus.TextLimit
	// codeUsage: a meta-command that does not exist, or one given the
	// wrong number or form of arguments.
	codeUsage = gqlstatus.Syntax
	// codeValue: a meta-command argument outside what it takes: a view
	// or format that does not exist, a knob that is not one, a session
	// that cannot be dropped now.
	codeValue = gqlstatus.InvalidOption
	// codeCeiling: a budget set above its ceiling.
	codeCeiling = gqlstatus.RecallBudget
	// codeLiteral: a parameter value that is not one GQL literal.
	codeLiteral = gqlstatus.Syntax
	// codeName: an agent or parameter name outside its rules.
	codeName = gqlstatus.InvalidName
	// codeReadOnly: a drop of the catalogue.
	codeReadOnly = gqlstatus.ReadOnlySession
	// codeReadOnlyCabinet: a :flush of a cabinet opened read-only.
	codeReadOnlyCabinet = gqlstatus.ReadOnlyCabinet
	// codeNoSuch: a meta-command names what is not there: a parameter to
	// remove, a session to drop.
	codeNoSuch = gqlstatus.InvalidReference
	// codeFile: a file the shell cannot read or write (-f, :source,
	// :output, :backup, :export, :absorb), or one given where another is
	// wanted.
	codeFile = gqlstatus.FileAccess
	// codeTxState: what the open transaction does not allow (:use or
	// :purge before COMMIT), and a transaction still open when the input
	// ends.
	codeTxState = gqlstatus.InvalidTransactionState
	// codeNestedTx: START TRANSACTION inside a transaction (or inside
	// the single transaction of -1).
	codeNestedTx = gqlstatus.ActiveTransaction
	// codeSingle: what the single transaction of -1 cannot hold: a
	// meta-command that would write outside it, read the session before
	// it or switch sessions, a :param or :agent after its first
	// statement, COMMIT or ROLLBACK, a Recall.
	codeSingle = gqlstatus.InvalidTransactionState
	// codeSliceBound: a file :absorb is given that is larger than any
	// slice may be.
	codeSliceBound = gqlstatus.CommitBudget
)
