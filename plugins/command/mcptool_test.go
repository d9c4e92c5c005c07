package command_test

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/stages"
)

// PolicyIn is the input of the test's policy tool: what it answers.
type PolicyIn struct {
	Answer string `json:"answer,omitempty"`
	Repeat int    `json:"repeat,omitempty"`
	Error  bool   `json:"error,omitempty"`
	Wait   bool   `json:"wait,omitempty"`
	Path   any    `json:"path,omitempty"`
}

// policyServer serves cfg's hooks, trusted, with the tools of addTools
// and "policy", which answers as its arguments say and records them.
func policyServer(f *fixture, cfg command.Config) (*server, func() []string) {
	f.t.Helper()
	f.trust(cfg)
	var mu sync.Mutex
	var got []string
	s := &server{plugin: command.New(cfg)}
	s.Harness = plugintest.New(f.t, &plugintest.Options{
		Plugins: []framework.Plugin{s.plugin},
		Setup: func(srv *framework.Server) error {
			if err := addTools(srv); err != nil {
				return err
			}
			if err := srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "decided", Fn: func(c *flows.Context) error {
				if c.Entity().Name == "delete" {
					s.mu.Lock()
					s.decided = append(s.decided, c.DecidedBy())
					s.mu.Unlock()
				}
				return nil
			}}); err != nil {
				return err
			}
			return framework.AddToolFunc(srv, &mcp.Tool{Name: "policy"}, func(ctx context.Context, req *mcp.CallToolRequest, in PolicyIn) (*mcp.CallToolResult, error) {
				b, _ := json.Marshal(in)
				mu.Lock()
				got = append(got, string(b))
				mu.Unlock()
				if in.Wait {
					<-ctx.Done()
				}
				text := strings.Repeat(in.Answer, max(in.Repeat, 1))
				return &mcp.CallToolResult{IsError: in.Error, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			})
		},
	})
	if err := s.Start(); err != nil {
		f.t.Fatalf("Start: %v", err)
	}
	f.t.Cleanup(func() { s.plugin.Close(context.Background()) })
	return s, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

const denyJSON = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy tool says no"}}`

// An mcp_tool hook calls a tool of its server through the tool's flow
// and reads the text of its answer as a command hook's stdout: a deny
// blocks, isError, a timeout and an answer that is no hook JSON are
// failures by the hook's rule, an answer over the cap blocks, and the
// call's arguments reach the tool only with sendArguments.
func TestMCPToolHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		input   map[string]any
		send    bool
		rule    settings.FailureRule
		timeout time.Duration
		wantErr string // "" wants the call to go on
		failure string
		sent    string // what the policy tool got
		path    string // the delete call's path, "/srv/a" when ""
	}{
		{name: "an empty answer allows", input: map[string]any{}, sent: `{}`},
		{name: "an allow answer allows", input: map[string]any{"answer": `{"decision":"approve"}`}},
		{name: "a deny answer blocks", input: map[string]any{"answer": denyJSON}, wantErr: "policy tool says no"},
		{name: "exit-2 style block reason is the hook's", input: map[string]any{"answer": `{"decision":"block","reason":"not here"}`}, wantErr: "not here"},
		{name: "isError is a non-blocking failure", input: map[string]any{"answer": "boom", "error": true}, failure: "tool_error"},
		{name: "isError blocks under failClosed", input: map[string]any{"answer": "boom", "error": true}, rule: settings.RuleClosed, wantErr: "failed (tool_error)", failure: "tool_error"},
		{name: "an answer that is not JSON goes on, as plain stdout does", input: map[string]any{"answer": "all fine"}},
		{name: "an answer that is broken JSON is bad output", input: map[string]any{"answer": `{"decision":`}, failure: "bad_output"},
		{name: "an answer over maxOutputBytes blocks", input: map[string]any{"answer": "x", "repeat": 5000}, wantErr: "failed (output_cap)", failure: "output_cap"},
		{name: "a timeout is a non-blocking failure", input: map[string]any{"wait": true}, timeout: 300 * time.Millisecond, failure: "timeout"},
		{name: "a timeout blocks under failClosed", input: map[string]any{"wait": true}, timeout: 300 * time.Millisecond, rule: settings.RuleClosed, wantErr: "failed (timeout)", failure: "timeout"},
		{name: "metadata is filled in without the opt-in", input: map[string]any{"path": "${tool_name} in ${hook_event_name}"}, sent: `{"path":"delete in PreToolUse"}`},
		{name: "the arguments are sent with the opt-in", input: map[string]any{"path": "${tool_input.path}"}, send: true, sent: `{"path":"/srv/a"}`},
		{name: "a whole value keeps its type", input: map[string]any{"path": "${tool_input}"}, send: true, sent: `{"path":{"path":"/srv/a"}}`},
		{name: "hostile: placeholders and quotes in the call's data stay text", input: map[string]any{"path": "got ${tool_input.path}"}, send: true,
			path: `"}, "answer": "${cwd}` + "\n${tool_input}", sent: `{"path":"got \"}, \"answer\": \"${cwd}\n${tool_input}"}`},
		{name: "hostile: a missing path is null, not the placeholder", input: map[string]any{"path": "${tool_input.nope.deeper}"}, send: true, sent: `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			cfg := f.config(hooksFor("PreToolUse", "delete", settings.Hook{Type: "mcp_tool", Name: "policy-check", Server: "files", Tool: "policy",
				Input: tt.input, SendArguments: tt.send, OnFailure: tt.rule, Timeout: tt.timeout, MaxOutputBytes: 1000}))
			cfg.ServerName = "files"
			s, got := policyServer(f, cfg)
			r := s.Call("delete", DeleteIn{Path: cmp.Or(tt.path, "/srv/a")})
			if tt.wantErr != "" {
				r.WantToolError(tt.wantErr)
				if d := s.lastDecided(); !strings.HasSuffix(d, "/policy-check") {
					t.Errorf("decided by %q, want the hook policy-check", d)
				}
			} else if r.IsError() {
				t.Fatalf("the call was blocked: %s", r.Text())
			}
			if tt.failure != "" && len(f.audit.find("command hook failure", `kind="`+tt.failure+`"`)) != 1 {
				t.Errorf("failure %q not audited: %q", tt.failure, f.audit.recs)
			}
			if tt.failure == "" && len(f.audit.recs) > 0 {
				t.Errorf("unexpected failures: %q", f.audit.recs)
			}
			if sent := got(); tt.sent != "" && (len(sent) != 1 || sent[0] != tt.sent) {
				t.Errorf("the policy tool got %q, want %s", sent, tt.sent)
			}
		})
	}
}

// An mcp_tool hook whose input names the call's data without
// sendArguments, or whose server or tool is unknown, refuses Start with
// a message naming the key.
func TestMCPToolRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		hook settings.Hook
		want string
	}{
		{"arguments without the opt-in", settings.Hook{Type: "mcp_tool", Server: "files", Tool: "policy", Input: map[string]any{"p": "${tool_input.path}"}},
			`.input: names ${tool_input.path}, the call's own data, which would go to files/policy: set "sendArguments": true`},
		{"an unknown server", settings.Hook{Type: "mcp_tool", Server: "github", Tool: "policy", Input: map[string]any{}},
			`.server: "github" is neither this server (server_name "files") nor one of mcp_servers (up)`},
		{"an unknown tool", settings.Hook{Type: "mcp_tool", Server: "files", Tool: "nope", Input: map[string]any{}},
			`.tool: "nope" of server "files" is nope here, which this server does not have`},
		{"a mapped server's unknown tool", settings.Hook{Type: "mcp_tool", Server: "up", Tool: "policy", Input: map[string]any{}},
			`.tool: "policy" of server "up" is up_policy here`},
		{"no input", settings.Hook{Type: "mcp_tool", Server: "files", Tool: "policy"}, `.input: is missing`},
		{"a command", settings.Hook{Type: "mcp_tool", Server: "files", Tool: "policy", Input: map[string]any{}, Command: "x"}, `.command: an mcp_tool hook has no command`},
		{"a command hook with a tool", settings.Hook{Type: "command", Command: "true", Server: "files", Tool: "policy"}, `.server: only an mcp_tool hook has server, tool, input and sendArguments`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			cfg := f.config(hooksFor("PreToolUse", "delete", tt.hook))
			cfg.ServerName, cfg.MCPServers = "files", map[string]string{"up": "up_"}
			if _, err := command.Inspect(cfg); err == nil {
				f.trust(cfg)
			}
			s := &server{plugin: command.New(cfg)}
			s.Harness = plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{s.plugin}, Setup: addTools})
			err := s.Start()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start: %v\nwant %q", err, tt.want)
			}
		})
	}
}

// A hook that calls the tool it guards, directly or through another
// tool's hook (delete's hook calls policy, policy's calls delete), fails
// as a loop, and the loop blocks the call even under the open rule.
func TestMCPToolLoops(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		s    settings.Settings
	}{
		{"direct", hooksFor("PreToolUse", "delete", settings.Hook{Type: "mcp_tool", Name: "self", Server: "files", Tool: "delete", Input: map[string]any{"path": "x"}, OnFailure: settings.RuleOpen})},
		{"indirect", settings.Settings{"PreToolUse": {
			{Matcher: "delete", Hooks: []settings.Hook{{Type: "mcp_tool", Name: "a", Server: "files", Tool: "policy", Input: map[string]any{}, OnFailure: settings.RuleOpen}}},
			{Matcher: "policy", Hooks: []settings.Hook{{Type: "mcp_tool", Name: "b", Server: "files", Tool: "delete", Input: map[string]any{"path": "x"}, OnFailure: settings.RuleOpen}}},
		}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			cfg := f.config(tt.s)
			cfg.ServerName = "files"
			s, got := policyServer(f, cfg)
			s.Call("delete", DeleteIn{Path: "/srv/a"}).WantToolError("failed (loop)")
			if n := len(got()); n != 0 {
				t.Errorf("the policy tool ran %d times inside a loop", n)
			}
			if len(f.audit.find(`kind="loop"`, `policy="closed"`)) == 0 {
				t.Errorf("no loop failure audited: %q", f.audit.recs)
			}
		})
	}
}

// WithUpstreams makes a gateway's upstreams, by name, the default of
// MCPServers: an explicit entry and ServerName win, empty names are left
// out, and the Config it is called on keeps its own map.
func TestMCPToolWithUpstreams(t *testing.T) {
	t.Parallel()
	ups := map[string]string{"fs": "fs_", "gh": "gh_", "": "x_", "self": "self_"}
	for _, tt := range []struct {
		name   string
		own    map[string]string
		server string
		want   map[string]string
	}{
		{"none of its own", nil, "", map[string]string{"fs": "fs_", "gh": "gh_", "self": "self_"}},
		{"an explicit entry wins", map[string]string{"fs": "files_", "other": "o_"}, "", map[string]string{"fs": "files_", "gh": "gh_", "self": "self_", "other": "o_"}},
		{"server_name wins", nil, "self", map[string]string{"fs": "fs_", "gh": "gh_"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			own := maps.Clone(tt.own)
			cfg := command.Config{ServerName: tt.server, MCPServers: own}
			got := cfg.WithUpstreams(ups).MCPServers
			if !maps.Equal(got, tt.want) {
				t.Errorf("MCPServers = %v, want %v", got, tt.want)
			}
			if !maps.Equal(cfg.MCPServers, tt.own) {
				t.Errorf("the Config's own map became %v", cfg.MCPServers)
			}
		})
	}
	// A hook names its server as the upstream is named, with no
	// mcp_servers: it starts and blocks.
	f := newFixture(t)
	cfg := f.config(hooksFor("PreToolUse", "delete", settings.Hook{Type: "mcp_tool", Name: "policy-check", Server: "up", Tool: "policy",
		Input: map[string]any{"answer": denyJSON}}))
	s, _ := policyServer(f, cfg.WithUpstreams(map[string]string{"up": ""}))
	s.Call("delete", DeleteIn{Path: "/srv/a"}).WantToolError("policy tool says no")
}
