package intercept_test

import (
	"context"
	"encoding"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// TestConfigValidate: each setting a file can get wrong is reported at
// its path in the file's spelling, with a message the user can act on.
func TestConfigValidate(t *testing.T) {
	t.Setenv("INTERCEPT_TEST_TOKEN", "tok")
	web := intercept.Server{Name: "web", URL: "https://guard.example.com/mcp"}
	cmd := intercept.Server{Name: "cmd", Command: []string{"guard", "-v"}}
	one := []intercept.Server{web}
	yes := true
	inMemory := func(context.Context) (mcp.Transport, error) { return nil, errors.New("not connected") }
	for _, tc := range []struct {
		name string
		cfg  intercept.Config
		want []string
	}{
		{"valid", intercept.Config{Servers: []intercept.Server{
			{Name: "web", URL: "https://guard.example.com/mcp", TokenEnv: "INTERCEPT_TEST_TOKEN"},
			{Name: "cmd", Command: []string{"guard"}, Env: []string{"A=1", "B="}, InheritEnv: []string{"LANG"}, Dir: "hosts", Payload: wire.ShapeParams},
			{Name: "local", Transport: inMemory, Payload: wire.ShapeMessage},
		}, Policy: []intercept.Policy{
			{ID: "web:no-secrets", Mode: wire.Audit, FailOpen: &yes, PriorityHint: wire.Hint(3), Timeout: time.Second,
				Hooks: []wire.Hook{{Events: []string{"tools/call"}, Phase: wire.Request}}, Config: map[string]any{"strict": true}},
			{ID: "no-secrets"},
			{Server: "cmd", Interceptor: "no-secrets", Disabled: true},
		}, Timeout: -1, ConnectTimeout: time.Second, RetryAfter: time.Second}, nil},
		{"no servers", intercept.Config{}, []string{"servers: at least one interceptor host is required"}},
		{"server name", intercept.Config{Servers: []intercept.Server{{URL: web.URL}, {Name: "a:b", URL: web.URL}, web, web}},
			[]string{"servers[0].name: required", `servers[1].name: "a:b" holds ":", which separates a host's name from an interceptor's (guard:no-destructive-commands)`,
				`servers[3].name: "web" names two hosts`}},
		{"transport", intercept.Config{Servers: []intercept.Server{{Name: "a"}, {Name: "b", URL: web.URL, Command: cmd.Command}}},
			[]string{"servers[0]: set url (streamable HTTP) or command (stdio)", "servers[1]: set url or command, not both"}},
		{"in process", intercept.Config{Servers: []intercept.Server{{Name: "a", URL: web.URL, Transport: inMemory}, {Name: "b", Command: cmd.Command, Transport: inMemory}}},
			[]string{"servers[0]: Transport connects to the host: leave url and command out", "servers[1]: Transport connects to the host: leave url and command out"}},
		{"payload", intercept.Config{Servers: []intercept.Server{{Name: "a", URL: web.URL, Payload: "arguments"}}},
			[]string{`servers[0].payload: want message ({method, params}) or params (the params alone), got "arguments"`}},
		{"url", intercept.Config{Servers: []intercept.Server{{Name: "a", URL: "ftp://x"}, {Name: "b", URL: "/mcp"}}},
			[]string{`servers[0].url: want an http or https URL, got "ftp://x"`, `servers[1].url: want an http or https URL, got "/mcp"`}},
		{"program", intercept.Config{Servers: []intercept.Server{{Name: "a", Command: []string{""}}}}, []string{"servers[0].command: the program is empty"}},
		{"token twice", intercept.Config{Servers: []intercept.Server{{Name: "a", URL: web.URL, Token: "t", TokenEnv: "INTERCEPT_TEST_TOKEN"}}},
			[]string{"servers[0]: token and token_env both give the host's bearer token: keep one"}},
		{"token over stdio", intercept.Config{Servers: []intercept.Server{{Name: "a", Command: cmd.Command, TokenEnv: "INTERCEPT_TEST_TOKEN"}}},
			[]string{"servers[0]: a token is sent over HTTP only: set url, or leave the token out"}},
		{"token_env unset", intercept.Config{Servers: []intercept.Server{{Name: "a", URL: web.URL, TokenEnv: "INTERCEPT_TEST_UNSET"}}},
			[]string{"servers[0].token_env: environment variable INTERCEPT_TEST_UNSET is not set"}},
		{"env", intercept.Config{Servers: []intercept.Server{{Name: "a", Command: cmd.Command, Env: []string{"A=1", "B", "=x"}, InheritEnv: []string{"", "A=B"}}}},
			[]string{`servers[0].env[1]: want an environment entry such as KEY=value, got "B"`, `servers[0].env[2]: want an environment entry such as KEY=value, got "=x"`,
				`servers[0].inherit_env[0]: want the name of an environment variable such as LANG, got ""`, `servers[0].inherit_env[1]: want the name of an environment variable such as LANG, got "A=B"`}},
		{"policy without interceptor", intercept.Config{Servers: one, Policy: []intercept.Policy{{Disabled: true}}},
			[]string{"policy[0].interceptor: required: the interceptor, such as guard:no-destructive-commands"}},
		{"policy ids", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "web:"}, {ID: ":deny"}}},
			[]string{`policy[0].interceptor: want an interceptor such as guard:no-destructive-commands (host:interceptor) or no-destructive-commands (on any host), got "web:"`,
				`policy[1].interceptor: want an interceptor such as guard:no-destructive-commands (host:interceptor) or no-destructive-commands (on any host), got ":deny"`}},
		{"policy names twice", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "x", Interceptor: "x"}}},
			[]string{"policy[0]: Interceptor and ID (interceptor) both name the interceptor: keep one"}},
		{"policy host", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "wev:deny"}}},
			[]string{`policy[0].interceptor: no interceptor host is named "wev" (did you mean "web"?)`}},
		{"same interceptor", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "web:deny"}, {ID: "deny"}, {Server: "web", Interceptor: "deny"}}},
			[]string{"policy[2].interceptor: policy[0] names the same interceptor"}},
		{"mode", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "a", Mode: "enforce"}, {ID: "b", Mode: "audti"}}},
			[]string{`policy[0].mode: want active or audit, got "enforce" (the older drafts' name of active)`, `policy[1].mode: want active or audit, got "audti" (did you mean "audit"?)`}},
		{"policy timeout", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "a", Timeout: -time.Second}}}, []string{"policy[0].timeout: must not be negative, got -1s"}},
		{"no hooks", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "a", Hooks: []wire.Hook{}}}},
			[]string{"policy[0].hooks: narrows the interceptor's hooks to those listed: list at least one, or leave the interceptor out with disabled: true"}},
		{"hook", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "a", Hooks: []wire.Hook{{Phase: wire.Request}, {Events: []string{"tools/call"}, Phase: "both"}}}}},
			[]string{"policy[0].hooks[0].events: list at least one event, such as tools/call", `policy[0].hooks[1].phase: want request or response, got "both"`}},
		{"config", intercept.Config{Servers: one, Policy: []intercept.Policy{{ID: "a", Config: map[string]any{"x": math.Inf(1)}}}},
			[]string{"policy[0].config: must be representable as JSON: json: unsupported value: +Inf"}},
		{"timeouts", intercept.Config{Servers: one, ConnectTimeout: -1, RetryAfter: -time.Second},
			[]string{"connect_timeout: must not be negative, got -1ns", "retry_after: must not be negative, got -1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plugintest.FieldLines(t, tc.cfg.Validate())
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Validate() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestPriorityHintUnmarshalText: a file's one-number hint is both
// phases' hint, and anything but a 32-bit integer is refused.
func TestPriorityHintUnmarshalText(t *testing.T) {
	t.Parallel()
	var _ encoding.TextUnmarshaler = new(wire.PriorityHint)
	for in, want := range map[string]int32{"10": 10, "-5": -5, "0": 0, "2147483647": math.MaxInt32} {
		h := wire.HintPerPhase(1, 2)
		if err := h.UnmarshalText([]byte(in)); err != nil || *h != *wire.Hint(want) {
			t.Errorf("UnmarshalText(%q) = %+v, %v; want %+v", in, *h, err, *wire.Hint(want))
		}
	}
	for _, in := range []string{"", "1.5", "2147483648", "ten", "{request: 1}"} {
		var h wire.PriorityHint
		err := h.UnmarshalText([]byte(in))
		if want := `want a priority hint such as 10 (a 32-bit signed integer) or {request: 10, response: -5}, got "` + in + `"`; err == nil || err.Error() != want {
			t.Errorf("UnmarshalText(%q) = %v; want %q", in, err, want)
		}
	}
}

// TestFileSpelling: what a file gives by name works as its Go spelling:
// a host's token from token_env authenticates to the host, and a policy's
// interceptor "host:name" disables that interceptor.
func TestFileSpelling(t *testing.T) {
	t.Setenv("INTERCEPT_TEST_HOST_TOKEN", hostToken)
	addr := startHTTPHost(t, "-serve", "allow,deny", "-token", hostToken)
	s := newSetup(t, intercept.Config{
		Servers: []intercept.Server{{Name: "g", URL: "http://" + addr, TokenEnv: "INTERCEPT_TEST_HOST_TOKEN"}},
		Policy:  []intercept.Policy{{ID: "g:deny", Disabled: true}},
	})
	s.echo("hi").WantText(plugintest.EchoText("hi"))
	if got, want := decisions(s.last(t)), "g:allow validation request allowed\ng:allow validation response allowed"; got != want {
		t.Errorf("decisions:\n%s\nwant\n%s", got, want)
	}
}
