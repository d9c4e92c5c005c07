package gateway_test

import (
	"strings"
	"testing"
)

// TestMaxSessions bounds an upstream's client sessions at 2: a third
// client's call fails with an error saying so and opens no upstream
// session (over stdio, starts no process); once a client goes away, the
// third is served.
func TestMaxSessions(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			up := tr.upstream(t, "up")
			up.MaxSessions = 2
			srv, _ := serve(t, nil, up)
			first, second, third := connect(t, srv, nil), connect(t, srv, nil), connect(t, srv, nil)
			for _, cs := range []struct {
				name string
				call func() (string, bool)
			}{
				{"first", func() (string, bool) { return call(t, first, "echo", map[string]any{"x": 1}) }},
				{"second", func() (string, bool) { return call(t, second, "echo", map[string]any{"x": 2}) }},
			} {
				if got, isErr := cs.call(); isErr {
					t.Fatalf("%s client: %s", cs.name, got)
				}
			}
			got, isErr := call(t, third, "echo", map[string]any{"x": 3})
			if !isErr || !strings.Contains(got, `upstream "up" serves as many client sessions as it may (2)`) {
				t.Fatalf("third client: %q (isError %v); want the bound named", got, isErr)
			}
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the third client to be served once the first went away", func() bool {
				_, isErr := call(t, third, "echo", map[string]any{"x": 3})
				return !isErr
			})
		})
	}
}
