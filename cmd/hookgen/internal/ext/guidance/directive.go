package guidance

// //mcp:guidance: the action guidance of a tool, prompt or resource type
// (package plugins/guidance).

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/internal/guidancekinds"
	"github.com/hookflow/hookflow/internal/suggest"
)

// Directive is the value of //mcp:guidance: one guidance hook of the entity
// type it sits on, whose content is a markdown file next to the Go file.
type Directive struct {
	Tag       string
	Type      guidancekinds.Type // TypeAction when not given
	Lifecycle guidancekinds.Lifecycle
	Level     guidancekinds.Level
	Name      string
	// Description says what the hook provides; it is not sent to models.
	Description string
	Priority    int    // 0 when not given: the plugin's default (50)
	File        string // "" when not given: Tag + ".md"
	Features    []guidancekinds.Feature
	Storage     []string
}

// ContentFile returns the content file's path relative to the package's
// directory: File, or Tag + ".md".
func (g Directive) ContentFile() string {
	if g.File != "" {
		return g.File
	}
	return g.Tag + ".md"
}

// Canonical renders the guidance as an //mcp:guidance line.
func (g Directive) Canonical() string {
	var c directive.Canon
	c.Head(directive.NamespaceMCP, "guidance")
	c.Bare("tag", g.Tag)
	if g.Type != guidancekinds.TypeAction && g.Type != 0 {
		c.Bare("type", g.Type.String())
	}
	c.Bare("lifecycle", g.Lifecycle.String())
	c.Bare("level", strings.ReplaceAll(g.Level.String(), " ", "-"))
	c.Str("name", g.Name, false)
	c.Str("description", g.Description, false)
	if g.Priority != 0 {
		c.Bare("priority", fmt.Sprint(g.Priority))
	}
	c.Str("file", g.File, false)
	if len(g.Features) > 0 {
		names := make([]string, len(g.Features))
		for i, f := range g.Features {
			names[i] = f.String()
		}
		c.Bare("features", strings.Join(names, ","))
	}
	if len(g.Storage) > 0 {
		c.Bare("storage", strings.Join(g.Storage, ","))
	}
	return c.String()
}

// def is the definition of //mcp:guidance.
func def() directive.Def {
	return directive.Def{
		Namespace: directive.NamespaceMCP, Name: "guidance", Targets: directive.TargetType,
		Help: "declares a guidance hook (plugins/guidance) of the //mcp:tool, //mcp:prompt, //mcp:resource or " +
			"//mcp:resource-template type it sits on: markdown for the model, delivered with the entity's requests. " +
			"The content file sits next to the Go file; hookgen checks it exists, embeds it and generates " +
			"HookflowGuidance(), which returns the package's hooks for guidance.Config.Hooks.",
		Keys: []directive.Key{
			{Name: "tag", Kind: directive.KindWord, Required: true, Check: checkGuidanceTag,
				Help: "the hook's tag, unique per type and lifecycle in the package: 1 to 64 of A-Z a-z 0-9 . _ -; its ID is app:type:lifecycle:tag"},
			{Name: "type", Kind: directive.KindWord, Default: "action", Check: checkGuidanceType, Help: "what the guidance is about: action, storage, config or session"},
			{Name: "lifecycle", Kind: directive.KindWord, Required: true, Check: checkLifecycle,
				Help: "when it is delivered: start or end (tools, prompts, resources); running, progress or cancel (tools)"},
			{Name: "level", Kind: directive.KindWord, Required: true, Check: checkLevel, Help: "the RFC 2119 requirement level: MUST, MUST-NOT, SHOULD, SHOULD-NOT or MAY"},
			{Name: "name", Kind: directive.KindString, Default: "the tag", Help: "the hook's heading in the composed text", Check: directive.CheckNonEmpty},
			{Name: "description", Kind: directive.KindString, Help: "what the hook provides, for people (not sent to the model)"},
			{Name: "priority", Kind: directive.KindInt, Default: "50", Help: "order within the requirement level, higher first; 0 means the default"},
			{Name: "file", Kind: directive.KindString, Default: "<tag>.md", Check: checkContentFile,
				Help: "the markdown content file, a slash-separated path relative to the Go file's directory"},
			{Name: "features", Kind: directive.KindList, Check: checkFeature, Help: "client features the hook requires: sampling, elicitation, roots"},
			{Name: "storage", Kind: directive.KindList, Help: "storage backends, one of which must be active (guidance.Config.Storage)"},
		},
		Build: build,
	}
}

func build(f *directive.Fields) directive.Value {
	g := Directive{Tag: f.Str("tag"), Type: guidancekinds.TypeAction, Name: f.Str("name"), Description: f.Str("description"), File: f.Str("file"),
		Storage: f.List("storage")}
	if f.Has("type") {
		g.Type, _ = guidancekinds.ParseType(f.Str("type"))
	}
	g.Lifecycle, _ = guidancekinds.ParseLifecycle(f.Str("lifecycle"))
	g.Level, _ = guidancekinds.ParseLevel(f.Str("level"))
	g.Priority, _ = f.Int("priority")
	for _, s := range f.List("features") {
		feat, _ := guidancekinds.ParseFeature(s)
		g.Features = append(g.Features, feat)
	}
	return g
}

func checkGuidanceTag(s string) error { return guidancekinds.CheckTag(s) }

func checkGuidanceType(s string) error {
	_, err := guidancekinds.ParseType(s)
	return wantOneOf(err, s, "action", "storage", "config", "session")
}

func checkLifecycle(s string) error {
	_, err := guidancekinds.ParseLifecycle(s)
	return wantOneOf(err, s, "start", "running", "progress", "cancel", "end")
}

func checkLevel(s string) error {
	_, err := guidancekinds.ParseLevel(s)
	return wantOneOf(err, strings.ToUpper(s), "MUST", "MUST-NOT", "SHOULD", "SHOULD-NOT", "MAY")
}

func checkFeature(s string) error {
	switch s {
	case "tools", "resources", "prompts":
		return errors.New("a server feature: conditions test the client's features (sampling, elicitation, roots)")
	}
	_, err := guidancekinds.ParseFeature(s)
	return wantOneOf(err, s, "sampling", "elicitation", "roots")
}

// wantOneOf returns nil for a nil err, else "want a, b or c" with a
// did-you-mean hint for a near miss of s.
func wantOneOf(err error, s string, valid ...string) error {
	if err == nil {
		return nil
	}
	msg := "want " + strings.Join(valid[:len(valid)-1], ", ") + " or " + valid[len(valid)-1]
	if near, ok := suggest.Closest(s, valid); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return errors.New(msg)
}

// checkContentFile accepts a path that //go:embed can name: slash
// separated, relative, without . or .. elements, glob characters or
// backslashes.
func checkContentFile(s string) error {
	if !fs.ValidPath(s) || s == "." {
		return errors.New("want a slash-separated path relative to the Go file's directory, without . or .. elements")
	}
	if strings.ContainsAny(s, "*?[]\\") {
		return errors.New("the path must not hold * ? [ ] or \\ (//go:embed reads them as patterns)")
	}
	return nil
}
