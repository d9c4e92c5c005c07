package main

import (
	"strings"
	"testing"
)

// -explain -v shows where remote interceptors run, at their named
// positions, in the flows that have SEP-2624 events and only there.
func TestExplainShowsInterceptorPositions(t *testing.T) {
	inModule(t, map[string]string{"cli.go": cliTool + cliHook})
	code, out, errOut := cli("-v", "-explain", "tools:call-tool", ".")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	plan := out[strings.Index(out, "tool echo (Echo)"):]
	want := `tool echo (Echo)
  beforeExecute
     intercept-request  (remote interceptors of tools/call request, when plugins/intercept is attached: validators, then mutators)
                     3  example.com/test.Echo/tools:call-tool/beforeExecute/Check
  afterExecute
    intercept-response  (remote interceptors of tools/call response, when plugins/intercept is attached: mutators, then validators)
`
	if plan != want {
		t.Errorf("-v -explain:\n%s\nwant:\n%s", plan, want)
	}
	if !strings.Contains(out, "A line in parentheses is a position") {
		t.Errorf("the header does not explain the positions:\n%s", out)
	}
	// Without -v, and for a flow with no SEP event, no positions.
	if _, out, _ := cli("-explain", "tools:call-tool", "."); strings.Contains(out, "intercept-") {
		t.Errorf("-explain without -v shows positions:\n%s", out)
	}
	if _, out, _ := cli("-v", "-explain", "completion:complete", "."); strings.Contains(out, "intercept-") {
		t.Errorf("completion:complete has no SEP event, yet:\n%s", out)
	}
}
