package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/declared"
	"github.com/hookflow/hookflow/plugins/declared/agent"
	"github.com/hookflow/hookflow/plugins/declared/client"
)

// serverEnv makes the test binary serve testServer on stdio instead of
// running tests: the command-transport tests start it as the server.
const serverEnv = "HOOKFLOW_AGENT_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		if err := testServer(nil).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var testDecls = []declared.Declaration{
	{Event: declared.SessionStart, ContextTool: "recall", ContextToolArgs: json.RawMessage(`{"query":"{project_name}"}`), Priority: declared.Important},
	{Event: declared.SessionEnd, Context: "store what you learned", Priority: declared.Suggestion},
	{Event: declared.PreToolUse, Matcher: &declared.Matcher{ToolName: "Bash"}, Context: "Never push to main.", Priority: declared.Required},
	{Event: declared.PostToolUse, Matcher: &declared.Matcher{InputContains: "git commit"}, Context: "You committed in {project_name} ({session_id}).", Priority: declared.Suggestion},
	{Event: declared.PreRequest, Context: "Check the issue first.", Priority: declared.Suggestion},
	{Event: declared.PostRequest, Context: "Did you store what you learned?", Priority: declared.Suggestion},
}

type queryIn struct {
	Query string `json:"query"`
}

func testServer(t testing.TB) *framework.Server {
	srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "1"}, nil)
	recall := func(_ context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Last session in " + in.Query + ": fixed the build."}}}, nil
	}
	fail := func(err error) {
		if t != nil {
			t.Fatal(err)
		}
		panic(err)
	}
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "recall", Description: "recall"}, recall); err != nil {
		fail(err)
	}
	if err := srv.Use(declared.New(declared.Config{Declarations: testDecls})); err != nil {
		fail(err)
	}
	return srv
}

func httpServer(t *testing.T) string {
	h, err := testServer(t).HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

// The outputs for the stdin samples of agent_test.go.
var wantOutputs = map[agent.Agent]map[string]string{
	agent.Claude: {
		"SessionStart":     `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"[memory · important] Last session in shop: fixed the build."}}`,
		"UserPromptSubmit": `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"[memory · suggestion] Check the issue first."}}`,
		"PreToolUse":       `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"[memory · important] Never push to main."}}`,
		"PostToolUse":      `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"[memory · suggestion] You committed in shop (abc123)."}}`,
		"Stop":             `{"decision":"block","reason":"[memory · suggestion] Did you store what you learned?"}`,
	},
	agent.Codex: {
		"SessionStart":     `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"[memory · important] Last session in shop: fixed the build."}}`,
		"UserPromptSubmit": `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"[memory · suggestion] Check the issue first."}}`,
		"PreToolUse":       `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"[memory · important] Never push to main."}}`,
		"PostToolUse":      `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"[memory · suggestion] You committed in shop (019a)."}}`,
		"Stop":             `{"decision":"block","reason":"[memory · suggestion] Did you store what you learned?"}`,
	},
	agent.Gemini: {
		"SessionStart": `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"[memory · important] Last session in shop: fixed the build."}}`,
		"BeforeAgent":  `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"[memory · suggestion] Check the issue first."}}`,
		"AfterTool":    `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"[memory · suggestion] You committed in shop (g-77)."}}`,
		"AfterAgent":   `{"decision":"deny","reason":"[memory · suggestion] Did you store what you learned?"}`,
	},
}

// TestEmit feeds each agent's documented hook input for each event to
// Emit, against a server over HTTP, and checks the agent's output.
func TestEmit(t *testing.T) {
	url := httpServer(t)
	for a, inputs := range hookInputs {
		for hook, raw := range inputs {
			t.Run(a.String()+"/"+hook, func(t *testing.T) {
				var out bytes.Buffer
				var recs []string
				err := agent.Emit(context.Background(), agent.EmitConfig{Agent: a, Server: url, Audit: func(r client.Record) { recs = append(recs, r.String()) }},
					strings.NewReader(raw), &out)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := strings.TrimSpace(out.String()), wantOutputs[a][hook]; got != want {
					t.Errorf("output\n got %s\nwant %s\nrecords %q", got, want, recs)
				}
				if !json.Valid(out.Bytes()) {
					t.Errorf("output is not JSON: %s", out.String())
				}
			})
		}
	}
}

// TestEmitCommand: the server as a command, started and stopped by Emit.
func TestEmitCommand(t *testing.T) {
	t.Setenv(serverEnv, "1")
	server := agent.Quote(os.Args[0], "-test.run=^$")
	var out bytes.Buffer
	err := agent.Emit(context.Background(), agent.EmitConfig{Agent: agent.Claude, Server: server, Trust: client.FullyTrusted},
		strings.NewReader(hookInputs[agent.Claude]["PreToolUse"]), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"[memory · required] Never push to main."}}`
	if got := strings.TrimSpace(out.String()); got != want {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
}

func TestEmitNothingToSay(t *testing.T) {
	url := httpServer(t)
	tests := []struct {
		name   string
		a      agent.Agent
		server string
		input  string
	}{
		{"no declaration matches", agent.Claude, url,
			`{"session_id":"s","cwd":"/x","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{}}`},
		{"already continuing for a stop hook, no connection", agent.Claude, "http://127.0.0.1:1/unreachable",
			`{"session_id":"s","cwd":"/x","hook_event_name":"Stop","stop_hook_active":true}`},
		{"gemini, already retrying", agent.Gemini, "http://127.0.0.1:1/unreachable",
			`{"session_id":"s","cwd":"/x","hook_event_name":"AfterAgent","stop_hook_active":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := agent.Emit(context.Background(), agent.EmitConfig{Agent: tt.a, Server: tt.server}, strings.NewReader(tt.input), &out); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out.String()); got != "{}" {
				t.Errorf("output %s, want {}", got)
			}
		})
	}
}

func TestEmitErrors(t *testing.T) {
	url := httpServer(t)
	tests := []struct {
		name   string
		server string
		input  string
		err    string
	}{
		{"unreachable", "http://127.0.0.1:1/mcp", hookInputs[agent.Claude]["UserPromptSubmit"], "connecting to http://127.0.0.1:1/mcp"},
		{"bad command line", `go 'run`, hookInputs[agent.Claude]["UserPromptSubmit"], "--server: unterminated single quote"},
		{"event emit does not handle", url, `{"hook_event_name":"SessionEnd"}`, `claude hook event "SessionEnd" carries no declared event`},
		{"not JSON", url, `hello`, "the hook input is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := agent.Emit(context.Background(), agent.EmitConfig{Agent: agent.Claude, Server: tt.server}, strings.NewReader(tt.input), &out)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Emit = %v, want %q", err, tt.err)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q on error", out.String())
			}
		})
	}
}

func TestExport(t *testing.T) {
	url := httpServer(t)
	for _, tt := range []struct {
		a     agent.Agent
		hooks []string
	}{
		{agent.Claude, []string{"PostToolUse", "PreToolUse", "SessionStart", "Stop", "UserPromptSubmit"}},
		{agent.Codex, []string{"PostToolUse", "PreToolUse", "SessionStart", "Stop", "UserPromptSubmit"}},
		{agent.Gemini, []string{"AfterAgent", "AfterTool", "BeforeAgent", "SessionStart"}},
	} {
		t.Run(tt.a.String(), func(t *testing.T) {
			s, skipped, name, err := agent.Export(context.Background(), agent.ExportConfig{Agent: tt.a, Server: url, Command: "emit"})
			if err != nil {
				t.Fatal(err)
			}
			if name != "memory" {
				t.Errorf("name %q", name)
			}
			var hooks []string
			for h := range s.Hooks {
				hooks = append(hooks, h)
			}
			slices.Sort(hooks)
			if !slices.Equal(hooks, tt.hooks) {
				t.Errorf("hook events %v, want %v", hooks, tt.hooks)
			}
			// Negotiated: the server sends only what the agent can carry.
			if len(skipped) != 0 {
				t.Errorf("skipped %+v", skipped)
			}
			if tt.a == agent.Gemini && s.Hooks["SessionStart"][0].Hooks[0].Name != "hookflow-memory" {
				t.Errorf("gemini hook name %q", s.Hooks["SessionStart"][0].Hooks[0].Name)
			}
		})
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	if _, _, _, err := agent.Export(context.Background(), agent.ExportConfig{Agent: agent.Claude, Server: hs.URL}); err == nil || !strings.Contains(err.Error(), "declares no hooks") {
		t.Errorf("Export of a server without hooks = %v", err)
	}
}
