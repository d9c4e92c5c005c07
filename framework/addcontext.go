package framework

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// contextKey holds the text that hooks of a tools:call-tool run add for the
// model, in the order they added it.
var contextKey = flows.NewKey[[]string]("framework.context")

// AddContext adds text for the model to the result of c's tools:call-tool
// run: one text content block per call, appended after the tool's own
// content, in call order. It applies to every result the call ends with: a
// success, an early answer, and the isError result of a failed or blocked
// call. structuredContent is never changed, so a tool's output schema
// still holds.
//
// Any hook of the run may call it, at any stage. Command hooks'
// additionalContext and guidance for an action's start and end arrive
// through it. It returns a CodeInvalid error for a run of another flow, whose
// results have no content for the model, and does nothing for empty text.
func AddContext(c *flows.Context, text string) error {
	if c.Flow() != flows.ToolsCallTool {
		return &flows.Error{Code: flows.CodeInvalid, Flow: c.Flow(), Stage: c.Stage(),
			Msg: "AddContext: only a tools:call-tool run has a result the model reads"}
	}
	if text == "" {
		return nil
	}
	texts, _ := contextKey.Get(c)
	contextKey.Set(c, append(texts, text))
	return nil
}

// appendContext returns res with the text added by AddContext appended to
// its content. res is copied first: it may be a value a hook keeps (a cached
// answer) and must not grow from call to call. An input-required result
// (multi round-trip) has no content: the text comes with the final result,
// as the call runs again.
func appendContext(c *flows.Context, res *mcp.CallToolResult) *mcp.CallToolResult {
	texts, ok := contextKey.Get(c)
	if !ok || res == nil || res.InputRequests != nil {
		return res
	}
	out := *res
	out.Content = slices.Clip(res.Content)
	for _, t := range texts {
		out.Content = append(out.Content, &mcp.TextContent{Text: t})
	}
	return &out
}
