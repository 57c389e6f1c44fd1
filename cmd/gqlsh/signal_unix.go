//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// notifySIGPIPE catches SIGPIPE, so a write to a closed pipe returns
// EPIPE to gqlsh instead of killing it mid-run.
func notifySIGPIPE() chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return ch
}

// raiseSIGPIPE ends the process by SIGPIPE, as the reader of a pipe
// closing it ends other commands (the shell reports status 141).
func raiseSIGPIPE() {
	signal.Reset(syscall.SIGPIPE)
	syscall.Kill(os.Getpid(), syscall.SIGPIPE)
}

// processAlive reports whether a process pid runs on this machine
// (signal 0: EPERM is a process of another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
