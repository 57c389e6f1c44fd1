package parser

import (
	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

// TxKind says what a transaction statement does.
type TxKind uint8

const (
	TxNone     TxKind = iota // not a transaction statement
	TxStart                  // START TRANSACTION [READ ONLY | READ WRITE]
	TxCommit                 // COMMIT [WORK]
	TxRollback               // ROLLBACK [WORK]
)

// TxControl reads the text of one statement as a transaction statement,
// for a caller that collects the statements of a transaction one by one
// (a shell) and so must know START TRANSACTION, COMMIT and ROLLBACK
// before it has the whole Δ. It parses the text with the grammar: kind is
// TxNone for any other statement, whose errors the caller reports when it
// runs it. Text that starts with START TRANSACTION, COMMIT or ROLLBACK but
// is not one of those statements (START TRANSACTION GARBAGE, COMMIT
// banana) is the syntax error at its position; ROLLBACK TO SAVEPOINT and
// the like are statements outside the subset (TxNone), refused when run.
// readOnly reports START TRANSACTION READ ONLY.
func TxControl(text string) (kind TxKind, readOnly bool, err error) {
	s, perr := Parse(text)
	if perr != nil {
		if startsTx(text) {
			return TxNone, false, perr
		}
		return TxNone, false, nil
	}
	if len(s.Stmts) != 1 {
		return TxNone, false, nil
	}
	switch st := s.Stmts[0].(type) {
	case *ast.StartTransaction:
		return TxStart, st.ReadOnly, nil
	case *ast.CommitTx:
		return TxCommit, false, nil
	case *ast.RollbackTx:
		return TxRollback, false, nil
	}
	return TxNone, false, nil
}

// startsTx reports whether text opens with START TRANSACTION, COMMIT or
// ROLLBACK, comments and blanks aside.
func startsTx(text string) bool {
	lx := gen.NewGoldfishGQLLexer(antlr.NewInputStream(text))
	lx.RemoveErrorListeners()
	var first antlr.Token
	for {
		t := lx.NextToken()
		if t.GetTokenType() == antlr.TokenEOF {
			return false
		}
		if t.GetChannel() != antlr.TokenDefaultChannel {
			continue
		}
		if first == nil {
			first = t
			switch t.GetTokenType() {
			case gen.GoldfishGQLLexerCOMMIT, gen.GoldfishGQLLexerROLLBACK:
				return true
			case gen.GoldfishGQLLexerSTART:
				continue
			}
			return false
		}
		return t.GetTokenType() == gen.GoldfishGQLLexerTRANSACTION
	}
}
