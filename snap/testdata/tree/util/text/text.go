// Package text shouts.
package text

import "strings"

// Upper shouts s.
func Upper(s string) string { return strings.ToUpper(s) }

// Title capitalises s.
func Title(s string) string { return Upper(s[:1]) + s[1:] }
