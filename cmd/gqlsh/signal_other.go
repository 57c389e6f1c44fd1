//go:build !unix

package main

import "os"

// notifySIGPIPE: there is no SIGPIPE; a write to a closed pipe fails.
func notifySIGPIPE() chan os.Signal { return nil }

// raiseSIGPIPE: there is no SIGPIPE; the exit status says it.
func raiseSIGPIPE() {}
