package command_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

// A prompt hook asks the client's own model through MCP sampling, with
// the event's JSON and the decision schema, and reads its answer
// strictly; a malformed answer follows the hook's failure rule, and a
// client without sampling cannot get past it.
func TestPromptHooks(t *testing.T) {
	t.Parallel()
	answer := func(text string) func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			msg := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			if !strings.Contains(msg, `Judge this delete: {`) || !strings.Contains(msg, `"path":"/data"`) ||
				!strings.Contains(req.Params.SystemPrompt, `{"ok": false, "reason"`) {
				return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: `{"ok": false, "reason": "the question was wrong"}`}}, nil
			}
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: text}}, nil
		}
	}
	tests := []struct {
		name    string
		handler func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
		rule    settings.FailureRule
		wantErr string
		failure string
	}{
		{name: "ok false blocks", handler: answer(`{"ok": false, "reason": "deleting /data is too risky"}`), wantErr: `deleting /data is too risky (prompt hook "judge")`},
		{name: "ok true lets the call go on", handler: answer(`{"ok": true}`)},
		{name: "a malformed answer is a non-blocking failure", handler: answer("```json\n{\"ok\": false}\n```"), failure: "bad_output"},
		{name: "a malformed answer blocks under failClosed", handler: answer(`{"ok": false}`), rule: settings.RuleClosed,
			wantErr: `the model's answer blocks without a "reason"`, failure: "bad_output"},
		{name: "an unknown field is malformed", handler: answer(`{"ok": true, "confidence": 0.2}`), rule: settings.RuleClosed,
			wantErr: `unknown field "confidence"`, failure: "bad_output"},
		{name: "a client without sampling is blocked", wantErr: "the client does not offer sampling", failure: "no_sampling"},
	}
	for _, version := range []string{"", "2025-11-25"} {
		for _, tt := range tests {
			t.Run(tt.name+" ("+cmpOr(version, "latest")+")", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t)
				s := f.serve(f.config(hooksFor("PreToolUse", "delete", settings.Hook{Type: "prompt", Name: "judge", OnFailure: tt.rule,
					Prompt: "Judge this delete: $ARGUMENTS", Model: "small"})))
				client := mcp.NewClient(&mcp.Implementation{Name: "sampler", Version: "1"}, &mcp.ClientOptions{CreateMessageHandler: tt.handler})
				ct, st := mcp.NewInMemoryTransports()
				if _, err := s.Server().Connect(context.Background(), st, nil); err != nil {
					t.Fatal(err)
				}
				cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete", Arguments: DeleteIn{Path: "/data"}})
				if err != nil {
					t.Fatal(err)
				}
				got := strings.Join(texts(res), "\n")
				if tt.wantErr == "" {
					if res.IsError || got != "deleted /data force=false" {
						t.Errorf("result %q, want the call to go on", got)
					}
				} else if !res.IsError || !strings.Contains(got, tt.wantErr) {
					t.Errorf("result %q, want isError with %q", got, tt.wantErr)
				}
				if tt.failure != "" && len(f.audit.find("command hook failure", `kind="`+tt.failure+`"`)) != 1 {
					t.Errorf("failure %q not audited: %q", tt.failure, f.audit.recs)
				}
				// Only a session without sampling is warned of, naming its client.
				warned := len(f.log.find("this client does not offer sampling, so the prompt hooks judge cannot ask its model", `client="sampler"`))
				if want := btoi(tt.handler == nil); warned != want {
					t.Errorf("%d warnings naming the client, want %d: %q", warned, want, f.log.recs)
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// A client cannot answer a question a prompt hook did not ask, and a
// settings file's prompt hook is read with its keys.
func TestPromptHookForgedAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	settingsFile := f.path("settings.json")
	body := `{"hooks": {"PreToolUse": [{"matcher": "delete", "hooks": [{"type": "prompt", "name": "judge", "prompt": "Judge: $ARGUMENTS", "model": "small", "timeout": 30}]}]}}`
	if err := os.WriteFile(settingsFile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.SettingsFile = settingsFile
	s := f.serve(cfg)
	if hooks := s.plugin.Hooks(); len(hooks) != 1 || hooks[0].Name != "judge" || hooks[0].Command != "prompt: Judge: $ARGUMENTS" {
		t.Fatalf("hooks %+v", hooks)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "forger", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: `{"ok": false, "reason": "no"}`}}, nil
		}})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Server().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete", Arguments: DeleteIn{Path: "/data"},
		InputResponses: mcp.InputResponseMap{"hookflow.command.judge": &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: `{"ok": true}`}}},
		RequestState:   "s.99999999999.forged"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(texts(res), "\n"); !res.IsError || !strings.Contains(got, `does not match a question it asked for these arguments; denied`) {
		t.Errorf("forged answer: %q", got)
	}
}

// A prompt hook cannot run at SessionStart: the client cannot be asked
// before its session is initialized. The file says so at the hook.
func TestPromptHookAtSessionStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	settingsFile := f.path("settings.json")
	body := `{"hooks": {"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "Greet"}]}]}}`
	if err := os.WriteFile(settingsFile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.SettingsFile = settingsFile
	_, err := command.Inspect(cfg)
	if err == nil || !strings.Contains(err.Error(), `:1:49: hooks.SessionStart[0].hooks[0].type: a prompt hook cannot run at SessionStart`) {
		t.Errorf("got %v", err)
	}
}

// A prompt hook's rate limit counts its questions, whichever way the
// client is asked.
func TestPromptHookRateLimit(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-11-25"} {
		t.Run(cmpOr(version, "latest"), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := f.serve(f.config(hooksFor("PreToolUse", "delete", settings.Hook{Type: "prompt", Name: "judge",
				RateLimit: settings.RateLimit{Calls: 1, Per: time.Hour}, Prompt: "Judge: $ARGUMENTS"})))
			client := mcp.NewClient(&mcp.Implementation{Name: "sampler", Version: "1"}, &mcp.ClientOptions{
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: `{"ok": true}`}}, nil
				}})
			ct, st := mcp.NewInMemoryTransports()
			if _, err := s.Server().Connect(context.Background(), st, nil); err != nil {
				t.Fatal(err)
			}
			cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for i, want := range []string{"deleted /a force=false", `failed (rate_limit): over its rate limit of 1 runs per 1h0m0s`} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete", Arguments: DeleteIn{Path: "/a"}})
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(texts(res), "\n"); !strings.Contains(got, want) || res.IsError != (i == 1) {
					t.Errorf("call %d: %q, want %q", i+1, got, want)
				}
			}
		})
	}
}

// Each prompt hook has its own trust-store key, also when several are
// unnamed in one event or in two files: trusting all of them leaves each
// trusted, none reading another's trust as "changed".
func TestPromptHookTrustKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	body := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "Refuse deletes: $ARGUMENTS"}, {"type": "prompt", "prompt": "Refuse writes: $ARGUMENTS"}]}]}}`
	other := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "Refuse reads: $ARGUMENTS"}]}]}}`
	for name, text := range map[string]string{"a.json": body, "b.json": other} {
		if err := os.WriteFile(f.path(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := f.config(nil)
	cfg.Logger = nil
	cfg.Imports = []command.Import{{File: f.path("a.json"), Dir: f.dir}, {File: f.path("b.json"), Dir: f.dir}}
	f.trust(cfg)
	infos, err := command.Inspect(cfg)
	if err != nil || len(infos) != 3 {
		t.Fatalf("Inspect: %+v, %v", infos, err)
	}
	keys := map[string]bool{}
	for _, h := range infos {
		if h.Trust != trust.Trusted {
			t.Errorf("%s (%s) is %s after trusting every hook", h.Name, h.Identity.Script, h.Trust)
		}
		keys[h.Identity.Script] = true
	}
	if len(keys) != 3 {
		t.Errorf("trust-store keys %v, want 3", keys)
	}
}

// A client of a protocol with initialize reads the warning of a session
// without sampling when it sets its log level, as the SDK sends no log
// message before; a client that samples reads none.
func TestPromptHookNoSamplingNotice(t *testing.T) {
	t.Parallel()
	for _, sampling := range []bool{false, true} {
		t.Run(fmt.Sprintf("sampling=%v", sampling), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := f.serve(f.config(hooksFor("PreToolUse", "delete", settings.Hook{Type: "prompt", Name: "judge", Prompt: "Judge: $ARGUMENTS"})))
			logs := make(chan string, 4)
			opts := &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
				logs <- fmt.Sprint(req.Params.Data)
			}}
			if sampling {
				opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: `{"ok": true}`}}, nil
				}
			}
			ct, st := mcp.NewInMemoryTransports()
			if _, err := s.Server().Connect(context.Background(), st, nil); err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "sampler", Version: "1"}, opts).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
				t.Fatal(err)
			}
			// A ping after the level: its answer comes after any log
			// message the level's hooks sent, on the same session.
			if err := cs.Ping(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if !sampling {
				select {
				case got := <-logs:
					if !strings.Contains(got, "this client does not offer sampling, so the prompt hooks judge cannot ask its model") {
						t.Errorf("client log message %q, want the one naming the prompt hook", got)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("no client log message after the client set its level")
				}
			}
			if len(logs) > 0 {
				t.Errorf("another client log message: %q", <-logs)
			}
		})
	}
}

// Unnamed hooks have names that tell them apart in logs, audit records and
// the console: a derived name that hooks of other events share gets the
// event, and its position among the event's hooks of that name.
func TestUnnamedHooksToldApart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	settingsFile := f.path("settings.json")
	body := `{"hooks": {
		"PreToolUse": [{"matcher": "delete", "hooks": [{"type": "prompt", "prompt": "Judge: $ARGUMENTS"}, {"type": "prompt", "prompt": "Judge again: $ARGUMENTS"}]}],
		"PostToolUse": [{"matcher": "delete", "hooks": [{"type": "prompt", "prompt": "Review: $ARGUMENTS"}, {"type": "http", "url": "http://127.0.0.1:1/hook"}]}]
	}}`
	if err := os.WriteFile(settingsFile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := f.config(nil)
	cfg.SettingsFile = settingsFile
	s := f.serve(cfg)
	var got []string
	for _, h := range s.plugin.Hooks() {
		got = append(got, h.Name)
	}
	slices.Sort(got)
	want := []string{"http", "prompt.PostToolUse", "prompt.PreToolUse", "prompt.PreToolUse-2"}
	if !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
}
