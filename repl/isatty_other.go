//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package repl

import "os"

// IsTerminal reports whether f is a character device: the best guess
// without termios.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
