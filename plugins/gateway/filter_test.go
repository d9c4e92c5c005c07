package gateway_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// TestToolFilters mounts an upstream through allow and deny lists of
// names and globs: exactly the tools they choose are listed, and the
// others cannot be called.
func TestToolFilters(t *testing.T) {
	for _, tc := range []struct {
		name        string
		allow, deny []string
		want        []string // among echo, pid, progress, sample
		gone        string
	}{
		{"allow names", []string{"echo", "pid"}, nil, []string{"echo", "pid"}, "progress"},
		{"allow a glob", []string{"p*"}, nil, []string{"pid", "progress"}, "echo"},
		{"deny a glob", nil, []string{"p?d", "s*"}, []string{"echo", "progress"}, "pid"},
		{"deny wins over allow", []string{"*"}, []string{"echo"}, []string{"pid", "progress", "sample"}, "echo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := stdio("up")
			up.AllowTools, up.DenyTools = tc.allow, tc.deny
			srv, _ := serve(t, nil, up)
			cs := connect(t, srv, nil)
			res, err := cs.ListTools(context.Background(), nil)
			check(t, err)
			var got []string
			for _, tool := range res.Tools {
				if slices.Contains([]string{"echo", "pid", "progress", "sample"}, tool.Name) {
					got = append(got, tool.Name)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("tools listed %v, want %v", got, tc.want)
			}
			res2, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.gone, Arguments: map[string]any{}})
			if err == nil && !res2.IsError {
				t.Errorf("calling %s, left out: %v, want an error", tc.gone, text(res2))
			}
		})
	}
}

// TestFilterErrors refuses patterns that are not globs and resource
// prefixes that leave no URI scheme.
func TestFilterErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*gateway.Upstream)
		want string
	}{
		{"bad glob", func(u *gateway.Upstream) { u.AllowTools = []string{"read_[a"} }, `upstream "up": AllowTools: "read_[a" is not a glob`},
		{"empty deny", func(u *gateway.Upstream) { u.DenyTools = []string{""} }, `upstream "up": DenyTools: want a tool name or a glob`},
		{"prefix with a colon", func(u *gateway.Upstream) { u.ResourcePrefix = "files:" }, `upstream "up": ResourcePrefix: want the start of a URI scheme such as files+`},
		{"prefix without a separator", func(u *gateway.Upstream) { u.ResourcePrefix = "files" }, `ResourcePrefix: want the start of a URI scheme`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := stdio("up")
			tc.set(&up)
			srv := framework.NewServer(&mcp.Implementation{Name: "gw"}, nil)
			check(t, srv.Use(gateway.New(gateway.Config{Upstreams: []gateway.Upstream{up}})))
			if err := srv.Start(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestResourcePrefix mounts an upstream's resources under a prefix: they
// are listed, read (the contents' URIs prefixed too), subscribed to and
// updated by their prefixed URIs, and the upstream sees its own.
func TestResourcePrefix(t *testing.T) {
	up := httpUpstream(t, "up")
	up.ResourcePrefix = "up+"
	srv, _ := serve(t, nil, up)
	var mu sync.Mutex
	var updated []string
	cs := connect(t, srv, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		mu.Lock()
		updated = append(updated, req.Params.URI)
		mu.Unlock()
	}})
	ctx := context.Background()
	rs, err := cs.ListResources(ctx, nil)
	check(t, err)
	if len(rs.Resources) == 0 || !slices.ContainsFunc(rs.Resources, func(r *mcp.Resource) bool { return r.URI == "up+test://hello" }) {
		t.Fatalf("resources listed: %v, want up+test://hello", rs.Resources)
	}
	ts, err := cs.ListResourceTemplates(ctx, nil)
	check(t, err)
	if len(ts.ResourceTemplates) != 1 || ts.ResourceTemplates[0].URITemplate != "up+test://item/{id}" {
		t.Errorf("templates listed: %v, want up+test://item/{id}", ts.ResourceTemplates)
	}
	for uri, want := range map[string]string{"up+test://hello": "hello", "up+test://item/7": "item test://item/7"} {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		check(t, err)
		if len(r.Contents) != 1 || r.Contents[0].Text != want || r.Contents[0].URI != uri {
			t.Errorf("read %s: %+v, want %q at %s", uri, r.Contents[0], want, uri)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://hello"}); err == nil {
		t.Errorf("read test://hello, the upstream's own URI: no error")
	}
	check(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "up+test://hello"}))
	call(t, cs, "touch", nil)
	eventually(t, "the update of up+test://hello", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(updated, "up+test://hello")
	})
}
