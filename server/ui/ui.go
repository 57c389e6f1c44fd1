// Package ui is the memory browser that gqlsh serve shows at /ui/: one
// page, its script and its style sheet, embedded in the binary, so it
// needs no network beyond the server that serves it.
//
// The assets hold no data: the page reads everything through the /v1
// API, with the token the person gives it (kept in the tab's
// sessionStorage and sent as a Bearer header), so they are served
// without a token. Their Content-Security-Policy lets the page load
// scripts, styles and data from its own origin only, and no inline
// script: whatever a session holds is drawn as text, never as markup.
//
// The page's own code is in assets/: gql.js reads a diff's GQL into nodes
// and edges, graph.js lays a graph out (a force layout from deterministic
// starting points, then every node's mark and label pushed off the others
// until none overlaps) and draws it as SVG with pan, zoom and drag, and
// app.js keeps the state in the address, talks to the API, draws a
// Shape from its rows, and shows a node's panel (its properties, edges
// and history) and its expansion (a Recall seeded on it, merged in).
package ui

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed assets
var assets embed.FS

// Prefix is the path the browser is served under.
const Prefix = "/ui/"

// csp allows what the page needs and nothing else.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the assets under Prefix (index.html at Prefix itself).
func Handler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	files := http.StripPrefix(Prefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
