package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGatewayCheckAuthSection runs -check on auth sections: an inline
// static token still works but is warned about at its file:line:col,
// token_env is not; each mistake of an oauth section is an error at its
// key.
func TestGatewayCheckAuthSection(t *testing.T) {
	t.Setenv("HOOKFLOW_TEST_STATIC_TOKEN", "a-static-token")
	const head = "upstreams:\n  - {name: a, command: [go, version]}\nplugins:\n  auth:\n"
	for _, tc := range []struct {
		name, auth string
		code       int
		want, not  []string
	}{
		{"inline token", "    tokens:\n      - {token: t1, user: ada}\n", exitOK,
			[]string{"hookflow gateway: warning: @:6:10: plugins.auth.tokens[0].token is deprecated: a token does not belong in the configuration file: put it in an environment variable and name that with token_env", "@: ok"}, nil},
		{"token_env", "    tokens:\n      - {token_env: HOOKFLOW_TEST_STATIC_TOKEN, user: ada}\n", exitOK,
			[]string{"@: ok"}, []string{"warning"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "g.yaml")
			if err := os.WriteFile(file, []byte(head+tc.auth), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run([]string{"gateway", "-config", file, "-check"}, stdio{out: &out, err: &errb})
			got := out.String() + errb.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, got)
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
