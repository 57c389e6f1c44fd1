package repl

import "strings"

// The few colours gqlsh uses: results green, notices yellow, errors red,
// comments (the Shape header, timing) dim. Colour is only ever on when the
// caller says so (Options.Color: a terminal, and NO_COLOR not set).
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

// paint colours s, made visible first (see Visible).
func (r *Runner) paint(color, s string) string {
	s = Visible(s)
	if !r.Color || s == "" {
		return s
	}
	return color + s + reset
}

// paintShape dims the comment lines of a Shape (its header and notes) and
// leaves the INSERT as it is, all of it made visible (a server's Shape
// is text like any other it sends).
func (r *Runner) paintShape(text string) string {
	text = Visible(text)
	if !r.Color {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if strings.HasPrefix(strings.TrimSpace(body), "//") || strings.HasPrefix(strings.TrimSpace(body), "--") {
			b.WriteString(dim + body + reset + l[len(body):])
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}
