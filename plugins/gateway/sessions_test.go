package gateway_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// TestRootsListChangedReachesUpstream changes a client's roots: the
// upstream session of that client hears notifications/roots/list_changed
// and lists the roots again; another client's upstream session hears
// nothing. The gateway is attached to the server or to an app.
func TestRootsListChangedReachesUpstream(t *testing.T) {
	for _, tr := range transports {
		for _, attach := range []string{"server", "app"} {
			t.Run(tr.name+"/"+attach, func(t *testing.T) {
				gw := gateway.New(tr.upstream(t, "up"))
				srv := framework.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
				if attach == "server" {
					check(t, srv.Use(gw))
				} else {
					app, err := srv.App("upstreams")
					check(t, err)
					check(t, app.Use(gw))
				}
				check(t, srv.Start())
				t.Cleanup(func() { gw.Close() })

				changing := mcp.NewClient(&mcp.Implementation{Name: "changing", Version: "1"}, nil)
				changing.AddRoots(&mcp.Root{URI: "file:///a"})
				cs := connectClient(t, srv, changing)
				other := connect(t, srv, nil, &mcp.Root{URI: "file:///other"})
				// Each session's first call opens its upstream session.
				if got, _ := call(t, cs, "roots", nil); got != "roots: file:///a" {
					t.Fatalf("roots = %q", got)
				}
				if got, _ := call(t, other, "roots", nil); got != "roots: file:///other" {
					t.Fatalf("other's roots = %q", got)
				}

				changing.AddRoots(&mcp.Root{URI: "file:///b"})
				var got string
				eventually(t, "the upstream to hear the roots changed", func() bool {
					got, _ = call(t, cs, "roots_seen", nil)
					return !strings.HasPrefix(got, "0:")
				})
				if got != "1: file:///a,file:///b" {
					t.Errorf("the upstream heard %q, want one change, then the new roots listed", got)
				}
				if got, _ := call(t, other, "roots_seen", nil); got != "0: " {
					t.Errorf("the other client's upstream session heard %q, want nothing", got)
				}
			})
		}
	}
}
