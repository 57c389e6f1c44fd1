package wire

import "bytes"

// StringEnd returns the index of the quote that closes the JSON string
// whose contents begin at b[i] (just after its opening quote), and
// whether the string holds an escape; -1 when it does not close. It jumps
// from quote to quote with bytes.IndexByte, so a request's 256 KB string
// costs a memchr rather than a loop per byte: the server scans every
// request body this way before decoding it.
func StringEnd(b []byte, i int) (int, bool) {
	start := i
	for i <= len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1, false
		}
		q := i + j
		// The quote is escaped when an odd run of backslashes comes
		// right before it (a run never crosses a quote).
		n := 0
		for k := q - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q, bytes.IndexByte(b[start:q], '\\') >= 0
		}
		i = q + 1
	}
	return -1, false
}
