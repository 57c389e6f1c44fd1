//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package repl

import (
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether f is a terminal (not a pipe, a file or
// /dev/null).
func IsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}
