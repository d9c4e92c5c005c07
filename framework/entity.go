package framework

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/dig"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// Hook is an embedded hook of an entity of Go type T: a function (usually a
// method expression such as (*Weather).CheckCity) that receives the entity
// instance and the flow's typed context C. hookgen generates these from
// //hook: directives.
type Hook[T, C any] struct {
	Stage    stages.Stage
	Priority int
	// Name identifies the hook within its type and stage; hookgen uses the
	// method name.
	Name string
	Fn   func(T, C) error
}

// Registrar is where entities are added: a *Server (entities visible to the
// server scope's hooks) or an *App (also to the app's hooks).
type Registrar interface {
	target() (*Server, *scope.Scope)
}

func (s *Server) target() (*Server, *scope.Scope) { return s, s.scope }

// add queues an entity for registration at Start, or registers it at once
// when the server has started. Before Start, adding two entities with one
// name is an error; after Start, a new entity replaces the old one of the
// same name, as the SDK does, and clients are told the list changed.
func add(r Registrar, what string, e pendingEntity) error {
	s, _ := r.target()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return e.register(s)
	}
	s.pending = append(s.pending, e)
	return nil
}

// instance returns the entity instance of type T: built by the constructor
// newFn through the dig container of sc when newFn is non-nil, else the zero
// value of T (for a pointer type, a pointer to a new zero value).
//
// newFn must be a function returning T, or (T, error); its parameters are
// resolved by dig. This runs once, at Start.
func instance[T any](sc *scope.Scope, what string, newFn any) (T, error) {
	var zero T
	if newFn == nil {
		t := reflect.TypeFor[T]()
		if t.Kind() == reflect.Pointer {
			return reflect.New(t.Elem()).Interface().(T), nil
		}
		return zero, nil
	}
	fv := reflect.ValueOf(newFn)
	ft := fv.Type()
	want := reflect.TypeFor[T]()
	errType := reflect.TypeFor[error]()
	if ft.Kind() != reflect.Func || ft.NumOut() < 1 || ft.NumOut() > 2 || ft.Out(0) != want ||
		(ft.NumOut() == 2 && ft.Out(1) != errType) {
		return zero, &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("%s: constructor %v must return %v or (%v, error)", what, ft, want, want)}
	}
	var out T
	// A function with the constructor's parameters that calls it and keeps
	// its result, so dig resolves the parameters and we get the value.
	in := make([]reflect.Type, ft.NumIn())
	for i := range in {
		in[i] = ft.In(i)
	}
	capture := reflect.MakeFunc(reflect.FuncOf(in, []reflect.Type{errType}, ft.IsVariadic()), func(args []reflect.Value) []reflect.Value {
		var res []reflect.Value
		if ft.IsVariadic() {
			res = fv.CallSlice(args)
		} else {
			res = fv.Call(args)
		}
		if len(res) == 2 && !res[1].IsNil() {
			return []reflect.Value{res[1]}
		}
		out = res[0].Interface().(T)
		return []reflect.Value{reflect.Zero(errType)}
	})
	if err := sc.Invoke(capture.Interface()); err != nil {
		return zero, &flows.Error{Code: flows.CodeInvalid, Msg: what + ": building the instance with " + funcName(fv), Err: constructorError(err)}
	}
	return out, nil
}

// constructorError returns the cause of a failed Invoke of an instance
// constructor. An error the constructor returned is kept as it is. A
// container error is about the function hookflow made to call the
// constructor, which means nothing to the user: its reason is kept (the
// missing types, or the dependency that failed to build), with a hint.
func constructorError(err error) error {
	var de dig.Error
	if !errors.As(err, &de) {
		return err
	}
	if reason := errors.Unwrap(err); reason != nil {
		err = reason
	}
	if errors.As(dig.RootCause(err), &de) {
		return fmt.Errorf("%w (add a constructor for it with Provide on the server, the app or a plugin)", err)
	}
	return err
}

// funcName returns the package-qualified name of the function fn, e.g.
// "weather.NewGetWeather".
func funcName(fn reflect.Value) string {
	f := runtime.FuncForPC(fn.Pointer())
	if f == nil {
		return fn.Type().String()
	}
	name := f.Name()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// registerEmbedded registers the embedded hooks of T for flow once per Go
// type, adapting each to the flow's typed context with wrap.
func registerEmbedded[T, C any](s *Server, flow flows.ID, inst T, hooks []Hook[T, C], wrap func(*flows.Context) C) error {
	typ := reflect.TypeFor[T]()
	if len(hooks) == 0 || s.hooked[typ] {
		return nil
	}
	regs := make([]scope.Hook, len(hooks))
	for i, h := range hooks {
		fn := h.Fn
		if fn == nil {
			return &flows.Error{Code: flows.CodeInvalid, Flow: flow, Msg: fmt.Sprintf("embedded hook %q of %v has a nil function", h.Name, typ)}
		}
		regs[i] = scope.Hook{
			Flow: flow, Stage: h.Stage, Priority: h.Priority, Name: h.Name, Type: typ,
			Fn: func(c *flows.Context) error { return fn(inst, wrap(c)) },
		}
	}
	if _, err := s.scope.Register(true, regs...); err != nil {
		return err
	}
	s.hooked[typ] = true
	return nil
}

// entityBase is what every registered entity keeps for its requests: its
// flow, the scope it belongs to, its instance, its flows.Entity and the
// handle to its compiled plan.
type entityBase[T any] struct {
	flow   flows.ID
	scope  *scope.Scope
	srv    *Server
	inst   T
	entity flows.Entity
	plan   *scope.PlanRef
}

// setupEntity builds the instance of T, describes the entity, registers T's
// embedded hooks on b's flow (seen through view) and gets the entity's plan.
// plain is the placeholder type of entities added as plain functions, which
// have no Go type of their own and so no embedded hooks.
func setupEntity[T, C any](b *entityBase[T], s *Server, name string, newFn any, plain reflect.Type, hooks []Hook[T, C], view func(*flows.Context) C) error {
	kind := b.flow.Info().Entity
	inst, err := instance[T](b.scope, kind.String()+" "+name, newFn)
	if err != nil {
		return err
	}
	typ := reflect.TypeFor[T]()
	if typ == plain {
		typ = nil
	}
	b.srv, b.inst = s, inst
	b.entity = flows.Entity{Kind: kind, Name: name, Type: typ, Value: inst}
	if err := registerEmbedded(s, b.flow, inst, hooks, view); err != nil {
		return err
	}
	b.plan = s.scope.Plan(b.flow, typ, b.scope)
	return nil
}

// runEntity runs one flow of b's entity and returns its output, or the
// protocol error a flow other than tools:call-tool sends.
func runEntity[T any, R mcp.Result](ctx context.Context, b *entityBase[T], method string, req mcp.Request, input any, steps flows.Steps) (R, error) {
	s := b.srv
	c, err := s.run(ctx, b.flow, &b.entity, s.requestInfo(method, req), input, b.scope, req, b.plan.Load(), steps)
	defer s.runner.Release(c)
	var zero R
	if err != nil {
		return zero, protocolError(err)
	}
	out, ok := c.Output().(R)
	if !ok || isNilResult(out) {
		return zero, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s %q: no result", b.entity.Kind, b.entity.Name)}
	}
	return out, nil
}

// completable is what completion:complete needs of a prompt or resource:
// the entity and its scope, its completer (nil for none) and the
// completion plan of its hooks.
type completable struct {
	scope      *scope.Scope
	entity     *flows.Entity
	complete   func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	completion *scope.PlanRef
}

// newCompletable describes b's entity for completion requests; complete may
// be nil.
func newCompletable[T any](b *entityBase[T], complete func(T, context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)) *completable {
	e := &completable{scope: b.scope, entity: &b.entity,
		completion: b.srv.scope.Plan(flows.CompletionComplete, b.entity.Type, b.scope)}
	if complete != nil {
		inst := b.inst
		e.complete = func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return complete(inst, ctx, req)
		}
	}
	return e
}
