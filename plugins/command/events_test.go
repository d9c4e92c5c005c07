package command_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// Each event's hooks read the fields the agents send, less those a server
// does not have, plus hookflow's own.
func TestInputFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dump := f.script("dump.py", python3+`i = json.load(sys.stdin)
json.dump(i, open(i["hook_event_name"] + ".json", "w"))
`)
	s := settings.Settings{}
	for _, e := range settings.Events() {
		s[e.String()] = []settings.Group{{Hooks: []settings.Hook{{Command: dump}}}}
	}
	cfg := f.config(s)
	cfg.ServerName = "files"
	srv := f.serve(cfg)
	ctx := context.Background()
	cs := srv.Session().Client()
	srv.Call(plugintest.ToolFail, echoHi)
	if r := srv.Call("delete", DeleteIn{Path: "/tmp/x"}); r.IsError() {
		t.Fatal(r.Text())
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"code": "x := 1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///notes"}); err != nil {
		t.Fatal(err)
	}
	common := []string{"cwd", "flow", "hook_event_name", "permission_mode", "request_id", "server", "session_id", "stage", "timestamp", "transcript_path"}
	agentValues := map[string]any{"transcript_path": "", "permission_mode": "default"}
	tests := []struct {
		event  string
		fields []string
		check  map[string]any
	}{
		{"PreToolUse", []string{"tool_input", "tool_name", "tool_use_id"}, map[string]any{"tool_name": "delete", "tool_input": map[string]any{"path": "/tmp/x"}, "flow": "tools:call-tool", "stage": "beforeExecute", "server": "files", "cwd": f.dir}},
		{"PostToolUse", []string{"tool_input", "tool_name", "tool_response", "tool_use_id"}, map[string]any{"tool_response": map[string]any{"content": []any{map[string]any{"type": "text", "text": "deleted /tmp/x force=false"}}}}},
		{"PostToolUseFailure", []string{"error", "is_interrupt", "tool_input", "tool_name", "tool_use_id"}, map[string]any{"tool_name": "fail", "error": "fail: hi", "is_interrupt": false, "stage": "onError"}},
		{"SessionStart", []string{"client", "source"}, map[string]any{"source": "startup", "flow": "session:initialize"}},
		{"UserPromptSubmit", []string{"prompt", "prompt_arguments", "prompt_name"}, map[string]any{"prompt": "/review x := 1", "prompt_name": "review", "prompt_arguments": map[string]any{"code": "x := 1"}}},
		{"PreReadResource", []string{"resource_uri"}, map[string]any{"resource_uri": "file:///notes"}},
		{"PostReadResource", []string{"resource_contents", "resource_uri"}, map[string]any{"resource_contents": []any{map[string]any{"uri": "file:///notes", "text": "secret notes"}}}},
	}
	sessions := map[string]bool{}
	toolUse := map[string]bool{}
	for _, tt := range tests {
		data, err := os.ReadFile(f.path(tt.event + ".json"))
		if err != nil {
			t.Errorf("%s: the hook did not run: %v", tt.event, err)
			continue
		}
		var in map[string]any
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatal(err)
		}
		want := slices.Sorted(slices.Values(append(slices.Clone(common), tt.fields...)))
		if got := slices.Sorted(maps.Keys(in)); !slices.Equal(got, want) {
			t.Errorf("%s: fields %v, want %v (every field the agents send)", tt.event, got, want)
		}
		maps.Copy(tt.check, agentValues)
		if ts, _ := in["timestamp"].(string); !validTime(ts) {
			t.Errorf("%s: timestamp %q is not an RFC 3339 time", tt.event, ts)
		}
		sid, _ := in["session_id"].(string)
		sessions[sid] = true
		if tt.event == "PreToolUse" || tt.event == "PostToolUse" {
			id, _ := in["tool_use_id"].(string)
			toolUse[id] = true
		}
		for k, v := range tt.check {
			g, _ := json.Marshal(in[k])
			w, _ := json.Marshal(v)
			if string(g) != string(w) {
				t.Errorf("%s: %s = %s, want %s", tt.event, k, g, w)
			}
		}
	}
	// One session over stdio: one stable ID, not a transport ID.
	if len(sessions) != 1 || sessions[""] {
		t.Errorf("session_id took %d values, want one stable ID for the session: %v", len(sessions), sessions)
	}
	// One call: its hooks before and after read the same tool_use_id.
	if len(toolUse) != 1 || toolUse[""] {
		t.Errorf("tool_use_id of one call's PreToolUse and PostToolUse: %v, want one", toolUse)
	}
}

func validTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// SessionStart context goes to the server's instructions; its exit 2 does
// not refuse the session, as for the agents.
func TestSessionStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	json := f.script("json.sh", bash+`echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Deploys are frozen today."}}'`)
	plain := f.script("plain.sh", bash+"echo 'Ask before deleting anything.'\n")
	refuse := f.script("refuse.sh", bash+"echo 'not today' >&2\nexit 2\n")
	s := f.serve(f.config(settings.Settings{"SessionStart": {{Hooks: []settings.Hook{{Command: json}, {Command: plain}, {Command: refuse}}}}}))
	got := s.Session().Client().InitializeResult().Instructions
	if got != "Deploys are frozen today.\n\nAsk before deleting anything." {
		t.Errorf("instructions %q", got)
	}
	if len(f.log.find("SessionStart hooks cannot block", "not today")) != 1 {
		t.Errorf("the SessionStart exit 2 was not logged: %q", f.log.recs)
	}
}

// UserPromptSubmit runs for prompts/get: it blocks a prompt or adds a
// message to it, selected by the prompt's name.
func TestUserPromptSubmit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctxHook := f.script("ctx.sh", bash+"echo 'Follow the style guide.'\n")
	block := f.script("block.sh", bash+"echo 'no reviews on Fridays' >&2\nexit 2\n")
	s := f.serve(f.config(settings.Settings{"UserPromptSubmit": {
		{Matcher: "review", Hooks: []settings.Hook{{Command: ctxHook}}},
		{Matcher: "audit", Hooks: []settings.Hook{{Command: block}}},
	}}))
	ctx := context.Background()
	res, err := s.Session().Client().GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"code": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Messages {
		got = append(got, m.Content.(*mcp.TextContent).Text)
	}
	if !slices.Equal(got, []string{"review x", "Follow the style guide."}) {
		t.Errorf("messages %q", got)
	}
	f2 := newFixture(t)
	s2 := f2.serve(f2.config(hooksFor("UserPromptSubmit", "rev.*", settings.Hook{Command: f2.script("block.sh", bash+"echo 'no reviews on Fridays' >&2\nexit 2\n")})))
	if _, err := s2.Session().Client().GetPrompt(ctx, &mcp.GetPromptParams{Name: "review"}); err == nil || !strings.Contains(err.Error(), "no reviews on Fridays") {
		t.Errorf("GetPrompt error %v", err)
	}
}

// Resource hooks block a read before it or withhold its contents after.
func TestResourceEvents(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"PreReadResource", "PostReadResource"} {
		t.Run(event, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := f.serve(f.config(hooksFor(event, `^file:///no`, settings.Hook{Command: f.script("dlp.sh", bash+"echo 'notes are private' >&2\nexit 2\n")})))
			_, err := s.Session().Client().ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///notes"})
			if err == nil || !strings.Contains(err.Error(), "notes are private") {
				t.Errorf("ReadResource error %v", err)
			}
		})
	}
}

// PostToolUseFailure runs when the tool ran and failed, not when a hook
// blocked the call before it ran.
func TestPostToolUseFailureOnlyForToolFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg := f.config(settings.Settings{
		"PreToolUse":         {{Matcher: "echo", Hooks: []settings.Hook{{Command: f.script("deny.sh", bash+"echo denied >&2\nexit 2\n")}}}},
		"PostToolUseFailure": {{Hooks: []settings.Hook{{Command: f.script("after.sh", bash+"echo 'after failure' >&2\nexit 2\n")}}}},
	})
	s := f.serve(cfg)
	if r := s.Call(plugintest.ToolEcho, echoHi); !slices.Equal(texts(r.Res), []string{"denied"}) {
		t.Errorf("blocked call: %q", texts(r.Res))
	}
	if r := s.Call(plugintest.ToolFail, echoHi); !slices.Equal(texts(r.Res), []string{"fail: hi", "after failure"}) {
		t.Errorf("failed call: %q", texts(r.Res))
	}
}

// Matchers select tools as the agents' do: plain names exactly (| between
// alternatives), anything else as an unanchored regular expression.
func TestMatchers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		matcher string
		agent   bool // tools named mcp__files__<tool>
		blocks  []string
	}{
		{matcher: "", blocks: []string{"echo", "fail", "delete"}},
		{matcher: "*", blocks: []string{"echo", "fail", "delete"}},
		{matcher: "echo", blocks: []string{"echo"}},
		{matcher: "ech", blocks: nil},
		{matcher: "Echo", blocks: nil},
		{matcher: "echo|delete", blocks: []string{"echo", "delete"}},
		{matcher: "e.*o", blocks: []string{"echo"}},
		{matcher: "^del", blocks: []string{"delete"}},
		{matcher: ".l", blocks: []string{"fail", "delete"}},
		{matcher: "mcp__files__.*", agent: true, blocks: []string{"echo", "fail", "delete"}},
		{matcher: "mcp__files__echo", agent: true, blocks: []string{"echo"}},
		{matcher: "mcp__files__.*", blocks: nil},
	}
	for _, tt := range tests {
		t.Run(tt.matcher, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			cfg := f.config(hooksFor("PreToolUse", tt.matcher, settings.Hook{Command: f.script("guard.sh", bash+"echo matched >&2\nexit 2\n")}))
			if tt.agent {
				cfg.ServerName, cfg.AgentToolNames = "files", true
			}
			s := f.serve(cfg)
			var blocked []string
			for _, tool := range []string{"echo", "fail", "delete"} {
				args := map[string]any{"text": "x"}
				if tool == "delete" {
					args = map[string]any{"path": "x"}
				}
				if r := s.Call(tool, args); r.IsError() && r.Text() == "matched" {
					blocked = append(blocked, tool)
				}
			}
			if !slices.Equal(blocked, tt.blocks) {
				t.Errorf("blocked %v, want %v", blocked, tt.blocks)
			}
		})
	}
}

// OLLM hooks run in order and each one's data is merged into the input of
// the next, whatever its protocol; data.tool_input rewrites the arguments.
func TestOLLMDataMerging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.script("classify.py", python3+`i = json.load(sys.stdin)
assert i["event"] == "before_tool", i
print(json.dumps({"continue": True, "data": {"risk": "high", "tool_input": {"path": "/sandbox" + i["data"]["tool_input"]["path"]}}}))
`)
	second := f.script("record.py", python3+`i = json.load(sys.stdin)
json.dump(i, open("seen.json", "w"))
`)
	third := f.script("gate.py", python3+`i = json.load(sys.stdin)
d = i["data"]
print(json.dumps({"continue": d["risk"] != "high" or d["tool_input"]["path"].startswith("/sandbox/"), "systemMessage": "risky call outside the sandbox"}))
`)
	s := f.serve(f.config(settings.Settings{"PreToolUse": {{Hooks: []settings.Hook{
		{Command: first, Protocol: settings.OLLM},
		{Command: second},
		{Command: third, Protocol: settings.OLLM},
	}}}}))
	r := s.Call("delete", DeleteIn{Path: "/etc/passwd"})
	if r.IsError() || r.Text() != "deleted /sandbox/etc/passwd force=false" {
		t.Fatalf("result %q", r.Text())
	}
	var seen map[string]any
	data, err := os.ReadFile(f.path("seen.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &seen); err != nil {
		t.Fatal(err)
	}
	if seen["risk"] != "high" || seen["tool_input"].(map[string]any)["path"] != "/sandbox/etc/passwd" {
		t.Errorf("the Claude hook between them saw %v", seen)
	}
}

// permissionDecision "ask" asks the user through elicitation when the
// client can; otherwise, or without a yes, the call is denied.
func TestAsk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		wantErr string
	}{
		{name: "no elicitation", wantErr: "this client cannot ask: it does not support elicitation; denied"},
		{name: "accept", handler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "Deleting is forever.") || !strings.Contains(req.Params.Message, `"path":"/data"`) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		}},
		{name: "decline", handler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}, wantErr: `Deleting is forever. (the user was asked and answered "decline"; denied)`},
	}
	for _, version := range []string{"", "2025-11-25"} {
		for _, tt := range tests {
			name := tt.name + " (latest protocol)"
			if version != "" {
				name = tt.name + " (" + version + ")"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				cs, runs := askServer(t, tt.handler, version)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete", Arguments: DeleteIn{Path: "/data"}})
				if err != nil {
					t.Fatal(err)
				}
				got := strings.Join(texts(res), "\n")
				if tt.wantErr == "" {
					if res.IsError || got != "deleted /data force=false" {
						t.Errorf("approved call: %q", got)
					}
					// The latest protocol asks with an input-required
					// result: the call, and the hook, run again.
					if want := map[string]int{"": 2, "2025-11-25": 1}[version]; runs() != want {
						t.Errorf("the hook ran %d times, want %d", runs(), want)
					}
					return
				}
				if !res.IsError || !strings.Contains(got, tt.wantErr) {
					t.Errorf("result %q, want isError with %q", got, tt.wantErr)
				}
			})
		}
	}
	// A client cannot answer a question it was not asked.
	t.Run("forged answer", func(t *testing.T) {
		t.Parallel()
		cs, _ := askServer(t, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}, "")
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete", Arguments: DeleteIn{Path: "/data"},
			InputResponses: mcp.InputResponseMap{"hookflow.command.ask": &mcp.ElicitResult{Action: "accept"}}, RequestState: "q.99999999999.forged"})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(texts(res), "\n"); !res.IsError || !strings.Contains(got, "does not match a question it asked for these arguments; denied") {
			t.Errorf("forged answer: %q", got)
		}
	})
}

// askServer serves a hook that asks before every delete, and connects a
// client with the elicitation handler (none when nil) on the protocol
// version (the latest when ""); runs counts the hook's runs.
func askServer(t *testing.T, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), version string) (cs *mcp.ClientSession, runs func() int) {
	f := newFixture(t)
	s := f.serve(f.config(hooksFor("PreToolUse", "delete", settings.Hook{Command: f.script("ask.sh",
		bash+`echo run >> runs
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Deleting is forever."}}'`)})))
	client := mcp.NewClient(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Server().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, func() int {
		data, _ := os.ReadFile(f.path("runs"))
		return strings.Count(string(data), "run")
	}
}
