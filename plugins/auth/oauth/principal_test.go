package oauth_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// TestPrincipalBudgets checks that the rate-limit plugin's per-principal
// budgets are keyed on the verified token's subject: a user's sessions
// share one budget, other users have their own, and the audit events name
// each caller.
func TestPrincipalBudgets(t *testing.T) {
	as := authServer.Get(t)
	rl := ratelimit.New(ratelimit.Config{PerPrincipal: ratelimit.Limit{Burst: 2, Rate: 1e-9}})
	w := serveWeather(t, as, nil, rl)
	alice := as.AuthorizationCode(t, w.url, "alice", readScope)
	bob := as.AuthorizationCode(t, w.url, "bob", readScope)
	connect := func(token string) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: w.url, HTTPClient: plugintest.BearerClient(token, nil), DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			return "refused"
		}
		return "ok"
	}
	alice1, alice2, bob1 := connect(alice), connect(alice), connect(bob)
	var got []string
	for _, cs := range []*mcp.ClientSession{alice1, alice2, alice1, bob1, bob1, bob1} {
		got = append(got, call(cs))
	}
	if want := "ok ok refused ok ok refused"; strings.Join(got, " ") != want {
		t.Errorf("calls: %s, want %s: alice's two sessions share her budget of 2, bob has his own", strings.Join(got, " "), want)
	}
	var principals []string
	for _, ev := range w.auditEvents(t) {
		principals = append(principals, ev.Principal+"/"+ev.ClientID)
	}
	if want := "alice/mcp-app alice/mcp-app alice/mcp-app bob/mcp-app bob/mcp-app bob/mcp-app"; strings.Join(principals, " ") != want {
		t.Errorf("audited callers %s, want %s", strings.Join(principals, " "), want)
	}
}
