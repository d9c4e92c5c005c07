package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/guidance"
	"github.com/hookflow/hookflow/plugins/sessiongate"
	"github.com/hookflow/hookflow/stages"
)

// runDemo connects an in-process client (which declares no sampling) and
// prints, step by step, what the model receives: instructions, prompts,
// tool results, and the log and progress notifications the client gets.
func runDemo(ctx context.Context, w io.Writer) error {
	d := &demo{w: w, notes: make(chan struct{}, 100), cancelNow: make(chan struct{})}
	s, err := newServer(serverOptions{
		logger:       slog.New(slog.DiscardHandler),
		step:         d.importStep,
		onTransition: d.transition,
	})
	if err != nil {
		return err
	}
	err = s.srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "demo", Fn: func(c *flows.Context) error {
		d.mu.Lock()
		d.decidedBy = c.DecidedBy()
		d.mu.Unlock()
		return nil
	}})
	if err != nil {
		return err
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.srv.Connect(ctx, st, nil); err != nil {
		return err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-client"}, &mcp.ClientOptions{
		Capabilities:                &mcp.ClientCapabilities{},
		LoggingMessageHandler:       func(_ context.Context, r *mcp.LoggingMessageRequest) { d.note(r.Params) },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { d.note(r.Params) },
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return err
	}
	defer cs.Close()
	return d.run(ctx, cs)
}

// demo is the state of one demo run.
type demo struct {
	w io.Writer

	mu          sync.Mutex
	notifs      []any // *mcp.LoggingMessageParams or *mcp.ProgressNotificationParams
	notes       chan struct{}
	transitions []string
	decidedBy   string
	// cancelNow is closed by import_notes's second step when the demo
	// cancels it.
	cancelNow chan struct{}
	cancelled bool
}

func (d *demo) note(n any) {
	d.mu.Lock()
	d.notifs = append(d.notifs, n)
	d.mu.Unlock()
	d.notes <- struct{}{}
}

func (d *demo) transition(t sessiongate.Transition) {
	d.mu.Lock()
	d.transitions = append(d.transitions, t.String())
	d.mu.Unlock()
}

// importStep cancels the second import_notes call at its second note:
// it tells the demo to cancel the call, then waits for the cancellation.
func (d *demo) importStep(ctx context.Context, i int) error {
	d.mu.Lock()
	cancel := d.cancelled && i == 2
	d.mu.Unlock()
	if !cancel {
		return nil
	}
	close(d.cancelNow)
	<-ctx.Done()
	return ctx.Err()
}

func (d *demo) run(ctx context.Context, cs *mcp.ClientSession) error {
	d.title("initialize: the instructions the client gives the model")
	d.text(cs.InitializeResult().Instructions)

	d.title("prompts/get welcome: the same guidance, as a prompt")
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "welcome"})
	if err != nil {
		return err
	}
	for _, m := range pr.Messages {
		text := m.Content.(*mcp.TextContent).Text
		fmt.Fprintf(d.w, "one %s message, the guidance of the instructions: %v\n", m.Role, strings.HasSuffix(cs.InitializeResult().Instructions, text))
	}

	d.title("logging/setLevel info: the notices held since initialize reach the client")
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		return err
	}
	if err := d.notifications(1); err != nil {
		return err
	}

	steps := []struct {
		title  string
		tool   string
		args   map[string]any
		notifs int // the notifications the call sends
	}{
		{"tools/call save_note before session_init: the gate blocks it", "save_note", map[string]any{"title": "groceries", "text": "milk"}, 0},
		{"tools/call session_init", "session_init", map[string]any{"user": "Ada"}, 0},
		{"tools/call save_note: its end guidance, and the storage guidance of memory", "save_note", map[string]any{"title": "groceries", "text": "milk"}, 0},
		{"tools/call list_notes: its guidance needs sampling, which this client lacks", "list_notes", map[string]any{}, 1},
		{"tools/call import_notes with a progress token: running and progress guidance", "import_notes", map[string]any{"count": 3}, 4},
	}
	for _, s := range steps {
		d.title(s.title)
		params := &mcp.CallToolParams{Name: s.tool, Arguments: s.args}
		if s.tool == "import_notes" {
			params.SetProgressToken("import-1")
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return err
		}
		d.result(res)
		if err := d.notifications(s.notifs); err != nil {
			return err
		}
	}

	d.title("tools/call import_notes, cancelled by the client at the second note")
	d.mu.Lock()
	d.cancelled = true
	d.mu.Unlock()
	callCtx, cancel := context.WithCancel(ctx)
	params := &mcp.CallToolParams{Name: "import_notes", Arguments: map[string]any{"count": 3}}
	params.SetProgressToken("import-2")
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, params)
		errc <- err
	}()
	select {
	case <-d.cancelNow:
	case <-time.After(30 * time.Second):
		cancel()
		return errors.New("import_notes never reached its second note")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the cancelled call returned %v, want context.Canceled", err)
	}
	fmt.Fprintln(d.w, "the client cancelled the call: it gets no result")
	if err := d.notifications(3); err != nil { // running, progress 1, cancel
		return err
	}

	d.title("tools/call list_notes: the cancel guidance comes with the session's next result")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{}})
	if err != nil {
		return err
	}
	d.result(res)

	d.title("prompts/get summarize: the prompt's start guidance comes first")
	pr, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize"})
	if err != nil {
		return err
	}
	for _, m := range pr.Messages {
		fmt.Fprintf(d.w, "--- %s message:\n", m.Role)
		d.text(m.Content.(*mcp.TextContent).Text)
	}
	return nil
}

func (d *demo) title(s string) { fmt.Fprintf(d.w, "\n=== %s\n", s) }

func (d *demo) text(s string) { fmt.Fprintln(d.w, indent(s)) }

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// result prints a tool result, who blocked it, and the gate's transitions.
func (d *demo) result(res *mcp.CallToolResult) {
	for i, c := range res.Content {
		what := "the tool's output"
		switch {
		case res.IsError && i == 0:
			what = "isError"
		case i > 0:
			what = "guidance"
		}
		fmt.Fprintf(d.w, "--- content %d (%s):\n", i, what)
		d.text(c.(*mcp.TextContent).Text)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.decidedBy != "" {
		fmt.Fprintf(d.w, "decided by: %s\n", d.decidedBy)
	}
	for _, t := range d.transitions {
		fmt.Fprintf(d.w, "session gate: %s\n", t)
	}
	d.transitions = nil
}

// notifications waits for n notifications and prints them: the log
// messages by level and lifecycle, then the progress notifications by
// progress (notifications may arrive in any order).
func (d *demo) notifications(n int) error {
	timeout := time.After(30 * time.Second)
	for range n {
		select {
		case <-d.notes:
		case <-timeout:
			return fmt.Errorf("waited 30s for %d notifications; got %d", n, len(d.notifs))
		}
	}
	d.mu.Lock()
	got := d.notifs
	d.notifs = nil
	d.mu.Unlock()
	var logs []*mcp.LoggingMessageParams
	var progress []*mcp.ProgressNotificationParams
	for _, x := range got {
		switch x := x.(type) {
		case *mcp.LoggingMessageParams:
			logs = append(logs, x)
		case *mcp.ProgressNotificationParams:
			progress = append(progress, x)
		}
	}
	slices.SortStableFunc(logs, func(a, b *mcp.LoggingMessageParams) int {
		return cmp.Or(cmp.Compare(a.Level, b.Level), cmp.Compare(lifecycle(a), lifecycle(b)))
	})
	slices.SortFunc(progress, func(a, b *mcp.ProgressNotificationParams) int { return cmp.Compare(a.Progress, b.Progress) })
	for _, m := range logs {
		if data, ok := m.Data.(map[string]any); ok {
			fmt.Fprintf(d.w, "--- log message [%s %s]: %s guidance of %s:\n", m.Level, m.Logger, data["lifecycle"], data["tool"])
			d.text(fmt.Sprint(data["guidance"]))
			continue
		}
		fmt.Fprintf(d.w, "--- log message [%s %s]:\n", m.Level, m.Logger)
		d.text(fmt.Sprint(m.Data))
	}
	for _, p := range progress {
		fmt.Fprintf(d.w, "--- progress %v/%v:\n", p.Progress, p.Total)
		d.text(p.Message)
	}
	return nil
}

// lifecycle returns the lifecycle of a guidance log message, 0 for
// others.
func lifecycle(m *mcp.LoggingMessageParams) guidance.Lifecycle {
	data, _ := m.Data.(map[string]any)
	s, _ := data["lifecycle"].(string)
	l, _ := guidance.ParseLifecycle(s)
	return l
}
