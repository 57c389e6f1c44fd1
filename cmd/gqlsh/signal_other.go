//go:build !unix

package main

import "os"

// notifySIGPIPE: there is no SIGPIPE; a write to a closed pipe fails.
func notifySIGPIPE() chan os.Signal { return nil }

// raiseSIGPIPE: there is no SIGPIPE; the exit status says it.
func raiseSIGPIPE() {}

// processAlive cannot ask the system without signals: a record of a
// process is trusted.
func processAlive(int) bool { return true }
