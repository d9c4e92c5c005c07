package streamable_test

import (
	"testing"

	"github.com/hookflow/hookflow/internal/streamable"
)

// TestDecodeMessageAllocations bounds what decoding a call costs: the
// request, its method and its ID (the SDK's ID is built from an any, and
// holds an integer past 255 as another), nothing for the envelope, its
// version tag or params.
func TestDecodeMessageAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race; allocation counts are meaningless")
	}
	for _, tc := range []struct {
		name string
		body string
		max  float64
	}{
		{"small integer id", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"x":"y"}}}`, 3},
		{"large integer id", `{"jsonrpc":"2.0","id":123456789,"method":"tools/call","params":{"name":"echo","arguments":{"x":"y"}}}`, 4},
		{"string id", `{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"echo","arguments":{"x":"y"}}}`, 5},
	} {
		data := []byte(tc.body)
		got := testing.AllocsPerRun(100, func() {
			if _, err := streamable.DecodeMessage(data); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: %.0f allocations", tc.name, got)
		if got > tc.max {
			t.Errorf("%s: %.0f allocations, want at most %.0f", tc.name, got, tc.max)
		}
	}
}
