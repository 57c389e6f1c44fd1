package store

import "sort"

// appendRendering writes the text a Shape writes for a node with these
// labels and properties: AppendLabels, then a space and the property
// literal when there are properties.
func appendRendering(b []byte, labels []string, props Props) []byte {
	b = AppendLabels(b, labels)
	if len(props) == 0 {
		return b
	}
	return props.AppendLiteral(append(b, ' '))
}

// AppendLabels writes ":Label" for each label, the kind first and the
// others sorted, so the same node always reads the same whatever order its
// labels were set in.
func AppendLabels(b []byte, labels []string) []byte {
	if len(labels) > 2 {
		var arr [8]string
		rest := append(arr[:0], labels[1:]...)
		sort.Strings(rest)
		b = AppendKey(append(b, ':'), labels[0])
		for _, l := range rest {
			b = AppendKey(append(b, ':'), l)
		}
		return b
	}
	for _, l := range labels {
		b = AppendKey(append(b, ':'), l)
	}
	return b
}

// AppendKey writes a label, type or key as KeyLiteral does.
func AppendKey(b []byte, s string) []byte { return appendKeyLiteral(b, s) }
