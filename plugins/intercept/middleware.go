package intercept

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// SendingMiddleware returns the chain as go-sdk client middleware, for
// Client.AddSendingMiddleware: it runs the interceptors on the context
// operations the client sends (tools/call, resources/read, prompts/get,
// the lists…). The request is sent: mutators, then validators, and what
// the validators saw is what goes out; its result is received:
// validators, then mutators, and the caller gets the mutated result. A
// blocked request is not sent: the caller's method (CallTool…) returns
// the [*BlockedError]; a blocked result is not returned either. Other
// methods (initialize, ping, notifications, the extension's own) pass
// untouched, and a request that fails (a JSON-RPC error) has no result
// pass; a tool result with isError is a result, and has one. A phase no
// interceptor of the chain hooks is not encoded: a method none hooks
// costs nothing.
func (ch *Chain) SendingMiddleware() mcp.Middleware { return ch.middleware(Send) }

// ReceivingMiddleware returns the chain as go-sdk client middleware, for
// Client.AddReceivingMiddleware: it runs the interceptors on the requests
// a server sends the client (sampling/createMessage, elicitation/create,
// roots/list). The request is received: validators, then mutators, before
// the client's handler sees it; the handler's result is sent: mutators,
// then validators, before it goes back to the server.
func (ch *Chain) ReceivingMiddleware() mcp.Middleware { return ch.middleware(Receive) }

// middleware runs the request pass in dir and the result pass in the
// other direction.
func (ch *Chain) middleware(dir Direction) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !contextOperation(method) {
				return next(ctx, method, req)
			}
			// A phase no interceptor hooks is not encoded: a chain
			// without interceptors for the method costs nothing.
			onRequest, onResult := ch.hooked(method, wire.Request), ch.hooked(method, wire.Response)
			if !onRequest && !onResult {
				return next(ctx, method, req)
			}
			version, ictx := sessionOf(ctx, req)
			if onRequest {
				msg, err := marshalRequest(method, req)
				if err != nil {
					return nil, err
				}
				fit := &requestFit{method: method, req: req}
				p, err := ch.run(ctx, dir, Call{Event: method, Phase: wire.Request, Payload: msg, ProtocolVersion: version, Context: ictx}, fit.check)
				if err != nil {
					return nil, err
				}
				if p.Modified {
					if err := fit.apply(p.Payload); err != nil {
						return nil, err
					}
				}
			}
			res, err := next(ctx, method, req)
			if err != nil || isNil(res) || !onResult {
				return res, err
			}
			payload, err := json.Marshal(res)
			if err != nil {
				return nil, fmt.Errorf("intercept: encoding the result of %s: %w", method, err)
			}
			check := func(b json.RawMessage) error { _, err := decodeResult(res, b); return err }
			p, err := ch.run(ctx, dir.reverse(), Call{Event: method, Phase: wire.Response, Payload: payload, ProtocolVersion: version, Context: ictx}, check)
			if err != nil {
				return nil, err
			}
			if p.Modified {
				return decodeResult(res, p.Payload)
			}
			return res, nil
		}
	}
}

// hooked reports whether an interceptor of the chain hooks event in
// phase.
func (ch *Chain) hooked(event string, phase wire.Phase) bool {
	for _, ic := range ch.k.ics {
		if ic.matches(event, phase) {
			return true
		}
	}
	return false
}

// sessionOf returns the protocol version of req's session and the
// invocation context of its invocations: an anonymous principal (the
// client knows no principal of its own), the trace of ctx's span when
// there is one, and the SHA-256 of the session ID ([SessionRef]).
func sessionOf(ctx context.Context, req mcp.Request) (version string, ictx *wire.InvocationContext) {
	ictx = &wire.InvocationContext{Principal: &wire.Principal{Type: wire.PrincipalAnonymous}}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		ictx.TraceID, ictx.SpanID = sc.TraceID().String(), sc.SpanID().String()
	}
	if cs, ok := req.GetSession().(*mcp.ClientSession); ok && cs != nil {
		ictx.SessionID = SessionRef(cs.ID())
		if r := cs.InitializeResult(); r != nil {
			version = r.ProtocolVersion
		}
	}
	return version, ictx
}

// marshalRequest returns the request-phase payload of req: its method and
// params.
func marshalRequest(method string, req mcp.Request) (json.RawMessage, error) {
	var params json.RawMessage
	if p := req.GetParams(); !isNil(p) {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("intercept: encoding the params of %s: %w", method, err)
		}
		params = b
	}
	b, err := json.Marshal(requestMessage{Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("intercept: encoding the request %s: %w", method, err)
	}
	return b, nil
}

// requestFit checks that a mutator's request payload can replace a go-sdk
// request's params, and replaces them.
type requestFit struct {
	method string
	req    mcp.Request
}

// decode returns the params of payload as a new value of the request's
// params type. The method must stay, a tool call must call the same tool,
// and a request with params keeps them.
func (f *requestFit) decode(payload json.RawMessage) (reflect.Value, error) {
	field, err := f.field()
	if err != nil {
		return reflect.Value{}, err
	}
	var m requestMessage
	if err := json.Unmarshal(payload, &m); err != nil {
		return reflect.Value{}, fmt.Errorf("the payload is not a request: %w", err)
	}
	if m.Method != f.method {
		return reflect.Value{}, fmt.Errorf("the payload's method is %q, not %q", m.Method, f.method)
	}
	was := f.req.GetParams()
	empty := len(m.Params) == 0 || string(m.Params) == "null"
	switch {
	case isNil(was) && empty:
		return field, nil
	case isNil(was):
		return reflect.Value{}, errors.New("the payload adds params to a request that has none")
	case empty:
		return reflect.Value{}, errors.New("the payload removes the request's params")
	}
	t := reflect.TypeOf(was)
	if t.Kind() != reflect.Pointer {
		return reflect.Value{}, fmt.Errorf("%T params cannot be replaced", was)
	}
	nv := reflect.New(t.Elem())
	if err := json.Unmarshal(m.Params, nv.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("the payload's params: %w", err)
	}
	if was, ok := was.(*mcp.CallToolParams); ok {
		if now := nv.Interface().(*mcp.CallToolParams); now.Name != was.Name {
			return reflect.Value{}, fmt.Errorf("the payload calls tool %q, not %q: a mutator cannot change the tool called", now.Name, was.Name)
		}
	}
	return nv, nil
}

// field returns the request's Params field, which apply sets.
func (f *requestFit) field() (reflect.Value, error) {
	v := reflect.ValueOf(f.req)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if field := v.FieldByName("Params"); field.IsValid() && field.CanSet() {
			return field, nil
		}
	}
	return reflect.Value{}, fmt.Errorf("a %T has no params to replace", f.req)
}

func (f *requestFit) check(payload json.RawMessage) error {
	_, err := f.decode(payload)
	return err
}

// apply replaces the request's params with the pass's payload: a new
// value, so that the caller's params are not changed.
func (f *requestFit) apply(payload json.RawMessage) error {
	nv, err := f.decode(payload)
	if err != nil {
		return fmt.Errorf("intercept: %w", err)
	}
	field, err := f.field()
	if err != nil {
		return fmt.Errorf("intercept: %w", err)
	}
	field.Set(nv)
	return nil
}

// decodeResult returns payload as a new result of res's type.
func decodeResult(res mcp.Result, payload json.RawMessage) (mcp.Result, error) {
	t := reflect.TypeOf(res)
	if t.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("a %T result cannot be replaced", res)
	}
	nv := reflect.New(t.Elem())
	if err := json.Unmarshal(payload, nv.Interface()); err != nil {
		return nil, fmt.Errorf("the payload is not a %v: %w", t, err)
	}
	out, ok := nv.Interface().(mcp.Result)
	if !ok {
		return nil, fmt.Errorf("a %v is not a result", t)
	}
	return out, nil
}
