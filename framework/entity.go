package framework

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/dig"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// EntityHook is an embedded hook of an entity of Go type T: a function
// (usually a method expression such as (*Weather).CheckCity) that receives
// the entity instance the run resolved and the flow's typed view C.
// hookgen generates these from //hook: directives on methods.
type EntityHook[T any, C flows.View] struct {
	Stage    stages.Stage
	Priority int
	// Name identifies the hook within its type and stage; hookgen uses the
	// method name.
	Name string
	Fn   func(T, C) error
	// Timeout and OnFailure bound each call of the hook and say what its
	// failure does, as [flows.Hook.Timeout] and [flows.Hook.OnFailure].
	Timeout   time.Duration
	OnFailure flows.FailurePolicy
}

// Registrar is where entities and external hooks are added: a *Server
// (entities visible to the server scope's hooks; hooks that run for every
// entity) or an *App (the app's own). hookgen's generated registration
// function takes one.
type Registrar interface {
	// Hook registers external hooks owned by the server or app.
	Hook(hooks ...flows.Hook) error
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

// registerEmbedded registers the embedded hooks of T on flow, once per Go
// type and flow: every entity of type T shares them, and each run passes the
// hook the instance of the entity it resolved (so two tools of one type, or
// a tool replaced after Start, each see their own instance). A second
// entity of type T must declare the same hooks; one that declares others
// is an error rather than hooks silently dropped.
func registerEmbedded[T any, C flows.View](s *Server, flow flows.ID, hooks []EntityHook[T, C]) error {
	typ := reflect.TypeFor[T]()
	key := embeddedKey{typ: typ, flow: flow}
	sig := hookSignature(hooks)
	if prev, ok := s.hooked[key]; ok {
		if prev != sig {
			return &flows.Error{Code: flows.CodeInvalid, Flow: flow, Msg: fmt.Sprintf(
				"%v declares embedded hooks %s, but another entity of the same type registered %s; one Go type has one set of hooks", typ, sig, prev)}
		}
		return nil
	}
	if len(hooks) == 0 {
		s.hooked[key] = sig
		return nil
	}
	regs := make([]flows.Hook, len(hooks))
	for i, h := range hooks {
		fn := h.Fn
		if fn == nil {
			return &flows.Error{Code: flows.CodeInvalid, Flow: flow, Msg: fmt.Sprintf("embedded hook %q of %v has a nil function", h.Name, typ)}
		}
		regs[i] = flows.On(h.Stage, func(c C) error {
			inst, _ := struct{ *flows.Context }(c).Entity().Value.(T)
			return fn(inst, c)
		})
		regs[i].Priority, regs[i].Name = h.Priority, h.Name
		regs[i].Timeout, regs[i].OnFailure = h.Timeout, h.OnFailure
	}
	if _, err := s.scope.RegisterEmbedded(typ, regs...); err != nil {
		return err
	}
	s.hooked[key] = sig
	return nil
}

// embeddedKey says whose embedded hooks are registered: a Go type's, on
// one flow.
type embeddedKey struct {
	typ  reflect.Type
	flow flows.ID
}

// hookSignature describes hooks by stage, priority and name, to tell two
// declarations of one type's hooks apart.
func hookSignature[T any, C flows.View](hooks []EntityHook[T, C]) string {
	if len(hooks) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for i, h := range hooks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s:%s@%d", h.Stage, h.Name, h.Priority)
		if h.Timeout != 0 || h.OnFailure != flows.FailClosed {
			fmt.Fprintf(&b, "(timeout %v, fail %v)", h.Timeout, h.OnFailure)
		}
	}
	return b.String()
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
	// vis are the plugins that decide whether the entity is visible.
	vis visibility
}

// setupEntity builds the instance of T, describes the entity (describe
// fills in what its kind knows), registers T's embedded hooks on b's
// flow and gets the entity's plan, checking that every typed hook that
// covers it fits it. plain is the placeholder type of entities added as
// plain functions, which have no Go type of their own and so no embedded
// hooks.
func setupEntity[T any, C flows.View](b *entityBase[T], s *Server, name string, newFn any, plain reflect.Type, hooks []EntityHook[T, C], describe func(*flows.Entity)) error {
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
	describe(&b.entity)
	b.vis = s.visibilityFor(b.scope)
	if typ != nil {
		if err := registerEmbedded(s, b.flow, hooks); err != nil {
			return err
		}
	}
	b.plan = s.scope.Plan(b.flow, &b.entity, b.scope)
	return b.plan.Check()
}

// runEntity runs one flow of b's entity and returns its output, or the
// protocol error a flow other than tools:call-tool sends.
func runEntity[T any, R mcp.Result](ctx context.Context, b *entityBase[T], method string, req mcp.Request, input any, steps flows.Steps) (R, error) {
	s := b.srv
	info := s.requestInfo(method, req)
	var zero R
	if b.vis.sight(info, &b.entity) == Hidden {
		return zero, s.refuseHidden(ctx, info, &b.entity, nil)
	}
	output, err := s.runner.Run(ctx, flows.Run{Flow: b.flow, Entity: &b.entity, Request: info, Input: input, Plan: b.plan.Load(), Steps: steps})
	if err != nil {
		return zero, protocolError(err, info)
	}
	out, ok := output.(R)
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
	vis        visibility
	complete   func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	completion *scope.PlanRef
	// served is set once the SDK serves the entity (see toolEntry.served).
	served atomic.Bool
}

// newCompletable describes b's entity for completion requests; complete may
// be nil.
func newCompletable[T any](b *entityBase[T], complete func(T, context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)) *completable {
	e := &completable{scope: b.scope, entity: &b.entity, vis: b.vis,
		completion: b.srv.scope.Plan(flows.CompletionComplete, &b.entity, b.scope)}
	if complete != nil {
		inst := b.inst
		e.complete = func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return complete(inst, ctx, req)
		}
	}
	return e
}
