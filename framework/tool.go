package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/streamable"
	"github.com/hookflow/hookflow/scope"
)

// Tool defines a tool whose behaviour lives in a Go type T, with input In
// and output Out. hookgen generates Tool values from //mcp:tool types; they
// can also be written by hand.
//
// Schemas are inferred from In and Out as the SDK's typed AddTool does (set
// Tool.InputSchema or Tool.OutputSchema to override). An Out of
// *mcp.CallToolResult means "the execute function builds the whole result":
// no output schema, and the result is sent as returned.
type Tool[T, In, Out any] struct {
	// Tool is the tool's MCP description; Name is required.
	Tool *mcp.Tool
	// New builds the instance: a function returning T or (T, error) whose
	// parameters come from the scope's dig container. nil uses T's zero
	// value (a new zero value for a pointer type).
	New any
	// Execute does the tool's work; hookgen uses the type's Execute method.
	Execute func(T, context.Context, *mcp.CallToolRequest, In) (Out, error)
	// Hooks are the tool type's embedded hooks on tools:call-tool.
	Hooks []EntityHook[T, flows.ToolCall[In, Out]]
	// Scopes are the OAuth scopes a caller needs (read by the auth plugin).
	Scopes []string
	// Timeout bounds one call of the tool, hooks included: when it passes,
	// the call's context is cancelled and the call fails with an isError
	// result saying it timed out. 0 uses [Options.ToolTimeout]; a negative
	// value means no bound. The bound is cooperative: execute functions and
	// hooks must watch their context.
	Timeout time.Duration
}

// AddTool adds a tool to r. It is registered on the SDK at Start.
func AddTool[T, In, Out any](r Registrar, def Tool[T, In, Out]) error {
	if def.Tool == nil || def.Tool.Name == "" {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ToolsCallTool, Msg: "AddTool: the tool needs a name"}
	}
	if def.Execute == nil {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ToolsCallTool, Msg: fmt.Sprintf("tool %q: nil Execute", def.Tool.Name)}
	}
	_, sc := r.target()
	return add(r, "tool "+def.Tool.Name, &toolDef[T, In, Out]{entityBase: entityBase[T]{flow: flows.ToolsCallTool, scope: sc}, def: def})
}

// AddToolFunc adds a tool implemented by a plain function. It has no
// embedded hooks; external hooks apply as to any tool.
func AddToolFunc[In, Out any](r Registrar, t *mcp.Tool, fn func(context.Context, *mcp.CallToolRequest, In) (Out, error)) error {
	if fn == nil {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ToolsCallTool, Msg: "AddToolFunc: nil function"}
	}
	return AddTool(r, Tool[funcTool, In, Out]{Tool: t, Execute: func(_ funcTool, ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error) {
		return fn(ctx, req, in)
	}})
}

// funcTool is the entity type of function tools.
type funcTool struct{}

// toolEntry is what the server keeps about a registered tool.
type toolEntry struct {
	scope  *scope.Scope
	entity *flows.Entity
	vis    visibility
	// plan is the tool's tools:call-tool plan.
	plan *scope.PlanRef
	// headers returns the Mcp-Param-* checks of the tool's input schema,
	// compiled once, on the first 2026-07-28 call.
	headers func() *streamable.ParamHeaders
	// served is set once the SDK serves the tool: the index holds it a
	// moment before, so that no list shows it unfiltered.
	served atomic.Bool
	// call is the tool's SDK handler: one tools:call-tool run (see
	// Server.CallTool).
	call func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)
}

type toolDef[T, In, Out any] struct {
	entityBase[T]
	def Tool[T, In, Out]

	entry *toolEntry
	in    *jsonschema.Resolved
	out   *jsonschema.Resolved
	// inC and outC are the schemas compiled for one pass over the JSON
	// (nil: the reference path only).
	inC, outC *compiled
	// outIsAny: Out is any and there is no output schema, so a nil output
	// is an empty result rather than JSON null.
	outIsAny bool
	// outPointerZero is the zero value of *Out's element when Out is a
	// pointer type: a nil output is sent as that zero value, not as null.
	outPointerZero any
	// timeout bounds a call (0: none); timedOut is the cause its context
	// is cancelled with.
	timeout  time.Duration
	timedOut error
}

func (d *toolDef[T, In, Out]) register(s *Server) error {
	name := d.def.Tool.Name
	if _, dup := s.index.Load().tools[name]; dup && !s.started {
		return &flows.Error{Code: flows.CodeDuplicate, Flow: flows.ToolsCallTool, Msg: fmt.Sprintf("tool %q is added twice", name)}
	}
	t := *d.def.Tool
	describe := func(e *flows.Entity) {
		e.In, e.Out, e.Tool, e.Scopes = reflect.TypeFor[In](), reflect.TypeFor[Out](), &t, d.def.Scopes
	}
	if err := setupEntity(&d.entityBase, s, name, d.def.New, reflect.TypeFor[funcTool](), d.def.Hooks, describe); err != nil {
		return err
	}
	inSchema, in, err := schemaFor[In](t.InputSchema)
	if err != nil {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ToolsCallTool, Msg: fmt.Sprintf("tool %q: input schema", name), Err: err}
	}
	if inSchema.Type != "object" {
		return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ToolsCallTool, Msg: fmt.Sprintf("tool %q: input type %v must be a struct or map (schema type object)", name, reflect.TypeFor[In]())}
	}
	t.InputSchema, d.in, d.inC = inSchema, in, compile(inSchema)
	outType := reflect.TypeFor[Out]()
	wholeResult := outType == reflect.TypeFor[*mcp.CallToolResult]()
	if !wholeResult && (t.OutputSchema != nil || outType != reflect.TypeFor[any]()) {
		outSchema, out, err := schemaFor[Out](t.OutputSchema)
		if err != nil {
			return &flows.Error{Code: flows.CodeInvalid, Flow: flows.ToolsCallTool, Msg: fmt.Sprintf("tool %q: output schema", name), Err: err}
		}
		t.OutputSchema, d.out, d.outC = outSchema, out, compile(outSchema)
		if outType.Kind() == reflect.Pointer {
			d.outPointerZero = reflect.Zero(outType.Elem()).Interface()
		}
	}
	d.outIsAny = d.out == nil && outType == reflect.TypeFor[any]()
	switch d.timeout = d.def.Timeout; {
	case d.timeout == 0:
		d.timeout = s.opts.ToolTimeout
	case d.timeout < 0:
		d.timeout = 0
	}
	d.timedOut = &TimeoutError{Tool: name, After: d.timeout}
	d.entry = &toolEntry{scope: d.scope, entity: &d.entity, vis: d.vis, plan: d.plan,
		headers: sync.OnceValue(func() *streamable.ParamHeaders { return streamable.CompileParamHeaders(t.InputSchema) }),
		call:    d.handle}
	s.update(func(ix *entityIndex) { ix.tools[name] = d.entry })
	s.sdk.AddTool(&t, d.handle)
	d.entry.served.Store(true)
	return nil
}

// handle is the raw SDK handler: one tools:call-tool run.
func (d *toolDef[T, In, Out]) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s := d.srv
	info := s.requestInfo("tools/call", req)
	var raw json.RawMessage
	if req.Params != nil {
		raw = req.Params.Arguments
	}
	if d.vis.sight(info, &d.entity) == Hidden {
		return nil, s.refuseHidden(ctx, info, &d.entity, raw)
	}
	if d.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d.timeout, d.timedOut)
		defer cancel()
	}
	out, err := s.runner.Run(ctx, flows.Run{Flow: flows.ToolsCallTool, Entity: &d.entity, Request: info,
		Input: raw, Arguments: raw, Plan: d.plan.Load(), Steps: d})
	if err != nil {
		// Finish turned every failure into an isError result but a
		// protocol error, and a panic of its own.
		return nil, err
	}
	res, _ := out.(*mcp.CallToolResult)
	return res, nil
}

func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

// Validate applies defaults, validates the arguments and decodes them into
// a *In, matching field names exactly as the SDK does. It returns the
// validated arguments in canonical JSON for [flows.Context.Arguments].
func (d *toolDef[T, In, Out]) Validate(c *flows.Context) (any, json.RawMessage, error) {
	raw, _ := c.Input().(json.RawMessage)
	if err := d.srv.opts.ArgumentLimits.check(raw); err != nil {
		return nil, nil, &flows.Error{Code: flows.CodeInvalidInput, Flow: flows.ToolsCallTool, Stage: c.Stage(), Step: "validate", Err: err}
	}
	data, ok := d.inC.canonical(raw, true)
	if !ok {
		var err error
		if data, err = applyInput(raw, d.in); err != nil {
			return nil, nil, &flows.Error{Code: flows.CodeInvalidInput, Flow: flows.ToolsCallTool, Stage: c.Stage(), Step: "validate", Err: fmt.Errorf("validating \"arguments\": %w", err)}
		}
	}
	in := new(In)
	if len(data) > 0 {
		if err := decodeArgs(data, in); err != nil {
			return nil, nil, &flows.Error{Code: flows.CodeInvalidInput, Flow: flows.ToolsCallTool, Stage: c.Stage(), Step: "validate", Err: err}
		}
	}
	return in, data, nil
}

// Execute calls the tool with the instance of the entity the run resolved.
func (d *toolDef[T, In, Out]) Execute(c *flows.Context) (any, error) {
	in, _ := c.Input().(*In)
	if in == nil {
		in = new(In)
	}
	req, _ := c.Request().SDK.(*mcp.CallToolRequest)
	inst, _ := c.Entity().Value.(T)
	ctx := c.Context()
	out, err := d.def.Execute(inst, ctx, req, *in)
	if res, ok := any(out).(*mcp.CallToolResult); ok && err == nil && res != nil && res.InputRequests != nil && legacyInputClient(req) {
		return inputRounds(ctx, req, res, func(r *mcp.CallToolRequest) (any, error) {
			return d.def.Execute(inst, ctx, r, *in)
		})
	}
	return out, err
}

// CheckOutput turns the run's output into the result the SDK sends, as
// the SDK's typed AddTool would, and checks it against the output schema,
// whoever produced it: an Out is encoded and validated; a whole result a
// hook answered with must carry structuredContent that satisfies the
// schema, or a single text content that is such JSON (it then becomes the
// structuredContent). An error result, and an input-required result (the
// call comes again with the inputs), are sent as they are. An answer that
// cannot be sent fails the run with an internal error naming the hook
// that gave it.
func (d *toolDef[T, In, Out]) CheckOutput(c *flows.Context) error {
	res, err := d.finalize(c.Output())
	if err != nil {
		who := "the tool's output"
		if c.Responded() && c.DecidedBy() != "" {
			who = fmt.Sprintf("the answer of hook %q", c.DecidedBy())
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: %s: %v", d.def.Tool.Name, who, err)}
	}
	c.SetOutput(res)
	return nil
}

// finalize returns output as the result to send, checked against the
// output schema.
func (d *toolDef[T, In, Out]) finalize(output any) (*mcp.CallToolResult, error) {
	switch out := output.(type) {
	case *mcp.CallToolResult:
		if out == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
		}
		if d.out == nil || out.IsError || out.InputRequests != nil {
			return out, nil
		}
		return d.checkWhole(out)
	case Out:
		return d.encode(out)
	case nil:
		var zero Out
		return d.encode(zero)
	default:
		return nil, fmt.Errorf("output of type %T, want %v or *mcp.CallToolResult", out, reflect.TypeFor[Out]())
	}
}

// checkWhole checks a whole result against the output schema and returns
// it with its structuredContent validated (defaults applied).
func (d *toolDef[T, In, Out]) checkWhole(res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	var data []byte
	switch {
	case res.StructuredContent != nil:
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("marshaling structuredContent: %w", err)
		}
		data = b
	case len(res.Content) == 1:
		if tc, ok := res.Content[0].(*mcp.TextContent); ok && isObjectJSON([]byte(tc.Text)) {
			data = []byte(tc.Text)
		}
	}
	if data == nil {
		return nil, errors.New("the tool has an output schema, and the result has no structuredContent (nor a single JSON text content)")
	}
	checked, err := applyOutput(data, d.out)
	if err != nil {
		return nil, fmt.Errorf("validating structuredContent: %w", err)
	}
	out := *res
	out.StructuredContent = json.RawMessage(checked)
	return &out, nil
}

// Finish turns a finished run into what the SDK sends: a protocol error
// for a *jsonrpc.Error, an isError result for any other failure (a
// timeout's reason is its *TimeoutError's text), else the checked output
// (see CheckOutput). The text hooks added with [AddContext] is appended to
// the result's content.
func (d *toolDef[T, In, Out]) Finish(c *flows.Context, output any, err error) (any, error) {
	var res *mcp.CallToolResult
	if err != nil {
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return nil, wire
		}
		res = &mcp.CallToolResult{}
		res.SetError(errors.New(clientReason(err, c.Request())))
	} else {
		// A run that succeeded went through the output step
		// (CheckOutput), which left a result to send.
		res, _ = output.(*mcp.CallToolResult)
	}
	return appendContext(c, res), nil
}

func (d *toolDef[T, In, Out]) encode(out Out) (*mcp.CallToolResult, error) {
	res := &mcp.CallToolResult{}
	if d.outIsAny && any(out) == nil {
		res.Content = []mcp.Content{}
		return res, nil
	}
	var v any = out
	var zero Out
	if d.outPointerZero != nil && any(out) == any(zero) { // a nil pointer
		v = d.outPointerZero
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshaling output: %w", err)
	}
	data, ok := d.outC.canonical(b, false)
	if !ok {
		if data, err = applyOutput(b, d.out); err != nil {
			return nil, fmt.Errorf("validating tool output: %w", err)
		}
	}
	res.StructuredContent = json.RawMessage(data)
	res.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
	return res, nil
}

// TimeoutError is the cause of a tool call that ran out of time
// ([Tool.Timeout], [Options.ToolTimeout]): the call's context is cancelled
// with it, hooks see it through errors.As on [flows.Context.Err], and the
// model reads its message.
type TimeoutError struct {
	Tool  string
	After time.Duration
}

// Error says which tool timed out and after how long.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("tool %q timed out after %v", e.Tool, e.After)
}

// Is reports whether target is context.DeadlineExceeded, so that code that
// checks for a deadline sees one.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
