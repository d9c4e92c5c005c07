package sessiongate

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hookflow/hookflow/flows"
)

// Config configures the session gate. The zero value gates nothing: set
// Requires or RequireAll.
type Config struct {
	// InitTool is the tool that initializes a session; "" means
	// DefaultInitTool ("session_init"). It is never gated.
	InitTool string
	// ReadyTool, when set, is a tool that must succeed after the init
	// tool (a "check the reporting setup" step): it moves the session
	// from initialized to ready, and is itself gated until the session is
	// initialized. Without it, the init tool makes the session ready.
	ReadyTool string
	// Requires lists the tools that need a ready session.
	Requires []string
	// RequireAll gates every tool but InitTool, ReadyTool and Exempt.
	RequireAll bool
	// Exempt lists tools RequireAll leaves open.
	Exempt []string
	// Store keeps the sessions' states; nil uses NewMemory(nil).
	Store Store
	// Key says which session a request belongs to; nil means BySession.
	// Over stateless HTTP use ByPrincipal, ByHeader or a function of your
	// own, with a Redis store when several instances serve the clients.
	Key func(*flows.Request) string
	// OnStoreError decides a gated call when the store fails or no key
	// is found: [flows.FailClosed], the zero value, refuses it with an
	// [*UnavailableError]; [flows.FailOpen] lets it through.
	OnStoreError flows.FailurePolicy
	// Timeout bounds each store call; 0 means DefaultTimeout. It is not
	// applied to the in-memory store.
	Timeout time.Duration
	// Priority of the gate's check (tools:call-tool beforeValidation);
	// 0 means DefaultPriority.
	Priority int
	// OnTransition, when set, is called with every state transition, on
	// the call's goroutine, after the call succeeded.
	OnTransition func(Transition)
	// Unlist leaves gated tools out of tools/list while the caller's
	// session is not ready (they stay callable, so that a call gets the
	// gate's directive). Clients list tools once, usually before the
	// model initializes the session, and are not told when the list
	// changes: turn it on only for clients that list again. It needs a
	// store that answers without I/O (a Peeker, such as Memory).
	Unlist bool
	// Blocked returns the text of a blocked call, which the model reads;
	// nil uses DefaultBlocked.
	Blocked func(Block) string
	// Next returns the text added to the result of a call that moved the
	// session forward ("" adds none); nil uses DefaultNext.
	Next func(Transition, *Config) string
	// Logger receives store failures (at most one line a second); nil
	// uses the server's logger.
	Logger *slog.Logger
}

// Block describes a blocked call, for [Config.Blocked].
type Block struct {
	// Tool is the called tool.
	Tool string
	// State is the session's state.
	State State
	// Call is the tool the model must call first: the init tool, or the
	// ready tool in an initialized session.
	Call string
}

// DefaultBlocked is the text of a blocked call: MCP Toolkit's directive
// when the session is not initialized, e.g.
//
//	Tool "my_tool" requires session initialization. You MUST call session_init first before using any other tools. This is a MANDATORY first action.
func DefaultBlocked(b Block) string {
	if b.State == Uninitialized {
		return fmt.Sprintf("Tool %q requires session initialization. You MUST call %s first before using any other tools. This is a MANDATORY first action.", b.Tool, b.Call)
	}
	return fmt.Sprintf("Tool %q requires a ready session. You MUST call %s first, then call %q again.", b.Tool, b.Call, b.Tool)
}

// DefaultNext is the text added to the result of the call that initialized
// the session or made it ready; other transitions add none.
func DefaultNext(t Transition, cfg *Config) string {
	switch {
	case t.To == Initialized && cfg.ReadyTool != "":
		return fmt.Sprintf("The session is initialized. You MUST call %s next, before using the other tools.", cfg.ReadyTool)
	case t.To == Ready:
		return "The session is ready: you may now use the other tools."
	}
	return ""
}

func (p *Plugin) validate() error {
	var errs []error
	c := &p.cfg
	if len(c.Requires) == 0 && !c.RequireAll {
		errs = append(errs, errors.New("no tool is gated: set Requires or RequireAll"))
	}
	if c.ReadyTool == c.InitTool {
		errs = append(errs, fmt.Errorf("ReadyTool: %q is the init tool", c.ReadyTool))
	}
	for i, name := range c.Requires {
		switch name {
		case "":
			errs = append(errs, fmt.Errorf("Requires[%d]: empty tool name", i))
		case c.InitTool:
			errs = append(errs, fmt.Errorf("Requires[%d]: %q is the init tool, which is never gated", i, name))
		}
	}
	for i, name := range c.Exempt {
		if name == "" {
			errs = append(errs, fmt.Errorf("Exempt[%d]: empty tool name", i))
		}
	}
	if len(c.Exempt) > 0 && !c.RequireAll {
		errs = append(errs, errors.New("Exempt: only RequireAll gates tools to exempt (Requires lists the gated ones)"))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("Timeout: must not be negative, got %v", c.Timeout))
	}
	if !c.OnStoreError.Valid() {
		errs = append(errs, fmt.Errorf("OnStoreError: unknown policy %d (want flows.FailClosed or flows.FailOpen)", uint8(c.OnStoreError)))
	}
	if c.Unlist && p.peek == nil {
		errs = append(errs, fmt.Errorf("Unlist: the store (%T) cannot answer without I/O; use a Peeker such as sessiongate.Memory, or leave Unlist off", p.store))
	}
	return errors.Join(errs...)
}
