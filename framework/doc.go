// Package framework is hookflow's MCP server: an *mcp.Server from the
// official Go SDK whose every request runs as a hookflow flow.
//
// # Entities
//
// Tools, resources, resource templates and prompts are plain Go types
// registered with [AddTool], [AddResource] and [AddPrompt] (hookgen
// generates these calls from //mcp: directives), or plain functions with
// [AddToolFunc], [AddResourceFunc] and [AddPromptFunc]. A tool's input and
// output schemas are inferred from its Go types exactly as the SDK's typed
// mcp.AddTool infers them, but hookflow registers the tool on the SDK's raw
// handler API so that it owns every step:
//
//	beforeValidation  hooks see the raw JSON arguments (and may rewrite them)
//	validate          defaults applied, arguments validated, decoded into *In
//	afterValidation   hooks see the typed input
//	beforeExecute     …
//	execute           the tool's Execute method
//	afterExecute      hooks see (and may rewrite) the typed output
//	onError, finally  as the run contract in package flows says
//
// # What the client sees
//
// A tools/call failure is a CallToolResult with isError set and the reason as
// text (the model reads it), unless the error is, or wraps, a
// *jsonrpc.Error, which goes out as a protocol error. The other flows return
// protocol errors. An unknown tool, prompt or resource is a protocol error
// with code -32602 (a resource's is the SDK's resource-not-found code);
// no flow runs for it, and readers of runs learn of it through
// [PluginContext.OnRefusal]. A panic in a hook, a tool or anywhere in the server's
// request handling is recovered: the request gets an error and the server
// keeps serving.
//
// # Limits on arguments
//
// The validate step of a tool call first holds its arguments to
// [Options.ArgumentLimits]: at most 4 MiB of JSON text, 64 levels of
// nested objects and arrays (the arguments object is level 1), and 10,000
// object keys, nested objects' keys included. Arguments past a bound get
// a -32602 (invalid params) protocol error naming the bound and its value,
// such as "arguments hold more than 10000 keys", and never echoing the
// input. beforeValidation hooks have seen the arguments as sent; the tool
// and the hooks of later stages do not run, but onError and finally hooks
// see the failure, of code [flows.CodeInvalidInput]. The check reads the
// text once, without recursion, and the canonical JSON of the
// arguments sorts each object's keys in O(n log n) whatever their order,
// so the bounds also bound the work a call does before its tool runs,
// which the tool's timeout does not interrupt. A server whose tools take
// more sets larger values in [ArgumentLimits]; there is no unbounded
// setting.
//
// # Scopes, apps and plugins
//
// The [Server] owns the root scope. [Server.App] makes a child scope for a
// named group of entities; hooks and plugins attached to an app run for its
// entities only, while the server's run for all. A [Plugin] gets its own
// child scope at Start and registers hooks and dig providers there.
// Entities' constructors are called once, at Start, through the dig
// container of their scope. A hook consults another tool of the server
// with [Server.CallTool]: that tool's own flow runs, for the same client.
//
// # Request information
//
// Every hook's [flows.Context] carries a [flows.Request]: a hookflow-minted
// request ID, the session and its ID, the progress token, client info and
// capabilities, and on HTTP the headers and the verified token. [Progress]
// and [Log] report to the client.
//
// # What the server sends
//
// The requests and notifications the server sends its client run flows
// too, through an SDK sending middleware: sampling:create-message,
// elicitation:create and roots:list-roots when code calls the session's
// CreateMessage, Elicit or ListRoots, and notifications:from-server for
// progress, log messages, resource updates and list changes. Their
// execute step sends the message; a hook may rewrite it, answer it
// (Respond: the client is not asked) or drop a notification. The
// notifications the client sends run notifications:from-client before the
// server's handlers. A flow with no hooks is skipped. See docs/flows.md.
//
// # Text for the model
//
// A hook of a tools:call-tool run adds text for the model to read with
// [AddContext]: it is appended to the call's result as text content, whether
// the call succeeds, is answered early, or fails or is blocked (then to the
// isError result). structuredContent is never changed.
//
// # Explaining the plan
//
// [Server.Explain] returns the ordered plan a flow runs for an entity, in
// the format of hookgen -explain; [Options.Admin] serves it over HTTP,
// behind the auth plugin (see [AdminOptions]).
//
// # Concurrency
//
// A Server is safe for concurrent use once started. Apps and plugins are
// added before Start. Entities may be added before or after it: before,
// two entities of one name are an error; after, a new entity replaces the
// one of its name, as the SDK does, and clients are told the list changed
// (RemoveTool and its kin take them away). Hooks may be added at any time
// and take effect on the next request.
package framework
