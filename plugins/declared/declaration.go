package declared

import (
	"encoding/json"
	"errors"

	"github.com/hookflow/hookflow/internal/declaredkinds"
)

// Declaration is one server-declared hook, as SEP-2282 defines it and as it
// travels in experimental.hooks.declarations: at Event, when Matcher (if
// any) matches, the client injects Context, or the text of ContextTool's
// result, into the agent's context with Priority.
//
// Exactly one of Context and ContextTool is set; ContextToolArgs requires
// ContextTool. Context and the string values of ContextToolArgs may hold
// template variables ([Expand]).
type Declaration struct {
	Event   Event    `json:"event" yaml:"event"`
	Matcher *Matcher `json:"matcher,omitempty" yaml:"matcher"`
	// Context is the static text to inject.
	Context string `json:"context,omitempty" yaml:"context"`
	// ContextTool names a tool of the declaring server whose result text
	// is injected instead of a static string.
	ContextTool string `json:"context_tool,omitempty" yaml:"context_tool"`
	// ContextToolArgs are ContextTool's arguments: a JSON object. In a
	// configuration file it is written as a mapping, which the loader
	// stores as its JSON.
	ContextToolArgs json.RawMessage `json:"context_tool_args,omitempty" yaml:"context_tool_args"`
	Priority        Priority        `json:"priority" yaml:"priority"`
}

// Matcher narrows when a declaration of a tool event fires. Every field set
// must match (logical AND); an empty Matcher matches every call. See
// [Matcher.Match].
type Matcher struct {
	// ToolName is the tool's name or a glob over it: '*' matches any run
	// of characters, '?' any one character.
	ToolName string `json:"tool_name,omitempty" yaml:"tool_name"`
	// InputContains is a substring of the serialized tool input.
	InputContains string `json:"input_contains,omitempty" yaml:"input_contains"`
	// ToolServer is the name of the MCP server that provides the tool.
	ToolServer string `json:"tool_server,omitempty" yaml:"tool_server"`
}

// IsZero reports whether m is nil or sets no field.
func (m *Matcher) IsZero() bool { return m == nil || *m == Matcher{} }

// Validate reports the first thing wrong with d, naming the field as it is
// written on the wire ("event: missing or invalid …").
func (d *Declaration) Validate() error {
	field, msg := d.check()
	switch {
	case msg == "":
		return nil
	case field == "":
		return errors.New(msg)
	}
	return errors.New(field + ": " + msg)
}

// check returns the first thing wrong with d: the field as it is written
// on the wire ("" for the declaration as a whole) and what is wrong with
// it; "" and "" for a valid declaration.
func (d *Declaration) check() (field, msg string) {
	return declaredkinds.Check(d.Event, d.Priority, d.Context, d.ContextTool, d.ContextToolArgs, !d.Matcher.IsZero())
}

// CheckArgs reports whether raw is a JSON object, as context_tool_args must
// be; hookgen checks contextargs= with it.
func CheckArgs(raw string) error { return declaredkinds.CheckArgs(raw) }
