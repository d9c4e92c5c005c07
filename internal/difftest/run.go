package difftest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// stepWait bounds how long a step waits for its answer to be ready (read
// whole, or paused on a request of the server's) before the next step is
// sent; caseWait bounds a whole case on one handler.
const (
	stepWait = 5 * time.Second
	caseWait = 30 * time.Second
)

// leg runs one case on one handler: its httptest server, the sessions it
// opened and the answers still being read.
type leg struct {
	url    string
	client *http.Client
	ctx    context.Context
	vars   map[string]string
	// norm edits each decoded message (Target.Normalize).
	norm func(map[string]any)

	wg       sync.WaitGroup
	outcomes []*Outcome
	sessions int
}

// runLeg sends c's steps to h and returns the outcome of each: first
// those of the case's own initialize and notifications/initialized, named
// "init…", then one per step.
func runLeg(h http.Handler, c *Case, stateless bool, norm func(map[string]any)) []*Outcome {
	ts := httptest.NewServer(withUsers(h))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), caseWait)
	defer cancel()
	l := &leg{url: ts.URL, client: ts.Client(), ctx: ctx, vars: map[string]string{}, norm: norm}
	base := map[string]*string{}
	if c.User != "" {
		base["Authorization"] = ptr("Bearer " + c.User)
	}
	if c.Init != "" {
		base[versionHeader] = ptr(c.Init)
		if c.Init < "2026-07-28" {
			l.vars["session"] = l.initialize(c.Init, base, "init")
			if c.User != "" && !stateless {
				other := map[string]*string{"Authorization": ptr("Bearer other"), versionHeader: ptr(c.Init)}
				l.vars["other"] = l.initialize(c.Init, other, "init other")
			}
			base[sessionHeader] = ptr("$session")
		}
	}
	for i, s := range c.steps() {
		hdr := map[string]*string{}
		for k, v := range base {
			hdr[k] = v
		}
		for k, v := range s.Headers {
			hdr[k] = v
		}
		l.send(s.Method, hdr, s.body(), fmt.Sprintf("step %d", i+1))
	}
	cancel()
	l.wg.Wait()
	// A batch's answers, and what a stream carries, may come in any
	// order: they are compared as sets.
	for _, o := range l.outcomes {
		slices.Sort(o.Messages)
		slices.Sort(o.Codes)
	}
	return l.outcomes
}

const (
	sessionHeader = "Mcp-Session-Id"
	versionHeader = "Mcp-Protocol-Version"
)

func ptr(s string) *string { return &s }

// initialize opens a session with version, as a client does, and returns
// its id ("" on a stateless server).
func (l *leg) initialize(version string, hdr map[string]*string, name string) string {
	body := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"difftest","version":"1"}}}`
	h := map[string]*string{}
	for k, v := range hdr {
		if k != versionHeader {
			h[k] = v
		}
	}
	o := l.send("POST", h, []byte(body), name)
	l.wg.Wait()
	id := o.sessionID
	h[sessionHeader] = ptr(id)
	h[versionHeader] = ptr(version)
	l.send("POST", h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), name+"ialized")
	l.wg.Wait()
	return id
}

// send sends one request and returns its outcome once it is ready: read
// whole, paused on a request of the server's (which a later step may
// answer), or, for an SSE stream of a GET, open. The rest is read in the
// background until the case ends.
func (l *leg) send(method string, hdr map[string]*string, body []byte, name string) *Outcome {
	if method == "" {
		method = http.MethodPost
	}
	o := &Outcome{Step: name}
	l.outcomes = append(l.outcomes, o)
	req, err := http.NewRequestWithContext(l.ctx, method, l.url, bytes.NewReader(body))
	if err != nil {
		o.Err = err.Error()
		return o
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if v == nil {
			req.Header.Del(k)
			continue
		}
		val := expand(*v, l.vars)
		switch {
		case strings.EqualFold(k, "Host"):
			req.Host = val
		case val == "" && strings.HasPrefix(*v, "$"):
			req.Header.Del(k) // a session the leg does not have
		default:
			req.Header.Set(k, val)
		}
	}
	ready := make(chan struct{})
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		l.read(o, req, listens(body), ready)
	}()
	select {
	case <-ready:
	case <-time.After(stepWait):
		o.Late = true
	case <-l.ctx.Done():
	}
	return o
}

// read does req and fills o, closing ready once o is ready (see send).
func (l *leg) read(o *Outcome, req *http.Request, listen bool, ready chan struct{}) {
	var once sync.Once
	done := func() { once.Do(func() { close(ready) }) }
	defer done()
	resp, err := l.client.Do(req)
	if err != nil {
		o.Err = "no response"
		return
	}
	defer resp.Body.Close()
	o.head(resp)
	if o.Session {
		l.sessions++
		l.vars["s"+strconv.Itoa(l.sessions)] = o.sessionID
	}
	switch o.Type {
	case "application/json":
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			o.Err = "body: " + err.Error()
		}
		o.add(data, l.norm)
	case "text/event-stream":
		if req.Method == http.MethodGet {
			done()
			// What a standalone stream carries depends on timing: only
			// its headers are compared.
			_, _ = io.Copy(io.Discard, resp.Body)
			return
		}
		readSSE(o, resp.Body, l.norm, listen, done)
	default:
		_, _ = io.Copy(io.Discard, resp.Body)
	}
}

// readSSE reads an SSE stream's messages into o, calling ready when the
// server sends a request of its own (its answer is a later step).
//
// The stream of a subscriptions/listen request (listen) stays open for
// as long as its client likes, and what it carries besides its
// acknowledgement depends on timing (a list_changed of an earlier step
// may come first): it is ready with the acknowledgement, or with its
// first message that is not a notification, and the rest is not
// compared.
func readSSE(o *Outcome, r io.Reader, norm func(map[string]any), listen bool, ready func()) {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0 && listen && timed(data):
			data = nil
		case len(line) == 0 && len(data) > 0:
			if o.add(data, norm) {
				ready()
			}
			if listen {
				ready()
				_, _ = io.Copy(io.Discard, br)
				return
			}
			data = nil
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
		if err != nil {
			if len(data) > 0 {
				o.add(data, norm)
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
				o.Err = "stream: " + err.Error()
			}
			return
		}
	}
}

// timed reports whether data, a message of a listen stream, is a
// notification other than the stream's acknowledgement: when it comes
// depends on timing.
func timed(data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(data, &m) == nil && m.ID == nil && m.Method != "" &&
		m.Method != "notifications/subscriptions/acknowledged"
}

// head fills o from the status and headers of resp.
func (o *Outcome) head(resp *http.Response) {
	o.Status = resp.StatusCode
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		o.Type, _, _ = mime.ParseMediaType(ct)
		if o.Type == "" {
			o.Type = ct
		}
	}
	o.sessionID = resp.Header.Get(sessionHeader)
	o.Session = o.sessionID != ""
	o.WWWAuthenticate = resp.Header.Get("WWW-Authenticate")
	o.Allow = resp.Header.Get("Allow")
}

// Serve serves req with h in-process (no network, no Host or auth
// checks of a listener) and returns what a client would see of the
// answer, which must end on its own: a POST, not a GET stream.
func Serve(h http.Handler, req *http.Request, norm func(map[string]any)) *Outcome {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	o := &Outcome{Step: req.Method}
	o.head(resp)
	switch o.Type {
	case "application/json":
		o.add(rec.Body.Bytes(), norm)
	case "text/event-stream":
		readSSE(o, resp.Body, norm, false, func() {})
	}
	slices.Sort(o.Messages)
	slices.Sort(o.Codes)
	return o
}

// listens reports whether body is one subscriptions/listen request.
func listens(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "subscriptions/listen"
}

// withUsers puts bearer-token auth in front of h for requests that carry
// an Authorization header: the token is the user's id, "bad" is refused.
func withUsers(h http.Handler) http.Handler {
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token == "bad" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	authed := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource",
	})(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			authed.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Outcome is what a client sees of one answer.
type Outcome struct {
	// Step names the step.
	Step string
	// Status is the HTTP status; 0 with Err set when there was none.
	Status int
	// Type is the media type of Content-Type, without parameters.
	Type string
	// Session is whether Mcp-Session-Id was set.
	Session bool
	// WWWAuthenticate and Allow are those headers, as sent.
	WWWAuthenticate, Allow string
	// Messages are the JSON-RPC messages of the body (one JSON body,
	// batch or not, or an SSE stream's events), each re-encoded with its
	// keys sorted: an error keeps its code only. They are sorted too.
	Messages []string
	// Codes are the error codes among Messages, sorted.
	Codes []int64
	// Err says what went wrong in reading the answer ("" when nothing).
	Err string
	// Late is whether the answer was not ready within stepWait, when the
	// next step went ahead.
	Late bool

	mu        sync.Mutex
	sessionID string
	// serverCalls counts the requests of the server's in Messages.
	serverCalls int
}

// add decodes data, one JSON-RPC message or a batch of them, into o and
// reports whether one was a request of the server's. Data that is not
// JSON is kept as a message of its own, quoted.
func (o *Outcome) add(data []byte, norm func(map[string]any)) (serverCall bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		o.Messages = append(o.Messages, strconv.Quote(string(data)))
		return false
	}
	msgs, ok := v.([]any)
	if !ok {
		msgs = []any{v}
	}
	for _, m := range msgs {
		obj, ok := m.(map[string]any)
		if !ok {
			b, _ := json.Marshal(m)
			o.Messages = append(o.Messages, string(b))
			continue
		}
		if e, ok := obj["error"].(map[string]any); ok {
			code, _ := e["code"].(json.Number)
			n, _ := code.Int64()
			o.Codes = append(o.Codes, n)
			obj["error"] = map[string]any{"code": code}
		}
		if _, call := obj["method"]; call && obj["id"] != nil {
			o.serverCalls++
			serverCall = true
		}
		if norm != nil {
			norm(obj)
		}
		b, _ := json.Marshal(obj)
		o.Messages = append(o.Messages, string(b))
	}
	return serverCall
}

// Summary words the outcome as the table of differences does: the status,
// the media type ("-" for none) and the JSON-RPC error codes, e.g.
// "400 application/json -32601", or "no answer".
func (o *Outcome) Summary() string {
	if o.Status == 0 {
		return "no answer"
	}
	typ := o.Type
	if typ == "" {
		typ = "-"
	}
	s := strconv.Itoa(o.Status) + " " + typ
	for _, c := range o.Codes {
		s += " " + strconv.FormatInt(c, 10)
	}
	return s
}

// String is the summary with the headers and messages, for failures.
func (o *Outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", o.Step, o.Summary())
	if o.Session {
		b.WriteString(" Mcp-Session-Id")
	}
	if o.WWWAuthenticate != "" {
		fmt.Fprintf(&b, " WWW-Authenticate=%q", o.WWWAuthenticate)
	}
	if o.Allow != "" {
		fmt.Fprintf(&b, " Allow=%q", o.Allow)
	}
	if o.Err != "" {
		fmt.Fprintf(&b, " (%s)", o.Err)
	}
	if o.Late {
		fmt.Fprintf(&b, " (not ready within %v)", stepWait)
	}
	for _, m := range o.Messages {
		if len(m) > 300 {
			m = m[:300] + "…"
		}
		b.WriteString("\n\t\t" + m)
	}
	return b.String()
}
