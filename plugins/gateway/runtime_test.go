package gateway_test

import (
	"testing"
)

// TestListChangedWhileConnecting: an HTTP upstream that says its tools
// changed before it answers initialize (as servers do that register tools
// for their client's capabilities) neither crashes the gateway nor fails
// the client's calls, on the gateway's own session and on a client's.
func TestListChangedWhileConnecting(t *testing.T) {
	srv, _ := serve(t, nil, httpUpstream(t, "up", "-early"))
	for range 3 {
		cs := connect(t, srv, nil)
		if got, isErr := call(t, cs, "echo", map[string]any{"n": 1}); isErr || got != `{"n":1}` {
			t.Errorf("echo = %q (isError %v)", got, isErr)
		}
	}
}
