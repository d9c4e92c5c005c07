package guidance

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hookflow/hookflow/flows"
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
	App string `json:"app,omitempty"`
	// Tag names the hook within its app, type and lifecycle. It is safe in
	// file names: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or
	// digit. The default content file is Tag + ".md".
	Tag       string    `json:"tag"`
	Type      Type      `json:"type"`
	Lifecycle Lifecycle `json:"lifecycle"`
	// Name is the hook's heading in the composed text; "" uses Tag.
	Name string `json:"name,omitempty"`
	// Description says what the hook provides, for people and tools that
	// list hooks; it is not sent to the model.
	Description string `json:"description,omitempty"`
	// Level is the hook's RFC 2119 requirement level.
	Level Level `json:"requirementLevel"`
	// Priority orders hooks within a level, higher first; equal
	// priorities keep registration order. 0 means DefaultPriority (50):
	// write 1 or -1 to place a hook just around 0.
	Priority int `json:"priority,omitempty"`
	// Conditions say when the hook applies; the zero value always does.
	Conditions Conditions `json:"conditions,omitzero"`
	// On is the tool, prompt or resource whose requests the hook is
	// delivered with (see the package doc). The zero value delivers an
	// action hook with every tool call, and any other hook at the session.
	On Target `json:"on,omitzero"`

	// Content is the hook's markdown, inline. When empty, the content is
	// read from File in FS, or from the file File when FS is nil.
	Content string `json:"content,omitempty"`
	// FS holds the content file, e.g. an embed.FS next to the Go file
	// that declares the hook.
	FS fs.FS `json:"-"`
	// File is the content file: a path in FS ("" means Tag + ".md"), or,
	// with a nil FS, a path in the operating system's file system.
	File string `json:"contentFile,omitempty"`

	// RequestID ties the hook to one request: it is delivered with that
	// request only (see Plugin.AddForRequest), and dropped when the
	// request ends. "" for hooks of every request.
	RequestID string `json:"requestId,omitempty"`
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
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := CheckTag(h.Tag); err != nil {
		add("Tag: %v", err)
	}
	if h.App != "" {
		if err := CheckTag(h.App); err != nil {
			add("App: %v", err)
		}
	}
	if h.Type < TypeSession || h.Type > TypeConfig {
		add("Type: %s is not a type (want TypeSession, TypeAction, TypeStorage or TypeConfig)", h.Type)
	}
	if h.Lifecycle < Start || h.Lifecycle > End {
		add("Lifecycle: %s is not a lifecycle (want Start, Running, Progress, Cancel or End)", h.Lifecycle)
	}
	if h.Level < Must || h.Level > May {
		add("Level: %s is not a requirement level (want Must, MustNot, Should, ShouldNot or May)", h.Level)
	}
	if err := h.Conditions.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := h.On.validate(); err != nil {
		add("On: %v", err)
	}
	if h.Content == "" && h.FS == nil && h.File == "" {
		add("no content: set Content, FS (holding %s) or File", h.file())
	}
	if h.FS != nil && !fs.ValidPath(h.file()) {
		add("File: %q is not a valid path in an fs.FS (slash-separated, relative, no . or .. elements)", h.file())
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("hook %s: %w", h.ID(), errors.Join(errs...))
}

// CheckTag reports whether s may be a tag or an app: 1 to 64 of A-Z a-z
// 0-9 . _ -, starting with a letter or a digit, so that it is safe in a
// file name and in an ID.
func CheckTag(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	if len(s) > 64 {
		return fmt.Errorf("%q is longer than 64 bytes", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if i == 0 && !alnum {
			return fmt.Errorf("%q must start with a letter or a digit", s)
		}
		if !alnum && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("%q has %q: want A-Z a-z 0-9 . _ -", s, c)
		}
	}
	return nil
}

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
