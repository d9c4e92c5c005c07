package cache_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/cache"
)

// TestValidate checks each error Validate reports: the field's path as a
// configuration file spells it, and a message a user can act on.
func TestValidate(t *testing.T) {
	type fieldErr struct{ field, msg string }
	for _, tc := range []struct {
		name string
		cfg  cache.Config
		want []fieldErr
	}{
		{"zero", cache.Config{}, nil},
		{"valid", cache.Config{TTL: time.Minute, MaxEntries: 10, SharedAcrossPrincipals: true}, nil},
		{"negative", cache.Config{TTL: -time.Second, MaxEntries: -1}, []fieldErr{
			{"ttl", "must not be negative, got -1s"},
			{"max_entries", "must not be negative, got -1"},
		}},
		{"bound with a backend", cache.Config{MaxEntries: 10, Backend: cache.NewMemory(nil)}, []fieldErr{
			{"max_entries", "bounds the default backend only; bound Config.Backend itself"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []fieldErr
			if err := tc.cfg.Validate(); err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					var fe *flows.Error
					if !errors.As(e, &fe) || fe.Code != flows.CodeInvalid {
						t.Fatalf("error %v is not a CodeInvalid *flows.Error", e)
					}
					got = append(got, fieldErr{fe.Field, fe.Msg})
				}
			}
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
