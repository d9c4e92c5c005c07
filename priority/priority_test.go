package priority_test

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/priority"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want int
		err  string
	}{
		{"0", 0, ""},
		{"-5", -5, ""},
		{"+7", 7, ""},
		{"0x10", 16, ""},
		{"2147483647", priority.Max, ""},
		{"-2147483648", priority.Min, ""},
		{"2147483648", 0, "out of range"},
		{"auth", priority.Auth, ""},
		{"first", priority.Max, ""},
		{"first-2", priority.Max - 2, ""},
		{"last", priority.Min, ""},
		{"last+5", priority.Min + 5, ""},
		{"first+1", 0, "out of range"},
		{"auth+10", priority.Auth + 10, ""},
		{"auth-1", priority.Auth - 1, ""},
		{"ratelimit", priority.RateLimit, ""},
		{"cache", priority.Cache, ""},
		{"cache-1", priority.Cache - 1, ""},
		{"cache-store", priority.CacheStore, ""},
		{"cache-store+3", priority.CacheStore + 3, ""},
		{"cache-store-3", priority.CacheStore - 3, ""},
		{"intercept-request", priority.InterceptRequest, ""},
		{"intercept-response-2", priority.InterceptResponse - 2, ""},
		{"intercept-response+2", priority.InterceptResponse + 2, ""},
		{"audit", priority.Audit, ""},
		{"default", 0, ""},
		{"default-2", -2, ""},
		{"", 0, "empty priority"},
		{"authz", 0, `unknown priority position "authz" (positions: first, cache-store, audit, auth, ratelimit, intercept-request, default, intercept-response, cache, last)`},
		{"auth+x", 0, `unknown priority position "auth+x"`},
		{"5x", 0, "not a whole number"},
	}
	for _, tt := range tests {
		got, err := priority.Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) = %d, %v; want error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatRoundTrips(t *testing.T) {
	for _, p := range []int{0, 3, -4, priority.Auth, priority.Auth + 10, priority.RateLimit - 1, priority.Cache, priority.Cache - 1,
		priority.CacheStore, priority.Audit + 100, 300, priority.InterceptRequest + 7, priority.InterceptResponse - 1, priority.Max, priority.Min} {
		s := priority.Format(p)
		back, err := priority.Parse(s)
		if err != nil || back != p {
			t.Errorf("Format(%d) = %q, which parses as %d, %v", p, s, back, err)
		}
	}
	for p, want := range map[int]string{0: "0", -3: "-3", 1010: "auth+10", 899: "ratelimit-1", -1_000_001: "cache-1", 300: "300", 500: "intercept-request", -501: "intercept-response-1", 2_000_000: "cache-store",
		priority.Max: "first", priority.Max - 3: "first-3", priority.Min: "last", priority.Min + 1: "last+1"} {
		if got := priority.Format(p); got != want {
			t.Errorf("Format(%d) = %q, want %q", p, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	if priority.Compare(10, 5, 0, 1) >= 0 {
		t.Error("higher priority must run first")
	}
	if priority.Compare(0, 1, 0, 2) >= 0 || priority.Compare(0, 2, 0, 1) <= 0 {
		t.Error("ties must run in registration order")
	}
	if priority.Compare(3, 4, 3, 4) != 0 {
		t.Error("same place must compare equal")
	}
}

func TestPositionsDescending(t *testing.T) {
	ps := priority.Positions()
	for i := 1; i < len(ps); i++ {
		if ps[i].Value >= ps[i-1].Value {
			t.Errorf("%s (%d) is not below %s (%d)", ps[i].Name, ps[i].Value, ps[i-1].Name, ps[i-1].Value)
		}
	}
	if len(priority.Names()) != len(ps) {
		t.Error("Names and Positions differ")
	}
}
