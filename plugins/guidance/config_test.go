package guidance_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/guidance"
)

func TestConfigValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(file, []byte("Notes."), 0o644); err != nil {
		t.Fatal(err)
	}
	hello := inline("hello", guidance.TypeSession, guidance.Start, guidance.Should, "Hello.")
	fromDir := guidance.Hook{Tag: "notes", Type: guidance.TypeSession, Lifecycle: guidance.Start, Level: guidance.May}
	with := func(h guidance.Hook, f func(h *guidance.Hook)) guidance.Hook {
		f(&h)
		return h
	}
	tests := []struct {
		name string
		cfg  guidance.Config
		want []plugintest.FieldErr
	}{
		{"zero", guidance.Config{}, nil},
		{"every setting", guidance.Config{App: "notes", ContentDir: dir, Storage: []string{"memory"}, Settings: map[string]any{"mode": "ci"},
			Composer: guidance.Composer{NoPreambles: true}, Role: "user", WelcomePrompt: "start", NoInstructions: true,
			Hooks: []guidance.Hook{hello, fromDir, {Tag: "save", Type: guidance.TypeAction, Lifecycle: guidance.End, Level: guidance.Must,
				On: guidance.Tool("save_note"), Content: "Say so.", Conditions: guidance.Conditions{Storage: []string{"memory"}}}}}, nil},
		{"app", guidance.Config{App: "my app"}, []plugintest.FieldErr{{"app", `"my app" has ' ': want A-Z a-z 0-9 . _ -`}}},
		{"role", guidance.Config{Role: "system"}, []plugintest.FieldErr{{"role", `"system" is not an MCP role (want assistant or user)`}}},
		{"storage", guidance.Config{Storage: []string{"memory", ""}}, []plugintest.FieldErr{{"storage[1]", "empty backend name"}}},
		{"content_dir missing", guidance.Config{ContentDir: filepath.Join(dir, "nope")},
			[]plugintest.FieldErr{{"content_dir", "stat " + filepath.Join(dir, "nope") + ": no such file or directory"}}},
		{"content_dir a file", guidance.Config{ContentDir: file}, []plugintest.FieldErr{{"content_dir", file + " is not a directory"}}},
		{"hook fields", guidance.Config{Hooks: []guidance.Hook{hello, {Tag: "-x", Priority: 3,
			Conditions: guidance.Conditions{Storage: []string{""}, Config: map[string]any{"": 1}}}}},
			[]plugintest.FieldErr{
				{"hooks[1].tag", `"-x" must start with a letter or a digit`},
				{"hooks[1].type", "missing (want session, action, storage or config)"},
				{"hooks[1].lifecycle", "missing (want start, running, progress, cancel or end)"},
				{"hooks[1].level", "missing (want MUST, MUST NOT, SHOULD, SHOULD NOT or MAY)"},
				{"hooks[1].conditions.storage[0]", "empty backend name"},
				{"hooks[1].conditions.config", "empty key"},
				{"hooks[1]", "no content: set it inline (content) or in a file (file, or -x.md in the content directory)"},
			}},
		{"file leaves content_dir", guidance.Config{ContentDir: dir, Hooks: []guidance.Hook{with(fromDir, func(h *guidance.Hook) { h.File = "../secret.md" })}},
			[]plugintest.FieldErr{{"hooks[0].file", `"../secret.md" is not a path inside the content directory (slash-separated, relative, no . or .. elements)`}}},
		{"never delivered", guidance.Config{Hooks: []guidance.Hook{with(hello, func(h *guidance.Hook) { h.Lifecycle = guidance.End })}},
			[]plugintest.FieldErr{{"hooks[0].lifecycle", "a session hook without a target (on) is delivered at the session's start only, so its lifecycle must be start"}}},
		{"tied to a request", guidance.Config{Hooks: []guidance.Hook{with(hello, func(h *guidance.Hook) { h.RequestID = "7" })}},
			[]plugintest.FieldErr{{"hooks[0]", "a hook tied to a request (RequestID) is added while the request runs, with Plugin.AddForRequest"}}},
		{"given twice", guidance.Config{App: "notes", Hooks: []guidance.Hook{hello, with(hello, func(h *guidance.Hook) { h.Level = guidance.Must })}},
			[]plugintest.FieldErr{{"hooks[1]", "hook notes:session:start:hello is given twice (first at hooks[0]): change its tag, type or lifecycle"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tt.cfg.Validate())
			if len(got) != len(tt.want) {
				t.Fatalf("Validate() = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestContentDir: a hook of a configuration file names its content file
// in ContentDir, and the session receives that file's text.
func TestContentDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "welcome.md"), []byte("Call session_init first.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools", "limits.md"), []byte("Stay under ten calls."), 0o644); err != nil {
		t.Fatal(err)
	}
	p := guidance.New(guidance.Config{ContentDir: dir, Hooks: []guidance.Hook{
		{Tag: "welcome", Type: guidance.TypeSession, Lifecycle: guidance.Start, Level: guidance.Must},
		{Tag: "limits", Type: guidance.TypeSession, Lifecycle: guidance.Start, Level: guidance.Should, File: "tools/limits.md"},
	}})
	srv := newServer(t, p, nil, nil)
	cs, _ := connect(t, srv, client{})
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: guidance.DefaultWelcomePrompt})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{"Call session_init first.", "Stay under ten calls."} {
		if !strings.Contains(got, want) {
			t.Errorf("welcome prompt %q lacks %q", got, want)
		}
	}
}

// TestTextRoundTrip: every scalar a hook's configuration writes (type,
// lifecycle, level, client feature, target) reads back from its text, and
// an unknown word is refused with a hint.
func TestTextRoundTrip(t *testing.T) {
	type text interface {
		MarshalText() ([]byte, error)
	}
	roundTrip := func(v text, back interface{ UnmarshalText([]byte) error }) {
		t.Helper()
		b, err := v.MarshalText()
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		if err := back.UnmarshalText(b); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
	}
	for ty := guidance.TypeSession; ty <= guidance.TypeConfig; ty++ {
		var back guidance.Type
		if roundTrip(ty, &back); back != ty {
			t.Errorf("type %v read back as %v", ty, back)
		}
	}
	for l := guidance.Start; l <= guidance.End; l++ {
		var back guidance.Lifecycle
		if roundTrip(l, &back); back != l {
			t.Errorf("lifecycle %v read back as %v", l, back)
		}
	}
	for l := guidance.Must; l <= guidance.May; l++ {
		var back guidance.Level
		if roundTrip(l, &back); back != l {
			t.Errorf("level %v read back as %v", l, back)
		}
	}
	for f := guidance.Sampling; f <= guidance.Roots; f++ {
		var back guidance.Feature
		if roundTrip(f, &back); back != f {
			t.Errorf("feature %v read back as %v", f, back)
		}
	}
	for _, tg := range []guidance.Target{guidance.Tool("save_note"), guidance.Prompt("review"), guidance.Resource("notes://{id}"), {Kind: flows.EntityTool}} {
		var back guidance.Target
		if roundTrip(tg, &back); back != tg {
			t.Errorf("target %v read back as %v", tg, back)
		}
	}
	var l guidance.Level
	if err := l.UnmarshalText([]byte("MUST_NOT")); err != nil || l != guidance.MustNot {
		t.Errorf("MUST_NOT = %v, %v", l, err)
	}
	if err := l.UnmarshalText([]byte("should")); err == nil || err.Error() != `unknown requirement level "should" (did you mean "SHOULD"?)` {
		t.Errorf("should: %v", err)
	}
}
