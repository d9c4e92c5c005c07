package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGatewayCheckUpstreamToken runs -check on url upstreams: an inline
// bearer token still works but is warned about at its file:line:col,
// without its value; token_env is not warned about.
func TestGatewayCheckUpstreamToken(t *testing.T) {
	t.Setenv("HOOKFLOW_TEST_UPSTREAM_TOKEN", "an-upstream-token")
	for _, tc := range []struct {
		name, yaml string
		want, not  []string
	}{
		{"inline token", "upstreams:\n  - name: a\n    url: http://127.0.0.1:9/mcp\n    token: an-inline-token\n",
			[]string{"hookflow gateway: warning: @:4:5: upstreams[0].token is deprecated: a token does not belong in the configuration file: put it in an environment variable and name that with token_env", "@: ok (1 upstreams)"},
			[]string{"an-inline-token"}},
		{"token_env", "upstreams:\n  - {name: a, url: 'http://127.0.0.1:9/mcp', token_env: HOOKFLOW_TEST_UPSTREAM_TOKEN}\n",
			[]string{"@: ok (1 upstreams)"}, []string{"warning"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "g.yaml")
			if err := os.WriteFile(file, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run([]string{"gateway", "-config", file, "-check"}, stdio{out: &out, err: &errb})
			got := out.String() + errb.String()
			if code != exitOK {
				t.Errorf("exit %d, want %d:\n%s", code, exitOK, got)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "@", file); !strings.Contains(got, w) {
					t.Errorf("output:\n%s\nwant it to hold %q", got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("output:\n%s\nholds %q", got, n)
				}
			}
		})
	}
}
