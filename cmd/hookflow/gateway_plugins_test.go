package main

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/gateway"
)

// TestGatewayListedPlugins checks each plugin of gatewayPlugins through a
// configuration file: a valid section decodes, and a wrong value, a
// misspelt key and a value its Validate refuses are reported at their
// line and column.
func TestGatewayListedPlugins(t *testing.T) {
	const head = "upstreams:\n  - {name: a, command: [x]}\nplugins:\n"
	for _, tc := range []struct {
		plugin, section string
		want            string // "" for valid
	}{
		{"cache", "  cache: {ttl: 1m, max_entries: 10, shared_across_principals: true}\n", ""},
		{"cache", "  cache:\n", ""},
		{"cache", "  cache: {ttl: soon}\n", `g.yaml:4:16: want a duration such as 30s or 1m, got "soon"`},
		{"cache", "  cache: {max_entires: 10}\n", `g.yaml:4:11: unknown key "max_entires" in cache (did you mean "max_entries"?) (known: max_entries, name, shared_across_principals, ttl)`},
		{"cache", "  cache: {ttl: -1s}\n", `g.yaml:4:16: want a duration such as 30s or 1m, got "-1s"`},
		{"cache", "  cache:\n    max_entries: many\n", `g.yaml:5:18: want an integer, got "many"`},
		{"audit", "  audit: {file: stderr, redact: [password], flows: [tools:call-tool], queue_size: 10}\n", ""},
		{"audit", "  audit: {file: {path: /tmp, max_bytes: 1}}\n", `g.yaml:4:17: audit file: /tmp is a directory`},
		{"audit", "  audit: {redcat: [password]}\n", `g.yaml:4:11: unknown key "redcat" in audit (did you mean "redact"?) (known: file, flows, max_args_bytes, max_text_bytes, name, queue_size, redact)`},
		{"audit", "  audit: {file: {path: a.log, max_backups: x}}\n", `g.yaml:4:44: want an integer, got "x"`},
		{"audit", "  audit:\n    queue_size: -1\n", `g.yaml:5:17: audit queue_size: must not be negative, got -1`},
		{"audit", "  audit:\n    file: {max_bytes: 10}\n", `g.yaml:5:11: audit file.path: required when max_bytes or max_backups is set`},
		{"audit", "  audit: {redact: [ok, 'a..b']}\n", `g.yaml:4:24: audit redact[1]: "a..b" has an empty field name`},
	} {
		t.Run(tc.plugin+" "+strings.TrimSpace(tc.section), func(t *testing.T) {
			cfg, err := parseGatewayConfig("g.yaml", []byte(head+tc.section), func(string) string { return "" })
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if len(cfg.Plugins.List) != 1 || cfg.Plugins.List[0].Spec.Name() != tc.plugin {
					t.Errorf("listed = %+v, want %s", cfg.Plugins.List, tc.plugin)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant exactly:\n%s", err, tc.want)
			}
		})
	}
}

// section returns the configuration of the plugin p lists under name, or
// nil.
func section(p gateway.PluginsConfig, name string) any {
	for _, pc := range p.List {
		if pc.Spec.Name() == name {
			return pc.Config
		}
	}
	return nil
}
