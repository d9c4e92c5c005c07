package cache_test

import (
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/cache"
)

// TestValidate checks each error Validate reports: the field's path as a
// configuration file spells it, and a message a user can act on.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  cache.Config
		want []plugintest.FieldErr
	}{
		{"zero", cache.Config{}, nil},
		{"valid", cache.Config{TTL: time.Minute, MaxEntries: 10, SharedAcrossPrincipals: true}, nil},
		{"negative", cache.Config{TTL: -time.Second, MaxEntries: -1}, []plugintest.FieldErr{
			{"ttl", "must not be negative, got -1s"},
			{"max_entries", "must not be negative, got -1"},
		}},
		{"bound with a backend", cache.Config{MaxEntries: 10, Backend: cache.NewMemory(nil)}, []plugintest.FieldErr{
			{"max_entries", "bounds the default backend only; bound Config.Backend itself"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := plugintest.FieldErrs(t, tc.cfg.Validate())
			if len(got) != len(tc.want) {
				t.Fatalf("Validate() = %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("error %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}
