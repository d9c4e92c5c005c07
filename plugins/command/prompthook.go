package command

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// promptSystem is the system prompt of every prompt hook's question: the
// decision schema the model must answer with.
const promptSystem = `You are a policy check of an MCP server. You judge one event, given as JSON, by the instruction in the user's message. Answer with exactly one JSON object and nothing else: {"ok": true} when the event may go on, or {"ok": false, "reason": "<why, in one sentence>"} when it must be blocked.`

// promptMaxTokens bounds the model's answer.
const promptMaxTokens = 512

// promptAnswer is the decision schema of a prompt hook's answer.
type promptAnswer struct {
	OK     *bool   `json:"ok"`
	Reason *string `json:"reason"`
}

// run asks the client's model about the event.
func (promptKind) run(h *hook, c *flows.Context, stdin []byte) (decision, error) {
	return h.sample(c, stdin)
}

// parsePromptAnswer reads a model's answer strictly: one JSON object with
// a boolean "ok" and, when ok is false, a non-empty "reason"; nothing
// else, not even a code fence.
func parsePromptAnswer(text string) (decision, error) {
	var d decision
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var a promptAnswer
	if err := dec.Decode(&a); err != nil {
		return d, &badOutput{fmt.Sprintf(`the model's answer is not the decision JSON {"ok": bool, "reason": string}: %v`, err)}
	}
	if dec.More() {
		return d, &badOutput{"the model's answer has text after the decision JSON"}
	}
	switch {
	case a.OK == nil:
		return d, &badOutput{`the model's answer has no boolean "ok"`}
	case !*a.OK && (a.Reason == nil || strings.TrimSpace(*a.Reason) == ""):
		return d, &badOutput{`the model's answer blocks without a "reason"`}
	case !*a.OK:
		d.block, d.reason = true, *a.Reason
	}
	return d, nil
}

// promptText is the user message of a prompt hook's question: its prompt,
// with $ARGUMENTS replaced by the event's JSON, or followed by it.
func (h *hook) promptText(input []byte) string {
	if strings.Contains(h.hook.Prompt, "$ARGUMENTS") {
		return strings.ReplaceAll(h.hook.Prompt, "$ARGUMENTS", string(input))
	}
	return h.hook.Prompt + "\n\nThe event:\n" + string(input)
}

// sample runs a prompt hook: it asks the client's own model, through MCP
// sampling, and reads its answer as the hook's decision. Clients of
// protocol versions before 2026-07-28 are asked during the request; later
// ones with an input-required result, for PreToolUse only (the other
// events cannot be asked again without running their work twice), as the
// "ask" decision is. A failure is the one the hook returns.
func (h *hook) sample(c *flows.Context, input []byte) (decision, error) {
	var none decision
	caps := c.Request().ClientCapabilities
	if c.Session() == nil || caps == nil || caps.Sampling == nil {
		return none, h.fail(c, FailNoSampling, "the client does not offer sampling, and a prompt hook asks the client's model")
	}
	params := &mcp.CreateMessageParams{MaxTokens: promptMaxTokens, SystemPrompt: promptSystem,
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: h.promptText(input)}}}}
	if h.hook.Model != "" {
		params.ModelPreferences = &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: h.hook.Model}}}
	}
	if c.Request().ProtocolVersion >= multiRoundTrip {
		return h.sampleLater(c, params)
	}
	ctx, done, err := h.start(c)
	if err != nil {
		return none, err
	}
	defer done()
	res, err := c.Session().CreateMessage(ctx, params)
	if err != nil {
		switch {
		case context.Cause(ctx) == errHookTimeout:
			return none, h.fail(c, FailTimeout, fmt.Sprintf("the client's model did not answer within the hook's timeout of %v", h.proc.Timeout))
		case c.Context().Err() != nil:
			return none, h.fail(c, FailCanceled, "the request was cancelled while the hook asked the client's model")
		case isClosed(h.p.shutdown):
			return none, h.fail(c, FailShutdown, "the server is shutting down")
		}
		return none, h.fail(c, FailStart, "asking the client's model failed: "+err.Error())
	}
	return h.answer(c, res)
}

// answer reads a sampling result as the hook's decision.
func (h *hook) answer(c *flows.Context, res *mcp.CreateMessageResult) (decision, error) {
	tc, ok := res.Content.(*mcp.TextContent)
	if !ok {
		return decision{}, h.fail(c, FailBadOutput, "the model answered with something other than text")
	}
	if len(tc.Text) > h.proc.MaxOutput {
		return decision{}, h.fail(c, FailOutputCap, fmt.Sprintf("the model answered with more than %d bytes", h.proc.MaxOutput))
	}
	d, err := parsePromptAnswer(strings.TrimSpace(tc.Text))
	if err != nil {
		return d, h.fail(c, FailBadOutput, err.Error(), &sandbox.Result{Stderr: []byte(tc.Text)})
	}
	if d.block {
		d.reason = fmt.Sprintf("%s (prompt hook %q)", d.reason, h.Name)
	}
	return d, nil
}

// sampleLater asks a client of the multi round-trip protocol: the first
// run answers the call with an input-required result holding the
// question; the call comes back with the model's answer and a request
// state signed for this hook and these arguments. An approval is carried
// into later questions, so that the hook does not ask again when another
// hook asks after it.
func (h *hook) sampleLater(c *flows.Context, params *mcp.CreateMessageParams) (decision, error) {
	var none decision
	req, _ := c.Request().SDK.(*mcp.CallToolRequest)
	if h.Event != settings.PreToolUse || req == nil || req.Params == nil {
		return none, h.fail(c, FailNoSampling, "the client's protocol ("+c.Request().ProtocolVersion+") asks questions only before a tool runs: a "+h.Event.String()+" prompt hook cannot ask its model")
	}
	now := time.Now()
	state, resp := req.Params.RequestState, req.Params.InputResponses[h.inputKey()]
	approval := h.p.sign("t", h.id, c.Arguments(), now.Add(askTTL))
	if resp == nil && h.p.carries(state, "t", h.id, c.Arguments(), now) {
		approvalsKey.Set(c, append(approvalsOf(c), approval))
		return none, nil
	}
	if resp != nil {
		if !h.p.carries(state, "s", h.id, c.Arguments(), now) {
			return none, c.Abort(fmt.Errorf("the answer to prompt hook %q does not match a question it asked for these arguments; denied", h.Name))
		}
		var res *mcp.CreateMessageResult
		switch r := resp.(type) {
		case *mcp.CreateMessageResult:
			res = r
		case *mcp.CreateMessageWithToolsResult:
			// Read from the wire, a result's content may be a list.
			if len(r.Content) != 1 {
				return none, h.fail(c, FailBadOutput, fmt.Sprintf("the model answered with %d pieces of content, not one text", len(r.Content)))
			}
			res = &mcp.CreateMessageResult{Content: r.Content[0], Model: r.Model, Role: r.Role}
		default:
			return none, h.fail(c, FailBadOutput, "the answer is not a sampling result")
		}
		d, err := h.answer(c, res)
		if err == nil && !d.block {
			approvalsKey.Set(c, append(approvalsOf(c), approval))
		}
		return d, err
	}
	// A new question is a run of the hook, for its rate limit.
	if err := h.limit.take(c.Request(), now); err != nil {
		return none, h.fail(c, FailRateLimit, err.Error())
	}
	entries := append(approvalsOf(c), h.p.sign("s", h.id, c.Arguments(), now.Add(askTTL)))
	c.Respond(&mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{h.inputKey(): params},
		RequestState:  strings.Join(entries, ","),
	})
	return decision{asked: true}, nil
}

// warnNoSampling tells the operator, when a session starts without
// sampling, which prompt hooks cannot run for it, naming the client; the
// client is told too when its request carries a log level (2026-07-28's
// _meta), else by [Plugin.tellNoSampling] once it sets one.
func (p *Plugin) warnNoSampling(names []string) func(c *flows.Context) error {
	tell := p.tellNoSampling(names)
	return func(c *flows.Context) error {
		if samples(c.Request()) {
			return nil
		}
		p.logger().Warn("command hooks: "+noSamplingMessage(names), "client", clientName(c.Request()), "session", c.Request().SessionID)
		return tell(c)
	}
}

// tellNoSampling sends the client of a session without sampling the
// warning of [Plugin.warnNoSampling] when it sets its log level: a client
// of a protocol with initialize cannot have set one when its session
// started, and the SDK sends no log message before it has.
func (p *Plugin) tellNoSampling(names []string) func(c *flows.Context) error {
	return func(c *flows.Context) error {
		if samples(c.Request()) {
			return nil
		}
		_ = framework.Log(c, "warning", map[string]string{"hooks": strings.Join(names, ", "), "message": noSamplingMessage(names)})
		return nil
	}
}

func samples(r *flows.Request) bool {
	return r.ClientCapabilities != nil && r.ClientCapabilities.Sampling != nil
}

func noSamplingMessage(names []string) string {
	return fmt.Sprintf("this client does not offer sampling, so the prompt hooks %s cannot ask its model: each fails by its rule when it runs", strings.Join(names, ", "))
}

func clientName(r *flows.Request) string {
	if r.ClientInfo == nil {
		return ""
	}
	return r.ClientInfo.Name
}
