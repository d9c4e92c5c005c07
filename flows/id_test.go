package flows_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
		dir       flows.Direction
	}{
		{flows.ToolsCallTool, 0, "tools", "call-tool", "tools/call", flows.EntityTool, flows.ViewToolCall, "CallToolResult", "ToolsCallTool", "", flows.FromClient},
		{flows.ToolsListTools, 1, "tools", "list-tools", "tools/list", flows.EntityNone, flows.ViewList, "ListToolsResult", "ToolsListTools", "", flows.FromClient},
		{flows.ResourcesReadResource, 2, "resources", "read-resource", "resources/read", flows.EntityResource, flows.ViewResourceRead, "ReadResourceResult", "ResourcesReadResource", "", flows.FromClient},
		{flows.ResourcesListResources, 3, "resources", "list-resources", "resources/list", flows.EntityNone, flows.ViewList, "ListResourcesResult", "ResourcesListResources", "", flows.FromClient},
		{flows.ResourcesListResourceTemplates, 4, "resources", "list-resource-templates", "resources/templates/list", flows.EntityNone, flows.ViewList, "ListResourceTemplatesResult", "ResourcesListResourceTemplates", "", flows.FromClient},
		{flows.PromptsGetPrompt, 5, "prompts", "get-prompt", "prompts/get", flows.EntityPrompt, flows.ViewPromptGet, "GetPromptResult", "PromptsGetPrompt", "", flows.FromClient},
		{flows.PromptsListPrompts, 6, "prompts", "list-prompts", "prompts/list", flows.EntityNone, flows.ViewList, "ListPromptsResult", "PromptsListPrompts", "", flows.FromClient},
		{flows.CompletionComplete, 7, "completion", "complete", "completion/complete", flows.EntityCompletion, flows.ViewCompletion, "CompleteResult", "CompletionComplete", "", flows.FromClient},
		{flows.SessionInitialize, 8, "session", "initialize", "initialize", flows.EntityNone, flows.ViewInitialize, "InitializeResult", "SessionInitialize", "server/discover", flows.FromClient},
		{flows.SessionPing, 9, "session", "ping", "ping", flows.EntityNone, flows.ViewContext, "", "SessionPing", "", flows.FromClient},
		{flows.ResourcesSubscribe, 10, "resources", "subscribe", "resources/subscribe", flows.EntityNone, flows.ViewSubscribe, "", "ResourcesSubscribe", "", flows.FromClient},
		{flows.ResourcesUnsubscribe, 11, "resources", "unsubscribe", "resources/unsubscribe", flows.EntityNone, flows.ViewUnsubscribe, "", "ResourcesUnsubscribe", "", flows.FromClient},
		{flows.LoggingSetLevel, 12, "logging", "set-level", "logging/setLevel", flows.EntityNone, flows.ViewSetLevel, "", "LoggingSetLevel", "", flows.FromClient},
		{flows.NotificationsFromClient, 13, "notifications", "from-client", "notifications/*", flows.EntityNone, flows.ViewClientNotification, "", "NotificationsFromClient", "", flows.FromClient},
		{flows.NotificationsFromServer, 14, "notifications", "from-server", "notifications/*", flows.EntityNone, flows.ViewServerNotification, "", "NotificationsFromServer", "", flows.FromServer},
		{flows.SamplingCreateMessage, 15, "sampling", "create-message", "sampling/createMessage", flows.EntityNone, flows.ViewSampling, "CreateMessageWithToolsResult", "SamplingCreateMessage", "", flows.FromServer},
		{flows.ElicitationCreate, 16, "elicitation", "create", "elicitation/create", flows.EntityNone, flows.ViewElicitation, "ElicitResult", "ElicitationCreate", "", flows.FromServer},
		{flows.RootsListRoots, 17, "roots", "list-roots", "roots/list", flows.EntityNone, flows.ViewRootsList, "ListRootsResult", "RootsListRoots", "", flows.FromServer},
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
			want := flows.Info{ID: id, Const: tt.constName, Method: tt.method, Alias: tt.alias, Direction: tt.dir, Entity: tt.entity, View: tt.view, Result: tt.result}
			want.Doc = id.Info().Doc // the docs' phrase; doccheck compares it with docs/flows.md
			if want.Doc == "" {
				t.Error("the row has no Doc")
			}
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
			method := strings.Replace(tt.method, "*", "anything", 1)
			forMethod, other := flows.ForMethod, flows.ForSent
			if tt.dir == flows.FromServer {
				forMethod, other = flows.ForSent, flows.ForMethod
			}
			if got, ok := forMethod(method); !ok || got != id {
				t.Errorf("method %q (%s) gives %q, %v", method, tt.dir, got, ok)
			}
			if got, ok := other(method); ok && got == id {
				t.Errorf("method %q gives %q in the other direction too", method, got)
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
	for _, m := range []string{"", "tools/Call", "tools:call-tool", "notifications", "notifications:initialized", "sampling/createMessage", "roots/list"} {
		if id, ok := flows.ForMethod(m); ok || id != "" {
			t.Errorf("ForMethod(%q) = %q, %v; want no flow", m, id, ok)
		}
	}
	for _, m := range []string{"", "tools/call", "ping", "initialize", "notifications", "logging/setLevel"} {
		if id, ok := flows.ForSent(m); ok || id != "" {
			t.Errorf("ForSent(%q) = %q, %v; want no flow", m, id, ok)
		}
	}
}

// Both directions carry every notification, each to its own flow.
func TestNotificationsByDirection(t *testing.T) {
	for _, m := range []string{"notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/roots/list_changed"} {
		if id, _ := flows.ForMethod(m); id != flows.NotificationsFromClient {
			t.Errorf("ForMethod(%q) = %q, want %q", m, id, flows.NotificationsFromClient)
		}
	}
	for _, m := range []string{"notifications/progress", "notifications/message", "notifications/resources/updated", "notifications/tools/list_changed", "notifications/elicitation/complete"} {
		if id, _ := flows.ForSent(m); id != flows.NotificationsFromServer {
			t.Errorf("ForSent(%q) = %q, want %q", m, id, flows.NotificationsFromServer)
		}
	}
}

func TestDirectionString(t *testing.T) {
	for d, want := range map[flows.Direction]string{flows.FromClient: "client→server", flows.FromServer: "server→client", 7: "Direction(7)"} {
		if got := d.String(); got != want {
			t.Errorf("Direction(%d).String() = %q, want %q", d, got, want)
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

// IsResult accepts a non-nil value of the flow's result type only, and
// nothing at all for a flow without one.
func TestIsResult(t *testing.T) {
	tests := []struct {
		flow flows.ID
		v    any
		want bool
	}{
		{flows.SamplingCreateMessage, &mcp.CreateMessageWithToolsResult{}, true},
		{flows.SamplingCreateMessage, &mcp.CreateMessageResult{}, false},
		{flows.SamplingCreateMessage, (*mcp.CreateMessageWithToolsResult)(nil), false},
		{flows.ElicitationCreate, &mcp.ElicitResult{}, true},
		{flows.RootsListRoots, &mcp.ListRootsResult{}, true},
		{flows.RootsListRoots, nil, false},
		{flows.ToolsListTools, &mcp.ListToolsResult{}, true},
		{flows.ToolsListTools, &mcp.ListPromptsResult{}, false},
		{flows.NotificationsFromServer, nil, true},
		{flows.NotificationsFromServer, &mcp.ElicitResult{}, false},
	}
	for _, tt := range tests {
		if got := tt.flow.IsResult(tt.v); got != tt.want {
			t.Errorf("%s.IsResult(%T) = %v, want %v", tt.flow, tt.v, got, tt.want)
		}
	}
}
