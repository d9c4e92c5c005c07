package framework_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// sseEvent is one server-sent event as a client reads it.
type sseEvent struct{ name, id, data string }

// sseEvents reads the events of an SSE body into a channel, closed when
// the body ends.
func sseEvents(body io.Reader) <-chan sseEvent {
	out := make(chan sseEvent, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 1<<20)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				if e != (sseEvent{}) {
					out <- e
				}
				e = sseEvent{}
				continue
			}
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "event":
				e.name = v
			case "id":
				e.id = v
			case "data":
				e.data = v
			}
		}
	}()
	return out
}

// resumeServer serves a tool, steps, that sends progress 1, waits for
// next, sends progress 2, says so on sent, waits for next again, then
// sends progress 3 and its answer; store nil serves no event store.
func resumeServer(t *testing.T, store mcp.EventStore) (ts *httptest.Server, next chan struct{}, sent chan struct{}, served chan struct{}) {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "resume", Version: "1"}, nil)
	next, sent, served = make(chan struct{}), make(chan struct{}, 1), make(chan struct{}, 4)
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "steps"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (echoOut, error) {
		tok := req.Params.GetProgressToken()
		notify := func(p float64) {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p})
		}
		notify(1)
		<-next
		notify(2)
		sent <- struct{}{}
		<-next
		notify(3)
		return echoOut{Echo: "done"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{EventStore: store})
	if err != nil {
		t.Fatal(err)
	}
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Header.Get("X-Call") != "" {
			select {
			case served <- struct{}{}:
			default:
			}
		}
	}))
	t.Cleanup(ts.Close)
	return ts, next, sent, served
}

// stream sends method (POST with body, or GET) on session with
// Last-Event-ID lastID when not empty, and returns the response.
func stream(t *testing.T, ctx context.Context, method, url, session, version, lastID, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("X-Call", "1")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const stepsCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"steps","arguments":{},"_meta":{"progressToken":"p"}}}`

// TestResumeStream cuts a call's stream after its first message and
// resumes it with Last-Event-ID: every message reaches the client once,
// in order, those sent while no request carried the stream from the
// store and the rest as they go out; on 2025-11-25 a priming event opens
// the stream.
func TestResumeStream(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			ts, next, sent, served := resumeServer(t, mcp.NewMemoryEventStore(nil))
			session := open(t, ts.URL, version)
			ctx, cut := context.WithCancel(t.Context())
			resp := stream(t, ctx, http.MethodPost, ts.URL, session, version, "", stepsCall)
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
				t.Fatalf("POST: %d %s", resp.StatusCode, ct)
			}
			var got []string // the data of each message event, in order
			ids := map[string]bool{}
			events := sseEvents(resp.Body)
			take := func(e sseEvent) {
				if e.name == "prime" {
					if version < "2025-11-25" || len(got) > 0 || e.data != "" {
						t.Errorf("priming event %+v on %s after %d messages", e, version, len(got))
					}
				} else {
					got = append(got, e.data)
				}
				if e.id == "" || ids[e.id] {
					t.Errorf("event %+v: no ID, or one seen before", e)
				}
				ids[e.id] = true
			}
			var last string
			for e := range events {
				take(e)
				last = e.id
				if e.name == "message" {
					break
				}
			}
			cut()
			resp.Body.Close()
			wait(t, served, "the POST to see its client go")
			next <- struct{}{}
			wait(t, sent, "progress 2 to be stored")

			// A stream another request carries is refused.
			get := stream(t, t.Context(), http.MethodGet, ts.URL, session, version, last, "")
			defer get.Body.Close()
			if get.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(get.Body)
				t.Fatalf("resuming GET: %d %s", get.StatusCode, b)
			}
			again := stream(t, t.Context(), http.MethodGet, ts.URL, session, version, last, "")
			again.Body.Close()
			if again.StatusCode != http.StatusConflict {
				t.Errorf("second resuming GET: %d, want 409", again.StatusCode)
			}
			events = sseEvents(get.Body)
			e := wait(t, events, "the replayed progress")
			take(e)
			next <- struct{}{}
			for e := range events {
				take(e)
			}
			want := []string{"progress 1", "progress 2", "progress 3", "answer"}
			if len(got) != len(want) {
				t.Fatalf("messages %q, want %v", got, want)
			}
			for i, d := range got {
				ok := strings.Contains(d, `"method":"notifications/progress"`) && strings.Contains(d, fmt.Sprintf(`"progress":%d`, i+1))
				if i == 3 {
					ok = strings.Contains(d, `"id":7`) && strings.Contains(d, `done`)
				}
				if !ok {
					t.Errorf("message %d: %s, want %s", i, d, want[i])
				}
			}
		})
	}
}

// TestResumeRefused sends Last-Event-IDs the server cannot resume from:
// malformed, of a stream this session never had, of another session's
// stream, of events the store dropped, and any at all without a store.
// Each is refused with 400, as the SDK's handler refuses them (404 would
// tell the client its session is gone).
func TestResumeRefused(t *testing.T) {
	const version = "2025-11-25"
	store := mcp.NewMemoryEventStore(nil)
	ts, next, _, served := resumeServer(t, store)
	close(next) // steps runs to its end
	other := open(t, ts.URL, version)
	resp := stream(t, t.Context(), http.MethodPost, ts.URL, other, version, "", stepsCall)
	var foreign string
	for e := range sseEvents(resp.Body) {
		foreign = e.id
	}
	resp.Body.Close()
	<-served
	session := open(t, ts.URL, version)
	cases := []struct{ name, id string }{
		{"malformed", "x"},
		{"two underscores", "a_b_1"},
		{"negative", "a_-1"},
		{"past int", "a_99999999999999999999999"},
		{"unknown stream", "NOSUCHSTREAM_0"},
		{"another session's", foreign},
	}
	for _, c := range cases {
		get := stream(t, t.Context(), http.MethodGet, ts.URL, session, version, c.id, "")
		get.Body.Close()
		if get.StatusCode != http.StatusBadRequest {
			t.Errorf("%s Last-Event-ID %q: %d, want 400", c.name, c.id, get.StatusCode)
		}
	}

	// The session's own stream is over but stored: the rest of it is
	// replayed, until the store drops it.
	sid, _, _ := strings.Cut(foreign, "_")
	get := stream(t, t.Context(), http.MethodGet, ts.URL, other, version, sid+"_0", "")
	var n int
	for e := range sseEvents(get.Body) {
		if e.name == "message" {
			n++
		}
	}
	get.Body.Close()
	if get.StatusCode != http.StatusOK || n != 4 {
		t.Errorf("replaying a stream that is over: %d, %d messages, want 200 and 4", get.StatusCode, n)
	}
	store.SetMaxBytes(1)
	get = stream(t, t.Context(), http.MethodGet, ts.URL, other, version, sid+"_0", "")
	get.Body.Close()
	if get.StatusCode != http.StatusBadRequest {
		t.Errorf("replaying dropped events: %d, want 400", get.StatusCode)
	}

	plain, _, _, _ := resumeServer(t, nil)
	session = open(t, plain.URL, version)
	get = stream(t, t.Context(), http.MethodGet, plain.URL, session, version, "a_1", "")
	b, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if get.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "replay unsupported") {
		t.Errorf("Last-Event-ID without a store: %d %s, want 400", get.StatusCode, b)
	}
}

// TestEventStoreElsewhere checks the handlers an event store changes
// nothing for: a stateless one (no GET can name a stream) and one that
// answers JSON (nothing in a JSON body can be resumed) call as without
// it, and the stateful JSON one refuses a GET of a stream it never had.
func TestEventStoreElsewhere(t *testing.T) {
	for _, opts := range []*mcp.StreamableHTTPOptions{
		{Stateless: true, EventStore: mcp.NewMemoryEventStore(nil)},
		{JSONResponse: true, EventStore: mcp.NewMemoryEventStore(nil)},
	} {
		t.Run(fmt.Sprintf("stateless=%v", opts.Stateless), func(t *testing.T) {
			ts, _ := serveTransport(t, opts)
			session := ""
			if !opts.Stateless {
				session = open(t, ts.URL, "2025-11-25")
			}
			status, header, msgs := rpcPost(t, ts.URL, session, "2025-11-25", echoCall(2, "hi"), nil)
			if status != http.StatusOK || len(msgs) != 1 || echoText(t, msgs[0]) != "hi" {
				t.Fatalf("call: %d %v %+v", status, header, msgs)
			}
			if ct := header.Get("Content-Type"); !opts.Stateless && ct != "application/json" {
				t.Errorf("JSONResponse call answered %s", ct)
			}
			if session != "" {
				get := stream(t, t.Context(), http.MethodGet, ts.URL, session, "2025-11-25", "NOSUCHSTREAM_0", "")
				get.Body.Close()
				if get.StatusCode != http.StatusBadRequest {
					t.Errorf("GET of a stream never had: %d, want 400", get.StatusCode)
				}
			}
		})
	}
}

// TestResumeGETStream checks the GET stream with an event store: what the
// server sends while no GET is open is kept, and the first GET replays it
// (as the SDK's handler does), with the GET stream's event IDs (_<index>).
func TestResumeGETStream(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "get", Version: "1"}, nil)
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	session := open(t, ts.URL, "2025-11-25")
	// A tool added while the session is open: the server tells it its
	// tool list changed, on the GET stream no GET carries yet.
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, struct{}) (echoOut, error) {
		return echoOut{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		get := stream(t, t.Context(), http.MethodGet, ts.URL, session, "2025-11-25", "", "")
		if get.StatusCode != http.StatusOK {
			t.Fatalf("GET: %d", get.StatusCode)
		}
		events := sseEvents(get.Body)
		var e sseEvent
		select {
		case e = <-events:
		case <-time.After(50 * time.Millisecond):
		}
		get.Body.Close()
		if e.data == "" {
			continue // not sent yet: the SDK waits a moment to send list changes
		}
		if e.id != "_0" || !strings.Contains(e.data, "notifications/tools/list_changed") {
			t.Fatalf("first GET's first event %+v, want tools/list_changed with ID _0", e)
		}
		return
	}
	t.Fatal("no GET replayed the list change")
}
