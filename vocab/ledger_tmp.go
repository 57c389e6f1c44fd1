package vocab

type WriteCount struct {
	Kind, Key     string
	Raw, InAction uint64
}

func (s *State) Gaps(minRaw uint64, ratio float64) []WriteCount  { return nil }
func (s *State) DroppedSince(v uint64) (views, actions []string) { return nil, nil }
func (s *State) Changed() uint64                                 { return 0 }
