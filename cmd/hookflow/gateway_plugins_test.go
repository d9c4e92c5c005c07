package main

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// TestGatewayListedPlugins checks each plugin of gatewayPlugins through a
// configuration file: a valid section decodes, and a wrong value, a
// misspelt key (with a did-you-mean) and a value its Validate refuses
// are reported at their line and column.
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
		{"audit", "  audit: {redcat: [password]}\n", `g.yaml:4:11: unknown key "redcat" in audit (did you mean "redact"?) (known: file, flows, max_args_bytes, max_text_bytes, name, queue_size, redact, reveal)`},
		{"audit", "  audit: {file: {path: a.log, max_backups: x}}\n", `g.yaml:4:44: want an integer, got "x"`},
		{"audit", "  audit:\n    queue_size: -1\n", `g.yaml:5:17: audit queue_size: must not be negative, got -1`},
		{"audit", "  audit:\n    file: {max_bytes: 10}\n", `g.yaml:5:11: audit file.path: required when max_bytes or max_backups is set`},
		{"audit", "  audit: {redact: [ok, 'a..b']}\n", `g.yaml:4:24: audit redact[1]: "a..b" has an empty field name`},
		{"auth", "  auth: {tokens: [{token: t, user: u, scopes: [r]}], tool_scopes: {x: [w]}}\n", ""},
		{"auth", "  auth: {tokens: [{tokn: t}]}\n", `g.yaml:4:20: unknown key "tokn" in tokens (did you mean "token"?) (known: claims, scopes, token, token_env, user)`},
		{"auth", "  auth:\n    tokens: [{user: u}]\n", `g.yaml:5:14: auth tokens[0]: needs token or token_env`},
		{"ratelimit", "  ratelimit: {per_session: 10/s, tools: {slow: 1/m}, on_backend_error: open}\n", ""},
		{"ratelimit", "  ratelimit: {on_backend_error: opne, per_session: 1/s}\n", `g.yaml:4:33: unknown failure policy "opne": want closed or open (did you mean "open"?)`},
		{"ratelimit", "  ratelimit: {per_sesion: 1/s}\n", `g.yaml:4:15: unknown key "per_sesion" in ratelimit (did you mean "per_session"?) (known: on_backend_error, per_principal, per_session, per_tool, priority, redis, timeout, tools)`},
		{"intercept", "  intercept: {servers: [{name: g, url: 'http://h/mcp'}]}\n", ""},
		{"intercept", "  intercept: {servers: [{name: g, url: 'http://h/mcp'}], timout: 1s}\n", `g.yaml:4:58: unknown key "timout" in intercept (did you mean "timeout"?) (known: connect_timeout, explain, name, policy, retry_after, servers, timeout)`},
		{"intercept", "  intercept: {servers: [{name: g, url: 'ftp://h'}]}\n", `g.yaml:4:40: intercept servers[0].url: want an http or https URL, got "ftp://h"`},
		{"sessiongate", "  sessiongate: {requires: [deploy]}\n", ""},
		{"sessiongate", "  sessiongate: {require: [deploy]}\n", `g.yaml:4:17: unknown key "require" in sessiongate (did you mean "requires"?) (known: exempt, idle, init_tool, key, messages, on_store_error, priority, ready_tool, redis, require_all, requires, timeout, unlist)`},
		{"sessiongate", "  sessiongate:\n", `g.yaml:4:15: sessiongate: no tool is gated: set requires or require_all`},
		{"guidance", "  guidance:\n", ""},
		{"guidance", "  guidance: {rol: user}\n", `g.yaml:4:14: unknown key "rol" in guidance (did you mean "role"?) (known: app, composer, content_dir, hooks, no_instructions, no_welcome_prompt, role, settings, storage, welcome_prompt)`},
		{"guidance", "  guidance: {role: admin}\n", `g.yaml:4:20: guidance role: "admin" is not an MCP role (want assistant or user)`},
		{"otel", "  otel: {exporter: stderr}\n", ""},
		{"otel", "  otel: {exportr: stderr}\n", `g.yaml:4:10: unknown key "exportr" in otel (did you mean "exporter"?) (known: endpoint, exporter, flows, headers_env, insecure, metric_interval, sample_ratio, service_name)`},
		{"otel", "  otel: {exporter: stdrr}\n", `g.yaml:4:20: otel exporter: unknown exporter "stdrr" (did you mean "stderr"?)`},
		{"command", "  command: {settings_file: settings.json}\n", ""},
		{"command", "  command: {setings_file: x}\n", `g.yaml:4:13: unknown key "setings_file" in command (did you mean "settings_file"?) (known: agent_tool_names, dir, env, env_allow, fail_closed, imports, interpreters, kill_grace, max_concurrent, max_output_bytes, mcp_servers, name, priority, server_name, settings_file, timeout, tool_names, trust_store, untrusted)`},
		{"command", "  command: {settings_file: s.json, untrusted: sikp}\n", `g.yaml:4:47: unknown policy "sikp" (did you mean "skip"?)`},
		{"declared", "  declared:\n", ""},
		{"console", "  console: {addr: '127.0.0.1:0', token_env: CONSOLE_TOKEN, runs: 500, redact: [password], window: 1m}\n", ""},
		{"console", "  console: {adr: '127.0.0.1:0'}\n", `g.yaml:4:13: unknown key "adr" in console (did you mean "addr"?) (known: addr, health_url, max_bytes, name, path, redact, results, reveal, runs, scope, token_env, trace_url, viewers, window)`},
		{"console", "  console: {addr: '127.0.0.1:0'}\n", `g.yaml:4:12: console token_env: required with addr: the console's own listener has no auth plugin in front of it`},
		{"declared", "  declared: {declaratoins: []}\n", `g.yaml:4:14: unknown key "declaratoins" in declared (did you mean "declarations"?) (known: declarations, name, unnegotiated)`},
		{"middleware", "  middleware: {priority: 1}\n", ""},
		{"middleware", "  middleware: {prority: 1}\n", `g.yaml:4:16: unknown key "prority" in middleware (did you mean "priority"?) (known: async_timeout, name, priority)`},
		{"middleware", "  middleware: {async_timeout: soon}\n", `g.yaml:4:31: want a duration such as 30s or 1m, got "soon"`},
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
func section(p host.PluginsConfig, name string) any {
	for _, pc := range p.List {
		if pc.Spec.Name() == name {
			return pc.Config
		}
	}
	return nil
}

// parseGatewayConfig parses a configuration file with the command's
// plugins, reading the upstreams' *_env variables with getenv.
func parseGatewayConfig(file string, data []byte, getenv func(string) string) (*host.Config, error) {
	return host.ParseConfig(file, data, host.LoadOptions{Plugins: gatewayPlugins(), Getenv: getenv})
}
