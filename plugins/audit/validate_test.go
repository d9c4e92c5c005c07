package audit_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
)

// TestValidate checks each error Validate reports: the field's path as a
// configuration file spells it, and a message a user can act on.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  audit.Config
		want []plugintest.FieldErr
	}{
		{"valid", audit.Config{File: audit.File{Path: filepath.Join(dir, "a.jsonl"), MaxBytes: 1 << 20}, Redact: []string{"password", "card.number"}, Flows: []flows.ID{flows.ToolsCallTool}}, nil},
		{"stderr", audit.Config{File: audit.File{Stderr: true}}, nil},
		{"negative sizes", audit.Config{QueueSize: -1, MaxArgsBytes: -2, MaxTextBytes: -3, File: audit.File{Path: filepath.Join(dir, "a"), MaxBytes: -4, MaxBackups: -5}}, []plugintest.FieldErr{
			{"queue_size", "must not be negative, got -1"},
			{"max_args_bytes", "must not be negative, got -2"},
			{"max_text_bytes", "must not be negative, got -3"},
			{"file.max_bytes", "must not be negative, got -4"},
			{"file.max_backups", "must not be negative, got -5"},
		}},
		{"stderr and a path", audit.Config{File: audit.File{Stderr: true, Path: "a"}}, []plugintest.FieldErr{{"file", "gives both a path and stderr: give one"}}},
		{"rotation without a path", audit.Config{File: audit.File{MaxBackups: 2}}, []plugintest.FieldErr{{"file.path", "required when max_bytes or max_backups is set"}}},
		{"missing directory", audit.Config{File: audit.File{Path: "/nonexistent-dir/a.jsonl"}}, []plugintest.FieldErr{{"file", "directory /nonexistent-dir does not exist"}}},
		{"a directory", audit.Config{File: audit.File{Path: dir}}, []plugintest.FieldErr{{"file", dir + " is a directory"}}},
		{"bad redact", audit.Config{Redact: []string{"ok", "a..b"}}, []plugintest.FieldErr{{"redact[1]", `"a..b" has an empty field name`}}},
		{"bad flow", audit.Config{Flows: []flows.ID{flows.ToolsCallTool, "tools:call"}}, []plugintest.FieldErr{{"flows[1]", `unknown flow "tools:call"`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tc.cfg.Validate())
			if len(got) != len(tc.want) {
				t.Fatalf("Validate() = %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestFileUnmarshalText checks the short forms of a File: "stderr", or a
// path.
func TestFileUnmarshalText(t *testing.T) {
	for in, want := range map[string]audit.File{
		"stderr":          {Stderr: true},
		"audit.jsonl":     {Path: "audit.jsonl"},
		"/var/log/a.json": {Path: "/var/log/a.json"},
	} {
		f := audit.File{MaxBytes: 7}
		if err := f.UnmarshalText([]byte(in)); err != nil || f != want {
			t.Errorf("UnmarshalText(%q) = %+v, %v; want %+v", in, f, err, want)
		}
	}
	if _, err := os.Stat("stderr"); err == nil {
		t.Errorf("a file named stderr exists in the working directory")
	}
}
