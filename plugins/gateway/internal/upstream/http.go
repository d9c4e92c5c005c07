package upstream

import (
	"net/http"
	"slices"
)

// HTTPTransport returns the HTTP transport of a URL upstream, shared by
// its sessions: one that keeps enough idle connections for every client
// session's calls (the default transport keeps two per host, so that
// concurrent calls would open a connection each), with token (as
// "Authorization: Bearer <token>"), or a token of tok when tok is not nil
// (which wins over an Authorization in header), and header added to every
// request.
func HTTPTransport(token string, header http.Header, tok *Tokens) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	var next http.RoundTripper = t
	if tok != nil {
		next = tokenTransport{src: tok, next: t}
	}
	if token == "" && len(header) == 0 {
		return next
	}
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return headerTransport{h: h, next: next}
}

// headerTransport adds h to every request before next sends it.
type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = slices.Clone(vs)
	}
	return t.next.RoundTrip(r)
}
