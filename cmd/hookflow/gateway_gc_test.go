package main

import (
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct {
		name     string
		gogc     string
		wantEnv  string
		wantGOGC int
	}{
		{"unset: the gateway's target", "", "", gatewayGCPercent},
		{"set: the environment's", "150", "150", 100},
		{"off: the environment's", "off", "off", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			got := tuneGC(func(k string) string {
				if k == "GOGC" {
					return tt.gogc
				}
				return ""
			})
			if got != tt.wantEnv {
				t.Errorf("tuneGC() = %q, want %q", got, tt.wantEnv)
			}
			if p := debug.SetGCPercent(100); p != tt.wantGOGC {
				t.Errorf("GC percent after tuneGC = %d, want %d", p, tt.wantGOGC)
			}
		})
	}
}
