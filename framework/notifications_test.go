package framework_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// Hooks of notifications:from-client drop one notification and rewrite
// another before the server's handlers see them.
func TestClientNotifications(t *testing.T) {
	for _, tr := range []transport{transports[1], transports[2]} {
		t.Run(tr.name, func(t *testing.T) {
			rootsChanged := make(chan struct{}, 4)
			progress := make(chan string, 4)
			srv := framework.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, &framework.Options{SDK: &mcp.ServerOptions{
				RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) { rootsChanged <- struct{}{} },
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationServerRequest) {
					progress <- req.Params.Message
				},
			}})
			seen := make(chan string, 16)
			err := srv.Hook(flows.On(stages.BeforeExecute, func(c flows.ClientNotification) error {
				seen <- c.Method()
				switch p := c.Params().(type) {
				case *mcp.RootsListChangedParams:
					c.Drop()
				case *mcp.ProgressNotificationParams:
					if p.Message == "replace me" {
						cp := *p
						cp.Message = "replaced by a hook"
						c.SetParams(&cp)
					}
				}
				return nil
			}).Named("filter"))
			if err != nil {
				t.Fatal(err)
			}
			client := mcp.NewClient(clientImpl(), nil)
			ctx := t.Context()
			var cs *mcp.ClientSession
			if tr.http {
				cs = overHTTPClient(t, srv, client)
			} else {
				st, ct := mcp.NewInMemoryTransports()
				if _, err := srv.Connect(ctx, st, nil); err != nil {
					t.Fatal(err)
				}
				if cs, err = client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: tr.protocol}); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cs.Close() })
			}
			if m := wait(t, seen, "notifications/initialized"); m != "notifications/initialized" {
				t.Errorf("first notification %q, want notifications/initialized", m)
			}
			client.AddRoots(&mcp.Root{URI: "file:///new"}) // sends notifications/roots/list_changed
			if m := wait(t, seen, "the roots change"); m != "notifications/roots/list_changed" {
				t.Errorf("notification %q, want notifications/roots/list_changed", m)
			}
			for _, msg := range []string{"replace me", "as sent"} {
				if err := cs.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "t", Progress: 1, Message: msg}); err != nil {
					t.Fatal(err)
				}
			}
			if got := wait(t, progress, "the first progress"); got != "replaced by a hook" {
				t.Errorf("server saw %q, want the hook's message", got)
			}
			if got := wait(t, progress, "the second progress"); got != "as sent" {
				t.Errorf("server saw %q, want the client's message", got)
			}
			// Notifications are handled in order: the dropped roots change
			// came before the progress the server saw.
			select {
			case <-rootsChanged:
				t.Error("the server's handler saw the dropped roots change")
			default:
			}
		})
	}
}

// overHTTPClient serves srv over stateful streamable HTTP and connects
// client to it.
func overHTTPClient(t *testing.T, srv *framework.Server, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// ping, resources/subscribe and unsubscribe, and logging/setLevel run
// their flows; a hook refuses a log level with a protocol error.
func TestSessionFlows(t *testing.T) {
	for _, tr := range []transport{transports[1], transports[2]} {
		t.Run(tr.name, func(t *testing.T) {
			subscribed := make(chan string, 2)
			srv := framework.NewServer(&mcp.Implementation{Name: "session", Version: "1"}, &framework.Options{
				Subscribe: func(_ context.Context, req *mcp.SubscribeRequest) error {
					subscribed <- "+" + req.Params.URI
					return nil
				},
				Unsubscribe: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
					subscribed <- "-" + req.Params.URI
					return nil
				},
			})
			addEntities(t, srv)
			rec := &recorder{}
			err := srv.Hook(
				flows.Hook{Flow: flows.SessionPing, Stage: stages.Finally, Name: "ping", Fn: func(c *flows.Context) error {
					rec.add("ping %s", c.Request().Method)
					return nil
				}},
				flows.On(stages.BeforeExecute, func(c flows.Subscribe) error {
					rec.add("subscribe %s", c.URI())
					c.Params().URI = "test://items/rewritten"
					return nil
				}).Named("subscribe"),
				flows.On(stages.BeforeExecute, func(c flows.Unsubscribe) error {
					rec.add("unsubscribe %s", c.URI())
					return nil
				}).Named("unsubscribe"),
				flows.On(stages.BeforeExecute, func(c flows.SetLevel) error {
					if c.Level() == "debug" {
						return errors.New("debug logs are not for this client")
					}
					rec.add("level %s", c.Level())
					return nil
				}).Named("level"),
			)
			if err != nil {
				t.Fatal(err)
			}
			cs := tr.connect(t, srv, nil)
			ctx := t.Context()
			if err := cs.Ping(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://static"}); err != nil {
				t.Fatal(err)
			}
			if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://static"}); err != nil {
				t.Fatal(err)
			}
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			err = cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
			wantProtocolError(t, err, framework.CodeRefused, "debug logs are not for this client")
			want := []string{"ping ping", "subscribe test://static", "unsubscribe test://static", "level info"}
			if got := rec.take(); !equal(got, want) {
				t.Errorf("hooks saw %q, want %q", got, want)
			}
			if got := []string{wait(t, subscribed, "subscribe"), wait(t, subscribed, "unsubscribe")}; !equal(got, []string{"+test://items/rewritten", "-test://static"}) {
				t.Errorf("handlers saw %q, want the rewritten subscription", got)
			}
		})
	}
}
