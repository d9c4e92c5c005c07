package framework

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/dig"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// Plugin contributes external hooks and dig providers to a server or an
// app. Attach is called once, at Start, before any entity is built, with the
// plugin's own child scope; the hooks it registers there are owned by the
// plugin and run where the plugin is attached.
//
// Attach may add entities, apps and plugins to its server or app (e.g.
// AddToolFunc(pc.Server, …), pc.Server.App, pc.Server.Use): they are part of
// the Start under way, and plugins added so are attached after the current
// ones. Calling Start from Attach returns an error.
type Plugin interface {
	// Name identifies the plugin; it must be unique where it is attached and
	// appears in its hooks' IDs.
	Name() string
	// Attach registers the plugin's hooks and providers. An error stops the
	// server from starting and should name the bad setting.
	Attach(p *PluginContext) error
}

// PluginContext is what a plugin gets at Attach.
type PluginContext struct {
	// Scope is the plugin's own scope, a child of the server's or the app's.
	Scope *scope.Scope
	// Server is the server the plugin is attached to, directly or via App.
	Server *Server
	// App is the app the plugin is attached to, or nil at server level.
	App *App

	afterStart []func() error
}

// AfterStart registers check to run when Start has attached every plugin
// and registered every entity, before it returns: the place for checks
// that need the server's final set of entities, such as a tool name in the
// plugin's configuration (Server.Tool answers by then). An error fails
// Start, named after the plugin as an error of Attach is. Checks run in
// the order of the plugins, then of registration, while Start holds the
// server's lock: a check may read the server (Tool, Logger) but not add
// to it.
func (p *PluginContext) AfterStart(check func() error) {
	p.afterStart = append(p.afterStart, check)
}

// Hook registers external hooks owned by the plugin: they run where the
// plugin is attached.
func (p *PluginContext) Hook(hooks ...flows.Hook) error { return p.Server.hook(p.Scope, hooks) }

// Observe adds obs to the observers of the server's runs: from Start on,
// it is told about every hook call and step of every run (see
// [flows.Observer]), after [Options.Observer] and the observers of plugins
// attached before. Observers run on the request path: a tracer or a
// metrics plugin uses one; it must be fast and safe for concurrent use.
// A server with no observer pays nothing for them.
func (p *PluginContext) Observe(obs flows.Observer) error {
	if obs == nil {
		return &flows.Error{Code: flows.CodeInvalid, Msg: "Observe: nil observer"}
	}
	s := p.Server
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return &flows.Error{Code: flows.CodeInvalid, Msg: "Observe: the server has started"}
	}
	s.observers = append(s.observers, obs)
	return nil
}

// Provide adds a constructor whose result every scope of the server can
// depend on (it is exported from the plugin's scope).
func (p *PluginContext) Provide(constructor any) error {
	return p.Scope.Provide(constructor, dig.Export(true))
}

// Tool returns what the server knows of the tool named name: its MCP
// description and the OAuth scopes it requires. ok is false for an unknown
// tool, before Start, and for a tool being added until a client's call
// can reach it.
func (s *Server) Tool(name string) (info ToolInfo, ok bool) {
	e := s.index.Load().tools[name]
	if e == nil || !e.served.Load() {
		return ToolInfo{}, false
	}
	return ToolInfo{Tool: e.entity.Tool, Scopes: e.entity.Scopes, App: e.scope}, true
}

// HasPrompt reports whether the server has a prompt named name; false
// before Start, and for a prompt being added until a client can get it.
func (s *Server) HasPrompt(name string) bool {
	e := s.index.Load().prompts[name]
	return e != nil && e.served.Load()
}

// HasResource reports whether the server has a resource of URI uri, or a
// resource template of URI template uri; false before Start, and for one
// being added until a client can read it.
func (s *Server) HasResource(uri string) bool {
	e := s.index.Load().resources[uri]
	return e != nil && e.served.Load()
}

// ToolInfo describes a registered tool.
type ToolInfo struct {
	Tool   *mcp.Tool
	Scopes []string
	// App is the scope the tool belongs to (the server's or an app's).
	App *scope.Scope
}

type attachedPlugin struct {
	plugin Plugin
	ctx    *PluginContext
}

func (a attachedPlugin) attach() error {
	if err := a.plugin.Attach(a.ctx); err != nil {
		return a.fail(err)
	}
	return nil
}

// afterStart runs the plugin's AfterStart checks.
func (a attachedPlugin) afterStart() error {
	var errs []error
	for _, check := range a.ctx.afterStart {
		if err := check(); err != nil {
			errs = append(errs, a.fail(err))
		}
	}
	return errors.Join(errs...)
}

func (a attachedPlugin) fail(err error) error {
	return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("plugin %q (%s)", a.plugin.Name(), a.ctx.Scope.Path()), Err: err}
}

// Use attaches plugins to the server: their hooks run for every entity.
func (s *Server) Use(plugins ...Plugin) error { return s.use(nil, s.scope, plugins) }

func (s *Server) use(app *App, parent *scope.Scope, plugins []Plugin) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range plugins {
		if p == nil {
			return &flows.Error{Code: flows.CodeInvalid, Msg: "Use: nil plugin"}
		}
		if err := s.checkNotStarted("plugin " + p.Name()); err != nil {
			return err
		}
		if err := checkVisible(p); err != nil {
			return err
		}
		for _, a := range s.plugins {
			if a.ctx.Scope.Parent() == parent && a.plugin.Name() == p.Name() {
				return &flows.Error{Code: flows.CodeDuplicate, Msg: fmt.Sprintf("plugin %q is already attached to %s", p.Name(), parent.Path())}
			}
		}
		sc, err := parent.Child(scope.KindPlugin, p.Name())
		if err != nil {
			return err
		}
		s.plugins = append(s.plugins, attachedPlugin{plugin: p, ctx: &PluginContext{Scope: sc, Server: s, App: app}})
	}
	return nil
}

// checkVisible refuses a plugin with a Visible method that is not
// [Visibility]'s: it would look like it hides entities and hide none.
func checkVisible(p Plugin) error {
	if _, ok := p.(Visibility); ok {
		return nil
	}
	m, ok := reflect.TypeOf(p).MethodByName("Visible")
	if !ok {
		return nil
	}
	// m.Type's first parameter is the receiver.
	var in, out []string
	for i := 1; i < m.Type.NumIn(); i++ {
		in = append(in, m.Type.In(i).String())
	}
	for i := range m.Type.NumOut() {
		out = append(out, m.Type.Out(i).String())
	}
	return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf(
		"plugin %q: its method Visible(%s) %s is not framework.Visibility's Visible(*flows.Request, *flows.Entity) framework.Sight, so it would hide nothing",
		p.Name(), strings.Join(in, ", "), strings.Join(out, ", "))}
}
