package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

type shoutIn struct {
	Text string `json:"text"`
}

type shoutOut struct {
	Text string `json:"text"`
}

// shout is a tool type with embedded hooks on every main stage.
type shout struct {
	suffix   string
	executes atomic.Int32
	rec      *recorder
}

func (s *shout) Execute(ctx context.Context, req *mcp.CallToolRequest, in shoutIn) (shoutOut, error) {
	s.executes.Add(1)
	return shoutOut{Text: strings.ToUpper(in.Text)}, nil
}

type shoutCall = flows.ToolCall[shoutIn, shoutOut]

// Legacy rewrites the raw arguments of old clients ({"say": …}) before
// validation sees them.
func (s *shout) Legacy(c shoutCall) error {
	if c.Input() != nil {
		return errors.New("beforeValidation saw typed input")
	}
	var legacy struct {
		Say *string `json:"say"`
	}
	if err := json.Unmarshal(c.Args(), &legacy); err == nil && legacy.Say != nil {
		raw, _ := json.Marshal(shoutIn{Text: *legacy.Say})
		c.SetArgs(raw)
		s.rec.add("legacy rewritten")
	}
	return nil
}

// Trim rewrites the typed input.
func (s *shout) Trim(c shoutCall) error {
	if c.Args() != nil {
		return errors.New("afterValidation still saw raw arguments")
	}
	c.Input().Text = strings.TrimSpace(c.Input().Text)
	return nil
}

// Cache answers "cached" without running the tool.
func (s *shout) Cache(c shoutCall) error {
	if c.Input().Text == "cached" {
		c.Respond(shoutOut{Text: "from cache"})
	}
	return nil
}

// Suffix rewrites the typed output, whoever produced it.
func (s *shout) Suffix(c shoutCall) error {
	if c.Result() != nil {
		return nil // a whole result: nothing typed to rewrite
	}
	out, ok := c.Output()
	if !ok {
		return errors.New("afterExecute has no typed output")
	}
	out.Text += s.suffix
	c.SetOutput(out)
	return nil
}

func TestEmbeddedHooksAreTyped(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	var inst *shout
	srv := framework.NewServer(&mcp.Implementation{Name: "embedded", Version: "1"}, nil)
	addEntities(t, srv)
	err := errors.Join(
		framework.AddTool(srv, framework.Tool[*shout, shoutIn, shoutOut]{
			Tool: &mcp.Tool{Name: "shout"},
			New: func() *shout {
				inst = &shout{suffix: "!", rec: rec}
				return inst
			},
			Execute: (*shout).Execute,
			Hooks: []framework.EntityHook[*shout, shoutCall]{
				{Stage: stages.BeforeValidation, Name: "Legacy", Fn: (*shout).Legacy},
				{Stage: stages.AfterValidation, Name: "Trim", Fn: (*shout).Trim},
				{Stage: stages.BeforeExecute, Name: "Cache", Fn: (*shout).Cache},
				{Stage: stages.AfterExecute, Name: "Suffix", Fn: (*shout).Suffix},
			},
		}),
		// An external hook that answers with a whole result, as a plugin
		// that does not know the tool's types would.
		srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Priority: 10, Name: "maintenance", Fn: func(c *flows.Context) error {
			if in := flows.As[flows.ToolCall[shoutIn, shoutOut]](c).Input(); in != nil && in.Text == "maintenance" {
				// The tool has an output schema: the answer's JSON text
				// becomes its structuredContent, checked like an output.
				flows.As[flows.ToolCall[shoutIn, shoutOut]](c).RespondResult(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"text":"down for maintenance"}`}}})
			}
			return nil
		}}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)

	cases := []struct {
		name     string
		args     any
		want     string
		executed bool
		rec      []string
	}{
		{"typed input and output rewritten", map[string]any{"text": "  hi  "}, `{"text":"HI!"}`, true, nil},
		{"raw arguments rewritten", map[string]any{"say": "yo"}, `{"text":"YO!"}`, true, []string{"legacy rewritten"}},
		{"answered early, output still rewritten", map[string]any{"text": " cached "}, `{"text":"from cache!"}`, false, nil},
		{"whole result from an external hook", map[string]any{"text": "maintenance"}, `{"text":"down for maintenance"}`, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := inst.executes.Load()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shout", Arguments: c.args})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, res); got != c.want {
				t.Errorf("result = %q (isError %v), want %q", got, res.IsError, c.want)
			}
			if ran := inst.executes.Load() > before; ran != c.executed {
				t.Errorf("tool executed = %v, want %v", ran, c.executed)
			}
			if got := rec.take(); !equal(got, c.rec) {
				t.Errorf("recorded %v, want %v", got, c.rec)
			}
		})
	}

	// Embedded hooks belong to their type: the echo tool is untouched.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": " cached "}})
	if err != nil || textOf(t, res) != `{"echo":" cached "}` {
		t.Fatalf("echo: res=%+v err=%v", res, err)
	}
}

// TestEmbeddedHooksOfOtherFlows checks the typed views of resources and
// prompts: a resource hook answers early, a prompt hook rewrites arguments.
func TestEmbeddedHooksOfOtherFlows(t *testing.T) {
	ctx := context.Background()
	srv := framework.NewServer(&mcp.Implementation{Name: "embedded", Version: "1"}, nil)
	type doc struct{}
	type prompt struct{}
	err := errors.Join(
		framework.AddResource(srv, framework.Resource[doc]{
			Template: &mcp.ResourceTemplate{URITemplate: "docs://{name}", Name: "docs"},
			Read: func(_ doc, ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "read " + req.Params.URI}}}, nil
			},
			Hooks: []framework.EntityHook[doc, flows.ResourceRead]{
				{Stage: stages.BeforeExecute, Name: "Alias", Fn: func(_ doc, c flows.ResourceRead) error {
					if c.URI() == "docs://latest" {
						p := *c.Params()
						p.URI = "docs://v2"
						c.SetInput(&p)
					}
					return nil
				}},
				{Stage: stages.BeforeExecute, Name: "Gone", Fn: func(_ doc, c flows.ResourceRead) error {
					if c.URI() == "docs://old" {
						c.Respond(&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: c.URI(), Text: "gone"}}})
					}
					return nil
				}},
			},
		}),
		framework.AddPrompt(srv, framework.Prompt[prompt]{
			Prompt: &mcp.Prompt{Name: "hello", Arguments: []*mcp.PromptArgument{{Name: "name"}}},
			Get: func(_ prompt, ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["name"]}}}}, nil
			},
			Hooks: []framework.EntityHook[prompt, flows.PromptGet]{
				{Stage: stages.AfterValidation, Name: "Default", Fn: func(_ prompt, c flows.PromptGet) error {
					if c.Arguments()["name"] == "" {
						p := *c.Params()
						p.Arguments = map[string]string{"name": "world"}
						c.SetInput(&p)
					}
					return nil
				}},
			},
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory("")(t, srv, nil)
	for uri, want := range map[string]string{"docs://a": "read docs://a", "docs://latest": "read docs://v2", "docs://old": "gone"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Contents[0].Text; got != want {
			t.Errorf("read %s = %q, want %q", uri, got, want)
		}
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[0].Content.(*mcp.TextContent).Text; got != "hello world" {
		t.Errorf("prompt = %q, want %q", got, "hello world")
	}
}
