package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/audit"
)

// With -token, an OAuth client can discover the server: a request without
// a token gets 401 naming the resource metadata, and the metadata itself is
// served without a token.
func TestTokenServerIsDiscoverable(t *testing.T) {
	const base = "http://quickstart.test"
	q, err := newServer(nil, slog.New(slog.DiscardHandler), audit.Config{Handler: slog.DiscardHandler}, staticToken("s3cret"), base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAudit(q.audit) })
	h, err := q.httpHandler(base)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)

	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+base+metadataPath+`"`) {
		t.Errorf("no token: status %d, WWW-Authenticate %q; want 401 naming %s", resp.StatusCode, challenge, base+metadataPath)
	}

	resp, err = http.Get(ts.URL + metadataPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md struct {
		Resource string   `json:"resource"`
		Scopes   []string `json:"scopes_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s without a token: status %d, %v", metadataPath, resp.StatusCode, err)
	}
	if md.Resource != base || len(md.Scopes) != 1 || md.Scopes[0] != "weather.admin" {
		t.Errorf("metadata %+v, want resource %s with scope weather.admin", md, base)
	}
}
