package client

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// A redirect is followed only to the origin (scheme, host and port) of the
// server the client was given: a request, its body and its token go to
// that server and to no other, whatever it answers. A server moved
// elsewhere is given to the client by its new address.

// redirectError is a redirect the client refused to follow.
type redirectError struct {
	status int
	to     string
}

func (e *redirectError) Error() string { return "a redirect to another origin: " + e.to }

// maxRedirects is how many redirects a request follows (net/http's own
// limit when a client sets no CheckRedirect).
const maxRedirects = 10

// sameOrigin is a CheckRedirect that refuses a redirect off base's
// origin, then asks next (nil: at most maxRedirects).
func sameOrigin(base *url.URL, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	want := origin(base)
	return func(req *http.Request, via []*http.Request) error {
		if origin(req.URL) != want {
			status := 0
			if req.Response != nil {
				status = req.Response.StatusCode
			}
			return &redirectError{status: status, to: req.URL.Redacted()}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// origin is u's scheme, host and port, the port written out when it is
// the scheme's default.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
