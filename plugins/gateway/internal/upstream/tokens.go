package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"golang.org/x/oauth2"
)

// Tokens caches the tokens of an upstream's OAuth token source: one
// token at a time, fetched when none is valid (oauth2's Valid: present
// and not within ten seconds of its expiry), by one fetch however many
// requests need it. It is safe for concurrent use.
type Tokens struct {
	up  string
	src oauth2.TokenSource
	// fail makes the error of a request for which src gave no token.
	fail func(error) error

	mu     sync.Mutex
	cur    *token
	flight *fetch
}

// token is a token with what the upstream made of it.
type token struct {
	*oauth2.Token
	// accepted: the upstream answered a request sent with it otherwise
	// than 401.
	accepted atomic.Bool
}

// fetch is a token fetch in flight.
type fetch struct {
	done chan struct{}
	tok  *token
	err  error
}

// NewTokens returns the token cache of the upstream named up, whose
// tokens src gives; fail makes the error of a request for which src
// gave no token from src's error.
func NewTokens(up string, src oauth2.TokenSource, fail func(error) error) *Tokens {
	return &Tokens{up: up, src: src, fail: fail}
}

// get returns a valid token, fetching one when the cached one is missing
// or about to expire. It gives up when ctx ends, leaving the fetch to
// finish for the next request.
func (t *Tokens) get(ctx context.Context) (*token, error) {
	t.mu.Lock()
	if t.cur != nil && t.cur.Valid() {
		tok := t.cur
		t.mu.Unlock()
		return tok, nil
	}
	f := t.startLocked()
	t.mu.Unlock()
	return t.wait(ctx, f)
}

// refused is called when the upstream answered 401 to a request sent
// with used. It returns the token to send the request again with, or nil
// when it is not to be sent again: the upstream never accepted used (a
// new token would fare no better: the upstream is misconfigured, or
// refuses the gateway), or the source answers used again.
func (t *Tokens) refused(ctx context.Context, used *token) (*token, error) {
	if !used.accepted.Load() {
		return nil, nil
	}
	t.mu.Lock()
	if t.cur != nil && t.cur != used && t.cur.Valid() {
		// Another request has replaced used already.
		tok := t.cur
		t.mu.Unlock()
		return tok, nil
	}
	if t.cur == used {
		t.cur = nil
	}
	f := t.startLocked()
	t.mu.Unlock()
	tok, err := t.wait(ctx, f)
	if err != nil || tok.AccessToken == used.AccessToken {
		return nil, err
	}
	return tok, nil
}

// Current returns the access token in use, "" when there is none.
func (t *Tokens) Current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == nil {
		return ""
	}
	return t.cur.AccessToken
}

// startLocked starts a fetch, or returns the one in flight.
func (t *Tokens) startLocked() *fetch {
	if t.flight != nil {
		return t.flight
	}
	f := &fetch{done: make(chan struct{})}
	t.flight = f
	go func() {
		tok, err := t.src.Token()
		if err == nil && (tok == nil || tok.AccessToken == "") {
			err = errors.New("the token source returned no access token")
		}
		t.mu.Lock()
		if err == nil {
			f.tok = &token{Token: tok}
			t.cur = f.tok
		}
		f.err = err
		t.flight = nil
		t.mu.Unlock()
		close(f.done)
	}()
	return f
}

// wait waits for f, or for ctx to end.
func (t *Tokens) wait(ctx context.Context, f *fetch) (*token, error) {
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("upstream %q: waiting for an OAuth token: %w", t.up, ctx.Err())
	}
	if f.err != nil {
		return nil, t.fail(f.err)
	}
	return f.tok, nil
}

// tokenTransport sends every request with a token of src, after the
// upstream's headers; a 401 to a request sent with a token the upstream
// accepted before gets one retry with a new token.
type tokenTransport struct {
	src  *Tokens
	next http.RoundTripper
}

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.src.get(r.Context())
	if err != nil {
		closeBody(r)
		return nil, err
	}
	first := r.Clone(r.Context())
	tok.SetAuthHeader(first)
	resp, err := t.next.RoundTrip(first)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusUnauthorized {
		if !tok.accepted.Load() {
			tok.accepted.Store(true)
		}
		return resp, nil
	}
	// The upstream refused a token it should have accepted (revoked, or
	// its keys rotated): a 401 comes before the request is handled, so
	// sending it again with a new token is safe, when its body can be
	// sent again.
	if r.Body != nil && r.Body != http.NoBody && r.GetBody == nil {
		return resp, nil
	}
	fresh, err := t.src.refused(r.Context(), tok)
	if err != nil {
		drain(resp)
		return nil, err
	}
	if fresh == nil {
		return resp, nil
	}
	again := r.Clone(r.Context())
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return resp, nil
		}
		again.Body = body
	}
	drain(resp)
	fresh.SetAuthHeader(again)
	resp, err = t.next.RoundTrip(again)
	if err == nil && resp.StatusCode != http.StatusUnauthorized && !fresh.accepted.Load() {
		fresh.accepted.Store(true)
	}
	return resp, err
}

// drain reads a little of resp's body, so that its connection can be
// reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// closeBody closes r's body, as a RoundTripper must even when it fails.
func closeBody(r *http.Request) {
	if r.Body != nil {
		r.Body.Close()
	}
}
