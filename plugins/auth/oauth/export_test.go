package oauth

import "time"

// SetClock makes rs read the time from now: tests move it by hand to cross
// KeyRefreshInterval, KeyMaxAge and cache TTLs without waiting.
func SetClock(rs *ResourceServer, now func() time.Time) { rs.now = now }
