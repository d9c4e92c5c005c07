package command_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// An http hook POSTs the event's JSON and reads the response as a command
// hook's stdout, with the same failure rules; its headers get only the
// variables it lists, and it follows no redirect to another host and no
// certificate it cannot verify.
func TestHTTPHooks(t *testing.T) {
	t.Setenv("HOOKFLOW_TEST_TOKEN", "s3cret")
	t.Setenv("HOOKFLOW_TEST_OTHER", "leaked")
	var mu sync.Mutex
	var got struct {
		auth, other string
		body        map[string]any
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"decision":"approve"}`))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		mu.Lock()
		got.auth, got.other = r.Header.Get("Authorization"), r.Header.Get("X-Other")
		_ = json.Unmarshal(data, &got.body)
		mu.Unlock()
		switch r.URL.Path {
		case "/deny":
			w.Write([]byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}`))
		case "/empty":
		case "/down":
			http.Error(w, "down", http.StatusBadGateway)
		case "/text":
			w.Write([]byte("all good"))
		case "/big":
			w.Write([]byte(`{"reason":"` + strings.Repeat("x", 5000) + `"}`))
		case "/away":
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
		case "/slow":
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer tlsSrv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	gone := closed.URL
	closed.Close()

	tests := []struct {
		name    string
		url     string
		rule    settings.FailureRule
		wantErr string // "" wants the call to go on
		failure string
		audited string // what the audit record says of the cause, besides the kind
	}{
		{name: "a deny blocks", url: srv.URL + "/deny", wantErr: "policy says no"},
		{name: "an empty 2xx lets the call go on", url: srv.URL + "/empty"},
		{name: "a non-2xx status is a non-blocking failure", url: srv.URL + "/down", failure: "http_status"},
		{name: "a non-2xx status blocks under failClosed", url: srv.URL + "/down", rule: settings.RuleClosed, wantErr: "failed (http_status): answered 502 Bad Gateway", failure: "http_status"},
		{name: "a body that is not JSON is bad output", url: srv.URL + "/text", failure: "bad_output"},
		{name: "a body over the cap blocks", url: srv.URL + "/big", wantErr: "failed (output_cap)", failure: "output_cap"},
		{name: "a redirect to another host is not followed", url: srv.URL + "/away", rule: settings.RuleClosed, wantErr: "failed (start): its server could not be reached", failure: "start", audited: "another host than the hook's URL: not followed"},
		{name: "an unverified certificate is refused", url: tlsSrv.URL + "/", rule: settings.RuleClosed, wantErr: "failed (start): its server could not be reached", failure: "start", audited: "certificate"},
		{name: "a server that is not there blocks under failClosed", url: gone + "/deny", rule: settings.RuleClosed, wantErr: "failed (start): its server could not be reached", failure: "start", audited: "connection refused"},
		{name: "a timeout is a non-blocking failure", url: srv.URL + "/slow", failure: "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			settingsFile := f.path("settings.json")
			// Only /slow runs into the timeout, whatever the machine's load.
			timeout := 30.0
			if strings.HasSuffix(tt.url, "/slow") {
				timeout = 0.3
			}
			hook := map[string]any{"type": "http", "url": tt.url, "timeout": timeout, "maxOutputBytes": 1000, "onFailure": tt.rule.String(),
				"headers":        map[string]string{"Authorization": "Bearer ${HOOKFLOW_TEST_TOKEN}", "X-Other": "[$HOOKFLOW_TEST_OTHER]"},
				"allowedEnvVars": []string{"HOOKFLOW_TEST_TOKEN"}}
			if tt.rule == settings.RuleDefault {
				delete(hook, "onFailure")
			}
			body, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{hook}}}}})
			if err := os.WriteFile(settingsFile, body, 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := f.config(nil)
			cfg.SettingsFile = settingsFile
			s := f.serve(cfg)
			r := s.Call(plugintest.ToolEcho, echoHi)
			if tt.wantErr != "" {
				r.WantToolError(tt.wantErr)
				// The client never reads where the hook's server is.
				for _, u := range []string{srv.URL, tlsSrv.URL, other.URL, gone} {
					if host := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"); strings.Contains(r.Text(), host) {
						t.Errorf("the client reads the hook's server %s: %s", host, r.Text())
					}
				}
			} else if r.IsError() {
				t.Fatalf("the call was blocked: %s", r.Text())
			}
			if tt.failure != "" && len(f.audit.find("command hook failure", `kind="`+tt.failure+`"`, tt.audited)) != 1 {
				t.Errorf("failure %q (%q) not audited: %q", tt.failure, tt.audited, f.audit.recs)
			}
			if tt.url == srv.URL+"/deny" {
				mu.Lock()
				defer mu.Unlock()
				if got.auth != "Bearer s3cret" || got.other != "[]" {
					t.Errorf("headers Authorization %q, X-Other %q: want the allowed variable only", got.auth, got.other)
				}
				if got.body["tool_name"] != "echo" || got.body["hook_event_name"] != "PreToolUse" {
					t.Errorf("the hook got %v", got.body)
				}
			}
		})
	}
}

// An http hook's definition is what the trust store vouches for: another
// URL is untrusted again.
func TestHTTPHookTrust(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Type: "http", URL: "https://hooks.example/check"}))
	f.trust(cfg)
	cfg.Settings = hooksFor("PreToolUse", "", settings.Hook{Type: "http", URL: "https://hooks.example/other"})
	infos, err := command.Inspect(cfg)
	if err != nil || len(infos) != 1 || infos[0].Trust != trust.Untrusted {
		t.Fatalf("Inspect: %v, %+v", err, infos)
	}
}

// An untrusted hook given in Go that is no script (an http or prompt
// hook, a shell line) cannot be trusted with "hookflow hooks trust
// -script": the refusal says how to trust it from Go instead.
func TestUntrustedGoHookMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		hook settings.Hook
	}{
		{"http", settings.Hook{Type: "http", URL: "https://hooks.example/check"}},
		{"prompt", settings.Hook{Type: "prompt", Prompt: "Judge: $ARGUMENTS"}},
		{"shell line", settings.Hook{Name: "line", Command: "cat | cat", Shell: "bash"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			err := startErr(t, f.config(hooksFor("PreToolUse", "", tt.hook)))
			if err == nil || strings.Contains(err.Error(), "-script") || !strings.Contains(err.Error(), "Store.Trust") {
				t.Errorf("Start: %v, want how to trust the hook from Go, and no -script", err)
			}
		})
	}
}

// A header value names variables as $NAME and ${NAME}; only the listed
// ones are filled in, and what names no variable stays as written. A
// hostile value, megabytes of a ${ that nothing closes, is expanded in
// linear time: the hook answers within its timeout.
func TestHTTPHookHeaders(t *testing.T) {
	t.Setenv("HOOKFLOW_TEST_TOKEN", "s3cret")
	t.Setenv("HOOKFLOW_TEST_OTHER", "leaked")
	hostile := strings.Repeat("${", 1<<20)
	tests := []struct{ value, want string }{
		{"plain", "plain"},
		{"Bearer $HOOKFLOW_TEST_TOKEN", "Bearer s3cret"},
		{"${HOOKFLOW_TEST_TOKEN}B", "s3cretB"},
		{"$HOOKFLOW_TEST_TOKEN-x", "s3cret-x"},
		{"a$HOOKFLOW_TEST_TOKENb", "a"},
		{"[$HOOKFLOW_TEST_OTHER]", "[]"},
		{"[${HOOKFLOW_TEST_OTHER}]", "[]"},
		{"[$HOOKFLOW_TEST_UNSET]", "[]"},
		{"[${HOOKFLOW TEST}]", "[]"},
		{"[${{HOOKFLOW_TEST_TOKEN}}]", "[}]"},
		{"$", "$"},
		{"cost$", "cost$"},
		{"a $ b", "a $ b"},
		{"a$-b$*", "a$-b$*"},
		{"a${}b", "a${}b"},
		{"a$1b", "a$1b"},
		{"a${1}b", "a$1b"},
		{"pa$$word", "pa$$word"},
		{"$$HOOKFLOW_TEST_TOKEN", "$$HOOKFLOW_TEST_TOKEN"},
		{"a${HOOKFLOW_TEST_TOKEN", "a${HOOKFLOW_TEST_TOKEN"},
		{"$${HOOKFLOW_TEST_TOKEN", "$${HOOKFLOW_TEST_TOKEN"},
		{"[${x}] ${HOOKFLOW_TEST_TOKEN $HOOKFLOW_TEST_TOKEN {", "[] ${HOOKFLOW_TEST_TOKEN s3cret {"},
		{hostile + "$HOOKFLOW_TEST_TOKEN", hostile + "s3cret"},
	}
	var mu sync.Mutex
	var got http.Header
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
	}))
	srv.Config.MaxHeaderBytes = 8 << 20
	srv.Start()
	defer srv.Close()
	headers := map[string]string{}
	for i, tt := range tests {
		headers[fmt.Sprintf("X-Case-%d", i)] = tt.value
	}
	f := newFixture(t)
	cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Type: "http", URL: srv.URL, Headers: headers,
		AllowedEnvVars: []string{"HOOKFLOW_TEST_TOKEN", "HOOKFLOW_TEST_UNSET"}, OnFailure: settings.RuleClosed}))
	if r := f.serve(cfg).Call(plugintest.ToolEcho, echoHi); r.IsError() {
		t.Fatalf("the call was blocked: %.200s", r.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	for i, tt := range tests {
		if v := got.Values(fmt.Sprintf("X-Case-%d", i)); len(v) != 1 || v[0] != tt.want {
			t.Errorf("header %.40q: sent %.40q, want %.40q", tt.value, v, tt.want)
		}
	}
}
