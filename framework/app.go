package framework

import (
	"fmt"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// App is a named group of entities with its own child scope. Hooks and
// plugins attached to an app run for the app's entities only; the server's
// run for every app. An app's dig container sees the server's providers.
type App struct {
	srv   *Server
	scope *scope.Scope
}

// App returns a new app named name. Names are unique per server.
func (s *Server) App(name string) (*App, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkNotStarted("app " + name); err != nil {
		return nil, err
	}
	if _, dup := s.apps[name]; dup {
		return nil, &flows.Error{Code: flows.CodeDuplicate, Msg: fmt.Sprintf("app %q already exists", name)}
	}
	sc, err := s.scope.Child(scope.KindApp, name)
	if err != nil {
		return nil, err
	}
	a := &App{srv: s, scope: sc}
	s.apps[name] = a
	return a, nil
}

func (a *App) target() (*Server, *scope.Scope) { return a.srv, a.scope }

// Name returns the app's name.
func (a *App) Name() string { return a.scope.Name() }

// Scope returns the app's scope.
func (a *App) Scope() *scope.Scope { return a.scope }

// Server returns the server the app belongs to.
func (a *App) Server() *Server { return a.srv }

// Provide adds a constructor to the app's dig container.
func (a *App) Provide(constructor any) error { return a.scope.Provide(constructor) }

// Hook registers external hooks owned by the app: they run for the app's
// entities only (and for flows without an entity, like every hook).
func (a *App) Hook(hooks ...flows.Hook) error { return a.srv.hook(a.scope, hooks) }

// Use attaches plugins to the app: their hooks run for the app's entities
// only.
func (a *App) Use(plugins ...Plugin) error { return a.srv.use(a, a.scope, plugins) }
