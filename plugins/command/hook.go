package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/command/internal/sandbox"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// hook is one command hook, ready to run.
type hook struct {
	*compiled
	p  *Plugin
	id string // the hookflow hook ID, set after registration
	// rule is the hook's failure rule, resolved (never RuleDefault).
	rule settings.FailureRule
	// tools maps the server's tools to the names the script expects.
	tools toolMap

	proc  sandbox.Process // the process; its runs' stdin is the call's
	slots slots
	limit *limiter

	// retrust is the command that trusts the hook, for a changed file.
	retrust string
}

func newHook(p *Plugin, c *compiled, base map[string]string) *hook {
	cfg := p.cfg
	env := maps.Clone(base)
	if c.Event == settings.SessionStart {
		// SessionStart hooks may write variables for the agent's later
		// Bash commands there; a server runs none, so they go nowhere.
		env["CLAUDE_ENV_FILE"] = os.DevNull
	}
	maps.Copy(env, c.hook.Env)
	if c.mcp != nil {
		c.mcp.target, _ = cfg.target(c.hook.Server, c.hook.Tool)
	}
	timeout := cmpOr(c.hook.Timeout, cfg.Timeout)
	maxOut := cmpOr(c.hook.MaxOutputBytes, cfg.MaxOutputBytes)
	return &hook{
		compiled: c, p: p, rule: resolveRule(c.hook.OnFailure, cfg.FailClosed),
		tools: newToolMap(cfg.ToolNames, c.hook.ToolNames),
		proc: sandbox.Process{Path: c.cl.Path, Argv: c.cl.Argv, Env: envList(env), Dir: cmpOr(c.dir, cfg.Dir),
			Timeout: timeout, Grace: cfg.KillGrace, MaxOutput: maxOut},
		slots:   make(slots, cmpOr(c.hook.MaxConcurrent, cfg.MaxConcurrent)),
		limit:   newLimiter(c.hook.RateLimit, c.hook.Cooldown),
		retrust: c.TrustCommand(cfg.TrustStore, c.File),
	}
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// run is the hookflow hook of one command hook: it runs the process when
// the matcher selects the call and applies its answer to the run.
func (h *hook) run(c *flows.Context) error {
	subject, ok := h.subject(c)
	if !ok {
		return nil
	}
	matched := subject
	ent := c.Entity()
	if ent != nil && ent.Kind == flows.EntityTool {
		if tn, ok := h.tools.name(ent.Name); ok {
			matched = tn // the name this hook's script knows the tool by
		}
	}
	if !h.match.match(matched) {
		return nil
	}
	if h.match.cond != nil && ent != nil && ent.Kind == flows.EntityTool &&
		!h.match.cond.matches(matched, h.tools.input(ent.Name, c.Arguments())) {
		return nil // the "if" rule reads the arguments as the script would
	}
	d := h.p.data(c, h.Event, subject)
	stdin, err := h.stdin(d)
	if err != nil {
		return h.fail(c, FailStart, "encoding its input: "+err.Error())
	}
	dec, err := h.kind.run(h, c, stdin)
	if err != nil || dec.asked {
		return err
	}
	return h.apply(c, d, dec)
}

// run runs the hook's process and reads its answer by its protocol.
func (commandKind) run(h *hook, c *flows.Context, stdin []byte) (decision, error) {
	res, err := h.exec(c, stdin)
	if err != nil {
		return decision{}, err
	}
	return h.decode(c, res)
}

// decode reads the answer of a hook that ran (a process, or a POST read
// as one) by its protocol.
func (h *hook) decode(c *flows.Context, res *sandbox.Result) (decision, error) {
	var dec decision
	var err error
	switch h.Protocol {
	case settings.Copilot:
		return h.decodeCopilot(c, res)
	case settings.OLLM:
		if res.ExitCode != 0 {
			return dec, h.fail(c, FailExit, fmt.Sprintf("exited with code %d", res.ExitCode), res)
		}
		var hookErr string
		dec, hookErr, err = decodeOLLM(res.Stdout)
		if err == nil && hookErr != "" {
			return dec, h.fail(c, FailHookError, hookErr, res)
		}
	default:
		if res.ExitCode != 0 && res.ExitCode != 2 {
			return dec, h.fail(c, FailExit, fmt.Sprintf("exited with code %d (only 2 blocks)", res.ExitCode), res)
		}
		dec, err = decodeClaude(h.Event, res.ExitCode, res.Stdout, res.Stderr)
	}
	if err != nil {
		return dec, h.fail(c, FailBadOutput, err.Error(), res)
	}
	return dec, nil
}

// exec runs the process for one call, after the checks that may refuse
// it: the script is still the trusted one, the rate limit and cooldown
// allow the run, a concurrency slot is free. A non-nil error is the
// failure the hook returns.
func (h *hook) exec(c *flows.Context, stdin []byte) (*sandbox.Result, error) {
	if msg := h.pin.Verify(h.retrust); msg != "" {
		return nil, h.fail(c, FailChanged, msg)
	}
	if err := h.admit(c); err != nil {
		return nil, err
	}
	defer h.slots.release()
	defer h.p.running.Done()
	proc := h.proc
	if sid := h.p.sessionRef(c.Request()); sid != "" {
		proc.Env = append(slices.Clip(proc.Env), "GEMINI_SESSION_ID="+sid)
	}
	res, err := h.p.sb.Run(c.Context(), h.p.shutdown, proc, stdin)
	switch se, _ := err.(*sandbox.Error); {
	case err != nil && se == nil:
		return nil, h.fail(c, FailStart, err.Error(), &res)
	case se != nil:
		return nil, h.fail(c, runFailure(se.Code), se.Msg, &res)
	case res.Signal != 0:
		return nil, h.fail(c, FailSignal, "was killed by signal "+res.Signal.String(), &res)
	}
	return &res, nil
}

// runFailure is the failure kind of a run error of the sandbox's.
func runFailure(c sandbox.Code) FailureKind {
	switch c {
	case sandbox.CodeTimeout:
		return FailTimeout
	case sandbox.CodeCanceled:
		return FailCanceled
	case sandbox.CodeShutdown:
		return FailShutdown
	case sandbox.CodeOverflow:
		return FailOutputCap
	}
	return FailStart
}

// start admits a run of an http or prompt hook (see admit) and returns
// its context: cancelled past the hook's timeout (with the cause
// errHookTimeout), with the request, or when the plugin shuts down. The
// caller calls done when the run ends.
func (h *hook) start(c *flows.Context) (ctx context.Context, done func(), err error) {
	if err := h.admit(c); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeoutCause(c.Context(), h.proc.Timeout, errHookTimeout)
	go func() {
		select {
		case <-h.p.shutdown:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel()
		h.p.running.Done()
		h.slots.release()
	}, nil
}

// admit takes a run of h's rate limit and one of its slots, and registers
// the run with the plugin; a non-nil error is the failure the hook
// returns. When it returns nil, the caller releases the slot and calls
// p.running.Done when the run is over.
func (h *hook) admit(c *flows.Context) error {
	if err := h.limit.take(c.Request(), time.Now()); err != nil {
		return h.fail(c, FailRateLimit, err.Error())
	}
	ctx := c.Context()
	wait, cancel := context.WithTimeout(ctx, h.proc.Timeout)
	acquired := h.slots.acquire(wait)
	cancel()
	if !acquired {
		if ctx.Err() != nil {
			return h.fail(c, FailCanceled, "the request was cancelled while the hook waited for a free slot")
		}
		return h.fail(c, FailBusy, fmt.Sprintf("all %d of its slots stayed busy for its timeout of %v", cap(h.slots), h.proc.Timeout))
	}
	if !h.p.begin() {
		h.slots.release()
		return h.fail(c, FailShutdown, "the plugin is closed")
	}
	return nil
}

// fail records a failure of h and returns it, for the hook to return: the
// engine applies the hook's policy (FailClosed fails the run, FailOpen
// records the failure in the run's Failures and goes on).
//
// The hookflow hook of a hook whose rule is not [settings.RuleClosed] is
// registered fail-open: a failure its rule lets through is returned and
// the engine records it in the run's Failures (which the audit plugin
// records and the otel plugin counts as hookflow.hook.failed_open); one
// that blocks aborts the run.
func (h *hook) fail(c *flows.Context, kind FailureKind, msg string, res ...*sandbox.Result) error {
	f := Failure{Hook: h.id, Name: h.Name, Event: h.Event, Script: h.Identity.Script, Kind: kind, Err: msg,
		Policy: h.policy(kind), ExitCode: -1, RequestID: c.Request().ID, SessionID: c.Request().SessionID}
	_, http := h.kind.(httpKind)
	f.remote = http || h.mcp != nil
	if len(res) > 0 && res[0] != nil {
		f.ExitCode, f.Took = res[0].ExitCode, res[0].Took
		f.Stderr = tail(res[0].Stderr, 1024)
	}
	h.p.record(c, f)
	if f.Policy == flows.FailClosed && h.rule != settings.RuleClosed {
		return c.Abort(&f)
	}
	return &f
}

// registered is the failure policy of h's hookflow hook: fail-closed for
// [settings.RuleClosed], else fail-open, and fail reads the rule per failure.
func (h *hook) registered() flows.FailurePolicy {
	if h.rule == settings.RuleClosed {
		return flows.FailClosed
	}
	return flows.FailOpen
}

// apply carries out a hook's answer in the run.
func (h *hook) apply(c *flows.Context, d *eventData, dec decision) error {
	if dec.systemMessage != "" {
		h.p.logger().Info("command hook message", "hook", h.id, "message", dec.systemMessage)
		_ = framework.Log(c, "warning", map[string]string{"hook": h.Name, "message": dec.systemMessage})
	}
	// Decisions abort the run, whatever the hook's failure policy.
	if dec.stop {
		return c.Abort(errors.New(cmpOr(dec.stopReason, fmt.Sprintf("stopped by command hook %q", h.Name))))
	}
	if dec.block {
		reason := cmpOr(dec.reason, fmt.Sprintf("blocked by command hook %q", h.Name))
		switch h.Event {
		case settings.PostToolUse, settings.PostToolUseFailure:
			// As in the agents: the tool ran, its result stands, and the
			// reason is fed to the model. A hook withholds a result with
			// "continue": false, or replaces it with updatedToolOutput.
			dec.context = append(dec.context, reason)
		case settings.SessionStart:
			h.p.logger().Warn("command hook: SessionStart hooks cannot block; the session starts", "hook", h.id, "reason", reason)
			_ = framework.Log(c, "warning", map[string]string{"hook": h.Name, "message": reason})
		default:
			return c.Abort(errors.New(reason))
		}
	}
	if dec.data != nil {
		if ti, ok := dec.data["tool_input"]; ok && d.tool != "" {
			dec.data["tool_input"] = h.tools.output(d.tool, ti)
		}
		old := d.fields["tool_input"]
		maps.Copy(d.fields, dec.data)
		if nu, ok := dec.data["tool_input"]; ok && h.Event == settings.PreToolUse && !bytes.Equal(nu, old) {
			if !isObject(nu) {
				return h.fail(c, FailBadOutput, `"data.tool_input" must be an object: the tool's new arguments`)
			}
			dec.input = nu
		}
	}
	if dec.input != nil {
		if h.Event != settings.PreToolUse {
			h.p.logger().Debug("command hook: updatedInput applies to PreToolUse only; ignored", "hook", h.id)
		} else {
			dec.input = h.tools.output(d.tool, dec.input)
			if err := c.Revalidate(dec.input); err != nil {
				return c.Abort(fmt.Errorf("command hook %q rewrote the arguments, and they do not fit the tool's input schema: %s", h.Name, flows.Reason(err)))
			}
			d.fields["tool_input"] = c.Arguments()
		}
	}
	if dec.ask {
		if h.Event != settings.PreToolUse {
			return h.fail(c, FailBadOutput, `"ask" applies to PreToolUse only`)
		}
		asked, err := h.ask(c, dec.askReason)
		if err != nil {
			return c.Abort(err)
		}
		if asked {
			// The question is on its way (multi round-trip): the rest of
			// the answer applies when the call comes back.
			return nil
		}
	}
	if dec.output != nil {
		if h.Event != settings.PostToolUse {
			h.p.logger().Debug("command hook: updatedToolOutput applies to PostToolUse only; ignored", "hook", h.id)
		} else {
			res, err := toolResult(dec.output)
			if err != nil {
				return h.fail(c, FailBadOutput, err.Error())
			}
			c.SetOutput(res)
		}
	}
	for _, text := range dec.context {
		if err := h.addContext(c, text); err != nil {
			return err
		}
	}
	return nil
}

// toolResult reads an updatedToolOutput: a whole CallToolResult object, or
// a string, which becomes a text result.
func toolResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil
	}
	if !isObject(raw) {
		return nil, errors.New(`"updatedToolOutput" must be a tool result object or a string`)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf(`"updatedToolOutput" is not a tool result: %v`, err)
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return &res, nil
}

// addContext puts text where the event's context goes.
func (h *hook) addContext(c *flows.Context, text string) error {
	switch h.Event {
	case settings.PreToolUse, settings.PostToolUse, settings.PostToolUseFailure:
		return framework.AddContext(c, text)
	case settings.SessionStart:
		switch res := c.Output().(type) {
		case *mcp.InitializeResult:
			res.Instructions = joinText(res.Instructions, text)
		case *mcp.DiscoverResult:
			res.Instructions = joinText(res.Instructions, text)
		}
	case settings.UserPromptSubmit:
		texts, _ := promptContextKey.Get(c)
		promptContextKey.Set(c, append(texts, text))
	default:
		h.p.logger().Debug("command hook: additionalContext has no place in "+h.Event.Flow().String()+"; ignored", "hook", h.id)
	}
	return nil
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

var promptContextKey = flows.NewKey[[]string]("command.prompt-context")

// appendPromptContext adds the UserPromptSubmit hooks' context to the
// prompt's result as user messages.
func appendPromptContext(c *flows.Context) error {
	texts, ok := promptContextKey.Get(c)
	if !ok {
		return nil
	}
	pg := flows.PromptGet{Context: c}
	res := pg.Result()
	if res == nil {
		return nil
	}
	out := *res
	out.Messages = append([]*mcp.PromptMessage(nil), res.Messages...)
	for _, t := range texts {
		out.Messages = append(out.Messages, &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: t}})
	}
	c.SetOutput(&out)
	return nil
}
