package audit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
)

// The audit plugin plugs into the auth plugin as it is: auth knows
// nothing of audit, and audit nothing of auth.
var _ auth.Auditor = (*audit.Plugin)(nil)

// A call the auth plugin's HTTP scope challenge refuses never reaches the
// server; the audit plugin records it from the flows.Refusal auth hands
// it, as the same JSON event it always was: blocked, decided by the
// challenge, with the caller's principal, client and session and the
// arguments redacted.
func TestRefusalEvent(t *testing.T) {
	var out lines
	a := newAudit(t, &out, audit.Config{Redact: []string{"password"}, Flows: []flows.ID{flows.ToolsCallTool}})
	srv := framework.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	err := framework.AddToolFunc(srv, &mcp.Tool{Name: "deploy"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (map[string]any, error) {
		t.Error("the refused call reached the tool")
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	verify := func(context.Context, string, *http.Request) (*sdkauth.TokenInfo, error) {
		return &sdkauth.TokenInfo{UserID: "ada", Scopes: []string{"read"}, Expiration: time.Now().Add(time.Hour),
			Extra: map[string]any{"client_id": "app-1"}}, nil
	}
	ap := auth.New(auth.Config{Verifier: verify, ScopeChallenge: true, Audit: a, ResourceMetadataURL: "http://x/meta",
		ToolScopes: map[string][]string{"deploy": {"admin"}}})
	if err := srv.Use(a, ap); err != nil {
		t.Fatal(err)
	}
	h, err := ap.Handler(srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	post := func(session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	opened := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	session := opened.Header.Get("Mcp-Session-Id")
	if opened.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q", opened.StatusCode, session)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp := post(session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"prod","password":"hunter2"}}}`)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	flush(t, a)
	var ev map[string]any
	if err := json.Unmarshal([]byte(out.String()), &ev); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if id, _ := ev["request_id"].(string); !strings.HasPrefix(id, "auth-") || !strings.HasSuffix(id, "-1") {
		t.Errorf("request_id %q, want the challenge's own", id)
	}
	if _, ok := ev["time"].(string); !ok {
		t.Errorf("no time: %v", ev)
	}
	delete(ev, "time")
	delete(ev, "request_id")
	got, _ := json.Marshal(ev)
	want := `{"args":{"env":"prod","password":"[REDACTED]"},"client_id":"app-1",` +
		`"decided_by":"shop/plugin:auth/http:scope-challenge","duration":0,"entity":"deploy",` +
		`"error":"permission denied: the caller's access token lacks scope \"admin\", required by tool \"deploy\"","flow":"tools:call-tool","level":"INFO","msg":"audit",` +
		`"outcome":"blocked","principal":"ada","session_id":"` + session + `"}`
	if string(got) != want {
		t.Errorf("event\n got %s\nwant %s", got, want)
	}
}
