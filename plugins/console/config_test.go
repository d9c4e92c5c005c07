package console_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/console"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  console.Config
		want []plugintest.FieldErr
	}{
		{"zero", console.Config{}, nil},
		{"listener", console.Config{Addr: "127.0.0.1:9090", TokenEnv: "CONSOLE_TEST_TOKEN", Path: "/ops/console", Runs: 5000,
			MaxBytes: 8192, Window: time.Minute, Viewers: 4, Redact: []string{"password", "card.number"},
			TraceURL: "http://jaeger:16686/trace/{trace_id}", HealthURL: "http://127.0.0.1:8080/health/ready"}, nil},
		{"listener without a token", console.Config{Addr: "127.0.0.1:9090"},
			[]plugintest.FieldErr{{"token_env", "required with addr: the console's own listener has no auth plugin in front of it"}}},
		{"bad addr", console.Config{Addr: "9090", Token: "a-token-of-enough-length"},
			[]plugintest.FieldErr{{"addr", "must be host:port, e.g. 127.0.0.1:9090: address 9090: missing port in address"}}},
		{"short token", console.Config{Token: "short"},
			[]plugintest.FieldErr{{"token", "must be at least 16 characters long, got 5"}}},
		{"bounds", console.Config{Runs: -1, MaxBytes: 2 << 20, Viewers: 5000, Window: 2 * time.Hour},
			[]plugintest.FieldErr{
				{"runs", "must not be negative, got -1"},
				{"max_bytes", "must be at most 1048576 bytes, got 2097152"},
				{"viewers", "must be at most 1024, got 5000"},
				{"window", "must be at most 1h0m0s, got 2h0m0s"},
			}},
		{"short window", console.Config{Window: time.Second},
			[]plugintest.FieldErr{{"window", "must be at least 10s, got 1s"}}},
		{"path", console.Config{Path: "console/"},
			[]plugintest.FieldErr{{"path", `must start with / and end without one, e.g. /console; got "console/"`}}},
		{"trace url without the id", console.Config{TraceURL: "http://jaeger:16686/trace/"},
			[]plugintest.FieldErr{{"trace_url", "must hold {trace_id}, replaced by the run's trace ID"}}},
		{"health url", console.Config{HealthURL: "/health/ready"},
			[]plugintest.FieldErr{{"health_url", `must be an http or https URL with a host, got "/health/ready"`}}},
		{"redact", console.Config{Redact: []string{"ok", "a..b"}},
			[]plugintest.FieldErr{{"redact[1]", `"a..b" has an empty field name`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tc.cfg.Validate())
			if !slices.Equal(got, tc.want) {
				t.Errorf("Validate:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The token an environment variable holds is checked when the console
// starts: a configuration is checked without its environment.
func TestTokenEnv(t *testing.T) {
	t.Setenv("CONSOLE_SHORT_TOKEN", "short")
	for _, tc := range []struct {
		env  string
		want plugintest.FieldErr
	}{
		{"CONSOLE_NO_SUCH_VARIABLE", plugintest.FieldErr{"token_env", "the environment variable CONSOLE_NO_SUCH_VARIABLE is not set or empty"}},
		{"CONSOLE_SHORT_TOKEN", plugintest.FieldErr{"token_env", "the token in CONSOLE_SHORT_TOKEN must be at least 16 characters long, got 5"}},
	} {
		t.Run(tc.env, func(t *testing.T) {
			c := console.New(console.Config{TokenEnv: tc.env})
			srv := framework.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			if err := srv.Use(c); err != nil {
				t.Fatal(err)
			}
			err := srv.Start()
			if err == nil || flows.CodeOf(err) != flows.CodeInvalid || !strings.Contains(err.Error(), tc.want[0]+": "+tc.want[1]) {
				t.Fatalf("Start: %v, want %v", err, tc.want)
			}
		})
	}
}
