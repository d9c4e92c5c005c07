package plugintest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// ServerOptions configures [NewServer]. The zero value is a server with
// default options, no entities and no plugins, not started.
type ServerOptions struct {
	// Name is the server's implementation name; "" is "plugintest".
	Name string
	// Options are the server's options; nil is the defaults.
	Options *framework.Options
	// Setup, when set, adds the server's entities (and anything else a
	// test needs) before the plugins are used.
	Setup func(*framework.Server) error
	// Plugins are used on the server, in order, after Setup.
	Plugins []framework.Plugin
	// Hooks are registered on the server after the plugins.
	Hooks []flows.Hook
	// Start starts the server, attaching the plugins, before NewServer
	// returns. Without it the server starts when it is first connected or
	// served, so that the test can add to it first.
	Start bool
}

// NewServer builds the framework.Server that opts describe, for tests that
// need a server of their own rather than a [Harness] (an HTTP handler, a
// transport of their choice, entities a plugin reads). It fails t when any
// step returns an error.
func NewServer(t testing.TB, opts *ServerOptions) *framework.Server {
	t.Helper()
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "plugintest"
	}
	srv := framework.NewServer(&mcp.Implementation{Name: o.Name, Version: "1"}, o.Options)
	if o.Setup != nil {
		if err := o.Setup(srv); err != nil {
			t.Fatalf("plugintest: setting up the server: %v", err)
		}
	}
	if len(o.Plugins) > 0 {
		if err := srv.Use(o.Plugins...); err != nil {
			t.Fatalf("plugintest: using the plugins: %v", err)
		}
	}
	if len(o.Hooks) > 0 {
		if err := srv.Hook(o.Hooks...); err != nil {
			t.Fatalf("plugintest: registering the hooks: %v", err)
		}
	}
	if o.Start {
		if err := srv.Start(); err != nil {
			t.Fatalf("plugintest: starting the server: %v", err)
		}
	}
	return srv
}

// NewHTTPServer serves h on a new httptest.Server, closed when the test
// ends.
func NewHTTPServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
