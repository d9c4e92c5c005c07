package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCmd runs hookflow with args and returns its exit code and streams.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout
		stderr string // substring expected on stderr
	}{
		{name: "no arguments", args: nil, code: exitUsage, stderr: "usage: hookflow <command>"},
		{name: "help", args: []string{"help"}, code: exitOK, stdout: "Commands:"},
		{name: "-h", args: []string{"-h"}, code: exitOK, stdout: "hooks"},
		{name: "unknown command", args: []string{"hoks"}, code: exitUsage, stderr: `unknown command "hoks" (did you mean "hooks"?)`},
		{name: "help of unknown command", args: []string{"help", "nope"}, code: exitUsage, stderr: `unknown command "nope"`},
		{name: "hooks without verb", args: []string{"hooks"}, code: exitUsage, stderr: "usage: hookflow hooks <verb>"},
		{name: "hooks -h", args: []string{"hooks", "-h"}, code: exitOK, stdout: "usage: hookflow hooks <verb>"},
		{name: "hooks unknown verb", args: []string{"hooks", "frobnicate"}, code: exitUsage, stderr: `unknown verb "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.stderr)
			}
		})
	}
}
