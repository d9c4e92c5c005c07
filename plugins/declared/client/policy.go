package client

import (
	"context"
	"fmt"
	"time"

	"github.com/hookflow/hookflow/plugins/declared"
)

// Trust is how far a host trusts one server's declarations.
type Trust uint8

// The trust levels. The zero value, Untrusted, is what a server gets
// unless [Config.Trust] names it.
const (
	// Untrusted: the server's declarations are ignored; its context tools
	// are never called, so it learns nothing of the agent's events.
	Untrusted Trust = iota
	// Trusted: the declarations fire, a required one as important.
	Trusted
	// FullyTrusted: the declarations fire with their declared priority,
	// required included.
	FullyTrusted
)

// String returns the level's name, e.g. "trusted".
func (t Trust) String() string {
	switch t {
	case Untrusted:
		return "untrusted"
	case Trusted:
		return "trusted"
	case FullyTrusted:
		return "fully-trusted"
	}
	return fmt.Sprintf("Trust(%d)", uint8(t))
}

// effective returns the priority a declaration of priority p fires with
// from a server trusted t.
func (t Trust) effective(p declared.Priority) declared.Priority {
	if p == declared.Required && t != FullyTrusted {
		return declared.Important
	}
	return p
}

// Rate bounds how often one declaration fires: at most Events times in
// any window of length Per. The zero Rate sets no bound.
type Rate struct {
	Events int
	Per    time.Duration
}

// Proposal is a declaration put to [Config.Approve] when its server is
// added.
type Proposal struct {
	// Server is the name the host added the server under.
	Server string
	// Index is the declaration's position in the server's list.
	Index int
	// Declaration is what the server declared.
	Declaration declared.Declaration
	// Priority is the priority it would fire with: Required only from a
	// fully trusted server.
	Priority declared.Priority
}

// Config is the host's policy for server-declared hooks, the controls
// SEP-2282 leaves to clients. The zero value trusts no server, so nothing
// fires until Trust names one.
type Config struct {
	// Project is {project_name} in templates.
	Project string
	// Trust says how far each server, by the name given to [Hooks.Add], is
	// trusted; a server it does not name is Untrusted.
	Trust map[string]Trust
	// MaxDeclarations is how many declarations of one server are kept
	// (default 32); those after it in the server's list are ignored.
	MaxDeclarations int
	// MaxPerEvent is how many declarations fire at one event, over all
	// servers (default 8).
	MaxPerEvent int
	// MaxBytes caps the text injected at one event, over all servers
	// (default 8192): the last text that does not fit whole is cut at a
	// character boundary, later ones are dropped.
	MaxBytes int
	// Cooldown is the least time between two firings of one declaration;
	// 0 sets none.
	Cooldown time.Duration
	// Rate bounds the firings of one declaration in a window of time.
	Rate Rate
	// Approve, when set, is asked once per declaration when its server is
	// added (after trust and validity are checked): false ignores the
	// declaration for as long as the server stays added. A host presents
	// the declarations to its user here. nil approves every declaration.
	Approve func(ctx context.Context, p Proposal) bool
	// Audit, when set, receives a [Record] for every declaration decided
	// at Add and for every one whose event and matcher matched at Fire.
	// It is called synchronously, in order, from the calling goroutine
	// (from Fire's, for Fire's records).
	Audit func(Record)
	// ToolTimeout bounds one context_tool call (default 10s).
	ToolTimeout time.Duration
	// Now is the clock of cooldowns, rates and records; nil uses time.Now.
	Now func() time.Time
}

// The defaults of [Config].
const (
	DefaultMaxDeclarations = 32
	DefaultMaxPerEvent     = 8
	DefaultMaxBytes        = 8192
	DefaultToolTimeout     = 10 * time.Second
)

func (c Config) withDefaults() (Config, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxDeclarations", int64(c.MaxDeclarations)}, {"MaxPerEvent", int64(c.MaxPerEvent)}, {"MaxBytes", int64(c.MaxBytes)},
		{"Cooldown", int64(c.Cooldown)}, {"Rate.Events", int64(c.Rate.Events)}, {"Rate.Per", int64(c.Rate.Per)}, {"ToolTimeout", int64(c.ToolTimeout)},
	} {
		if f.v < 0 {
			return c, fmt.Errorf("client: Config.%s must not be negative", f.name)
		}
	}
	if (c.Rate.Events == 0) != (c.Rate.Per == 0) {
		return c, fmt.Errorf("client: Config.Rate needs both Events and Per, got %d per %v", c.Rate.Events, c.Rate.Per)
	}
	if c.MaxDeclarations == 0 {
		c.MaxDeclarations = DefaultMaxDeclarations
	}
	if c.MaxPerEvent == 0 {
		c.MaxPerEvent = DefaultMaxPerEvent
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.ToolTimeout == 0 {
		c.ToolTimeout = DefaultToolTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}
