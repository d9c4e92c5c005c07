package priority

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The named positions, in descending order (see the package doc).
const (
	// First is the highest priority: a hook at First runs before every
	// other of its stage (the console's and the otel plugin's first
	// hooks, which time the whole run).
	First = Max
	// CacheStore is where the cache plugin stores a tool's result in
	// afterExecute: before any hook rewrites it, and before audit records it.
	CacheStore = 2_000_000
	// Audit is where the audit plugin's hooks run in every stage: before
	// auth, so that a refused call is recorded as it arrived.
	Audit = 1_000_000
	// Auth is where the auth plugin refuses calls the caller may not make.
	Auth = 1000
	// RateLimit is where the rate-limit plugin spends budget: after auth,
	// so that a refused call costs nothing.
	RateLimit = 900
	// InterceptRequest is where the intercept plugin runs remote
	// interceptors on a request (beforeExecute): after auth and rate
	// limits, before hooks of default priority, so that your hooks and
	// the tool see the request the interceptors let through.
	InterceptRequest = 500
	// Default is the priority of a hook that names none.
	Default = 0
	// InterceptResponse is where the intercept plugin runs remote
	// interceptors on a result (afterExecute): after hooks of default
	// priority have rewritten it, so that the interceptors see what the
	// client will.
	InterceptResponse = -500
	// Cache is where the cache plugin answers a call from its cache in
	// beforeExecute: after every hook of ordinary priority.
	Cache = -1_000_000
	// Last is the lowest priority: a hook at Last runs after every other
	// of its stage (the console's and the otel plugin's last hooks in
	// finally).
	Last = Min
)

// Min and Max bound every priority, in Go and in directives.
const (
	Min = math.MinInt32
	Max = math.MaxInt32
)

// Position is one named position.
type Position struct {
	// Name is the position's name in directives, e.g. "ratelimit".
	Name string
	// Const is the name of its constant in this package, e.g. "RateLimit".
	Const string
	// Value is its priority.
	Value int
}

var positions = [...]Position{
	{"first", "First", First},
	{"cache-store", "CacheStore", CacheStore},
	{"audit", "Audit", Audit},
	{"auth", "Auth", Auth},
	{"ratelimit", "RateLimit", RateLimit},
	{"intercept-request", "InterceptRequest", InterceptRequest},
	{"default", "Default", Default},
	{"intercept-response", "InterceptResponse", InterceptResponse},
	{"cache", "Cache", Cache},
	{"last", "Last", Last},
}

// Positions returns the named positions in descending order.
func Positions() []Position {
	out := make([]Position, len(positions))
	copy(out, positions[:])
	return out
}

// Compare orders two hooks of one stage as they run: it returns a negative
// number when the hook with priority ap and registration sequence aseq runs
// before the one with bp and bseq, positive when after, 0 for the same
// place. Higher priority runs first; equal priorities run in registration
// order (a lower sequence first).
func Compare(ap int, aseq uint64, bp int, bseq uint64) int {
	if c := cmp.Compare(bp, ap); c != 0 {
		return c
	}
	return cmp.Compare(aseq, bseq)
}

// Check returns an error when p is outside [Min, Max].
func Check(p int) error {
	if p < Min || p > Max {
		return fmt.Errorf("priority %d is out of range [%d, %d]", p, Min, Max)
	}
	return nil
}

// Parse reads a priority: a Go integer ("-5", "0x10"), a position's name
// ("auth"), or a name with an offset ("auth+10", "cache-1"). The result is
// checked against [Min] and [Max].
func Parse(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty priority")
	}
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return checked(int(n))
	} else if c := s[0]; c == '-' || c == '+' || (c >= '0' && c <= '9') {
		return 0, fmt.Errorf("priority %q is not a whole number in [%d, %d] or a position (%s)", s, Min, Max, names())
	}
	name, offset := s, ""
	if i := strings.IndexAny(s, "+-"); i > 0 {
		// A name contains '-' ("cache-store"): the offset starts at the last
		// sign followed only by digits.
		j := strings.LastIndexAny(s, "+-")
		if _, err := strconv.ParseUint(s[j+1:], 10, 32); err == nil && j > 0 {
			name, offset = s[:j], s[j:]
		}
	}
	v, ok := lookup(name)
	if !ok {
		return 0, fmt.Errorf("unknown priority position %q (positions: %s)", name, names())
	}
	if offset != "" {
		n, err := strconv.ParseInt(offset, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("priority %q: bad offset %q", s, offset)
		}
		v += int(n)
	}
	return checked(v)
}

func checked(v int) (int, error) {
	if err := Check(v); err != nil {
		return 0, err
	}
	return v, nil
}

func lookup(name string) (int, bool) {
	for _, p := range positions {
		if p.Name == name {
			return p.Value, true
		}
	}
	return 0, false
}

func names() string {
	var b strings.Builder
	for i, p := range positions {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
	}
	return b.String()
}

// Names returns the positions' names, for "did you mean" hints.
func Names() []string {
	out := make([]string, len(positions))
	for i, p := range positions {
		out[i] = p.Name
	}
	return out
}

// Nearest returns the position p is, or is an offset of up to 100 from
// (the nearest one), and that offset; ok is false when p is far from
// every position or near the default, where a plain number reads best.
func Nearest(p int) (pos Position, offset int, ok bool) {
	bestDist := 101
	for _, q := range positions {
		d := p - q.Value
		if d < 0 {
			d = -d
		}
		if d < bestDist {
			pos, bestDist = q, d
		}
	}
	if bestDist > 100 || pos.Name == "default" {
		return Position{}, 0, false
	}
	return pos, p - pos.Value, true
}

// Format writes p as a reader of a plan wants it: the name of the position
// p is, or the nearest position with an offset of up to 100 ("auth+10",
// "cache-1"), else the number. Priorities near the default are plain
// numbers ("0", "-3").
func Format(p int) string {
	pos, off, ok := Nearest(p)
	switch {
	case !ok:
		return strconv.Itoa(p)
	case off == 0:
		return pos.Name
	case off > 0:
		return pos.Name + "+" + strconv.Itoa(off)
	default:
		return pos.Name + strconv.Itoa(off)
	}
}
