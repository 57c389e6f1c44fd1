package server

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// A token is "gf_" and 43 characters of URL-safe base64: 256 random
// bits, so a hash of it (SHA-256, unsalted) is as good as the token is
// hard to guess, and the tokens file can be read by anyone who may read
// the configuration without giving a token away.
const tokenPrefix = "gf_"

// Scope is what one token may do: read the sessions its read globs
// match, read and write those its write globs match, and, when it is
// bound to agents, read and commit only as the agents its agent globs
// match. Globs are path.Match patterns over session and agent names
// ('*', '?', '[…]'), which hold no '/', so '*' matches any name.
type Scope struct {
	// Read and Write are the globs; write implies read.
	Read, Write []string
	// Agents are the agent-name globs the token may act as; none: any
	// agent, or none (a token made without --agent).
	Agents []string
	// all is the scope of a server without tokens: everything.
	all bool
	// id names the token in logs and metrics: the first 12 hex digits
	// of its hash.
	id string
}

// Everything is the scope of a caller on a server without tokens.
var Everything = &Scope{all: true}

// CanRead reports whether the scope may Recall the session. The catalogue
// may be read by every token; what it shows is filtered by CanRead.
func (s *Scope) CanRead(session string) bool {
	if s.all || session == goldfish.CatalogName {
		return true
	}
	return matchAny(s.Read, session) || matchAny(s.Write, session)
}

// CanWrite reports whether the scope may Commit to the session.
func (s *Scope) CanWrite(session string) bool {
	return s.all || matchAny(s.Write, session)
}

// Unrestricted reports whether the scope reads every session, so the
// catalogue needs no filtering.
func (s *Scope) Unrestricted() bool {
	return s.all || contains(s.Read, "*") || contains(s.Write, "*")
}

// Bound reports whether the token is bound to agent names.
func (s *Scope) Bound() bool { return !s.all && len(s.Agents) > 0 }

// Agent returns the agent a Recall or Commit that names agent acts as.
// An unbound token acts as the agent the request names, or as nobody.
// A bound token acts only as an agent its globs match; a request that
// names none acts as the token's agent when the token is bound to
// exactly one name (not a pattern), and is refused otherwise. A refusal
// is 42Q07 (403) and names the agents the token may use.
func (s *Scope) Agent(agent string) (string, error) {
	if !s.Bound() {
		return agent, nil
	}
	if agent == "" {
		if one, ok := s.oneAgent(); ok {
			return one, nil
		}
		return "", gqlstatus.Errorf(gqlstatus.AccessDenied, "this token reads and commits only as %s, and the request names no agent", s.agentList()).
			WithHint(`name the agent in "agent"`)
	}
	if !matchAny(s.Agents, agent) {
		return "", gqlstatus.Errorf(gqlstatus.AccessDenied, "this token may not act as agent %q: it reads and commits only as %s", agent, s.agentList()).
			WithHint(`name one of those in "agent", or use a token bound to this agent (gqlsh token --agent NAME)`)
	}
	return agent, nil
}

// oneAgent is the agent of a token bound to exactly one name.
func (s *Scope) oneAgent() (string, bool) {
	if len(s.Agents) != 1 || strings.ContainsAny(s.Agents[0], `*?[\`) {
		return "", false
	}
	return s.Agents[0], true
}

// agentList words the agent globs for a refusal.
func (s *Scope) agentList() string {
	if one, ok := s.oneAgent(); ok {
		return "agent " + strconv.Quote(one)
	}
	q := make([]string, len(s.Agents))
	for i, g := range s.Agents {
		q[i] = strconv.Quote(g)
	}
	return "the agents matching " + strings.Join(q, ", ")
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Tokens are the tokens a server accepts, by the hashes of its tokens
// file. Its methods are safe for concurrent use: it is never changed
// after ParseTokens.
type Tokens struct {
	byHash map[string]*Scope
}

// Len is the number of tokens.
func (t *Tokens) Len() int { return len(t.byHash) }

// Lookup returns the scope of a token, or false when the file does not
// hold it.
func (t *Tokens) Lookup(token string) (*Scope, bool) {
	s, ok := t.byHash[hashToken(token)]
	return s, ok
}

func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(h[:])
}

// NewToken makes a token for the globs given and returns it with its line
// of the tokens file, which holds only the token's hash:
//
//	sha256:3b9c…e1 read=proj.*,notes write=notes
func NewToken(read, write []string) (token, line string, err error) {
	return NewBoundToken(read, write, nil)
}

// NewBoundToken is NewToken for a token bound to the agents its agent
// globs match (none: unbound); its line adds them:
//
//	sha256:3b9c…e1 read=team-* agent=ana
func NewBoundToken(read, write, agents []string) (token, line string, err error) {
	if len(read) == 0 && len(write) == 0 {
		return "", "", fmt.Errorf("a token needs at least one glob to read or write: --read GLOB[,GLOB…] or --write GLOB[,GLOB…]")
	}
	for _, g := range append(append([]string(nil), read...), write...) {
		if err := checkGlob(g); err != nil {
			return "", "", err
		}
	}
	for _, g := range agents {
		if err := checkAgentGlob(g); err != nil {
			return "", "", err
		}
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	line = hashToken(token)
	if len(read) > 0 {
		line += " read=" + strings.Join(read, ",")
	}
	if len(write) > 0 {
		line += " write=" + strings.Join(write, ",")
	}
	if len(agents) > 0 {
		line += " agent=" + strings.Join(agents, ",")
	}
	return token, line, nil
}

// SplitGlobs splits a comma-separated list of globs, as --read, --write
// and --agent take them.
func SplitGlobs(s string) []string {
	var out []string
	for _, g := range strings.Split(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// checkGlob refuses a glob that is not a pattern or could match no
// session name (one with a '/', a space or a comma).
func checkGlob(g string) error {
	if g == "" || len(g) > 256 {
		return fmt.Errorf("glob %q: give 1 to 256 characters", g)
	}
	if strings.ContainsAny(g, "/, \t\r\n") {
		return fmt.Errorf("glob %q: session names hold no '/', ',' or spaces", g)
	}
	if _, err := path.Match(g, ""); err != nil {
		return fmt.Errorf("glob %q is not a pattern: %v", g, err)
	}
	return nil
}

// checkAgentGlob refuses an agent glob that is not a pattern, and a
// name without pattern characters that is no agent name (it would
// match nothing).
func checkAgentGlob(g string) error {
	if g == "" || len(g) > 256 || strings.ContainsAny(g, "/, \t\r\n") {
		return fmt.Errorf("agent glob %q: give 1 to 256 characters, no '/', ',' or spaces", g)
	}
	if _, err := path.Match(g, ""); err != nil {
		return fmt.Errorf("agent glob %q is not a pattern: %v", g, err)
	}
	if !strings.ContainsAny(g, `*?[\`) {
		if err := goldfish.ValidAgentName(g); err != nil {
			return fmt.Errorf("agent %q: %v", g, err)
		}
	}
	return nil
}

// ParseTokens reads a tokens file: one token a line, its hash and then
// read=GLOB[,GLOB…] and write=GLOB[,GLOB…] in either order (either may be
// missing, not both), and agent=GLOB[,GLOB…] for a token bound to agents
// (a line without it, as every file before agents were bound, is an
// unbound token); each may be given more than once, and adds its globs.
// Blank lines and lines starting with '#' are skipped. Any other line is an error naming it, so a typing mistake
// never silently widens or drops a token.
func ParseTokens(r io.Reader) (*Tokens, error) {
	t := &Tokens{byHash: map[string]*Scope{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		hash := f[0]
		if !strings.HasPrefix(hash, "sha256:") || len(hash) != len("sha256:")+64 {
			return nil, fmt.Errorf("line %d: a line starts with sha256: and 64 hex digits (the second line gqlsh token prints)", n)
		}
		if _, err := hex.DecodeString(hash[len("sha256:"):]); err != nil {
			return nil, fmt.Errorf("line %d: the hash is not hexadecimal", n)
		}
		s := &Scope{id: hash[len("sha256:") : len("sha256:")+12]}
		for _, kv := range f[1:] {
			k, v, ok := strings.Cut(kv, "=")
			var dst *[]string
			check := checkGlob
			switch {
			case ok && k == "read":
				dst = &s.Read
			case ok && k == "write":
				dst = &s.Write
			case ok && k == "agent":
				dst, check = &s.Agents, checkAgentGlob
			default:
				return nil, fmt.Errorf("line %d: %q is none of read=GLOBS, write=GLOBS and agent=GLOBS", n, kv)
			}
			globs := SplitGlobs(v)
			if len(globs) == 0 {
				return nil, fmt.Errorf("line %d: %s= names no glob", n, k)
			}
			for _, g := range globs {
				if err := check(g); err != nil {
					return nil, fmt.Errorf("line %d: %v", n, err)
				}
			}
			*dst = append(*dst, globs...)
		}
		if len(s.Read) == 0 && len(s.Write) == 0 {
			return nil, fmt.Errorf("line %d: the token has neither read= nor write= globs", n)
		}
		if _, dup := t.byHash[hash]; dup {
			return nil, fmt.Errorf("line %d: the same token is listed twice", n)
		}
		t.byHash[hash] = s
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// scopeOf reads the bearer token of an Authorization header value.
func (t *Tokens) scopeOf(header string) (*Scope, error) {
	if header == "" {
		return nil, errUnauthenticated("the request carries no token")
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, errUnauthenticated("the Authorization header is not \"Bearer TOKEN\"")
	}
	token = strings.TrimSpace(token)
	s, ok := t.Lookup(token)
	if !ok {
		return nil, errUnauthenticated("the token is not one the server holds")
	}
	return s, nil
}
