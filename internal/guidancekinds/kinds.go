// Package guidancekinds is the vocabulary of guidance hooks
// (plugins/guidance): their types, lifecycles, requirement levels and
// client features, with their names and parsers, and the rule for tags.
// plugins/guidance re-declares them under its own name; hookgen's
// //mcp:guidance extension reads them here, so that it needs no plugin.
package guidancekinds

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hookflow/hookflow/internal/suggest"
)

// Type is what a guidance hook is about. The zero value is no type: it
// matches every type in a query and is refused by the registry.
type Type uint8

// The types.
const (
	// TypeSession: the session's lifecycle, e.g. a welcome message.
	TypeSession Type = iota + 1
	// TypeAction: a tool call, prompt or resource read, e.g. how to use a
	// tool's result.
	TypeAction
	// TypeStorage: the storage backend in use, e.g. tips for a memory store.
	TypeStorage
	// TypeConfig: configuration, e.g. a setup flow.
	TypeConfig
)

var typeNames = []string{"", "session", "action", "storage", "config"}

// String returns the type's name as IDs and JSON write it, e.g. "session".
func (t Type) String() string { return name(typeNames, uint8(t), "Type") }

// ParseType returns the type named s ("session", "action", "storage",
// "config"), or an error with a did-you-mean hint.
func ParseType(s string) (Type, error) {
	n, err := parse(typeNames, s, "type")
	return Type(n), err
}

// MarshalText writes the type's name.
func (t Type) MarshalText() ([]byte, error) { return marshal(typeNames, uint8(t), "Type") }

// UnmarshalText reads a type's name.
func (t *Type) UnmarshalText(b []byte) error {
	v, err := ParseType(string(b))
	*t = v
	return err
}

// Lifecycle is when in a process a guidance hook is delivered. The zero
// value matches every lifecycle in a query and is refused by
// the registry.
type Lifecycle uint8

// The lifecycles.
const (
	// Start: the process begins (a session starts; a tool call is about to
	// execute).
	Start Lifecycle = iota + 1
	// Running: during execution, tied to the request.
	Running
	// Progress: with the request's progress notifications.
	Progress
	// Cancel: the request was cancelled or timed out.
	Cancel
	// End: the process is complete (the tool call's result).
	End
)

var lifecycleNames = []string{"", "start", "running", "progress", "cancel", "end"}

// String returns the lifecycle's name, e.g. "start".
func (l Lifecycle) String() string { return name(lifecycleNames, uint8(l), "Lifecycle") }

// ParseLifecycle returns the lifecycle named s ("start", "running",
// "progress", "cancel", "end"), or an error with a did-you-mean hint.
func ParseLifecycle(s string) (Lifecycle, error) {
	n, err := parse(lifecycleNames, s, "lifecycle")
	return Lifecycle(n), err
}

// MarshalText writes the lifecycle's name.
func (l Lifecycle) MarshalText() ([]byte, error) {
	return marshal(lifecycleNames, uint8(l), "Lifecycle")
}

// UnmarshalText reads a lifecycle's name.
func (l *Lifecycle) UnmarshalText(b []byte) error {
	v, err := ParseLifecycle(string(b))
	*l = v
	return err
}

// Level is a hook's requirement level, an RFC 2119 keyword. The composer
// groups hooks by level in the order of the constants. The zero value is
// refused by the registry.
type Level uint8

// The levels, in the order the composer writes their groups.
const (
	// Must: an absolute requirement.
	Must Level = iota + 1
	// MustNot: an absolute prohibition.
	MustNot
	// Should: recommended; may be ignored with good reason.
	Should
	// ShouldNot: not recommended; may be done with good reason.
	ShouldNot
	// May: optional.
	May
)

// Levels is the number of levels plus one: arrays indexed by Level have
// this length.
const Levels = int(May) + 1

var levelNames = []string{"", "MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"}

// String returns the RFC 2119 keyword, e.g. "MUST NOT".
func (l Level) String() string { return name(levelNames, uint8(l), "Level") }

// ParseLevel returns the level written s: an RFC 2119 keyword in capitals
// ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"), where a hyphen or
// an underscore may stand for the space ("MUST-NOT", as hookgen's
// directives write it). Lower case is an error with a hint: RFC 2119
// keywords are capitals.
func ParseLevel(s string) (Level, error) {
	norm := strings.NewReplacer("-", " ", "_", " ").Replace(s)
	for i, n := range levelNames {
		if n != "" && n == norm {
			return Level(i), nil
		}
	}
	return 0, unknown("requirement level", s, strings.ToUpper(norm), levelNames)
}

// MarshalText writes the RFC 2119 keyword.
func (l Level) MarshalText() ([]byte, error) { return marshal(levelNames, uint8(l), "Level") }

// UnmarshalText reads an RFC 2119 keyword (see [ParseLevel]).
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	*l = v
	return err
}

// Feature is a client feature a hook may require (see the conditions of a hook): the
// client declared the capability at initialization.
type Feature uint8

// The features.
const (
	// Sampling: the client can sample its LLM for the server.
	Sampling Feature = iota + 1
	// Elicitation: the client can ask its user for input.
	Elicitation
	// Roots: the client lists its roots.
	Roots
)

var featureNames = []string{"", "sampling", "elicitation", "roots"}

// String returns the feature's name, e.g. "sampling".
func (f Feature) String() string { return name(featureNames, uint8(f), "Feature") }

// ParseFeature returns the feature named s ("sampling", "elicitation",
// "roots"), or an error with a did-you-mean hint.
func ParseFeature(s string) (Feature, error) {
	switch s {
	case "tools", "resources", "prompts":
		return 0, fmt.Errorf("feature %q is the server's, not the client's: conditions test the client's features (sampling, elicitation, roots)", s)
	}
	n, err := parse(featureNames, s, "feature")
	return Feature(n), err
}

// MarshalText writes the feature's name.
func (f Feature) MarshalText() ([]byte, error) { return marshal(featureNames, uint8(f), "Feature") }

// UnmarshalText reads a feature's name.
func (f *Feature) UnmarshalText(b []byte) error {
	v, err := ParseFeature(string(b))
	*f = v
	return err
}

// Features is a set of client features.
type Features uint8

// With returns the set with f added.
func (s Features) With(f Feature) Features { return s | f.bit() }

// Has reports whether f is in the set.
func (s Features) Has(f Feature) bool { return f.bit() != 0 && s&f.bit() != 0 }

// bit is f's bit in a Features set: the features fill the low bits, so
// that a set indexes an array of 1<<featureCount entries.
func (f Feature) bit() Features {
	if f < Sampling || f > Roots {
		return 0
	}
	return 1 << (f - 1)
}

// FeatureSets is the number of distinct Features sets.
const FeatureSets = 1 << int(Roots)

// String lists the set's features, e.g. "sampling, roots", or "none".
func (s Features) String() string {
	var out []string
	for f := Sampling; f <= Roots; f++ {
		if s.Has(f) {
			out = append(out, f.String())
		}
	}
	if out == nil {
		return "none"
	}
	return strings.Join(out, ", ")
}

func name(names []string, v uint8, typ string) string {
	if v > 0 && int(v) < len(names) {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}

func marshal(names []string, v uint8, typ string) ([]byte, error) {
	if v > 0 && int(v) < len(names) {
		return []byte(names[v]), nil
	}
	return nil, fmt.Errorf("guidance: %s(%d) has no name", typ, v)
}

func parse(names []string, s, what string) (uint8, error) {
	for i, n := range names {
		if n != "" && n == s {
			return uint8(i), nil
		}
	}
	return 0, unknown(what, s, strings.ToLower(s), names)
}

// unknown is the error for s, which is no name of names; fold is s in the
// names' case, suggested when it is one of them.
func unknown(what, s, fold string, names []string) error {
	var valid []string
	for _, n := range names {
		if n == "" {
			continue
		}
		valid = append(valid, n)
		if n == fold {
			return fmt.Errorf("unknown %s %q (did you mean %q?)", what, s, n)
		}
	}
	if best, ok := suggest.Closest(s, valid); ok {
		return fmt.Errorf("unknown %s %q (did you mean %q?)", what, s, best)
	}
	return fmt.Errorf("unknown %s %q (want %s)", what, s, strings.Join(valid, ", "))
}

// CheckTag reports whether s may be a tag or an app: 1 to 64 of A-Z a-z
// 0-9 . _ -, starting with a letter or a digit, so that it is safe in a
// file name and in an ID.
func CheckTag(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	if len(s) > 64 {
		return fmt.Errorf("%q is longer than 64 bytes", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if i == 0 && !alnum {
			return fmt.Errorf("%q must start with a letter or a digit", s)
		}
		if !alnum && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("%q has %q: want A-Z a-z 0-9 . _ -", s, c)
		}
	}
	return nil
}
