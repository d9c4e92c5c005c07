package framework

import (
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// AddHooks registers external hooks owned by r: the server's scope (they run
// for every entity) or an app's (they run for that app's entities). hookgen's
// generated registration function uses it for //hook: directives on
// top-level functions.
func AddHooks(r Registrar, hooks ...scope.Hook) error {
	_, sc := r.target()
	_, err := sc.Register(false, hooks...)
	return err
}

// NewPlugin returns a Plugin named name whose Attach is attach. hookgen uses
// it for //mcp:plugin types; it also suits small plugins written in code.
func NewPlugin(name string, attach func(p *PluginContext) error) Plugin {
	return &funcPlugin{name: name, attach: attach}
}

type funcPlugin struct {
	name   string
	attach func(p *PluginContext) error
}

func (f *funcPlugin) Name() string { return f.name }

func (f *funcPlugin) Attach(p *PluginContext) error {
	if f.attach == nil {
		return nil
	}
	return f.attach(p)
}

// HookFunc adapts a typed hook function to a flows.HookFunc, for external
// hooks written against a flow's typed view (e.g. flows.ResourceRead):
//
//	scope.Hook{Flow: flows.ResourcesReadResource, Stage: stages.BeforeExecute,
//		Fn: framework.HookFunc(func(c flows.ResourceRead) error { … }, wrapResourceRead)}
//
// hookgen generates the equivalent closures itself.
func HookFunc[C any](fn func(C) error, view func(*flows.Context) C) flows.HookFunc {
	return func(c *flows.Context) error { return fn(view(c)) }
}
