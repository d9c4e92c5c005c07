package intercept

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// The payloads, as the SEP's payload contract has them: on a request, the
// request's method and params; on a response, the result. A tool call's
// params carry its arguments as the typed input stands when the
// interceptors run (after validation, and after hooks of higher priority
// changed it); a tool's typed output is sent as the result hookflow would
// send (structuredContent and its JSON text).

// requestMessage is a request-phase payload.
type requestMessage struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// toolParams are the params of a tools/call payload.
type toolParams struct {
	Meta      map[string]any  `json:"_meta,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func isTool(c *flows.Context) bool {
	e := c.Entity()
	return e != nil && e.Kind == flows.EntityTool && e.In != nil
}

// requestPayload returns the request-phase payload of c's run.
func requestPayload(c *flows.Context, event string) (json.RawMessage, error) {
	var params []byte
	if isTool(c) {
		p := toolParams{Name: c.Entity().Name}
		if raw, ok := c.Input().(json.RawMessage); ok {
			p.Arguments = raw
		} else {
			b, err := json.Marshal(c.Input())
			if err != nil {
				return nil, fmt.Errorf("encoding the arguments: %w", err)
			}
			p.Arguments = b
		}
		if req, ok := c.Request().SDK.(*mcp.CallToolRequest); ok && req.Params != nil {
			p.Meta = req.Params.Meta
		}
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encoding the params: %w", err)
		}
		params = b
	} else if in := c.Input(); !isNil(in) {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encoding the params: %w", err)
		}
		params = b
	}
	return json.Marshal(requestMessage{Method: event, Params: params})
}

// prepareRequest checks that payload is a request payload that can replace
// the run's input, and returns the function that replaces it.
func prepareRequest(c *flows.Context, event string, payload json.RawMessage) (func(), error) {
	var m requestMessage
	if err := json.Unmarshal(payload, &m); err != nil {
		return nil, fmt.Errorf("the payload is not a request: %w", err)
	}
	if m.Method != event {
		return nil, fmt.Errorf("the payload's method is %q, not %q", m.Method, event)
	}
	if isTool(c) {
		var p toolParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, fmt.Errorf("the payload's params: %w", err)
		}
		if p.Name != c.Entity().Name {
			return nil, fmt.Errorf("the payload calls tool %q, not %q: a mutator cannot change the tool called", p.Name, c.Entity().Name)
		}
		in := reflect.New(c.Entity().In)
		if len(p.Arguments) > 0 && !bytes.Equal(p.Arguments, []byte("null")) {
			if err := json.Unmarshal(p.Arguments, in.Interface()); err != nil {
				return nil, fmt.Errorf("the payload's arguments do not fit the tool's input: %w", err)
			}
		}
		return func() { c.SetInput(in.Interface()) }, nil
	}
	cur := reflect.ValueOf(c.Input())
	empty := len(m.Params) == 0 || bytes.Equal(m.Params, []byte("null"))
	if isNil(c.Input()) {
		if empty {
			return func() {}, nil
		}
		return nil, errors.New("the payload adds params to a request that has none")
	}
	if empty {
		return nil, errors.New("the payload removes the request's params")
	}
	if cur.Kind() != reflect.Pointer {
		nv := reflect.New(cur.Type())
		if err := json.Unmarshal(m.Params, nv.Interface()); err != nil {
			return nil, fmt.Errorf("the payload's params: %w", err)
		}
		return func() { c.SetInput(nv.Elem().Interface()) }, nil
	}
	// The params are changed in place: the MCP SDK's request holds the
	// same value, and steps that run the SDK's own handler read it there.
	nv := reflect.New(cur.Type().Elem())
	if err := json.Unmarshal(m.Params, nv.Interface()); err != nil {
		return nil, fmt.Errorf("the payload's params: %w", err)
	}
	return func() { cur.Elem().Set(nv.Elem()) }, nil
}

// responsePayload returns the response-phase payload of c's run.
func responsePayload(c *flows.Context) (json.RawMessage, error) {
	out := c.Output()
	if isTool(c) {
		if _, whole := out.(*mcp.CallToolResult); !whole {
			return toolResult(out)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return b, nil
}

// toolResult is a tool's typed output as the result hookflow sends for it:
// structuredContent, and the same JSON as text.
func toolResult(out any) (json.RawMessage, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the tool's output: %w", err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	if len(b) > 0 && b[0] == '{' {
		res.StructuredContent = json.RawMessage(b)
	}
	return json.Marshal(res)
}

// prepareResponse checks that payload is a result that can replace the
// run's output, and returns the function that replaces it.
func prepareResponse(c *flows.Context, payload json.RawMessage) (func(), error) {
	if isTool(c) {
		res := new(mcp.CallToolResult)
		if err := json.Unmarshal(payload, res); err != nil {
			return nil, fmt.Errorf("the payload is not a tool result: %w", err)
		}
		return func() { c.SetOutput(res) }, nil
	}
	out := c.Output()
	if isNil(out) {
		return nil, errors.New("the run has no result to replace")
	}
	t := reflect.TypeOf(out)
	if t.Kind() != reflect.Pointer {
		nv := reflect.New(t)
		if err := json.Unmarshal(payload, nv.Interface()); err != nil {
			return nil, fmt.Errorf("the payload is not a %v: %w", t, err)
		}
		return func() { c.SetOutput(nv.Elem().Interface()) }, nil
	}
	nv := reflect.New(t.Elem())
	if err := json.Unmarshal(payload, nv.Interface()); err != nil {
		return nil, fmt.Errorf("the payload is not a %v: %w", t, err)
	}
	return func() { c.SetOutput(nv.Interface()) }, nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// sameJSON reports whether a and b are the same JSON value, whatever the
// order of object keys and the spacing.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, err := decodeNumbers(a)
	if err != nil {
		return false
	}
	vb, err := decodeNumbers(b)
	if err != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// shaped returns the payload as a host of shape gets it, and the function
// that turns a mutator's answer back into the payload of the pass. A
// request is {"method", "params"} in the pass; a host of shape
// wire.ShapeParams gets the params alone ({} for a request without
// params), and its mutator's params are put back under the method. Any
// other payload is sent as it is.
func shaped(shape wire.Shape, phase wire.Phase, payload json.RawMessage) (json.RawMessage, func(json.RawMessage) (json.RawMessage, error), error) {
	same := func(p json.RawMessage) (json.RawMessage, error) { return p, nil }
	if shape != wire.ShapeParams || phase != wire.Request {
		return payload, same, nil
	}
	var m requestMessage
	if err := json.Unmarshal(payload, &m); err != nil {
		return nil, nil, fmt.Errorf("the payload is not a request: %w", err)
	}
	sent := m.Params
	none := len(sent) == 0 || bytes.Equal(sent, []byte("null"))
	if none {
		sent = json.RawMessage(`{}`)
	}
	back := func(p json.RawMessage) (json.RawMessage, error) {
		out := requestMessage{Method: m.Method, Params: p}
		if none && (sameJSON(p, json.RawMessage(`{}`)) || sameJSON(p, json.RawMessage(`null`))) {
			out.Params = nil
		}
		return json.Marshal(out)
	}
	return sent, back, nil
}
