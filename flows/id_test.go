package flows_test

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/flows"
)

func TestIDs(t *testing.T) {
	tests := []struct {
		id        flows.ID
		index     int
		namespace string
		name      string
		method    string
		entity    flows.EntityKind
		view      flows.ViewKind
		result    string
		constName string
		alias     string
	}{
		{flows.ToolsCallTool, 0, "tools", "call-tool", "tools/call", flows.EntityTool, flows.ViewToolCall, "CallToolResult", "ToolsCallTool", ""},
		{flows.ToolsListTools, 1, "tools", "list-tools", "tools/list", flows.EntityNone, flows.ViewList, "ListToolsResult", "ToolsListTools", ""},
		{flows.ResourcesReadResource, 2, "resources", "read-resource", "resources/read", flows.EntityResource, flows.ViewResourceRead, "ReadResourceResult", "ResourcesReadResource", ""},
		{flows.ResourcesListResources, 3, "resources", "list-resources", "resources/list", flows.EntityNone, flows.ViewList, "ListResourcesResult", "ResourcesListResources", ""},
		{flows.ResourcesListResourceTemplates, 4, "resources", "list-resource-templates", "resources/templates/list", flows.EntityNone, flows.ViewList, "ListResourceTemplatesResult", "ResourcesListResourceTemplates", ""},
		{flows.PromptsGetPrompt, 5, "prompts", "get-prompt", "prompts/get", flows.EntityPrompt, flows.ViewPromptGet, "GetPromptResult", "PromptsGetPrompt", ""},
		{flows.PromptsListPrompts, 6, "prompts", "list-prompts", "prompts/list", flows.EntityNone, flows.ViewList, "ListPromptsResult", "PromptsListPrompts", ""},
		{flows.CompletionComplete, 7, "completion", "complete", "completion/complete", flows.EntityCompletion, flows.ViewCompletion, "CompleteResult", "CompletionComplete", ""},
		{flows.SessionInitialize, 8, "session", "initialize", "initialize", flows.EntityNone, flows.ViewInitialize, "InitializeResult", "SessionInitialize", "server/discover"},
	}
	if len(tests) != flows.Count {
		t.Fatalf("table has %d flows, flows.Count is %d", len(tests), flows.Count)
	}
	all := flows.All()
	if len(all) != flows.Count {
		t.Fatalf("All() has %d flows, want %d", len(all), flows.Count)
	}
	for _, tt := range tests {
		t.Run(string(tt.id), func(t *testing.T) {
			id := tt.id
			if got := id.Index(); got != tt.index {
				t.Errorf("Index() = %d, want %d", got, tt.index)
			}
			if !id.Valid() {
				t.Error("Valid() = false")
			}
			if got := id.Namespace(); got != tt.namespace {
				t.Errorf("Namespace() = %q, want %q", got, tt.namespace)
			}
			if got := id.Name(); got != tt.name {
				t.Errorf("Name() = %q, want %q", got, tt.name)
			}
			if got := id.String(); got != tt.namespace+":"+tt.name {
				t.Errorf("String() = %q", got)
			}
			want := flows.Info{ID: id, Const: tt.constName, Method: tt.method, Alias: tt.alias, Entity: tt.entity, View: tt.view, Result: tt.result}
			if got := id.Info(); got != want {
				t.Errorf("Info() = %+v, want %+v", got, want)
			}
			if got := all[tt.index]; got != want {
				t.Errorf("All()[%d] = %+v, want %+v", tt.index, got, want)
			}
			if got, err := flows.Parse(string(id)); err != nil || got != id {
				t.Errorf("Parse(%q) = %q, %v", id, got, err)
			}
			if got, ok := flows.Suggest(string(id)); !ok || got != id {
				t.Errorf("Suggest(%q) = %q, %v", id, got, ok)
			}
			if got, ok := flows.ForMethod(tt.method); !ok || got != id {
				t.Errorf("ForMethod(%q) = %q, %v", tt.method, got, ok)
			}
			if tt.alias != "" {
				if got, ok := flows.ForMethod(tt.alias); !ok || got != id {
					t.Errorf("ForMethod(%q) = %q, %v", tt.alias, got, ok)
				}
			}
		})
	}

	all[0].Method = "changed"
	if flows.All()[0].Method != "tools/call" {
		t.Error("All() returned shared storage")
	}
}

func TestUnknownID(t *testing.T) {
	for _, id := range []flows.ID{"", "tools", "tools:", "tools:call", "Tools:Call-Tool", "tools:call-tool ", "x:y"} {
		t.Run(string(id), func(t *testing.T) {
			if id.Valid() || id.Index() != -1 {
				t.Errorf("%q: Valid() = %v, Index() = %d", id, id.Valid(), id.Index())
			}
			defer func() {
				if recover() == nil {
					t.Errorf("Info() of %q did not panic", id)
				}
			}()
			_ = id.Info()
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"tools:call-tol", `unknown flow "tools:call-tol" (did you mean "tools:call-tool"?)`},
		{"Tools:Call-Tool", `unknown flow "Tools:Call-Tool" (did you mean "tools:call-tool"?)`},
		{"tools:list-tool", `unknown flow "tools:list-tool" (did you mean "tools:list-tools"?)`},
		{"prompts:get-prompts", `unknown flow "prompts:get-prompts" (did you mean "prompts:get-prompt"?)`},
		{"session:initialise", `unknown flow "session:initialise" (did you mean "session:initialize"?)`},
		{"tools/call", `unknown flow "tools/call"`},
		{"", `unknown flow ""`},
		{"nothing:like-a-flow-at-all", `unknown flow "nothing:like-a-flow-at-all"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := flows.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want an error", tt.in, got)
			}
			if got != "" {
				t.Errorf("Parse(%q) returned %q with its error", tt.in, got)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("Parse(%q) error:\n got %s\nwant %s", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestForMethodUnknown(t *testing.T) {
	for _, m := range []string{"", "tools/Call", "tools:call-tool", "ping", "notifications/initialized", "resources/subscribe"} {
		if id, ok := flows.ForMethod(m); ok || id != "" {
			t.Errorf("ForMethod(%q) = %q, %v; want no flow", m, id, ok)
		}
	}
}

func TestNamespaceAndNameWithoutColon(t *testing.T) {
	id := flows.ID("nocolon")
	if id.Namespace() != "nocolon" || id.Name() != "" {
		t.Errorf("Namespace() = %q, Name() = %q", id.Namespace(), id.Name())
	}
}

func TestEntityKindString(t *testing.T) {
	tests := []struct {
		k    flows.EntityKind
		want string
	}{
		{flows.EntityNone, "none"},
		{flows.EntityTool, "tool"},
		{flows.EntityResource, "resource"},
		{flows.EntityPrompt, "prompt"},
		{flows.EntityCompletion, "completion"},
		{flows.EntityKind(42), "EntityKind(42)"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("EntityKind(%d).String() = %q, want %q", tt.k, got, tt.want)
		}
	}
}

// Every flow ID is namespace:kebab-name, lower case: the form directives use.
func TestIDForm(t *testing.T) {
	for _, f := range flows.All() {
		s := string(f.ID)
		if strings.ToLower(s) != s || strings.Count(s, ":") != 1 || f.ID.Namespace() == "" || f.ID.Name() == "" {
			t.Errorf("flow ID %q is not lower-case namespace:name", s)
		}
	}
}
