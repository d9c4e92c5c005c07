package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// Prompt defines a prompt whose behaviour lives in a Go type T. hookgen
// generates these from //mcp:prompt types.
type Prompt[T any] struct {
	// Prompt is the prompt's MCP description; Name is required. Required
	// arguments are checked before the flow's validate step succeeds.
	Prompt *mcp.Prompt
	// New builds the instance (see [Tool.New]).
	New any
	// Get renders the prompt; hookgen uses the type's Get method.
	Get func(T, context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error)
	// Complete, when set, answers completion requests for the prompt's
	// arguments.
	Complete func(T, context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	// Hooks are the type's embedded hooks on prompts:get-prompt.
	Hooks []EntityHook[T, flows.PromptGet]
}

// AddPrompt adds a prompt to r.
func AddPrompt[T any](r Registrar, def Prompt[T]) error {
	if def.Prompt == nil || def.Prompt.Name == "" {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.PromptsGetPrompt, Msg: "AddPrompt: the prompt needs a name"}
	}
	if def.Get == nil {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.PromptsGetPrompt, Msg: fmt.Sprintf("prompt %q: nil Get", def.Prompt.Name)}
	}
	_, sc := r.target()
	return add(r, "prompt "+def.Prompt.Name, &promptDef[T]{entityBase: entityBase[T]{flow: flows.PromptsGetPrompt, scope: sc}, def: def})
}

// AddPromptFunc adds a prompt rendered by a plain function.
func AddPromptFunc(r Registrar, p *mcp.Prompt, get func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error)) error {
	return AddPrompt(r, Prompt[funcPrompt]{Prompt: p, Get: func(_ funcPrompt, ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return get(ctx, req)
	}})
}

type funcPrompt struct{}

type promptDef[T any] struct {
	entityBase[T]
	def Prompt[T]
}

func (d *promptDef[T]) register(s *Server) error {
	name := d.def.Prompt.Name
	if _, dup := s.index.Load().prompts[name]; dup && !s.started {
		return &flows.Error{Code: flows.CodeDuplicate, Flow: flows.PromptsGetPrompt, Msg: fmt.Sprintf("prompt %q is added twice", name)}
	}
	p := *d.def.Prompt
	if err := setupEntity(&d.entityBase, s, name, d.def.New, reflect.TypeFor[funcPrompt](), d.def.Hooks, func(e *flows.Entity) { e.Prompt = &p }); err != nil {
		return err
	}
	entry := newCompletable(&d.entityBase, d.def.Complete)
	s.update(func(ix *entityIndex) { ix.prompts[name] = entry })
	s.sdk.AddPrompt(&p, d.handle)
	entry.served.Store(true)
	return nil
}

func (d *promptDef[T]) handle(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return runEntity[T, *mcp.GetPromptResult](ctx, &d.entityBase, "prompts/get", req, req.Params, d)
}

// Validate checks that every required argument is present.
func (d *promptDef[T]) Validate(c *flows.Context) (any, json.RawMessage, error) {
	p, _ := c.Input().(*mcp.GetPromptParams)
	for _, a := range d.def.Prompt.Arguments {
		if !a.Required {
			continue
		}
		if p == nil || p.Arguments == nil {
			return nil, nil, missingArg(c, a.Name)
		}
		if _, ok := p.Arguments[a.Name]; !ok {
			return nil, nil, missingArg(c, a.Name)
		}
	}
	return c.Input(), nil, nil
}

func missingArg(c *flows.Context, name string) error {
	return &flows.Error{Code: flows.CodeInvalidInput, Flow: flows.PromptsGetPrompt, Stage: c.Stage(), Step: "validate",
		Msg: fmt.Sprintf("missing required argument %q", name)}
}

// Execute renders the prompt, with the arguments as hooks left them.
func (d *promptDef[T]) Execute(c *flows.Context) (any, error) {
	req, _ := c.Request().SDK.(*mcp.GetPromptRequest)
	if p, ok := c.Input().(*mcp.GetPromptParams); ok && p != nil && req != nil && p != req.Params {
		r := *req
		r.Params = p
		req = &r
	}
	return d.def.Get(c.Entity().Value.(T), c.Context(), req)
}
