package declare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/internal/declaredkinds"
	"github.com/hookflow/hookflow/internal/suggest"
)

// Directive is the value of //mcp:declare: one SEP-2282 hook declaration
// (package declared). The matcher fields are "" when not given.
type Directive struct {
	Event         declaredkinds.Event
	ToolName      string
	InputContains string
	ToolServer    string
	Context       string
	ContextTool   string
	ContextArgs   string // a JSON object; "" when not given
	Priority      declaredkinds.Priority
}

// Canonical renders the declaration as an //mcp:declare line.
func (d Directive) Canonical() string {
	var c directive.Canon
	c.Head(directive.NamespaceMCP, "declare")
	c.Bare("event", d.Event.String())
	c.Str("toolname", d.ToolName, false)
	c.Str("inputcontains", d.InputContains, false)
	c.Str("toolserver", d.ToolServer, false)
	c.Str("context", d.Context, false)
	c.Str("contexttool", d.ContextTool, false)
	c.Str("contextargs", d.ContextArgs, false)
	if d.Priority != declaredkinds.Suggestion {
		c.Bare("priority", d.Priority.String())
	}
	return c.String()
}

// def is the definition of //mcp:declare.
func def() directive.Def {
	return directive.Def{
		Namespace: directive.NamespaceMCP, Name: "declare", Targets: directive.TargetType | directive.TargetPackage,
		Help: "declares a SEP-2282 hook: clients inject its text into their agent's context at the event. " +
			"On an //mcp:tool type it is the tool's own (toolname defaults to the tool's name for tool events); " +
			"in the package clause's doc comment it is the server's. The generated DeclaredHooks function returns the package's " +
			"declarations for the declared plugin. Exactly one of context and contexttool is required; " +
			"context and contextargs may use {project_name} {tool_name} {tool_input} {tool_output} {session_id}.",
		Keys: []directive.Key{
			{Name: "event", Kind: directive.KindWord, Required: true, Check: checkDeclaredEvent,
				Help: "when it fires: " + strings.Join(declaredkinds.EventNames(), ", ")},
			{Name: "toolname", Kind: directive.KindString, Check: directive.CheckNonEmpty, Default: "the tool's name on an //mcp:tool type, else any tool",
				Help: "tool events only: the tool's name or a glob (* any run, ? one character)"},
			{Name: "inputcontains", Kind: directive.KindString, Check: directive.CheckNonEmpty, Help: "tool events only: a substring of the tool's serialized input"},
			{Name: "toolserver", Kind: directive.KindString, Check: directive.CheckNonEmpty, Help: "tool events only: the MCP server that provides the tool"},
			{Name: "context", Kind: directive.KindString, Check: directive.CheckNonEmpty, Excludes: []string{"contexttool"}, Help: "the text to inject"},
			{Name: "contexttool", Kind: directive.KindString, Check: directive.CheckToolName, Help: "a tool of this server whose result is the text to inject"},
			{Name: "contextargs", Kind: directive.KindString, Check: checkArgs, Help: "the context tool's arguments: a JSON object, e.g. `{\"query\":\"{project_name}\"}`"},
			{Name: "priority", Kind: directive.KindWord, Check: checkDeclaredPriority, Default: "suggestion",
				Help: "how strongly the agent should act on it: " + strings.Join(declaredkinds.PriorityNames(), ", ")},
		},
		Build: build,
	}
}

func build(f *directive.Fields) directive.Value {
	e, _ := declaredkinds.ParseEvent(f.Str("event"))
	p := declaredkinds.Suggestion
	if f.Has("priority") {
		p, _ = declaredkinds.ParsePriority(f.Str("priority"))
	}
	return Directive{
		Event: e, ToolName: f.Str("toolname"), InputContains: f.Str("inputcontains"), ToolServer: f.Str("toolserver"),
		Context: f.Str("context"), ContextTool: f.Str("contexttool"), ContextArgs: f.Str("contextargs"), Priority: p,
	}
}

func checkDeclaredEvent(s string) error {
	if _, err := declaredkinds.ParseEvent(s); err == nil {
		return nil
	}
	return oneOf(s, declaredkinds.EventNames())
}

func checkDeclaredPriority(s string) error {
	if _, err := declaredkinds.ParsePriority(s); err == nil {
		return nil
	}
	return oneOf(s, declaredkinds.PriorityNames())
}

// oneOf is the reason a value that is not one of names is refused.
func oneOf(s string, names []string) error {
	msg := "want one of " + strings.Join(names, ", ")
	if near, ok := suggest.Closest(s, names); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return errors.New(msg)
}

func checkArgs(s string) error {
	if err := declaredkinds.CheckArgs(s); err != nil {
		return errors.New(err.Error())
	}
	return nil
}
