package gateway_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/gateway"
)

// listed is what a client session of srv lists: tools, prompts, and
// resources with templates, each by name or URI.
type listed struct{ tools, prompts, resources []string }

func listAll(t *testing.T, cs *mcp.ClientSession) listed {
	t.Helper()
	ctx := context.Background()
	var l listed
	ts, err := cs.ListTools(ctx, nil)
	check(t, err)
	for _, x := range ts.Tools {
		l.tools = append(l.tools, x.Name)
	}
	if ps, err := cs.ListPrompts(ctx, nil); err == nil {
		for _, x := range ps.Prompts {
			l.prompts = append(l.prompts, x.Name)
		}
	}
	if rs, err := cs.ListResources(ctx, nil); err == nil {
		for _, x := range rs.Resources {
			l.resources = append(l.resources, x.URI)
		}
	}
	if rs, err := cs.ListResourceTemplates(ctx, nil); err == nil {
		for _, x := range rs.ResourceTemplates {
			l.resources = append(l.resources, x.URITemplate)
		}
	}
	return l
}

// TestSelect mounts what selectors choose of an upstream, by glob over
// the names clients see, by annotation, and by kind: exactly that is
// listed, and nothing else can be called, got or read.
func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sel    []gateway.Selector
		want   listed
		refuse string // a tool the upstream has that is not callable
	}{
		{"tools by glob", []gateway.Selector{{Tools: []string{"up_e*"}}},
			listed{tools: []string{"up_echo", "up_elicit", "up_elicit_url", "up_environ"}}, "up_pid"},
		{"tools by annotation", []gateway.Selector{{Annotations: map[string]bool{"readOnlyHint": true}}},
			listed{tools: []string{"up_pid"}}, "up_echo"},
		{"a glob and an annotation both", []gateway.Selector{{Tools: []string{"up_p*"}, Annotations: map[string]bool{"readOnlyHint": false}}},
			listed{tools: []string{"up_progress"}}, "up_pid"},
		{"prompts and resources, no tools", []gateway.Selector{{Prompts: []string{"up_greet"}, Resources: []string{"test://item/*"}}},
			listed{prompts: []string{"up_greet"}, resources: []string{"test://item/{id}"}}, "up_echo"},
		{"two selectors add up", []gateway.Selector{{Tools: []string{"up_pid"}}, {Resources: []string{"test://**"}}},
			listed{tools: []string{"up_pid"}, resources: []string{"test://hello", "test://item/{id}"}}, "up_echo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := stdio("up")
			up.Prefix, up.Select = "up_", tc.sel
			srv, _ := serve(t, nil, up)
			cs := connect(t, srv, nil)
			got := listAll(t, cs)
			slices.Sort(got.tools)
			if !slices.Equal(got.tools, tc.want.tools) || !slices.Equal(got.prompts, tc.want.prompts) || !slices.Equal(got.resources, tc.want.resources) {
				t.Errorf("listed %+v, want %+v", got, tc.want)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.refuse, Arguments: map[string]any{}})
			if err == nil && !res.IsError {
				t.Errorf("calling %s, not selected: %v, want an error", tc.refuse, text(res))
			}
			if !slices.Contains(tc.want.prompts, "up_greet") {
				if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "up_greet", Arguments: map[string]string{"name": "x"}}); err == nil {
					t.Errorf("getting up_greet, not selected: no error")
				}
			}
			if !slices.Contains(tc.want.resources, "test://hello") {
				if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://hello"}); err == nil {
					t.Errorf("reading test://hello, not selected: no error")
				}
			}
		})
	}
}

// TestOverrides shows a tool renamed, retitled, redescribed and with a
// hint changed: clients list and call it by its new name, the upstream
// gets the call under its own, and the old name is gone.
func TestOverrides(t *testing.T) {
	up := stdio("up")
	up.Prefix = "up_"
	up.Overrides = map[string]gateway.ToolOverride{"up_echo": {Name: "say", Title: "Say it", Description: "Says it back.",
		Annotations: map[string]bool{"readOnlyHint": true, "openWorldHint": false}}}
	srv, _ := serve(t, nil, up)
	cs := connect(t, srv, nil)
	ts, err := cs.ListTools(context.Background(), nil)
	check(t, err)
	i := slices.IndexFunc(ts.Tools, func(x *mcp.Tool) bool { return x.Name == "say" })
	if i < 0 || slices.ContainsFunc(ts.Tools, func(x *mcp.Tool) bool { return x.Name == "up_echo" }) {
		t.Fatalf("tools listed: want say and no up_echo")
	}
	say := ts.Tools[i]
	if say.Title != "Say it" || say.Description != "Says it back." || say.Annotations == nil || !say.Annotations.ReadOnlyHint ||
		say.Annotations.OpenWorldHint == nil || *say.Annotations.OpenWorldHint || say.Annotations.DestructiveHint != nil {
		t.Errorf("say listed as %+v (annotations %+v), want the overrides and the rest as the upstream gave it", say, say.Annotations)
	}
	if got, isErr := call(t, cs, "say", map[string]any{"x": 1}); isErr || got != `{"x":1}` {
		t.Errorf("calling say: %q (error %v), want the upstream's echo", got, isErr)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "up_echo", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Errorf("calling up_echo, renamed: %v, want an error", text(res))
	}
}

// TestSelectionErrors refuses selectors and overrides that cannot work,
// naming the setting.
func TestSelectionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*gateway.Upstream)
		want string
	}{
		{"bad glob", func(u *gateway.Upstream) { u.Select = []gateway.Selector{{Tools: []string{"read_[a"}}} }, `upstream "up": Select[0]: "read_[a" is not a glob`},
		{"empty pattern", func(u *gateway.Upstream) { u.Select = []gateway.Selector{{}, {Prompts: []string{""}}} }, `Select[1]: want a name`},
		{"unknown hint", func(u *gateway.Upstream) {
			u.Select = []gateway.Selector{{Annotations: map[string]bool{"readonly": true}}}
		}, `Select[0].Annotations: "readonly" is not a tool hint`},
		{"bad new name", func(u *gateway.Upstream) { u.Overrides = map[string]gateway.ToolOverride{"echo": {Name: "say it"}} }, `Overrides["echo"].Name: want 1 to 128 letters`},
		{"two to one name", func(u *gateway.Upstream) {
			u.Overrides = map[string]gateway.ToolOverride{"echo": {Name: "x"}, "pid": {Name: "x"}}
		}, `Overrides["echo"] and Overrides["pid"] both rename to "x"`},
		{"renamed onto another tool", func(u *gateway.Upstream) { u.Overrides = map[string]gateway.ToolOverride{"echo": {Name: "pid"}} }, `"pid"`},
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
