package flows

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolCall is the typed view of a [ToolsCallTool] run for a tool with input
// type In and output type Out. It is what a tool's embedded hooks receive;
// an external hook takes one through [On] when it knows the tool's
// types. All [Context] methods are available on it.
//
// The input is the raw JSON arguments until validation ([ToolCall.Args]),
// then a *In ([ToolCall.Input]). The output is an Out, or a
// *mcp.CallToolResult when a hook answered with a whole result.
type ToolCall[In, Out any] struct{ *Context }

// Name returns the called tool's name.
func (c ToolCall[In, Out]) Name() string { return c.entity.Name }

// Args returns the raw JSON arguments while they are still raw (before
// validation), nil afterwards.
func (c ToolCall[In, Out]) Args() json.RawMessage {
	raw, _ := c.input.(json.RawMessage)
	return raw
}

// SetArgs replaces the raw arguments; in beforeValidation the new arguments
// are then validated in place of the client's.
func (c ToolCall[In, Out]) SetArgs(raw json.RawMessage) { c.input = raw }

// Input returns the validated input, or nil before validation. Hooks may
// modify it in afterValidation and beforeExecute; execute sees the changes.
func (c ToolCall[In, Out]) Input() *In {
	in, _ := c.input.(*In)
	return in
}

// Output returns the tool's typed output and whether there is one (there is
// none before execute, or when the output is a whole result).
func (c ToolCall[In, Out]) Output() (Out, bool) {
	out, ok := c.output.(Out)
	return out, ok
}

// SetOutput replaces the output, e.g. to rewrite a result in afterExecute.
func (c ToolCall[In, Out]) SetOutput(out Out) { c.output = out }

// Respond answers the call with out (see [Context.Respond]).
func (c ToolCall[In, Out]) Respond(out Out) { c.Context.Respond(out) }

// RespondResult answers the call with a whole result, as an external hook
// that does not know Out would.
func (c ToolCall[In, Out]) RespondResult(res *mcp.CallToolResult) { c.Context.Respond(res) }

// Result returns the output when it is a whole *mcp.CallToolResult.
func (c ToolCall[In, Out]) Result() *mcp.CallToolResult {
	res, _ := c.output.(*mcp.CallToolResult)
	return res
}

// ResourceRead is the typed view of a [ResourcesReadResource] run. Its input
// is the read's parameters (the URI); its output a *mcp.ReadResourceResult.
type ResourceRead struct{ *Context }

// URI returns the requested URI.
func (c ResourceRead) URI() string {
	if p, ok := c.input.(*mcp.ReadResourceParams); ok {
		return p.URI
	}
	return ""
}

// Params returns the request parameters; hooks may change the URI before
// execute.
func (c ResourceRead) Params() *mcp.ReadResourceParams {
	p, _ := c.input.(*mcp.ReadResourceParams)
	return p
}

// Result returns the read's result, nil before execute.
func (c ResourceRead) Result() *mcp.ReadResourceResult {
	r, _ := c.output.(*mcp.ReadResourceResult)
	return r
}

// Respond answers the read with res.
func (c ResourceRead) Respond(res *mcp.ReadResourceResult) { c.Context.Respond(res) }

// PromptGet is the typed view of a [PromptsGetPrompt] run. Its input is the
// request parameters (name and arguments); its output a *mcp.GetPromptResult.
type PromptGet struct{ *Context }

// Params returns the request parameters; hooks may change the arguments
// before execute.
func (c PromptGet) Params() *mcp.GetPromptParams {
	p, _ := c.input.(*mcp.GetPromptParams)
	return p
}

// Arguments returns the prompt's arguments.
func (c PromptGet) Arguments() map[string]string {
	if p := c.Params(); p != nil {
		return p.Arguments
	}
	return nil
}

// Result returns the prompt's result, nil before execute.
func (c PromptGet) Result() *mcp.GetPromptResult {
	r, _ := c.output.(*mcp.GetPromptResult)
	return r
}

// Respond answers the request with res.
func (c PromptGet) Respond(res *mcp.GetPromptResult) { c.Context.Respond(res) }

// List is the typed view of a list flow: [ToolsListTools] (R is
// *mcp.ListToolsResult), [ResourcesListResources] (*mcp.ListResourcesResult),
// [ResourcesListResourceTemplates] (*mcp.ListResourceTemplatesResult) or
// [PromptsListPrompts] (*mcp.ListPromptsResult). afterExecute hooks filter or
// rewrite the result the client sees.
type List[R any] struct{ *Context }

// Result returns the list result, or the zero R before execute.
func (c List[R]) Result() R {
	r, _ := c.output.(R)
	return r
}

// Respond answers the list request with res.
func (c List[R]) Respond(res R) { c.Context.Respond(res) }

// Completion is the typed view of a [CompletionComplete] run. Its input is
// the request parameters; its output a *mcp.CompleteResult.
type Completion struct{ *Context }

// Params returns the completion request's parameters.
func (c Completion) Params() *mcp.CompleteParams {
	p, _ := c.input.(*mcp.CompleteParams)
	return p
}

// Result returns the completion, nil before execute.
func (c Completion) Result() *mcp.CompleteResult {
	r, _ := c.output.(*mcp.CompleteResult)
	return r
}

// Respond answers the request with res.
func (c Completion) Respond(res *mcp.CompleteResult) { c.Context.Respond(res) }

// Initialize is the typed view of a [SessionInitialize] run. Its input is the
// client's initialize parameters and its output the *mcp.InitializeResult,
// whose capabilities afterExecute hooks may extend. Clients of protocol
// 2026-07-28 do not initialize: they send server/discover, which runs the
// same flow with *mcp.DiscoverParams in and *mcp.DiscoverResult out.
type Initialize struct{ *Context }

// Params returns the client's initialize parameters.
func (c Initialize) Params() *mcp.InitializeParams {
	p, _ := c.input.(*mcp.InitializeParams)
	return p
}

// Result returns the initialize result, nil before execute.
func (c Initialize) Result() *mcp.InitializeResult {
	r, _ := c.output.(*mcp.InitializeResult)
	return r
}

// Capabilities returns the server capabilities of the result (initialize or
// discover), creating them if the result has none; nil before execute.
func (c Initialize) Capabilities() *mcp.ServerCapabilities {
	var caps **mcp.ServerCapabilities
	switch r := c.output.(type) {
	case *mcp.InitializeResult:
		if r != nil {
			caps = &r.Capabilities
		}
	case *mcp.DiscoverResult:
		if r != nil {
			caps = &r.Capabilities
		}
	}
	if caps == nil {
		return nil
	}
	if *caps == nil {
		*caps = &mcp.ServerCapabilities{}
	}
	return *caps
}

// AddExperimental sets capabilities.experimental[name] on the result, keeping
// every other capability. It is a no-op before execute.
func (c Initialize) AddExperimental(name string, value any) {
	caps := c.Capabilities()
	if caps == nil {
		return
	}
	if caps.Experimental == nil {
		caps.Experimental = map[string]any{}
	}
	caps.Experimental[name] = value
}

// Subscribe is the typed view of a [ResourcesSubscribe] run: a client asks
// to be told when a resource changes. Its input is the request parameters.
type Subscribe struct{ *Context }

// Params returns the request parameters; hooks may change the URI before
// execute.
func (c Subscribe) Params() *mcp.SubscribeParams {
	p, _ := c.input.(*mcp.SubscribeParams)
	return p
}

// URI returns the URI of the resource to watch.
func (c Subscribe) URI() string {
	if p := c.Params(); p != nil {
		return p.URI
	}
	return ""
}

// Unsubscribe is the typed view of a [ResourcesUnsubscribe] run. Its input
// is the request parameters.
type Unsubscribe struct{ *Context }

// Params returns the request parameters.
func (c Unsubscribe) Params() *mcp.UnsubscribeParams {
	p, _ := c.input.(*mcp.UnsubscribeParams)
	return p
}

// URI returns the URI of the resource no longer watched.
func (c Unsubscribe) URI() string {
	if p := c.Params(); p != nil {
		return p.URI
	}
	return ""
}

// SetLevel is the typed view of a [LoggingSetLevel] run: the client sets
// the lowest level of the log messages it wants. Its input is the request
// parameters, which hooks may change before execute.
type SetLevel struct{ *Context }

// Params returns the request parameters.
func (c SetLevel) Params() *mcp.SetLoggingLevelParams {
	p, _ := c.input.(*mcp.SetLoggingLevelParams)
	return p
}

// Level returns the level the client asks for.
func (c SetLevel) Level() mcp.LoggingLevel {
	if p := c.Params(); p != nil {
		return p.Level
	}
	return ""
}

// ClientNotification is the typed view of a [NotificationsFromClient] run:
// one notification the client sent (notifications/initialized, cancelled,
// progress, roots/list_changed). Its input is the notification's
// parameters; there is no output. The execute step delivers the
// notification to the server's handler.
//
// A hook drops the notification with [ClientNotification.Drop], or by
// returning an error (the server logs it): the server's handler then
// never sees it. Cancellation is the exception: the MCP SDK cancels the
// request a notifications/cancelled names before any hook runs.
type ClientNotification struct{ *Context }

// Method returns the notification's MCP method, e.g.
// "notifications/initialized".
func (c ClientNotification) Method() string { return c.req.Method }

// Params returns the notification's parameters, e.g. a
// *mcp.ProgressNotificationParams; hooks may change them in place.
func (c ClientNotification) Params() mcp.Params {
	p, _ := c.input.(mcp.Params)
	return p
}

// SetParams replaces the parameters with p, which must have the type of
// the notification's own (else the run fails when it delivers).
func (c ClientNotification) SetParams(p mcp.Params) { c.input = p }

// Drop ends the run without delivering the notification: execute is
// skipped, afterExecute and finally hooks still run, and
// [Context.Responded] reports true.
func (c ClientNotification) Drop() { c.Context.Respond(nil) }

// ServerNotification is the typed view of a [NotificationsFromServer] run:
// one notification the server sends its client (notifications/progress,
// message, resources/updated, the list changes). Its input is the
// notification's parameters; there is no output. The execute step sends
// it.
//
// A hook drops the notification with [ServerNotification.Drop] (the
// sender sees success) or refuses it by returning an error (the sender
// gets the error). The MCP SDK sends a cancellation of its own requests
// (notifications/cancelled) past the flows, so no hook sees it.
type ServerNotification struct{ *Context }

// Method returns the notification's MCP method, e.g.
// "notifications/progress".
func (c ServerNotification) Method() string { return c.req.Method }

// Params returns the notification's parameters, e.g. a
// *mcp.LoggingMessageParams; replace them with SetParams rather than
// changing them in place, as the sender may still hold them.
func (c ServerNotification) Params() mcp.Params {
	p, _ := c.input.(mcp.Params)
	return p
}

// SetParams replaces the parameters sent.
func (c ServerNotification) SetParams(p mcp.Params) { c.input = p }

// Drop ends the run without sending the notification (see
// [ClientNotification.Drop]).
func (c ServerNotification) Drop() { c.Context.Respond(nil) }

// Sampling is the typed view of a [SamplingCreateMessage] run: the server
// asks the client's model for a message. Its input is the request in the
// form that may carry tools (a request without tools is sent as it came),
// the run's own copy, which hooks may change before execute; its output
// is the client's answer. A hook that answers with
// [Sampling.Respond] before execute answers for the client, which is not
// asked.
type Sampling struct{ *Context }

// Params returns the sampling request.
func (c Sampling) Params() *mcp.CreateMessageWithToolsParams {
	p, _ := c.input.(*mcp.CreateMessageWithToolsParams)
	return p
}

// SetParams replaces the sampling request.
func (c Sampling) SetParams(p *mcp.CreateMessageWithToolsParams) { c.input = p }

// Result returns the client's answer, nil before execute.
func (c Sampling) Result() *mcp.CreateMessageWithToolsResult {
	r, _ := c.output.(*mcp.CreateMessageWithToolsResult)
	return r
}

// Respond answers the sampling request with res.
func (c Sampling) Respond(res *mcp.CreateMessageWithToolsResult) { c.Context.Respond(res) }

// Elicitation is the typed view of an [ElicitationCreate] run: the server
// asks the client's user for input. Its input is the request (the run's
// own copy), its output the user's answer. A hook that answers with
// [Elicitation.Respond] before execute answers for the user, who is not
// asked.
type Elicitation struct{ *Context }

// Params returns the elicitation request.
func (c Elicitation) Params() *mcp.ElicitParams {
	p, _ := c.input.(*mcp.ElicitParams)
	return p
}

// SetParams replaces the elicitation request.
func (c Elicitation) SetParams(p *mcp.ElicitParams) { c.input = p }

// Result returns the user's answer, nil before execute.
func (c Elicitation) Result() *mcp.ElicitResult {
	r, _ := c.output.(*mcp.ElicitResult)
	return r
}

// Respond answers the elicitation with res.
func (c Elicitation) Respond(res *mcp.ElicitResult) { c.Context.Respond(res) }

// RootsList is the typed view of a [RootsListRoots] run: the server asks
// the client for its roots. Its input is the request parameters, its
// output the client's answer, which hooks may filter in afterExecute.
type RootsList struct{ *Context }

// Params returns the request parameters.
func (c RootsList) Params() *mcp.ListRootsParams {
	p, _ := c.input.(*mcp.ListRootsParams)
	return p
}

// Result returns the client's roots, nil before execute.
func (c RootsList) Result() *mcp.ListRootsResult {
	r, _ := c.output.(*mcp.ListRootsResult)
	return r
}

// Respond answers the request with res.
func (c RootsList) Respond(res *mcp.ListRootsResult) { c.Context.Respond(res) }
