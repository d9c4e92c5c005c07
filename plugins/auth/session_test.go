package auth_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/auth"
)

// serve sends one JSON-RPC message through h, in process, and returns the
// status and the session ID the response names.
func serve(h http.Handler, session, body string) (int, string) {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+tokNotes)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Mcp-Session-Id")
}

// Handler(srv, nil) frees a session its client abandoned once it has been
// idle for DefaultSessionTimeout (in a synctest bubble: no real waiting).
func TestAbandonedSessionsAreFreed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, p := newServer(t, baseConfig(), nil)
		h, err := p.Handler(srv, nil)
		if err != nil {
			t.Fatal(err)
		}
		status, sid := serve(h, "", initBody)
		if status != http.StatusOK || sid == "" {
			t.Fatalf("initialize: status %d, session %q", status, sid)
		}
		ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		if status, _ := serve(h, sid, ping); status != http.StatusOK {
			t.Fatalf("ping on a live session: status %d", status)
		}
		time.Sleep(auth.DefaultSessionTimeout + time.Minute)
		synctest.Wait()
		if status, _ := serve(h, sid, ping); status != http.StatusNotFound {
			t.Errorf("ping after %v idle: status %d, want 404 (session freed)", auth.DefaultSessionTimeout+time.Minute, status)
		}
	})
}

// Handler warns about configurations that leave a gap: no resource
// metadata for OAuth clients, or 403 refusals nobody audits.
func TestHandlerWarns(t *testing.T) {
	const noMetadata = "Config.ResourceMetadataURL is not set"
	const unaudited = "Config.ScopeChallenge is on without Config.Audit"
	for _, tc := range []struct {
		name   string
		mutate func(*auth.Config)
		want   []string
		not    []string
	}{
		{"complete", func(*auth.Config) {}, nil, []string{noMetadata, unaudited}},
		{"no metadata", func(c *auth.Config) { c.ResourceMetadataURL = "" }, []string{noMetadata}, []string{unaudited}},
		{"challenge without audit", func(c *auth.Config) { c.ScopeChallenge = true }, []string{unaudited}, []string{noMetadata}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &plugintest.Buffer{}
			cfg := baseConfig()
			tc.mutate(&cfg)
			srv, p := newServer(t, cfg, logs)
			if _, err := p.Handler(srv, nil); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("logs lack %q:\n%s", w, logs.String())
				}
			}
			for _, w := range tc.not {
				if strings.Contains(logs.String(), w) {
					t.Errorf("logs have %q:\n%s", w, logs.String())
				}
			}
		})
	}
}
