package flows

//go:generate go run ./internal/gentable

// table is the one description of hookflow's flows: every other list of
// flows (the ID constants, [Count], [ID.Index], [ForMethod], the [ViewKind]
// constants and each view's flow, [ID.IsResult], the framework's dispatch,
// hookgen's analysis and rendering, hookgen -explain, the table of
// docs/flows.md) is derived from it. Adding a flow is one row here, its
// typed view in typed.go when it needs a new one (a type declared as
// struct{ *Context }, named by the row's View as View<Type>), and
// `go generate ./flows`, which writes table_gen.go and the docs table. A
// row added without regenerating does not compile: the array has [Count]
// elements.
var table = [Count]Info{
	{ID: "tools:call-tool", Const: "ToolsCallTool", Method: "tools/call", Entity: EntityTool, View: ViewToolCall, Result: "CallToolResult", Doc: "see raw then typed arguments, block, rewrite arguments, answer early, rewrite the result"},
	{ID: "tools:list-tools", Const: "ToolsListTools", Method: "tools/list", View: ViewList, Result: "ListToolsResult", Doc: "filter or rewrite the list"},
	{ID: "resources:read-resource", Const: "ResourcesReadResource", Method: "resources/read", Entity: EntityResource, View: ViewResourceRead, Result: "ReadResourceResult", Doc: "see and rewrite the URI, block, answer early, rewrite the result"},
	{ID: "resources:list-resources", Const: "ResourcesListResources", Method: "resources/list", View: ViewList, Result: "ListResourcesResult", Doc: "filter or rewrite the list"},
	{ID: "resources:list-resource-templates", Const: "ResourcesListResourceTemplates", Method: "resources/templates/list", View: ViewList, Result: "ListResourceTemplatesResult", Doc: "filter or rewrite the list"},
	{ID: "prompts:get-prompt", Const: "PromptsGetPrompt", Method: "prompts/get", Entity: EntityPrompt, View: ViewPromptGet, Result: "GetPromptResult", Doc: "see and rewrite the arguments, block, answer early, rewrite the result"},
	{ID: "prompts:list-prompts", Const: "PromptsListPrompts", Method: "prompts/list", View: ViewList, Result: "ListPromptsResult", Doc: "filter or rewrite the list"},
	{ID: "completion:complete", Const: "CompletionComplete", Method: "completion/complete", Entity: EntityCompletion, View: ViewCompletion, Result: "CompleteResult", Doc: "see and rewrite the request, block, answer early, rewrite the completion"},
	// Clients of protocol 2026-07-28 discover instead of initializing.
	{ID: "session:initialize", Const: "SessionInitialize", Method: "initialize", Alias: "server/discover", View: ViewInitialize, Result: "InitializeResult", Doc: "read client info, add server capabilities such as `experimental.hooks` (server/discover on protocol 2026-07-28)"},
	{ID: "session:ping", Const: "SessionPing", Method: "ping", Doc: "see or refuse a ping"},
	{ID: "resources:subscribe", Const: "ResourcesSubscribe", Method: "resources/subscribe", View: ViewSubscribe, Doc: "see, refuse or rewrite the URI watched"},
	{ID: "resources:unsubscribe", Const: "ResourcesUnsubscribe", Method: "resources/unsubscribe", View: ViewUnsubscribe, Doc: "see or refuse"},
	{ID: "logging:set-level", Const: "LoggingSetLevel", Method: "logging/setLevel", View: ViewSetLevel, Doc: "see, refuse or change the level"},
	// Every notification the client sends: initialized, cancelled,
	// progress, roots/list_changed.
	{ID: "notifications:from-client", Const: "NotificationsFromClient", Method: "notifications/*", View: ViewClientNotification, Doc: "see, rewrite or drop it before the server's handler (initialized, cancelled, progress, roots/list_changed)"},

	// What the server sends its client. Every notification: progress,
	// message (logging), resources/updated, the list changes.
	{ID: "notifications:from-server", Const: "NotificationsFromServer", Method: "notifications/*", Direction: FromServer, View: ViewServerNotification, Doc: "see, rewrite or drop it before the client gets it (progress, message, resources/updated, the list changes)"},
	{ID: "sampling:create-message", Const: "SamplingCreateMessage", Method: "sampling/createMessage", Direction: FromServer, View: ViewSampling, Result: "CreateMessageWithToolsResult", Doc: "rewrite the request, answer for the client, rewrite the answer"},
	{ID: "elicitation:create", Const: "ElicitationCreate", Method: "elicitation/create", Direction: FromServer, View: ViewElicitation, Result: "ElicitResult", Doc: "rewrite the request, answer for the user, rewrite the answer"},
	{ID: "roots:list-roots", Const: "RootsListRoots", Method: "roots/list", Direction: FromServer, View: ViewRootsList, Result: "ListRootsResult", Doc: "answer for the client, filter the roots"},
}
