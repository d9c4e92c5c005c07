package console_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/console"
)

// The secrets of secretArgs, each a value no other field holds.
var secrets = []string{
	"pw-db-0001", "key-api-0002", "hdr-key-0003", "cs-0004", "bearer-0005", "cookie-0006",
	"pk-0007", "cred-0008", "nested-pw-0009", "tok-0010", "prompt-key-0011",
}

// secretArgs are a call's arguments with secrets in every spelling and at
// every depth, beside fields that only look like secrets.
func secretArgs() map[string]any {
	return map[string]any{
		"db_password": "pw-db-0001",
		"config":      map[string]any{"apiKey": "key-api-0002", "max_tokens": 4096, "author": "ada-lovelace"},
		"headers":     map[string]any{"X-Api-Key": "hdr-key-0003", "Authorization": "bearer-0005", "Cookie": "cookie-0006"},
		"oauth":       map[string]any{"clientSecret": "cs-0004", "access_token": "tok-0010", "token_count": 77},
		"keys":        []any{map[string]any{"private_key": "pk-0007", "credential": "cred-0008"}},
		"users":       []any{map[string]any{"name": "grace", "Password": "nested-pw-0009"}},
		"passage":     "the-visible-passage",
		"keyboard":    "qwerty-layout",
	}
}

// The values of the fields that stay visible.
var visibleValues = []string{"4096", "ada-lovelace", "77", "the-visible-passage", "qwerty-layout", "grace"}

// With default settings (no redact list), a call whose nested arguments
// hold secrets, over HTTP, shows none of them on the console's pages or
// in the audit file, and shows the fields that only look like secrets.
func TestDefaultRedaction(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.jsonl")
	aud := audit.New(audit.Config{File: audit.File{Path: file}})
	con := console.New(console.Config{Token: token})
	t.Cleanup(func() { _ = con.Close(context.Background()) })
	srv := plugintest.NewServer(t, &plugintest.ServerOptions{Setup: addSecretEntities, Plugins: []framework.Plugin{aud, con}})
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	mcpTS := httptest.NewServer(h)
	t.Cleanup(mcpTS.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: mcpTS.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "configure", Arguments: secretArgs()}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"api_key": "prompt-key-0011", "author": "ada-lovelace"}}); err != nil {
		t.Fatal(err)
	}
	ts := plugintest.NewHTTPServer(t, con.Handler())
	list := waitFor(t, ts, "/console/", "greet")
	var pages strings.Builder
	pages.WriteString(list)
	for _, link := range runLinks(list) {
		code, body := get(t, ts, link)
		if code != 200 {
			t.Fatalf("GET %s: %d", link, code)
		}
		pages.WriteString(body)
	}
	if err := aud.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	trail, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"the console's pages": pages.String(), "the audit file": string(trail)} {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s show the secret %q", name, s)
			}
		}
		for _, v := range visibleValues {
			if !strings.Contains(text, v) {
				t.Errorf("%s do not show the visible value %q", name, v)
			}
		}
	}
}

// runLinks returns the run pages the list links to.
func runLinks(list string) []string {
	var links []string
	for rest := list; ; {
		i := strings.Index(rest, `href="/console/runs/`)
		if i < 0 {
			return links
		}
		rest = rest[i+len(`href="`):]
		links = append(links, rest[:strings.IndexByte(rest, '"')])
	}
}

// addSecretEntities adds the tool "configure", taking any object, and the
// prompt "greet".
func addSecretEntities(srv *framework.Server) error {
	tool := func(context.Context, *mcp.CallToolRequest, map[string]any) (plugintest.Text, error) {
		return plugintest.Text{Text: "configured"}, nil
	}
	prompt := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}, nil
	}
	return errors.Join(
		framework.AddToolFunc(srv, &mcp.Tool{Name: "configure", Description: "configures"}, tool),
		framework.AddPromptFunc(srv, &mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "api_key"}, {Name: "author"}}}, prompt),
	)
}
