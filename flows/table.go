package flows

//go:generate go run ./internal/gentable

// table is the one description of hookflow's flows: every other list of
// flows (the ID constants, [Count], [ID.Index], [ForMethod], the framework's
// dispatch, hookgen's analysis and rendering, hookgen -explain) is derived
// from it. Adding a flow is one row here, its typed view in typed.go when it
// needs a new one, and `go generate ./flows`, which writes table_gen.go. A
// row added without regenerating does not compile: the array has [Count]
// elements.
var table = [Count]Info{
	{ID: "tools:call-tool", Const: "ToolsCallTool", Method: "tools/call", Entity: EntityTool, View: ViewToolCall, Result: "CallToolResult"},
	{ID: "tools:list-tools", Const: "ToolsListTools", Method: "tools/list", View: ViewList, Result: "ListToolsResult"},
	{ID: "resources:read-resource", Const: "ResourcesReadResource", Method: "resources/read", Entity: EntityResource, View: ViewResourceRead, Result: "ReadResourceResult"},
	{ID: "resources:list-resources", Const: "ResourcesListResources", Method: "resources/list", View: ViewList, Result: "ListResourcesResult"},
	{ID: "resources:list-resource-templates", Const: "ResourcesListResourceTemplates", Method: "resources/templates/list", View: ViewList, Result: "ListResourceTemplatesResult"},
	{ID: "prompts:get-prompt", Const: "PromptsGetPrompt", Method: "prompts/get", Entity: EntityPrompt, View: ViewPromptGet, Result: "GetPromptResult"},
	{ID: "prompts:list-prompts", Const: "PromptsListPrompts", Method: "prompts/list", View: ViewList, Result: "ListPromptsResult"},
	{ID: "completion:complete", Const: "CompletionComplete", Method: "completion/complete", Entity: EntityCompletion, View: ViewCompletion, Result: "CompleteResult"},
	// Clients of protocol 2026-07-28 discover instead of initializing.
	{ID: "session:initialize", Const: "SessionInitialize", Method: "initialize", Alias: "server/discover", View: ViewInitialize, Result: "InitializeResult"},
	{ID: "session:ping", Const: "SessionPing", Method: "ping"},
	{ID: "resources:subscribe", Const: "ResourcesSubscribe", Method: "resources/subscribe", View: ViewSubscribe},
	{ID: "resources:unsubscribe", Const: "ResourcesUnsubscribe", Method: "resources/unsubscribe", View: ViewUnsubscribe},
	{ID: "logging:set-level", Const: "LoggingSetLevel", Method: "logging/setLevel", View: ViewSetLevel},
	// Every notification the client sends: initialized, cancelled,
	// progress, roots/list_changed.
	{ID: "notifications:from-client", Const: "NotificationsFromClient", Method: "notifications/*", View: ViewClientNotification},

	// What the server sends its client. Every notification: progress,
	// message (logging), resources/updated, the list changes.
	{ID: "notifications:from-server", Const: "NotificationsFromServer", Method: "notifications/*", Direction: FromServer, View: ViewServerNotification},
	{ID: "sampling:create-message", Const: "SamplingCreateMessage", Method: "sampling/createMessage", Direction: FromServer, View: ViewSampling, Result: "CreateMessageWithToolsResult"},
	{ID: "elicitation:create", Const: "ElicitationCreate", Method: "elicitation/create", Direction: FromServer, View: ViewElicitation, Result: "ElicitResult"},
	{ID: "roots:list-roots", Const: "RootsListRoots", Method: "roots/list", Direction: FromServer, View: ViewRootsList, Result: "ListRootsResult"},
}
