package sessiongate_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

// BySession keys by the transport's session ID, else by the session
// itself: one key per session, the same on each of its requests, and none
// over stateless HTTP or without a session.
func TestBySession(t *testing.T) {
	a, b := new(mcp.ServerSession), new(mcp.ServerSession)
	keyA := sessiongate.BySession(&flows.Request{Session: a})
	if !strings.HasPrefix(keyA, "l:") || len(keyA) <= len("l:") {
		t.Fatalf("key of a local session = %q, want l:<key>", keyA)
	}
	tests := []struct {
		name string
		r    *flows.Request
		want func(string) bool
	}{
		{"transport ID", &flows.Request{SessionID: "abc", Session: a}, func(k string) bool { return k == "s:abc" }},
		{"same local session", &flows.Request{Session: a}, func(k string) bool { return k == keyA }},
		{"another local session", &flows.Request{Session: b}, func(k string) bool { return strings.HasPrefix(k, "l:") && k != keyA }},
		{"stateless HTTP", &flows.Request{Session: a, Header: http.Header{}}, func(k string) bool { return k == "" }},
		{"no session", &flows.Request{}, func(k string) bool { return k == "" }},
	}
	for _, tt := range tests {
		if got := sessiongate.BySession(tt.r); !tt.want(got) {
			t.Errorf("%s: BySession = %q", tt.name, got)
		}
	}
}
