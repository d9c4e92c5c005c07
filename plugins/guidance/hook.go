package guidance

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/internal/guidancekinds"
)

// DefaultApp is the app of hooks registered without one in a registry
// made without one.
const DefaultApp = "hookflow"

// DefaultPriority is the priority of a hook that sets none.
const DefaultPriority = 50

// Hook is one guidance hook: a piece of markdown for the host's LLM, with
// an RFC 2119 requirement level, delivered at a point of a session or a
// request. Its JSON form uses the field names of MCP Toolkit's hook
// definitions (tag, type, lifecycle, requirementLevel, contentFile,
// conditions, requestId…), so definitions can be kept in files.
type Hook struct {
	// App prefixes the hook's ID; "" takes the registry's app.
	App string `json:"app,omitempty" yaml:"app"`
	// Tag names the hook within its app, type and lifecycle. It is safe in
	// file names: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or
	// digit. The default content file is Tag + ".md".
	Tag string `json:"tag" yaml:"tag"`
	// Type is what the hook is about: session, action, storage or config.
	Type Type `json:"type" yaml:"type"`
	// Lifecycle is when it is delivered: start, running, progress, cancel
	// or end.
	Lifecycle Lifecycle `json:"lifecycle" yaml:"lifecycle"`
	// Name is the hook's heading in the composed text; "" uses Tag.
	Name string `json:"name,omitempty" yaml:"name"`
	// Description says what the hook provides, for people and tools that
	// list hooks; it is not sent to the model.
	Description string `json:"description,omitempty" yaml:"description"`
	// Level is the hook's RFC 2119 requirement level: MUST, MUST NOT,
	// SHOULD, SHOULD NOT or MAY (a hyphen may stand for the space).
	Level Level `json:"requirementLevel" yaml:"level"`
	// Priority orders hooks within a level, higher first; equal
	// priorities keep registration order. 0 means DefaultPriority (50):
	// write 1 or -1 to place a hook just around 0.
	Priority int `json:"priority,omitempty" yaml:"priority"`
	// Conditions say when the hook applies; the zero value always does.
	Conditions Conditions `json:"conditions,omitzero" yaml:"conditions"`
	// On is the tool, prompt or resource whose requests the hook is
	// delivered with (see the package doc). The zero value delivers an
	// action hook with every tool call, and any other hook at the session.
	// Its text form is "tool:NAME", "prompt:NAME" or "resource:URI".
	On Target `json:"on,omitzero" yaml:"on"`

	// Content is the hook's markdown, inline. When empty, the content is
	// read from File in FS, or from the file File when FS is nil.
	Content string `json:"content,omitempty" yaml:"content"`
	// FS holds the content file, e.g. an embed.FS next to the Go file
	// that declares the hook. Go-only: a configuration file sets the
	// plugin's content_dir instead.
	FS fs.FS `json:"-" yaml:"-"`
	// File is the content file: a path in FS ("" means Tag + ".md"), or,
	// with a nil FS, a path in the operating system's file system.
	File string `json:"contentFile,omitempty" yaml:"file"`

	// RequestID ties the hook to one request: it is delivered with that
	// request only (see Plugin.AddForRequest), and dropped when the
	// request ends. "" for hooks of every request. Go-only.
	RequestID string `json:"requestId,omitempty" yaml:"-"`
}

// ID returns the hook's ID, "app:type:lifecycle:tag", e.g.
// "hookflow:session:start:welcome". A hook without an app has
// DefaultApp's; the registry gives each hook its app before computing IDs.
func (h *Hook) ID() string {
	app := h.App
	if app == "" {
		app = DefaultApp
	}
	return app + ":" + h.Type.String() + ":" + h.Lifecycle.String() + ":" + h.Tag
}

// Title returns the hook's heading: Name, or Tag when Name is empty.
func (h *Hook) Title() string {
	if h.Name != "" {
		return h.Name
	}
	return h.Tag
}

// priority returns the effective priority.
func (h *Hook) priority() int {
	if h.Priority == 0 {
		return DefaultPriority
	}
	return h.Priority
}

// file returns the content file's path: File, or Tag + ".md".
func (h *Hook) file() string {
	if h.File != "" {
		return h.File
	}
	return h.Tag + ".md"
}

// Validate checks the hook on its own: a file-safe tag and app, a known
// type, lifecycle and level, valid conditions and target, and a content
// source. Registries call it; its errors name the field.
func (h *Hook) Validate() error {
	probs := h.problems()
	if len(probs) == 0 {
		return nil
	}
	errs := make([]error, len(probs))
	for i, p := range probs {
		if p.goField == "" {
			errs[i] = errors.New(p.msg)
		} else {
			errs[i] = errors.New(p.goField + ": " + p.msg)
		}
	}
	return fmt.Errorf("hook %s: %w", h.ID(), errors.Join(errs...))
}

// problem is one thing wrong with a hook or its conditions: the field as
// a configuration file writes it (yaml) and as Go does, and what is
// wrong; the fields are "" for the hook as a whole.
type problem struct{ field, goField, msg string }

// problems returns what is wrong with h, in field order.
func (h *Hook) problems() []problem {
	var out []problem
	add := func(field, goField, format string, args ...any) {
		out = append(out, problem{field, goField, fmt.Sprintf(format, args...)})
	}
	if err := CheckTag(h.Tag); err != nil {
		add("tag", "Tag", "%v", err)
	}
	if h.App != "" {
		if err := CheckTag(h.App); err != nil {
			add("app", "App", "%v", err)
		}
	}
	switch {
	case h.Type == 0:
		add("type", "Type", "missing (want session, action, storage or config)")
	case h.Type > TypeConfig:
		add("type", "Type", "%s is not a type (want session, action, storage or config)", h.Type)
	}
	switch {
	case h.Lifecycle == 0:
		add("lifecycle", "Lifecycle", "missing (want start, running, progress, cancel or end)")
	case h.Lifecycle > End:
		add("lifecycle", "Lifecycle", "%s is not a lifecycle (want start, running, progress, cancel or end)", h.Lifecycle)
	}
	switch {
	case h.Level == 0:
		add("level", "Level", "missing (want MUST, MUST NOT, SHOULD, SHOULD NOT or MAY)")
	case h.Level > May:
		add("level", "Level", "%s is not a requirement level (want MUST, MUST NOT, SHOULD, SHOULD NOT or MAY)", h.Level)
	}
	out = append(out, h.Conditions.problems()...)
	if err := h.On.validate(); err != nil {
		add("on", "On", "%v", err)
	}
	if h.Content == "" && h.FS == nil && h.File == "" {
		add("", "", "no content: set it inline (content) or in a file (file, or %s in the content directory)", h.file())
	}
	if h.FS != nil && !fs.ValidPath(h.file()) {
		add("file", "File", "%q is not a path inside the content directory (slash-separated, relative, no . or .. elements)", h.file())
	}
	return out
}

// CheckTag reports whether s may be a tag or an app: 1 to 64 of A-Z a-z
// 0-9 . _ -, starting with a letter or a digit, so that it is safe in a
// file name and in an ID.
func CheckTag(s string) error { return guidancekinds.CheckTag(s) }

// Target is the tool, prompt or resource a hook is delivered with. Its
// text form is "tool:NAME", "prompt:NAME" or "resource:URI"; "tool",
// "prompt" and "resource" alone stand for every entity of the kind.
type Target struct {
	// Kind is flows.EntityTool, EntityPrompt or EntityResource;
	// flows.EntityNone (the zero Target) targets nothing in particular.
	Kind flows.EntityKind
	// Name is the tool's or prompt's name, or the resource's URI (or URI
	// template); "" means every entity of Kind.
	Name string
}

// Tool returns the Target of the tool named name.
func Tool(name string) Target { return Target{Kind: flows.EntityTool, Name: name} }

// Prompt returns the Target of the prompt named name.
func Prompt(name string) Target { return Target{Kind: flows.EntityPrompt, Name: name} }

// Resource returns the Target of the resource (or resource template)
// with URI (template) uri.
func Resource(uri string) Target { return Target{Kind: flows.EntityResource, Name: uri} }

// IsZero reports whether t targets nothing in particular.
func (t Target) IsZero() bool { return t == Target{} }

// String returns the target's text form, e.g. "tool:get_weather"; "" for
// the zero Target.
func (t Target) String() string {
	if t.IsZero() {
		return ""
	}
	if t.Name == "" {
		return t.Kind.String()
	}
	return t.Kind.String() + ":" + t.Name
}

// MarshalText writes the target's text form.
func (t Target) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a target's text form.
func (t *Target) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "" {
		*t = Target{}
		return nil
	}
	kind, name, _ := strings.Cut(s, ":")
	switch kind {
	case "tool":
		*t = Tool(name)
	case "prompt":
		*t = Prompt(name)
	case "resource":
		*t = Resource(name)
	default:
		return fmt.Errorf("target %q: want tool:NAME, prompt:NAME or resource:URI", s)
	}
	return nil
}

func (t Target) validate() error {
	switch t.Kind {
	case flows.EntityNone:
		if t.Name != "" {
			return fmt.Errorf("name %q without a kind (want Tool(name), Prompt(name) or Resource(uri))", t.Name)
		}
	case flows.EntityTool, flows.EntityPrompt, flows.EntityResource:
	default:
		return fmt.Errorf("kind %s: want a tool, a prompt or a resource", t.Kind)
	}
	return nil
}
