package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// wordy is one Go type behind several entities: each has its own
// instance (its word), and its embedded hooks are the type's.
type wordy struct{ word string }

type greetIn struct {
	Name string `json:"name"`
}
type greetOut struct {
	Text string `json:"text"`
}

func (g *wordy) Execute(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (greetOut, error) {
	return greetOut{Text: g.word + " " + in.Name}, nil
}

// Tag appends the instance's word: it shows which instance the hook got.
func (g *wordy) Tag(c flows.ToolCall[greetIn, greetOut]) error {
	if out, ok := c.Output(); ok {
		out.Text += " [" + g.word + "]"
		c.SetOutput(out)
	}
	return nil
}

func (g *wordy) Get(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: g.word}}}}, nil
}

// Shout upper-cases the prompt: the prompt flow's embedded hook of the type.
func (g *wordy) Shout(c flows.PromptGet) error {
	if r := c.Result(); r != nil {
		tc := r.Messages[0].Content.(*mcp.TextContent)
		tc.Text = strings.ToUpper(tc.Text)
	}
	return nil
}

func wordyTool(name, word string) framework.Tool[*wordy, greetIn, greetOut] {
	return framework.Tool[*wordy, greetIn, greetOut]{
		Tool:    &mcp.Tool{Name: name},
		New:     func() *wordy { return &wordy{word: word} },
		Execute: (*wordy).Execute,
		Hooks:   []framework.EntityHook[*wordy, flows.ToolCall[greetIn, greetOut]]{{Stage: stages.AfterExecute, Name: "Tag", Fn: (*wordy).Tag}},
	}
}

// Two tools of one Go type each pass their own instance to the type's
// embedded hooks; a tool replaced after Start passes its new instance; and
// the same type as a prompt keeps the prompt flow's hooks.
func TestEmbeddedHooksGetTheRunsInstance(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "inst", Version: "v1"}, nil)
	must(t, framework.AddTool(srv, wordyTool("hello", "hello")))
	must(t, framework.AddTool(srv, wordyTool("bonjour", "bonjour")))
	must(t, framework.AddPrompt(srv, framework.Prompt[*wordy]{
		Prompt: &mcp.Prompt{Name: "word"},
		New:    func() *wordy { return &wordy{word: "psst"} },
		Get:    (*wordy).Get,
		Hooks:  []framework.EntityHook[*wordy, flows.PromptGet]{{Stage: stages.AfterExecute, Name: "Shout", Fn: (*wordy).Shout}},
	}))
	cs := inMemory("")(t, srv, nil)
	ctx := context.Background()
	call := func(name string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"name": "Ada"}})
		if err != nil {
			t.Fatal(err)
		}
		return textOf(t, res)
	}
	if got := call("hello"); got != `{"text":"hello Ada [hello]"}` {
		t.Errorf("hello: %s", got)
	}
	if got := call("bonjour"); got != `{"text":"bonjour Ada [bonjour]"}` {
		t.Errorf("bonjour: %s", got)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "word"})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "PSST" {
		t.Errorf("prompt of the same type: %+v, %v; want its own embedded hook to run", pr, err)
	}

	// Replaced after Start: execute and hooks both see the new instance.
	must(t, framework.AddTool(srv, wordyTool("hello", "hi")))
	if got := call("hello"); got != `{"text":"hi Ada [hi]"}` {
		t.Errorf("replaced hello: %s", got)
	}
}

// A second entity of a type must declare the type's hooks as the first did:
// other hooks are an error, not silently dropped.
func TestEmbeddedHooksDeclaredTwiceDifferently(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "inst", Version: "v1"}, nil)
	must(t, framework.AddTool(srv, wordyTool("hello", "hello")))
	other := wordyTool("bonjour", "bonjour")
	other.Hooks = nil
	must(t, framework.AddTool(srv, other))
	err := srv.Start()
	if err == nil || !strings.Contains(err.Error(), "one Go type has one set of hooks") {
		t.Fatalf("Start() = %v, want the conflicting hooks reported", err)
	}
}

// An external hook typed for one tool's input and output is refused where
// it covers a tool of other types, before or after Start.
func TestTypedHookThatDoesNotFit(t *testing.T) {
	wrong := flows.On(stages.BeforeExecute, func(flows.ToolCall[greetOut, greetIn]) error { return nil }).Named("wrong")

	srv := framework.NewServer(&mcp.Implementation{Name: "fit", Version: "v1"}, nil)
	must(t, framework.AddTool(srv, wordyTool("hello", "hello")))
	must(t, srv.Hook(wrong))
	if err := srv.Start(); err == nil || !strings.Contains(err.Error(), `hook "wrong" takes flows.ToolCall[framework_test.greetOut, framework_test.greetIn], but tool "hello" has input framework_test.greetIn`) {
		t.Fatalf("Start() = %v", err)
	}

	srv = framework.NewServer(&mcp.Implementation{Name: "fit", Version: "v1"}, nil)
	must(t, framework.AddTool(srv, wordyTool("hello", "hello")))
	must(t, srv.Start())
	if err := srv.Hook(wrong); err == nil || flows.CodeOf(err) != flows.CodeInvalid {
		t.Fatalf("Hook after Start = %v, want CodeInvalid", err)
	}
	if n := len(srv.Scope().Hooks()); n != 1 { // the Tag embedded hook only
		t.Errorf("%d hooks registered, want the refused one gone", n)
	}
	right := flows.On(stages.BeforeExecute, func(flows.ToolCall[greetIn, greetOut]) error { return nil }).Named("right")
	must(t, srv.Hook(right))
}

// Arguments match field names exactly, as the SDK's typed tools do: a key
// that differs only in case is an unknown property, not the field.
func TestArgumentsAreCaseSensitive(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "case", Version: "v1"}, nil)
	type in struct {
		Region string `json:"region,omitempty"`
		Extra  map[string]any
	}
	must(t, framework.AddToolFunc(srv, &mcp.Tool{Name: "where", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, _ *mcp.CallToolRequest, in in) (greetOut, error) {
			return greetOut{Text: "region=" + in.Region}, nil
		}))
	cs := inMemory("")(t, srv, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "where", Arguments: map[string]any{"REGION": "eu"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != `{"text":"region="}` {
		t.Errorf("REGION filled Region: %s", got)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A hook's early answer is checked against the tool's output schema like
// an executed output: a conforming structuredContent or JSON text is sent
// (with the structuredContent a strict client requires); an answer that
// cannot satisfy the schema fails naming the hook; an error answer is sent
// as it is. onError recoveries are checked too.
func TestEarlyAnswersMeetTheOutputSchema(t *testing.T) {
	answers := map[string]*mcp.CallToolResult{
		"text":       {Content: []mcp.Content{&mcp.TextContent{Text: "plain words"}}},
		"json-text":  {Content: []mcp.Content{&mcp.TextContent{Text: `{"text":"from json"}`}}},
		"structured": {Content: []mcp.Content{&mcp.TextContent{Text: "s"}}, StructuredContent: map[string]any{"text": "structured"}},
		"wrong":      {Content: []mcp.Content{&mcp.TextContent{Text: "w"}}, StructuredContent: map[string]any{"text": 3}},
		"error":      {Content: []mcp.Content{&mcp.TextContent{Text: "nope"}}, IsError: true},
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "early", Version: "v1"}, nil)
	must(t, framework.AddTool(srv, wordyTool("hello", "hello")))
	must(t, srv.Hook(
		flows.On(stages.BeforeExecute, func(c flows.ToolCall[greetIn, greetOut]) error {
			if a := answers[c.Input().Name]; a != nil {
				c.RespondResult(a)
			}
			return nil
		}).Named("answer"),
		flows.On(stages.OnError, func(c flows.ToolCall[greetIn, greetOut]) error {
			if string(c.Arguments()) == `{"name":"fail"}` {
				c.RespondResult(answers["text"])
			}
			return nil
		}).Named("recover"),
		flows.On(stages.BeforeValidation, func(c flows.ToolCall[greetIn, greetOut]) error {
			if string(c.Args()) == `{"name":"fail"}` {
				return errors.New("failing on purpose")
			}
			return nil
		}).Named("fail"),
	))
	cs := inMemory("")(t, srv, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		name, structured, protocolErr string
		isError                       bool
	}{
		{name: "json-text", structured: `{"text":"from json"}`},
		{name: "structured", structured: `{"text":"structured"}`},
		{name: "text", protocolErr: `tool "hello": the answer of hook "early/tools:call-tool/beforeExecute/answer": the tool has an output schema`},
		{name: "wrong", protocolErr: `validating structuredContent`},
		{name: "error", isError: true},
		{name: "fail", protocolErr: `the answer of hook "early/tools:call-tool/onError/recover"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"name": tt.name}})
			if tt.protocolErr != "" {
				wantProtocolError(t, err, -32603, tt.protocolErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError {
				t.Fatalf("isError = %v", res.IsError)
			}
			if tt.structured != "" {
				b, _ := json.Marshal(res.StructuredContent)
				if string(b) != tt.structured {
					t.Errorf("structuredContent = %s, want %s", b, tt.structured)
				}
			}
		})
	}
}

// A tool call that outlives its timeout fails with an isError result that
// says so; hooks see a *TimeoutError; the per-tool bound overrides the
// server's.
func TestToolTimeout(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "slow", Version: "v1"}, &framework.Options{ToolTimeout: 20 * time.Millisecond})
	block := func(ctx context.Context, _ *mcp.CallToolRequest, _ greetIn) (greetOut, error) {
		<-ctx.Done()
		return greetOut{}, ctx.Err()
	}
	must(t, framework.AddToolFunc(srv, &mcp.Tool{Name: "slow"}, block))
	must(t, framework.AddTool(srv, framework.Tool[struct{}, greetIn, greetOut]{
		Tool: &mcp.Tool{Name: "quick"}, Timeout: 5 * time.Millisecond,
		Execute: func(_ struct{}, ctx context.Context, req *mcp.CallToolRequest, in greetIn) (greetOut, error) {
			return block(ctx, req, in)
		},
	}))
	var sawTimeout atomic.Int32
	must(t, srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "see", Fn: func(c *flows.Context) error {
		var te *framework.TimeoutError
		if errors.As(c.Err(), &te) && errors.Is(c.Err(), context.DeadlineExceeded) {
			sawTimeout.Add(1)
		}
		return nil
	}}))
	cs := inMemory("")(t, srv, nil)
	for name, want := range map[string]string{"slow": `tool "slow" timed out after 20ms`, "quick": `tool "quick" timed out after 5ms`} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"name": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || textOf(t, res) != want {
			t.Errorf("%s: isError %v %q, want %q", name, res.IsError, textOf(t, res), want)
		}
	}
	if n := sawTimeout.Load(); n != 2 {
		t.Errorf("finally saw a *TimeoutError %d times, want 2", n)
	}
}
