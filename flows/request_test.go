package flows_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/flows"
)

// TestRequestCaller checks Principal and ClientID, which read the verified
// token's user ID and its Extra["client_id"].
func TestRequestCaller(t *testing.T) {
	for _, tt := range []struct {
		name                string
		r                   *flows.Request
		principal, clientID string
	}{
		{name: "nil request", r: nil},
		{name: "no token", r: &flows.Request{}},
		{name: "user ID only", r: &flows.Request{TokenInfo: &auth.TokenInfo{UserID: "alice"}}, principal: "alice"},
		{name: "client ID", r: &flows.Request{TokenInfo: &auth.TokenInfo{UserID: "alice", Extra: map[string]any{"client_id": "app"}}}, principal: "alice", clientID: "app"},
		{name: "client ID not a string", r: &flows.Request{TokenInfo: &auth.TokenInfo{UserID: "alice", Extra: map[string]any{"client_id": 7}}}, principal: "alice"},
	} {
		if p, c := tt.r.Principal(), tt.r.ClientID(); p != tt.principal || c != tt.clientID {
			t.Errorf("%s: principal %q, client ID %q; want %q, %q", tt.name, p, c, tt.principal, tt.clientID)
		}
	}
}
