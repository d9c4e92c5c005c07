package streamable_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// post sends body to url with the session and version headers (when not
// empty) and returns the status and the JSON-RPC error code of the answer
// (0 for none: a result, or a body that is not JSON-RPC), from a JSON
// body or the first message of an SSE stream.
func post(t *testing.T, url, session, version, body string, edit func(*http.Request)) (status int, code int64, header http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				raw = []byte(d)
				break
			}
		}
	}
	var msg struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &msg) == nil && msg.Error != nil {
		code = msg.Error.Code
	}
	return resp.StatusCode, code, resp.Header
}

// openSession initializes a session of version and returns its ID.
func openSession(t *testing.T, url, version string) string {
	t.Helper()
	status, code, header := post(t, url, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	id := header.Get("Mcp-Session-Id")
	if status != http.StatusOK || code != 0 || id == "" {
		t.Fatalf("initialize %s: %d %d %q", version, status, code, id)
	}
	if status, _, _ := post(t, url, id, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); status != http.StatusAccepted {
		t.Fatalf("initialized: %d", status)
	}
	return id
}

// newMeta is the _meta a 2026-07-28 request carries.
const newMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// TestErrorStatusAsSDK checks that hookflow's transport answers the
// JSON-RPC errors of a POST with the SDK's HTTP status and code, on each
// protocol version: before 2026-07-28 an error to a method the server
// knows (resources/subscribe without the capability, invalid params, an
// unknown tool) is a 200, and only a method unknown to it a 400; on
// 2026-07-28, -32601 is 404 and -32602 400.
func TestErrorStatusAsSDK(t *testing.T) {
	type call struct {
		name, method, params string
	}
	calls := []call{
		{"unknown method", "no/such", `{}`},
		{"method without capability", "resources/subscribe", `{"uri":"file:///x"}`},
		{"invalid params", "tools/call", `{"name":"echo","arguments":{"text":7}}`},
		{"unknown tool", "tools/call", `{"name":"nope","arguments":{}}`},
		{"missing params", "tools/call", ``},
		{"completion without capability", "completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"b"}}`},
	}
	body := func(c call, meta string) string {
		params := c.params
		if meta != "" {
			if params == "" {
				params = "{" + meta + "}"
			} else {
				params = "{" + meta + "," + strings.TrimPrefix(params, "{")
			}
		}
		if params == "" {
			return `{"jsonrpc":"2.0","id":2,"method":"` + c.method + `"}`
		}
		return `{"jsonrpc":"2.0","id":2,"method":"` + c.method + `","params":` + params + `}`
	}
	type answer struct {
		status int
		code   int64
	}
	ask := func(t *testing.T, handler func(bool) http.Handler, version string, c call) answer {
		if version == "2026-07-28" {
			ts := httptest.NewServer(handler(true))
			defer ts.Close()
			status, code, _ := post(t, ts.URL, "", version, body(c, newMeta), func(r *http.Request) {
				r.Header.Set("Mcp-Method", c.method)
				if c.method == "tools/call" {
					var p struct {
						Name string `json:"name"`
					}
					_ = json.Unmarshal([]byte(c.params), &p)
					r.Header.Set("Mcp-Name", p.Name)
				}
			})
			return answer{status, code}
		}
		ts := httptest.NewServer(handler(false))
		defer ts.Close()
		id := openSession(t, ts.URL, version)
		status, code, _ := post(t, ts.URL, id, version, body(c, ""), nil)
		return answer{status, code}
	}
	for _, version := range []string{"2025-03-26", "2025-11-25", "2026-07-28"} {
		for _, c := range calls {
			t.Run(version+"/"+c.name, func(t *testing.T) {
				sdk := ask(t, func(stateless bool) http.Handler { return sdkHandler(testServer(), stateless, false) }, version, c)
				ours := ask(t, func(stateless bool) http.Handler { return hookflowHandler(testServer(), stateless, false) }, version, c)
				// The SDK refuses some requests with a text body: the
				// status must match, and the code wherever the SDK gives one.
				if ours.status != sdk.status || sdk.code != 0 && ours.code != sdk.code {
					t.Errorf("hookflow: %d %d; SDK: %d %d", ours.status, ours.code, sdk.status, sdk.code)
				}
			})
		}
	}
}

// send sends a request of method and body with the session and version headers
// (when not empty) and returns its status and body; a stream's body is
// not read.
func send(t *testing.T, method, url, session, version, body string, edit func(*http.Request)) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, nil
	}
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// TestProtocolVersionChecked checks that every method refuses an
// Mcp-Protocol-Version the server does not speak with 400 and a JSON-RPC
// error naming those it does, and that a known version or none passes.
func TestProtocolVersionChecked(t *testing.T) {
	ts := httptest.NewServer(hookflowHandler(testServer(), false, false))
	defer ts.Close()
	session := openSession(t, ts.URL, "2025-11-25")
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	for _, version := range []string{"garbage", "2099-01-01", "2025-11-26", "1"} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			body := ""
			if method == http.MethodPost {
				body = call
			}
			status, raw := send(t, method, ts.URL, session, version, body, nil)
			var msg struct {
				Error struct {
					Code int64 `json:"code"`
					Data struct {
						Supported []string `json:"supported"`
						Requested string   `json:"requested"`
					} `json:"data"`
				} `json:"error"`
			}
			if status != http.StatusBadRequest || json.Unmarshal(raw, &msg) != nil || msg.Error.Code != -32022 ||
				!slices.Contains(msg.Error.Data.Supported, "2025-11-25") || msg.Error.Data.Requested != version {
				t.Errorf("%s with version %q: %d %s, want 400 and the supported versions", method, version, status, raw)
			}
		}
	}
	for _, version := range []string{"", "2025-11-25"} {
		if status, code, _ := post(t, ts.URL, session, version, call, nil); status != http.StatusOK || code != 0 {
			t.Errorf("POST with version %q: %d %d", version, status, code)
		}
		// A session of its own: the server may not yet have seen the
		// last GET stream end, and refuses a second one with 409.
		own := openSession(t, ts.URL, "2025-11-25")
		if status, _ := send(t, http.MethodGet, ts.URL, own, version, "", nil); status != http.StatusOK {
			t.Errorf("GET with version %q: %d", version, status)
		}
	}
	if status, _ := send(t, http.MethodDelete, ts.URL, session, "2025-11-25", "", nil); status != http.StatusNoContent {
		t.Errorf("DELETE: %d", status)
	}
}

// TestIDRefused checks that a POST whose ID the answer could not carry as
// it came is refused 400 with -32600 and no ID, and never run.
func TestIDRefused(t *testing.T) {
	ts := httptest.NewServer(hookflowHandler(testServer(), false, false))
	defer ts.Close()
	session := openSession(t, ts.URL, "2025-11-25")
	for _, id := range []string{`1.5`, `18446744073709551616`, `true`} {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
		status, raw := send(t, http.MethodPost, ts.URL, session, "2025-11-25", body, nil)
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if status != http.StatusBadRequest || json.Unmarshal(raw, &msg) != nil || msg.Error.Code != -32600 || msg.ID != nil {
			t.Errorf("id %s: %d %s, want 400, -32600 and no id", id, status, raw)
		}
	}
}
