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
	if len(labels) == 0 {
		return b
	}
	b = AppendKey(append(b, ':'), labels[0])
	var arr [8]string
	for _, l := range sortedExtraLabels(arr[:0], labels) {
		b = AppendKey(append(b, ':'), l)
	}
	return b
}

// sortedExtraLabels returns the labels after the kind, sorted (in buf
// when there are two or more of them to sort).
func sortedExtraLabels(buf, labels []string) []string {
	if len(labels) <= 2 {
		return labels[min(1, len(labels)):]
	}
	rest := append(buf, labels[1:]...)
	sort.Strings(rest)
	return rest
}

// AppendKey writes a label, type or key as KeyLiteral does.
func AppendKey(b []byte, s string) []byte { return appendKeyLiteral(b, s) }

// KindPrefix returns the part of a node's rendering (see Node.Rendering)
// that writes its kind: ":Kind", or "" for a node without labels. Two
// renderings have equal prefixes exactly when their nodes have the same
// kind, so a reader of renderings can group nodes by kind without loading
// their records.
func KindPrefix(text string) string {
	if len(text) < 2 || text[0] != ':' {
		return ""
	}
	if text[1] != '`' {
		// An identifier: it ends where the next label or the property
		// literal starts.
		for i := 2; i < len(text); i++ {
			if text[i] == ':' || text[i] == ' ' {
				return text[:i]
			}
		}
		return text
	}
	// A quoted key: it ends at the first backquote that is not doubled.
	for i := 2; i < len(text); i++ {
		if text[i] == '`' {
			if i+1 < len(text) && text[i+1] == '`' {
				i++
				continue
			}
			return text[:i+1]
		}
	}
	return text
}
