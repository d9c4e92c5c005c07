package guidance

// Delivery with a tool call: start, running, cancel and end guidance, and
// the hooks tied to a request.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// request is the guidance state of one tool call that reached execute and
// has guidance past its start: running, progress, cancel or end hooks of
// its tool, or hooks tied to it. The notifications and sampling requests
// the call sends reach it through their run's Parent.
type request struct {
	points   *[End + 1]*point
	features Features

	mu sync.Mutex
	// progressed holds the IDs of the progress hooks already sent with a
	// progress notification of the request.
	progressed map[string]bool
}

// toolPoints returns the points of the tool named name.
func (t *tables) toolPoints(name string) *[End + 1]*point {
	if named := t.tools.byName[name]; named != nil {
		return named
	}
	return &t.tools.all
}

// toolStart runs in tools:call-tool beforeExecute: it adds the cancel
// guidance waiting from the session's cancelled calls and the tool's start
// guidance to the result, and sets up the request's later guidance,
// sending its running guidance to the client's log.
func (p *Plugin) toolStart(c *flows.Context) error {
	t := p.points()
	ss := c.Session()
	if t.cancels {
		if st, ok := p.sessions.Lookup(ss); ok {
			st.mu.Lock()
			waiting := st.cancelled
			st.cancelled = nil
			st.mu.Unlock()
			for _, text := range waiting {
				if err := framework.AddContext(c, text); err != nil {
					return err
				}
			}
		}
	}
	pts := t.toolPoints(c.Entity().Name)
	features := FeaturesOf(c.Request().ClientCapabilities)
	if !pts[Start].empty() {
		comp := p.compose(pts[Start], features)
		p.report(c.Context(), ss, comp, false)
		if err := framework.AddContext(c, comp.Content); err != nil {
			return err
		}
	}
	tied := p.reg.snap.Load().tied > 0
	if !tied && pts[Running].empty() && pts[Progress].empty() && pts[Cancel].empty() && pts[End].empty() {
		return nil
	}
	p.run.Set(c, &request{points: pts, features: features})
	if comp := p.requestComposition(c, Running); comp.Content != "" {
		p.logGuidance(c.Context(), c, Running, comp.Content)
	}
	return nil
}

// toolFinish runs in tools:call-tool finally. For a call that reached
// execute it delivers the end guidance in the result or, when the call
// was cancelled, the cancel guidance: in the result of a call that timed
// out; for a call the client cancelled (which gets no result), to the
// client's log and to the session's next tool result. It drops the hooks
// tied to the request.
func (p *Plugin) toolFinish(c *flows.Context) error {
	defer p.reg.unregisterRequest(c.Request().ID)
	if _, ok := p.run.Get(c); !ok {
		return nil
	}
	ctx := c.Context()
	if ctx.Err() == nil {
		return framework.AddContext(c, p.requestComposition(c, End).Content)
	}
	comp := p.requestComposition(c, Cancel)
	if comp.Content == "" {
		return nil
	}
	var timeout *framework.TimeoutError
	if errors.As(context.Cause(ctx), &timeout) {
		return framework.AddContext(c, comp.Content)
	}
	if st := p.sessions.Get(c.Session()); st != nil {
		text := fmt.Sprintf("Guidance for your cancelled call of tool %q:\n\n%s", c.Entity().Name, comp.Content)
		st.mu.Lock()
		st.cancelled = append(st.cancelled, text)
		st.mu.Unlock()
	}
	p.logGuidance(context.WithoutCancel(ctx), c, Cancel, comp.Content)
	return nil
}

// requestComposition composes lifecycle l of the tool call c runs: its
// tool's hooks and the hooks tied to the request, and reports its
// transparency to the client.
func (p *Plugin) requestComposition(c *flows.Context, l Lifecycle) *Composed {
	r, ok := p.run.Get(c)
	if !ok {
		return &Composed{}
	}
	ctx := c.Context()
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	comp := p.composeRequest(r, c.Request().ID, l, nil)
	p.report(ctx, c.Session(), comp, false)
	return comp
}

// composeRequest composes lifecycle l of request r (whose hookflow ID is
// id): the tool's hooks, cached, or, when hooks are tied to the request
// or skip leaves some out, composed now.
func (p *Plugin) composeRequest(r *request, id string, l Lifecycle, skip func(*Hook) bool) *Composed {
	tied := p.reg.requestHooks(id, l)
	if tied == nil && skip == nil {
		return p.compose(r.points[l], r.features)
	}
	var hooks []Hook
	for _, list := range [...][]Hook{r.points[l].hooks, tied} {
		for i := range list {
			if skip == nil || !skip(&list[i]) {
				hooks = append(hooks, list[i])
			}
		}
	}
	if len(hooks) == 0 {
		return &Composed{}
	}
	return p.composeHooks(hooks, r.features)
}

// logGuidance sends guidance of the call c runs to the client's log, at
// level info: {"tool", "request", "lifecycle", "guidance"}.
func (p *Plugin) logGuidance(ctx context.Context, c *flows.Context, l Lifecycle, content string) {
	ss := c.Session()
	if ss == nil {
		return
	}
	p.send(ctx, ss, []*mcp.LoggingMessageParams{{Level: "info", Logger: LoggerName, Data: map[string]any{
		"tool": c.Entity().Name, "request": c.Request().ID, "lifecycle": l.String(), "guidance": content,
	}}})
}

// Running returns the running guidance of the tool call whose execute
// step ctx belongs to: its tool's running hooks and those tied to the
// request, composed for the session's client. Sampling requests the call
// makes carry it already; a tool passes it on elsewhere, e.g. to a model
// of its own. It returns "" when there is none, or outside a tool call.
func (p *Plugin) Running(ctx context.Context) string {
	c := flows.FromContext(ctx)
	if c == nil {
		return ""
	}
	r, ok := p.run.Get(c)
	if !ok {
		return ""
	}
	return p.composeRequest(r, c.Request().ID, Running, nil).Content
}

// AddForRequest registers hooks tied to the tool call whose execute step
// (or hook) ctx belongs to: they are delivered with that call only, with
// its running, progress, cancel and end guidance, and removed when the
// call ends. Their RequestID is set to the call's hookflow request ID.
// Call it from the goroutine of the execute step or of a hook, not from
// goroutines they start: it may set the run's state.
func (p *Plugin) AddForRequest(ctx context.Context, hooks ...Hook) error {
	c := flows.FromContext(ctx)
	if c == nil || c.Flow() != flows.ToolsCallTool {
		return &flows.Error{Code: flows.CodeInvalid, Msg: "guidance: AddForRequest: ctx belongs to no tool call"}
	}
	tied := make([]Hook, len(hooks))
	for i, h := range hooks {
		if h.Lifecycle == Start {
			return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("guidance: AddForRequest: hook %s: a hook tied to a request cannot be a start hook: the request has started", h.ID())}
		}
		h.RequestID = c.Request().ID
		tied[i] = h
	}
	if err := p.reg.Register(tied...); err != nil {
		return err
	}
	if err := p.ensureFlows(tied); err != nil {
		return err
	}
	if _, ok := p.run.Get(c); !ok {
		// The tool has no guidance of its own past its start.
		p.run.Set(c, &request{points: p.points().toolPoints(c.Entity().Name), features: FeaturesOf(c.Request().ClientCapabilities)})
	}
	return nil
}
