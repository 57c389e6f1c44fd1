package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
)

// While gqlsh serve or gqlsh mcp holds a cabinet file, it keeps a record
// beside it, PATH.serving, saying who holds it and where it answers, so
// that another gqlsh the file refuses (ErrInUse) can say where to go
// instead. The record is written once the command is ready (a temporary
// file renamed over it, so a reader never sees half of one) and removed
// before the cabinet is closed; one a process killed left behind names a
// process that is gone, and is ignored.

// servingSuffix names the record beside its cabinet file.
const servingSuffix = ".serving"

// servingRecord is the record: the server's URL (none for gqlsh mcp, on
// standard input and output), its process and its command.
type servingRecord struct {
	URL     string `json:"url,omitempty"`
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

// The commands that write a record.
const (
	servingServe = "gqlsh serve"
	servingMCP   = "gqlsh mcp"
)

// maxServingBytes bounds what is read of a record: a real one is short.
const maxServingBytes = 4 << 10

// writeServing writes the record of this process beside the cabinet at
// path and returns what removes it.
func writeServing(path string, r servingRecord) (remove func(), err error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	dst := path + servingSuffix
	tmp := fmt.Sprintf("%s.%d.tmp", dst, os.Getpid())
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return func() {
		// Only this process's record: the cabinet is still held, so no
		// other process has written one since.
		if got, ok := readServingFile(dst); ok && got.PID == r.PID {
			os.Remove(dst)
		}
	}, nil
}

// serving writes the record for cmd (and the URL it answers at, "" for
// none) when the database is a cabinet file, saying on stderr if it
// cannot; the returned func removes it (a no-op without one).
func serving(e env, backend, path, cmd, url string) (remove func()) {
	if !strings.HasPrefix(backend, "cabinet ") || path == "" {
		return func() {}
	}
	remove, err := writeServing(path, servingRecord{URL: url, PID: os.Getpid(), Command: cmd})
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: cannot record the address beside the cabinet (another gqlsh refused the file will not say where it is served): %v\n", cmd, err)
		return func() {}
	}
	return remove
}

// listenURL is the URL a client on this machine reaches a listener at:
// an unspecified address (every interface) is reached on loopback.
func listenURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}

// readServingFile reads and checks a record: false for one missing,
// unreadable, not the record's JSON, of another command, or whose URL
// is not a plain http(s) URL of printable ASCII (what is read goes into
// a message on a terminal).
func readServingFile(file string) (servingRecord, bool) {
	f, err := os.Open(file)
	if err != nil {
		return servingRecord{}, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxServingBytes+1))
	if err != nil || len(data) > maxServingBytes {
		return servingRecord{}, false
	}
	var r servingRecord
	if err := json.Unmarshal(data, &r); err != nil || r.PID <= 0 {
		return servingRecord{}, false
	}
	switch r.Command {
	case servingMCP:
		r.URL = "" // it has none to give
	case servingServe:
		if !plainURL(r.URL) {
			return servingRecord{}, false
		}
	default:
		return servingRecord{}, false
	}
	return r, true
}

// plainURL reports whether s is an http or https URL with a host, all
// printable ASCII without spaces, quotes or backslashes, of a sane
// length: safe to print and to paste into a command line.
func plainURL(s string) bool {
	if s == "" || len(s) > 512 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\' || c == '`' {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// inUseError is ErrInUse worded by the record of who holds the file.
type inUseError struct {
	msg string
	err error
}

func (e *inUseError) Error() string { return e.msg }
func (e *inUseError) Unwrap() error { return e.err }

// inUseBy words who holds the cabinet at path, from its record: "" when
// there is none to trust (missing, garbage, this process's own, or of a
// process no longer running).
func inUseBy(path string) string {
	r, ok := readServingFile(path + servingSuffix)
	if !ok || r.PID == os.Getpid() || !processAlive(r.PID) {
		return ""
	}
	if r.URL == "" {
		return fmt.Sprintf("the cabinet %s is in use by %s (pid %d), which has no address: stop it, or run it as gqlsh serve and use gqlsh --url", path, r.Command, r.PID)
	}
	return fmt.Sprintf("the cabinet %s is in use by %s (pid %d) at %s: run gqlsh --url %s to use it through that server (add --token T if it has --tokens)",
		path, r.Command, r.PID, r.URL, r.URL)
}
