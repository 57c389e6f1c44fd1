package planner

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// Build plans a parsed script.
func Build(script *ast.Script) (*Plan, error) {
	p, err := build(script)
	if script.ArrowsRead {
		// The parser read "--" as edges only to find what the text holds
		// outside the subset: say so with the refusal; such a text never
		// runs.
		var ge *gqlstatus.Error
		if err == nil || !errors.As(err, &ge) {
			return nil, gqlstatus.Errorf(gqlstatus.Syntax, "the text does not parse with \"--\" read as a comment").
				WithHint("write edges as -> or -[:TYPE]->")
		}
		if len(script.Notices) > 0 {
			n := script.Notices[0]
			ge.Hint += fmt.Sprintf(`; this reads the "--" at %s as an edge, as Cypher does: GQL reads it as a comment, and the text does not parse that way`, n.Pos)
		}
		return nil, ge
	}
	if err != nil && len(script.Notices) > 0 {
		// A comment that hid a likely arrow may be why the text fails (it
		// can swallow a ';', joining two statements): the error says so.
		var ge *gqlstatus.Error
		if n := script.Notices[0]; errors.As(err, &ge) && ge.Pos.Valid() && ge.Pos.Offset > n.Pos.Offset {
			ge.Hint = strings.TrimPrefix(ge.Hint+"; also: "+n.Msg, "; ")
		}
	}
	return p, err
}

func build(script *ast.Script) (*Plan, error) {
	p := &Plan{Text: script.Text, Notices: script.Notices}
	params := &paramTable{index: map[string]int{}}
	inTx, ended, readOnly := false, false, false
	for i, st := range script.Stmts {
		index := i + 1
		if ended {
			return nil, gqlstatus.At(gqlstatus.InvalidTransactionState, st.Position(), script.Text,
				"statement after the end of the transaction").
				WithHint("one text is one Δ: end it with COMMIT or ROLLBACK, or send the rest separately")
		}
		switch s := st.(type) {
		case *ast.StartTransaction:
			if inTx || len(p.Stmts) > 0 {
				return nil, gqlstatus.At(txStartCode(inTx), s.Pos, script.Text,
					"START TRANSACTION must open the text, once").
					WithHint("one text is already one atomic Δ; transactions do not nest")
			}
			inTx, readOnly = true, s.ReadOnly
		case *ast.CommitTx, *ast.RollbackTx:
			if !inTx {
				return nil, gqlstatus.At(gqlstatus.InvalidTransactionState, s.Position(), script.Text,
					"%s without START TRANSACTION", txWord(s)).
					WithHint("a text sent alone is already one atomic Δ")
			}
			_, p.RolledBack = s.(*ast.RollbackTx)
			ended = true
		case *ast.Call:
			sc := &scope{text: script.Text, slots: map[string]int{}, params: params}
			cs := &CallStep{Pos: s.Pos, Name: s.Name, Names: s.Names}
			for _, a := range s.Args {
				v, err := sc.value(a)
				if err != nil {
					return nil, stmtErr(err, index)
				}
				cs.Args = append(cs.Args, v)
			}
			if readOnly {
				return nil, stmtErr(readOnlyErr(script.Text, s.Pos), index)
			}
			p.Stmts = append(p.Stmts, &Statement{Index: index, Pos: s.Pos, Call: cs, Text: script.Text})
		case *ast.DefineView, *ast.DefineAction, *ast.DropVocab:
			if readOnly {
				return nil, stmtErr(readOnlyErr(script.Text, s.Position()), index)
			}
			stmt, err := planDefine(s, script.Text, index)
			if err != nil {
				return nil, stmtErr(err, index)
			}
			p.Stmts = append(p.Stmts, stmt)
		case *ast.Query:
			stmt, err := planQuery(s, script.Text, params, index)
			if err != nil {
				return nil, stmtErr(err, index)
			}
			if readOnly && !stmt.Read {
				return nil, stmtErr(readOnlyErr(script.Text, s.Pos), index)
			}
			p.Stmts = append(p.Stmts, stmt)
		}
	}
	attachNotices(p, script)
	if inTx && !ended {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidTransactionState, "START TRANSACTION without COMMIT or ROLLBACK").
			WithHint("end the transaction with COMMIT to apply it, or ROLLBACK to drop it")
	}
	p.Params, p.ParamPos = params.names, params.poses
	p.size = planSize(p)
	return p, nil
}

// readOnlyErr refuses a change inside START TRANSACTION READ ONLY.
func readOnlyErr(text string, pos ast.Pos) *gqlstatus.Error {
	return gqlstatus.At(gqlstatus.ReadOnlyTransaction, pos, text,
		"this statement changes data inside START TRANSACTION READ ONLY").
		WithHint("start the transaction with START TRANSACTION (or READ WRITE) to change data; a Recall reads without one")
}

// attachNotices gives each statement the warnings about its own text: a
// warning belongs to the last statement that starts at or before it.
func attachNotices(p *Plan, script *ast.Script) {
	if len(p.Stmts) == 0 {
		return
	}
	for _, n := range script.Notices {
		at := p.Stmts[0]
		for _, st := range p.Stmts[1:] {
			if st.Pos.Offset <= n.Pos.Offset {
				at = st
			}
		}
		at.Notices = append(at.Notices, n)
		if at.Recall != nil {
			at.Recall.Key += noticeKey(n)
		}
	}
}

// noticeKey is a warning's part of a Recall key: the Shape carries the
// warning, so a text with one and a text without never share a Shape.
func noticeKey(n gqlstatus.Notice) string {
	return "n" + strconv.Itoa(len(n.Msg)) + ":" + n.Msg + n.Pos.String()
}

func txWord(s ast.Stmt) string {
	if _, ok := s.(*ast.CommitTx); ok {
		return "COMMIT"
	}
	return "ROLLBACK"
}

func stmtErr(err error, index int) error {
	if e, ok := err.(*gqlstatus.Error); ok && e.Stmt == 0 {
		e.Stmt = index
	}
	return err
}
