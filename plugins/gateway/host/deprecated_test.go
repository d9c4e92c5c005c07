package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// TestParseConfigUpstreamTokenDeprecated parses upstreams whose bearer
// token is inline: it still sets Token, with a warning at the key's
// file:line:col that never repeats the secret; token_env sets it without
// one, and a token that is no string is an error, not a warning.
func TestParseConfigUpstreamTokenDeprecated(t *testing.T) {
	const secret = "s3cr3t-upstream-token"
	env := map[string]string{"UP_TOKEN": secret}
	getenv := func(k string) string { return env[k] }
	const why = "is deprecated: a token does not belong in the configuration file: put it in an environment variable and name that with token_env"
	for _, tc := range []struct {
		name, yaml string
		warnings   []string
		err        string
	}{
		{"block", "upstreams:\n  - name: a\n    url: http://h/mcp\n    token: " + secret + "\n",
			[]string{"g.yaml:4:5: upstreams[0].token " + why}, ""},
		{"flow, second upstream", "upstreams:\n  - {name: a, url: 'http://h/mcp', token_env: UP_TOKEN}\n  - {name: b, url: 'http://i/mcp', token: " + secret + "}\n",
			[]string{"g.yaml:3:36: upstreams[1].token " + why}, ""},
		{"two inline, in file order", "upstreams:\n  - {name: b, url: 'http://i/mcp', token: " + secret + "}\n  - name: a\n    url: http://h/mcp\n    token: '" + secret + "'\n",
			[]string{"g.yaml:2:36: upstreams[0].token " + why, "g.yaml:5:5: upstreams[1].token " + why}, ""},
		{"token_env", "upstreams:\n  - {name: a, url: 'http://h/mcp', token_env: UP_TOKEN}\n", nil, ""},
		{"token a mapping", "upstreams:\n  - name: a\n    url: http://h/mcp\n    token: {value: " + secret + "}\n",
			nil, "g.yaml:4:12: want a string, got a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := host.ParseConfig("g.yaml", []byte(tc.yaml), host.LoadOptions{Getenv: getenv})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one holding %q", err, tc.err)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q repeats the token", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, u := range cfg.Upstreams {
				if u.Token != secret {
					t.Errorf("upstreams[%d].Token = %q, want the token", i, u.Token)
				}
			}
			got := fmt.Sprint(cfg.Warnings)
			if len(cfg.Warnings) != len(tc.warnings) {
				t.Fatalf("warnings %s, want %q", got, tc.warnings)
			}
			for i, w := range cfg.Warnings {
				if w.Error() != tc.warnings[i] {
					t.Errorf("warning %d: %q, want %q", i, w, tc.warnings[i])
				}
			}
			if strings.Contains(got, secret) {
				t.Errorf("warnings %s repeat the token", got)
			}
		})
	}
}
