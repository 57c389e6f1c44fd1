package goldfish

import "context"

// KindSchema is what the nodes of one kind hold, read from them (a
// session has no schema): how many there are, the property keys they
// carry (each with the number of nodes carrying it) and the edge types
// leaving and reaching them (each with its number of edges). gqlsh's
// :kinds shows it, as psql's \d and sqlite's .schema show a table.
type KindSchema struct {
	Kind    string
	Nodes   int
	Keys    []NameCount
	Out, In []NameCount
}

// NameCount is a name and how many times it was seen.
type NameCount struct {
	Name  string
	Count int
}

// Kinds reads the kinds of the session's newest version, sorted by kind,
// or only kind when it is not "" (with no nodes when none has it). It
// scans the nodes of each kind and their edges.
func (s *Session) Kinds(ctx context.Context, kind string) ([]KindSchema, error) {
	ks, err := s.e.Kinds(ctx, kind)
	if err != nil {
		return nil, err
	}
	out := make([]KindSchema, len(ks))
	for i, k := range ks {
		out[i] = KindSchema{Kind: k.Kind, Nodes: k.Nodes, Keys: nameCounts(k.Keys), Out: nameCounts(k.Out), In: nameCounts(k.In)}
	}
	return out, nil
}

func nameCounts[T ~struct {
	Name  string
	Count int
}](in []T) []NameCount {
	out := make([]NameCount, len(in))
	for i, x := range in {
		out[i] = NameCount(x)
	}
	return out
}
