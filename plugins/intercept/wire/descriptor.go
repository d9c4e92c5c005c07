package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Interceptor is an interceptor's descriptor, one element of the result of
// interceptors/list. Type and Hooks say what it can do; Mode, FailOpen and
// PriorityHint are its author's defaults, which an invoker's policy may
// override.
type Interceptor struct {
	// Name identifies the interceptor within its host.
	Name string `json:"name"`
	// Version is advisory: for operators and logs.
	Version string `json:"version,omitempty"`
	// Description says what the interceptor does.
	Description string `json:"description,omitempty"`
	// Type is validation or mutation.
	Type Type `json:"type"`
	// Hooks are the events and phases the interceptor applies to. An empty
	// list is legal and matches nothing.
	Hooks []Hook `json:"hooks"`
	// Mode is the author's default mode; "" means active.
	Mode Mode `json:"mode,omitempty"`
	// FailOpen is the author's default failure routing: false (the
	// default) blocks the operation when the interceptor fails.
	FailOpen bool `json:"failOpen,omitempty"`
	// PriorityHint orders mutators, lower first; nil means 0. Validators
	// ignore it.
	PriorityHint *PriorityHint `json:"priorityHint,omitempty"`
	// Compat bounds the MCP protocol versions the interceptor supports.
	Compat *Compat `json:"compat,omitempty"`
	// ConfigSchema documents the config object interceptor/invoke accepts.
	ConfigSchema json.RawMessage `json:"configSchema,omitempty"`
}

// UnmarshalJSON reads a descriptor. A descriptor of the older drafts,
// with one "hook" object instead of "hooks" (its phase possibly "both"),
// is read as the hooks it stands for: "both" is a request hook and a
// response hook on the same events. When both keys are present, "hooks"
// wins. A mode of [ModeEnforce] is read as [Active].
func (i *Interceptor) UnmarshalJSON(data []byte) error {
	type plain Interceptor // without this method
	var v struct {
		plain
		Hook *struct {
			Events []string `json:"events"`
			Phase  string   `json:"phase"`
		} `json:"hook"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*i = Interceptor(v.plain)
	if i.Mode == ModeEnforce {
		i.Mode = Active
	}
	if i.Hooks == nil && v.Hook != nil {
		if v.Hook.Phase == "both" {
			i.Hooks = []Hook{{Events: v.Hook.Events, Phase: Request}, {Events: v.Hook.Events, Phase: Response}}
		} else {
			i.Hooks = []Hook{{Events: v.Hook.Events, Phase: Phase(v.Hook.Phase)}}
		}
	}
	return nil
}

// Hook is one entry of an interceptor's hooks: the events it applies to, in
// one phase.
type Hook struct {
	Events []string `json:"events" yaml:"events"`
	Phase  Phase    `json:"phase" yaml:"phase"`
}

// Covers reports whether the interceptor advertises a hook matching event
// in phase.
func (i *Interceptor) Covers(event string, phase Phase) bool {
	for _, h := range i.Hooks {
		if h.Phase == phase && MatchAny(h.Events, event) {
			return true
		}
	}
	return false
}

// Check reports what makes a descriptor unusable: no name, a type or mode
// the SEP does not define, a hook phase that is neither request nor
// response. (Hooks without events are legal: they match nothing.)
func (i *Interceptor) Check() error {
	var errs []error
	if i.Name == "" {
		errs = append(errs, errors.New("no name"))
	}
	if _, err := ParseType(string(i.Type)); err != nil {
		errs = append(errs, err)
	}
	if _, err := ParseMode(string(i.Mode)); err != nil {
		errs = append(errs, err)
	}
	for n, h := range i.Hooks {
		if _, err := ParsePhase(string(h.Phase)); err != nil {
			errs = append(errs, fmt.Errorf("hooks[%d]: %w", n, err))
		}
	}
	return errors.Join(errs...)
}

// Compat is the range of MCP protocol versions an interceptor supports.
type Compat struct {
	MinProtocol string `json:"minProtocol"`
	MaxProtocol string `json:"maxProtocol,omitempty"`
}

// Includes reports whether protocol version v (e.g. "2025-06-18") is in the
// range. Versions are dates, so they compare as strings; an empty v (not
// negotiated yet) is included.
func (c *Compat) Includes(v string) bool {
	if c == nil || v == "" {
		return true
	}
	return v >= c.MinProtocol && (c.MaxProtocol == "" || v <= c.MaxProtocol)
}

// PriorityHint orders mutators, lower first. On the wire it is a number for
// both phases, or an object with a number per phase ("request",
// "response"), a missing phase meaning 0.
type PriorityHint struct {
	// Request and Response are the hints of each phase. A configuration
	// file gives them as {request: n, response: m}, or both as one
	// number (see [PriorityHint.UnmarshalText]).
	Request  int32 `yaml:"request"`
	Response int32 `yaml:"response"`
	// PerPhase is true when the hint was (or is to be) written as an
	// object; otherwise Request and Response are equal and it is a number.
	PerPhase bool `yaml:"-"`
	// hasRequest and hasResponse record which phases an object named.
	hasRequest, hasResponse bool
}

// Hint returns a hint of n for both phases.
func Hint(n int32) *PriorityHint { return &PriorityHint{Request: n, Response: n} }

// HintPerPhase returns a hint of req on requests and resp on results.
func HintPerPhase(req, resp int32) *PriorityHint {
	return &PriorityHint{Request: req, Response: resp, PerPhase: true, hasRequest: true, hasResponse: true}
}

// For returns the hint of phase p; 0 for a nil hint.
func (h *PriorityHint) For(p Phase) int32 {
	if h == nil {
		return 0
	}
	if p == Response {
		return h.Response
	}
	return h.Request
}

// MarshalJSON writes a number, or an object when the hint is per phase.
func (h PriorityHint) MarshalJSON() ([]byte, error) {
	if !h.PerPhase {
		return json.Marshal(h.Request)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	if h.hasRequest || h.Request != 0 {
		fmt.Fprintf(&b, `"request":%d`, h.Request)
	}
	if h.hasResponse || h.Response != 0 {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"response":%d`, h.Response)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a number or an object of per-phase numbers, each a
// 32-bit signed integer.
func (h *PriorityHint) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var o struct {
			Request  json.RawMessage `json:"request"`
			Response json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(data, &o); err != nil {
			return fmt.Errorf("priorityHint: %w", err)
		}
		*h = PriorityHint{PerPhase: true}
		var err error
		if o.Request != nil {
			h.hasRequest = true
			if h.Request, err = int32Of(o.Request); err != nil {
				return fmt.Errorf("priorityHint.request: %w", err)
			}
		}
		if o.Response != nil {
			h.hasResponse = true
			if h.Response, err = int32Of(o.Response); err != nil {
				return fmt.Errorf("priorityHint.response: %w", err)
			}
		}
		return nil
	}
	v, err := int32Of(data)
	if err != nil {
		return fmt.Errorf("priorityHint: want a number or an object: %w", err)
	}
	*h = PriorityHint{Request: v, Response: v}
	return nil
}

// UnmarshalText reads a hint written as one number, a 32-bit signed
// integer, for both phases: a configuration file's "priority_hint: 10".
func (h *PriorityHint) UnmarshalText(text []byte) error {
	v, err := strconv.ParseInt(string(text), 10, 32)
	if err != nil {
		return fmt.Errorf("want a priority hint such as 10 (a 32-bit signed integer) or {request: 10, response: -5}, got %q", text)
	}
	*h = PriorityHint{Request: int32(v), Response: int32(v)}
	return nil
}

// int32Of reads a JSON number that is a 32-bit signed integer.
func int32Of(data json.RawMessage) (int32, error) {
	v, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s is not a 32-bit signed integer", data)
	}
	return int32(v), nil
}
