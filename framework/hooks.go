package framework

import (
	"errors"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// hook registers external hooks owned by sc, all or none. A typed hook
// ([flows.On]) that covers a registered tool whose types it does not fit is
// refused here, when entities exist already; entities added later check
// the hooks that cover them.
func (s *Server) hook(sc *scope.Scope, hooks []flows.Hook) error {
	ids, err := sc.Register(hooks...)
	if err != nil {
		return err
	}
	typed := false
	for _, h := range hooks {
		typed = typed || h.Typed()
	}
	if !typed {
		return nil
	}
	var errs []error
	for _, e := range s.index.Load().tools {
		if err := e.plan.Check(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	for _, id := range ids {
		_ = sc.Unregister(id)
	}
	return errors.Join(errs...)
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
