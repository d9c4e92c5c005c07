package auth_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/stages"
)

const (
	noTokenDeploy = `isError: permission denied: tool "deploy" requires an access token with scope "deploy:write"; this request has none`
	noTokenNotes  = `isError: permission denied: tool "read_notes" requires an access token with scope "notes:read"; this request has none`
	noTokenAdmin  = `isError: permission denied: tool "admin" requires an access token with scopes "audit:read", "admin"; this request has none`
)

// TestInMemory: without a token, the policy decides.
func TestInMemory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   auth.Policy
		conceal  bool
		visible  []string
		outcomes map[string]string
	}{
		{
			name: "deny scoped (default)", policy: auth.DenyScoped,
			visible: []string{"public"},
			outcomes: map[string]string{
				"public": "ok", "read_notes": noTokenNotes, "deploy": noTokenDeploy, "admin": noTokenAdmin,
			},
		},
		{
			name: "deny scoped, concealed", policy: auth.DenyScoped, conceal: true,
			visible: []string{"public"},
			outcomes: map[string]string{
				"public":     "ok",
				"read_notes": `protocol -32602: unknown tool "read_notes"`,
				"deploy":     `protocol -32602: unknown tool "deploy"`,
				"admin":      `protocol -32602: unknown tool "admin"`,
			},
		},
		{
			name: "allow all", policy: auth.AllowAll,
			visible:  []string{"admin", "deploy", "public", "read_notes"},
			outcomes: map[string]string{"public": "ok", "read_notes": "ok", "deploy": "ok", "admin": "ok"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Unauthenticated = tc.policy
			cfg.Conceal = tc.conceal
			srv, _ := newServer(t, cfg, nil)
			cs := connectMemory(t, srv)
			if got := listNames(t, cs); !slices.Equal(got, tc.visible) {
				t.Errorf("tools/list = %v, want %v", got, tc.visible)
			}
			for _, name := range toolNames {
				if got := outcome(cs, name); got != tc.outcomes[name] {
					t.Errorf("call %s:\n got %s\nwant %s", name, got, tc.outcomes[name])
				}
			}
		})
	}
}

// TestHTTPInBand: over HTTP with the 403 challenge off, refusals are
// isError results naming the missing scopes, as over stdio; tools/list
// shows what the token may call.
func TestHTTPInBand(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		srv, p := newServer(t, baseConfig(), nil) // in-band is the default (issue 9 item 22)
		ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: stateless})
		for _, tc := range []struct {
			token    string
			visible  []string
			outcomes map[string]string
		}{
			{
				token:   tokNotes,
				visible: []string{"public", "read_notes"},
				outcomes: map[string]string{
					"public": "ok", "read_notes": "ok",
					"deploy": `isError: permission denied: the caller's access token lacks scope "deploy:write", required by tool "deploy"`,
					"admin":  `isError: permission denied: the caller's access token lacks scopes "audit:read", "admin", required by tool "admin"`,
				},
			},
			{
				token:   tokAdmin,
				visible: []string{"public"},
				outcomes: map[string]string{
					"public":     "ok",
					"read_notes": `isError: permission denied: the caller's access token lacks scope "notes:read", required by tool "read_notes"`,
					"deploy":     `isError: permission denied: the caller's access token lacks scope "deploy:write", required by tool "deploy"`,
					"admin":      `isError: permission denied: the caller's access token lacks scope "audit:read", required by tool "admin"`,
				},
			},
			{
				token:    tokDeploy,
				visible:  []string{"deploy", "public", "read_notes"},
				outcomes: map[string]string{"public": "ok", "read_notes": "ok", "deploy": "ok", "admin": `isError: permission denied: the caller's access token lacks scopes "audit:read", "admin", required by tool "admin"`},
			},
			{
				token:    tokAll,
				visible:  []string{"admin", "deploy", "public", "read_notes"},
				outcomes: map[string]string{"public": "ok", "read_notes": "ok", "deploy": "ok", "admin": "ok"},
			},
		} {
			name := tc.token[:strings.LastIndex(tc.token, "-")]
			if stateless {
				name += "/stateless"
			}
			t.Run(name, func(t *testing.T) {
				cs := connectHTTP(t, ts, tc.token)
				if got := listNames(t, cs); !slices.Equal(got, tc.visible) {
					t.Errorf("tools/list = %v, want %v", got, tc.visible)
				}
				for _, name := range toolNames {
					if got := outcome(cs, name); got != tc.outcomes[name] {
						t.Errorf("call %s:\n got %s\nwant %s", name, got, tc.outcomes[name])
					}
				}
			})
		}
	}
}

// TestHTTPChallengeOverClient: with the 403 challenge on (the default), the
// SDK client (v1.8.0) reports a call error carrying the JSON-RPC error's
// message (as a transport error: the client does not hand back the
// *jsonrpc.Error of an HTTP error response), and its session survives.
func TestHTTPChallengeOverClient(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		srv, p := newServer(t, challenging(), nil)
		ts := serveHTTP(t, srv, p, &mcp.StreamableHTTPOptions{Stateless: stateless})
		cs := connectHTTP(t, ts, tokNotes)
		want := `permission denied: the caller's access token lacks scope "deploy:write", required by tool "deploy"`
		if got := outcome(cs, "deploy"); !strings.HasPrefix(got, "transport error: ") || !strings.Contains(got, want) {
			t.Errorf("stateless=%v: call deploy:\n got %s\nwant %s", stateless, got, want)
		}
		// The session is still usable.
		if got := outcome(cs, "read_notes"); got != "ok" {
			t.Errorf("stateless=%v: after a 403, call read_notes = %s", stateless, got)
		}
		if got := outcome(cs, "nope"); got != `protocol -32602: unknown tool "nope"` {
			t.Errorf("stateless=%v: unknown tool = %s", stateless, got)
		}
	}
}

// TestHookOrder: the auth hook runs before other beforeValidation hooks, so
// they never see a refused call; hooks after it see the ScopeError.
func TestHookOrder(t *testing.T) {
	srv, _ := newServer(t, baseConfig(), nil)
	var saw []string
	var blockedBy string
	var scopeErr *auth.ScopeError
	err := srv.Hook(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Priority: 100, Name: "other", Fn: func(c *flows.Context) error {
			saw = append(saw, c.Entity().Name)
			return nil
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "audit", Fn: func(c *flows.Context) error {
			if c.Err() != nil {
				blockedBy = c.DecidedBy()
				errors.As(c.Err(), &scopeErr)
			}
			return nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, srv)
	outcome(cs, "public")
	outcome(cs, "deploy")
	if !slices.Equal(saw, []string{"public"}) {
		t.Errorf("a lower-priority hook saw %v, want only [public]", saw)
	}
	if !strings.HasSuffix(blockedBy, "/plugin:auth/tools:call-tool/beforeValidation/scopes") {
		t.Errorf("DecidedBy = %q, want the auth plugin's scopes hook", blockedBy)
	}
	if scopeErr == nil || scopeErr.Tool != "deploy" || !slices.Equal(scopeErr.Missing, []string{"deploy:write"}) || scopeErr.Authenticated {
		t.Errorf("ScopeError = %+v", scopeErr)
	}
}

// TestApp: attached to an app, the plugin guards that app's tools only and
// hides only them.
func TestApp(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "apps", Version: "1"}, nil)
	addTools(t, srv) // server-level tools: not guarded
	app, err := srv.App("secure")
	if err != nil {
		t.Fatal(err)
	}
	err = framework.AddToolFunc(app, &mcp.Tool{Name: "vault", Description: "v"}, func(context.Context, *mcp.CallToolRequest, empty) (out, error) {
		return out{Tool: "vault"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p := auth.New(auth.Config{ToolScopes: map[string][]string{"vault": {"vault:open"}}})
	if err := app.Use(p); err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, srv)
	if got, want := listNames(t, cs), []string{"admin", "deploy", "public", "read_notes"}; !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
	for _, name := range toolNames {
		if got := outcome(cs, name); got != "ok" {
			t.Errorf("server tool %s (not guarded by the app's plugin) = %s", name, got)
		}
	}
	want := `isError: permission denied: tool "vault" requires an access token with scope "vault:open"; this request has none`
	if got := outcome(cs, "vault"); got != want {
		t.Errorf("vault = %s, want %s", got, want)
	}
	if got := p.RequiredScopes("vault"); !slices.Equal(got, []string{"vault:open"}) {
		t.Errorf("RequiredScopes(vault) = %v", got)
	}
	if got := p.RequiredScopes("read_notes"); got != nil {
		t.Errorf("RequiredScopes(read_notes) outside the app = %v, want nil", got)
	}
}

func TestRequiredScopes(t *testing.T) {
	srv, p := newServer(t, baseConfig(), nil)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		want []string
	}{
		{"public", nil},
		{"read_notes", []string{"notes:read"}},
		{"deploy", []string{"deploy:write"}},
		{"admin", []string{"audit:read", "admin"}},
		{"missing", nil},
	} {
		if got := p.RequiredScopes(tc.tool); !slices.Equal(got, tc.want) {
			t.Errorf("RequiredScopes(%q) = %v, want %v", tc.tool, got, tc.want)
		}
	}
}

// TestBadConfig: a bad configuration stops Start with an error naming the
// plugin and the field.
func TestBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  auth.Config
		want []string
	}{
		{"scope with space", auth.Config{Scopes: []string{"a b"}}, []string{`scopes[0]: scope "a b"`}},
		{"empty scope", auth.Config{ToolScopes: map[string][]string{"deploy": {""}}}, []string{`tool_scopes.deploy[0]: a scope is empty`}},
		{"empty tool name", auth.Config{ToolScopes: map[string][]string{"": {"x"}}}, []string{"tool_scopes: a tool name is empty"}},
		{"quote in scope", auth.Config{ToolScopes: map[string][]string{"deploy": {"ok", `a"b`}}}, []string{`tool_scopes.deploy[1]`}},
		{"relative metadata URL", auth.Config{ResourceMetadataURL: "/.well-known/x"}, []string{"resource_metadata_url: want an absolute http or https URL"}},
		{"quote in metadata URL", auth.Config{ResourceMetadataURL: `https://mcp.example.com/a"b`}, []string{"resource_metadata_url", "percent-encode"}},
		{"backslash in metadata URL", auth.Config{ResourceMetadataURL: `https://mcp.example.com/a\b`}, []string{"resource_metadata_url", "percent-encode"}},
		{"bad supported scope", auth.Config{ScopesSupported: []string{"ok", "a b"}}, []string{`scopes_supported[1]: scope "a b"`}},
		{"negative skew", auth.Config{ClockSkew: -1}, []string{"clock_skew: must not be negative"}},
		{"unknown policy", auth.Config{Unauthenticated: 7}, []string{"Config.Unauthenticated: unknown policy 7"}},
		{"two errors", auth.Config{ClockSkew: -1, Unauthenticated: 7}, []string{"clock_skew", "Unauthenticated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := framework.NewServer(&mcp.Implementation{Name: "bad", Version: "1"}, nil)
			addTools(t, srv)
			if err := srv.Use(auth.New(tc.cfg)); err != nil {
				t.Fatal(err)
			}
			err := srv.Start()
			if err == nil {
				t.Fatal("Start succeeded")
			}
			for _, want := range append([]string{`plugin "auth"`}, tc.want...) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestHandlerChecks: Handler refuses what cannot work over HTTP.
func TestHandlerChecks(t *testing.T) {
	t.Run("no verifier", func(t *testing.T) {
		srv, p := newServer(t, auth.Config{}, nil)
		if _, err := p.Handler(srv, nil); err == nil || !strings.Contains(err.Error(), "Verifier: required") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("unknown tool in ToolScopes", func(t *testing.T) {
		cfg := baseConfig()
		cfg.ToolScopes["deplyo"] = []string{"x"}
		srv, p := newServer(t, cfg, nil)
		if _, err := p.Handler(srv, nil); err == nil || !strings.Contains(err.Error(), `tool_scopes.deplyo: the server has no tool "deplyo"`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("not attached", func(t *testing.T) {
		srv := framework.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil)
		p := auth.New(baseConfig())
		if _, err := p.Handler(srv, nil); err == nil || !strings.Contains(err.Error(), "not attached") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("attached twice", func(t *testing.T) {
		p := auth.New(baseConfig())
		a := framework.NewServer(&mcp.Implementation{Name: "a", Version: "1"}, nil)
		b := framework.NewServer(&mcp.Implementation{Name: "b", Version: "1"}, nil)
		_ = a.Use(p)
		_ = b.Use(p)
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		if err := b.Start(); err == nil || !strings.Contains(err.Error(), "already attached") {
			t.Errorf("second Start: %v", err)
		}
	})
}

func TestPolicyString(t *testing.T) {
	for p, want := range map[auth.Policy]string{auth.DenyScoped: "DenyScoped", auth.AllowAll: "AllowAll", 9: "Policy(9)"} {
		if got := p.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(p), got, want)
		}
	}
}
