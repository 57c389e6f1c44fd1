package snap

import (
	"fmt"
	"hash/fnv"
	"path"
	"strings"

	"github.com/goldfish-gql/goldfish"
)

// rootLabel names the tree's root directory in labels: the last element
// of its import path.
func rootLabel(importPath string) string {
	if b := path.Base(importPath); b != "" && b != "." && b != "/" {
		return b
	}
	return "root"
}

// sessionNames gives each part its interior's name: prefix, a dot, then
// the label with "/" written "." and any other character outside the
// session-name rules written "_". A name over goldfish.MaxSessionName
// keeps its start and ends in a hash of the label; a name taken by an
// earlier part gets "_2", "_3" and so on.
func sessionNames(prefix string, labels []string) []string {
	taken := map[string]bool{prefix: true}
	out := make([]string, len(labels))
	for i, l := range labels {
		var b strings.Builder
		for _, r := range l {
			switch {
			case r == '/':
				b.WriteByte('.')
			case r == '_' || r == '-' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'):
				b.WriteRune(r)
			default:
				b.WriteByte('_')
			}
		}
		name := fit(prefix+"."+b.String(), l)
		for k := 2; taken[name]; k++ {
			name = fit(fmt.Sprintf("%s.%s_%d", prefix, b.String(), k), fmt.Sprintf("%s_%d", l, k))
		}
		taken[name] = true
		out[i] = name
	}
	return out
}

// fit shortens name to the longest session name, ending it in a hash of
// label so two long labels with one start stay apart.
func fit(name, label string) string {
	if len(name) <= goldfish.MaxSessionName {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(label))
	tail := fmt.Sprintf("-%08x", h.Sum32())
	return name[:goldfish.MaxSessionName-len(tail)] + tail
}

// commonPrefix is the longest run of leading path elements the import
// paths share: the locator prefix of a part.
func commonPrefix(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	p := paths[0]
	for _, q := range paths[1:] {
		for p != "" && q != p && !strings.HasPrefix(q, p+"/") {
			if i := strings.LastIndexByte(p, '/'); i >= 0 {
				p = p[:i]
			} else {
				p = ""
			}
		}
	}
	return p
}
