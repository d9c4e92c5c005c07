package ratelimit

import (
	"context"
	"math"
	"time"
)

// Never is the RetryAfter of a budget that does not refill (Rate 0): the
// call will not be allowed again.
const Never time.Duration = math.MaxInt64

// Backend stores token buckets. Implementations must be safe for
// concurrent use and exact: under any interleaving of Take calls, a bucket
// never gives out more tokens than its burst plus what its rate refilled.
type Backend interface {
	// Take takes one token from each of buckets, atomically: from all of
	// them, or — when one has less than a token — from none. An error means
	// the backend could not decide (unreachable, timed out). The plugin
	// waits for the answer at most Config.Timeout; ctx's deadline is
	// LateReplyWait later, so that a backend that honours it still sees a
	// late answer through (see [Refunder]).
	Take(ctx context.Context, buckets []Bucket) (Decision, error)
}

// Refunder is a Backend that can give back the tokens of a Take: the
// plugin calls Refund when a Take granted a call after the call stopped
// waiting for it (and was refused, or let through by flows.FailOpen, without
// it), so that a slow reply does not spend budget. Refund adds one token
// to each of buckets, up to its burst. [Redis] is a Refunder; a Backend
// that is not loses the tokens of late grants.
type Refunder interface {
	Refund(ctx context.Context, buckets []Bucket) error
}

// Bucket names one token bucket and its limit. A bucket that does not
// exist yet starts full (Limit.Burst tokens).
type Bucket struct {
	Key   string
	Limit Limit
}

// Decision is a Backend's answer to Take.
type Decision struct {
	// Allowed reports whether the tokens were taken.
	Allowed bool
	// Blocked is, when !Allowed, the index of the first bucket that had
	// less than one token.
	Blocked int
	// RetryAfter is, when !Allowed, how long until every bucket holds a
	// token again (Never when one of the empty buckets does not refill).
	RetryAfter time.Duration
}

// refill returns the tokens of a bucket that held tokens elapsed ago,
// capped at its burst.
func refill(tokens float64, elapsed time.Duration, l Limit) float64 {
	if elapsed > 0 && l.Rate > 0 {
		tokens += elapsed.Seconds() * l.Rate
	}
	return math.Min(tokens, float64(l.Burst))
}

// wait returns how long a bucket holding tokens (< 1) takes to hold one.
func wait(tokens float64, l Limit) time.Duration {
	if tokens >= 1 {
		return 0
	}
	if l.Rate <= 0 {
		return Never
	}
	s := (1 - tokens) / l.Rate
	if s >= Never.Seconds() {
		return Never
	}
	return time.Duration(math.Ceil(s * float64(time.Second)))
}
