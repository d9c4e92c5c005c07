package guidance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Conditions say when a hook applies. Every condition that is set must
// hold; the zero value always holds.
type Conditions struct {
	// Storage: one of these storage backends is active ([Env.Storage]).
	Storage []string `json:"requiresStorage,omitempty" yaml:"storage"`
	// Features: the client declared every one of these features.
	Features []Feature `json:"requiresFeatures,omitempty" yaml:"features"`
	// Config: every key has this value in [Env.Settings]. Values are
	// compared as JSON, so 3 and 3.0 are equal and a missing key equals
	// nothing (not even null).
	Config map[string]any `json:"requiresConfig,omitempty" yaml:"config"`
}

// IsZero reports whether c sets no condition.
func (c Conditions) IsZero() bool {
	return len(c.Storage) == 0 && len(c.Features) == 0 && len(c.Config) == 0
}

// problems returns what is wrong with c, as [Hook.problems] does.
func (c Conditions) problems() []problem {
	var out []problem
	for i, s := range c.Storage {
		if s == "" {
			out = append(out, problem{fmt.Sprintf("conditions.storage[%d]", i), fmt.Sprintf("Conditions.Storage[%d]", i), "empty backend name"})
		}
	}
	for i, f := range c.Features {
		if f < Sampling || f > Roots {
			out = append(out, problem{fmt.Sprintf("conditions.features[%d]", i), fmt.Sprintf("Conditions.Features[%d]", i),
				fmt.Sprintf("%s is not a client feature (want sampling, elicitation or roots)", f)})
		}
	}
	for _, k := range sortedKeys(c.Config) {
		if k == "" {
			out = append(out, problem{"conditions.config", "Conditions.Config", "empty key"})
			continue
		}
		if _, err := json.Marshal(c.Config[k]); err != nil {
			out = append(out, problem{"conditions.config." + k, fmt.Sprintf("Conditions.Config[%q]", k), err.Error()})
		}
	}
	return out
}

// Env is what conditions are evaluated against: the storage backends that
// are active, the features the session's client declared, and the
// configuration values.
type Env struct {
	// Storage lists the active storage backends, e.g. "memory".
	Storage []string
	// Features are the client's features ([FeaturesOf] its capabilities).
	Features Features
	// Settings are the configuration values conditions may require.
	Settings map[string]any
}

// FeaturesOf returns the features a client declared in its capabilities;
// none for nil.
func FeaturesOf(caps *mcp.ClientCapabilities) Features {
	var f Features
	if caps == nil {
		return f
	}
	if caps.Sampling != nil {
		f = f.With(Sampling)
	}
	if caps.Elicitation != nil {
		f = f.With(Elicitation)
	}
	if caps.RootsV2 != nil || caps.Roots.ListChanged {
		f = f.With(Roots)
	}
	return f
}

// Check reports whether the conditions hold in env, and when they do not,
// why, e.g. "requires storage: memory or file; requires features:
// sampling".
func (c Conditions) Check(env Env) (reason string, ok bool) {
	var why []string
	for _, r := range [...]string{c.checkStorage(env.Storage), c.checkFeatures(env.Features), c.checkConfig(env.Settings)} {
		if r != "" {
			why = append(why, r)
		}
	}
	if len(why) == 0 {
		return "", true
	}
	return strings.Join(why, "; "), false
}

// checkStorage returns "" when one of the required backends is active.
func (c Conditions) checkStorage(active []string) string {
	if len(c.Storage) == 0 || slices.ContainsFunc(c.Storage, func(s string) bool { return slices.Contains(active, s) }) {
		return ""
	}
	return "requires storage: " + strings.Join(c.Storage, " or ")
}

// checkConfig returns "" when every required value is set, else the
// values that are not.
func (c Conditions) checkConfig(settings map[string]any) string {
	var bad []string
	for _, k := range sortedKeys(c.Config) {
		want, _ := json.Marshal(c.Config[k])
		if got, ok := settings[k]; ok {
			if g, err := json.Marshal(got); err == nil && jsonEqual(g, want) {
				continue
			}
		}
		bad = append(bad, k+"="+string(want))
	}
	if bad == nil {
		return ""
	}
	return "requires config: " + strings.Join(bad, ", ")
}

// checkFeatures returns "" when the client has every required feature,
// else the missing ones.
func (c Conditions) checkFeatures(have Features) string {
	var missing []string
	for _, f := range c.Features {
		if !have.Has(f) {
			missing = append(missing, f.String())
		}
	}
	if missing == nil {
		return ""
	}
	return "requires features: " + strings.Join(missing, ", ")
}

// features returns the set of required features.
func (c Conditions) features() Features {
	var s Features
	for _, f := range c.Features {
		s = s.With(f)
	}
	return s
}

// jsonEqual compares two JSON encodings as values: numbers by value,
// objects whatever their key order.
func jsonEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
