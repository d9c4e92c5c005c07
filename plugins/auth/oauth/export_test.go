package oauth

import "time"

// SetClock makes rs read the time from now: tests move it by hand to cross
// KeyRefreshInterval, KeyMaxAge and cache TTLs without waiting.
func SetClock(rs *ResourceServer, now func() time.Time) { rs.now = now }

// TokensHeld returns how many accepted JWTs rs remembers.
func TokensHeld(rs *ResourceServer) int {
	if rs.verified == nil {
		return 0
	}
	n := 0
	for i := range rs.verified.slots {
		if rs.verified.slots[i].Load() != nil {
			n++
		}
	}
	return n
}
