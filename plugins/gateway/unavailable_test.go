package gateway

import "testing"

// TestUnavailable: a client reads "down" for an upstream that is down or
// being reconnected to, as the docs say; the operator's Health tells the
// two apart.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		state State
		want  string
	}{
		{StateDown, `upstream "a" is unavailable (down)`},
		{StateConnecting, `upstream "a" is unavailable (down)`},
		{StateClosed, `upstream "a" is unavailable (closed)`},
	} {
		if got := unavailable(Health{Upstream: "a", State: tc.state}).Error(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.state, got, tc.want)
		}
	}
}
