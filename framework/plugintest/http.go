package plugintest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// HTTPOptions are what a test request sends besides its body and the
// headers every streamable HTTP client sends (Content-Type:
// application/json; Accept: application/json, text/event-stream). The
// zero value sends nothing more.
type HTTPOptions struct {
	// ProtocolVersion is sent as Mcp-Protocol-Version when not empty.
	ProtocolVersion string
	// Session is sent as Mcp-Session-Id when not empty.
	Session string
	// Authorization is sent as the Authorization header when not empty,
	// e.g. "Bearer " + token.
	Authorization string
	// Edit, when set, changes the request last: another method, a header
	// taken away, a context.
	Edit func(*http.Request)
}

// Response is an HTTP answer, read whole.
type Response struct {
	// Status is the answer's HTTP status code.
	Status int
	// Header holds the answer's headers.
	Header http.Header
	// Body is the whole body: a JSON message, or the SSE stream's text.
	Body []byte
}

// prepare sets the headers of a streamable HTTP client's POST on req,
// then what o adds.
func prepare(req *http.Request, o *HTTPOptions) *http.Request {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if o == nil {
		return req
	}
	if o.ProtocolVersion != "" {
		req.Header.Set("Mcp-Protocol-Version", o.ProtocolVersion)
	}
	if o.Session != "" {
		req.Header.Set("Mcp-Session-Id", o.Session)
	}
	if o.Authorization != "" {
		req.Header.Set("Authorization", o.Authorization)
	}
	if o.Edit != nil {
		o.Edit(req)
	}
	return req
}

// Post sends body to url (an httptest.Server's, say) as a streamable HTTP
// client does and returns the answer, read whole; o may be nil. It fails t
// when the request cannot be made or its answer read.
func Post(t testing.TB, url, body string, o *HTTPOptions) *Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatalf("plugintest: %v", err)
	}
	resp, err := http.DefaultClient.Do(prepare(req, o))
	if err != nil {
		t.Fatalf("plugintest: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("plugintest: reading the answer: %v", err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// PostJSON is [Post] of msg as JSON (a JSON-RPC message, a batch).
func PostJSON(t testing.TB, url string, msg any, o *HTTPOptions) *Response {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatalf("plugintest: %v", err)
	}
	return Post(t, url, string(b), o)
}

// Record serves a POST of body to h in process, with no network between,
// and returns what h answered; o may be nil. The answer is whole when h
// returns, so an SSE answer is only read once its stream ends.
func Record(h http.Handler, body string, o *HTTPOptions) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, prepare(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), o))
	return rec
}

// BearerClient returns an HTTP client that sends token as a bearer token
// (Authorization: Bearer <token>) with every request, over base, or over
// http.DefaultTransport when base is nil. An empty token sends no
// Authorization header. The token is set on a clone of each request: the
// caller's request is not changed.
func BearerClient(token string, base http.RoundTripper) *http.Client {
	if base == nil {
		base = http.DefaultTransport
	}
	return &http.Client{Transport: bearer{token: token, base: base}}
}

// bearer is the transport of [BearerClient].
type bearer struct {
	token string
	base  http.RoundTripper
}

// RoundTrip sends a clone of r with the token over the base transport.
func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}
