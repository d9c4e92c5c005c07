package streamable_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/hookflow/hookflow/internal/streamable"
)

// testHost is a streamable.Host that reads each body whole (or refuses it
// with refuse, when not 0), answers the calls check answers (nil: none)
// and gives the header checks params returns (nil: none). It records
// what the transport asked of it, in order.
type testHost struct {
	refuse int
	check  func(r *http.Request, call *jsonrpc.Request) http.Handler
	params func(tool string) *streamable.ParamHeaders

	mu    sync.Mutex
	asked []string
}

func (h *testHost) note(what string) {
	h.mu.Lock()
	h.asked = append(h.asked, what)
	h.mu.Unlock()
}

func (h *testHost) ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, streamable.Releaser, bool) {
	h.note("read")
	if h.refuse != 0 {
		http.Error(w, "refused", h.refuse)
		return nil, nil, false
	}
	data, err := io.ReadAll(r.Body)
	return data, nil, err == nil
}

func (h *testHost) CheckCall(r *http.Request, call *jsonrpc.Request) http.Handler {
	h.note("check " + call.Method + " " + string(call.Params))
	if h.check == nil {
		return nil
	}
	return h.check(r, call)
}

func (h *testHost) ParamHeaders(tool string) *streamable.ParamHeaders {
	h.note("params " + tool)
	if h.params == nil {
		return nil
	}
	return h.params(tool)
}

// TestHostAsked checks what a Handler asks of its Host, in what order,
// and that the host's answers are the POST's: a refused read, and a call
// check that answers a lone tools/call in the call's place.
func TestHostAsked(t *testing.T) {
	const (
		call    = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
		batch   = `[` + call + `,{"jsonrpc":"2.0","id":8,"method":"ping"}]`
		note    = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
		ping    = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		newCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + newMeta + `}}`
	)
	teapot := func(_ *http.Request, call *jsonrpc.Request) http.Handler {
		if call.ID.Raw() != int64(7) {
			return nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	}
	checked := "check tools/call " + `{"name":"echo","arguments":{"text":"hi"}}`
	for _, tc := range []struct {
		name    string
		host    *testHost
		version string
		body    string
		headers map[string]string
		status  int
		asked   []string
	}{
		{name: "read refused", host: &testHost{refuse: http.StatusRequestEntityTooLarge, check: teapot}, body: call,
			status: http.StatusRequestEntityTooLarge, asked: []string{"read"}},
		{name: "call answered by the check", host: &testHost{check: teapot}, body: call,
			status: http.StatusTeapot, asked: []string{"read", checked}},
		{name: "call let through", host: &testHost{}, body: call,
			status: http.StatusOK, asked: []string{"read", checked}},
		{name: "batch not checked", host: &testHost{check: teapot}, body: batch,
			status: http.StatusOK, asked: []string{"read"}},
		{name: "notification not checked", host: &testHost{check: teapot}, body: note,
			status: http.StatusBadRequest, asked: []string{"read"}},
		{name: "other method not checked", host: &testHost{check: teapot}, body: ping,
			status: http.StatusOK, asked: []string{"read"}},
		{name: "unspoken version before the check", host: &testHost{check: teapot}, version: "1999-01-01", body: call,
			status: http.StatusBadRequest, asked: []string{"read"}},
		{name: "2026-07-28 call: check, then its headers", host: &testHost{}, version: "2026-07-28", body: newCall,
			headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo"},
			status:  http.StatusOK, asked: []string{"read", "check tools/call " + `{"name":"echo","arguments":{"text":"hi"},` + newMeta + `}`, "params echo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := streamable.New(streamable.Options{Server: testServer(), Stateless: true, Host: tc.host})
			req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.version != "" {
				req.Header.Set("Mcp-Protocol-Version", tc.version)
			}
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d: %s", rec.Code, tc.status, strings.TrimSpace(rec.Body.String()))
			}
			tc.host.mu.Lock()
			defer tc.host.mu.Unlock()
			if strings.Join(tc.host.asked, "\n") != strings.Join(tc.asked, "\n") {
				t.Errorf("asked\n%s\nwant\n%s", strings.Join(tc.host.asked, "\n"), strings.Join(tc.asked, "\n"))
			}
		})
	}
}

// TestNewWithoutHost checks that a Handler without a Host is refused when
// made, not on its first POST.
func TestNewWithoutHost(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New took Options without a Host")
		}
	}()
	streamable.New(streamable.Options{Server: testServer()})
}
