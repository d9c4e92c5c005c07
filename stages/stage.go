package stages

import (
	"fmt"

	"github.com/hookflow/hookflow/internal/suggest"
)

// Stage is one step of a flow run at which hooks run.
type Stage uint8

// The six stages, in run order. onError and finally are placed after
// afterExecute because they run last; see the package doc for when they run.
const (
	BeforeValidation Stage = iota
	AfterValidation
	BeforeExecute
	AfterExecute
	OnError
	Finally
)

// Count is the number of stages. Arrays indexed by Stage have this length.
const Count = 6

var names = [Count]string{
	BeforeValidation: "beforeValidation",
	AfterValidation:  "afterValidation",
	BeforeExecute:    "beforeExecute",
	AfterExecute:     "afterExecute",
	OnError:          "onError",
	Finally:          "finally",
}

// String returns the stage's directive name, e.g. "beforeExecute".
func (s Stage) String() string {
	if int(s) < Count {
		return names[s]
	}
	return fmt.Sprintf("Stage(%d)", uint8(s))
}

// Valid reports whether s is one of the six stages.
func (s Stage) Valid() bool { return int(s) < Count }

// IsBefore reports whether s runs before a step: beforeValidation or beforeExecute.
func (s Stage) IsBefore() bool { return s == BeforeValidation || s == BeforeExecute }

// IsAfter reports whether s runs after a step: afterValidation or afterExecute.
func (s Stage) IsAfter() bool { return s == AfterValidation || s == AfterExecute }

// IsError reports whether s is onError.
func (s Stage) IsError() bool { return s == OnError }

// IsFinal reports whether s is finally.
func (s Stage) IsFinal() bool { return s == Finally }

// MarshalText returns the stage's name, so a Stage reads well in JSON and logs.
func (s Stage) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("stages: invalid stage %d", uint8(s))
	}
	return []byte(names[s]), nil
}

// UnmarshalText parses a stage name with [Parse].
func (s *Stage) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// All returns the six stages in run order: the four main stages, then onError,
// then finally. The returned slice is a fresh copy.
func All() []Stage {
	return []Stage{BeforeValidation, AfterValidation, BeforeExecute, AfterExecute, OnError, Finally}
}

// Names returns the six stage names in run order.
func Names() []string {
	out := make([]string, Count)
	copy(out, names[:])
	return out
}

// Parse returns the stage named name. It is strict: the name must match
// [Stage.String] exactly (case included), because directive names are an API.
// The error of a near miss names the stage that was probably meant.
func Parse(name string) (Stage, error) {
	for i, n := range names {
		if n == name {
			return Stage(i), nil
		}
	}
	if s, ok := Suggest(name); ok {
		return 0, fmt.Errorf("unknown stage %q (did you mean %q?)", name, s.String())
	}
	return 0, fmt.Errorf("unknown stage %q (stages: beforeValidation, afterValidation, beforeExecute, afterExecute, onError, finally)", name)
}

// Suggest returns the stage whose name is closest to name, when one is close
// enough to be a likely typo (a case difference or a small edit distance).
func Suggest(name string) (Stage, bool) {
	best, ok := suggest.Closest(name, names[:])
	if !ok {
		return 0, false
	}
	for i, n := range names {
		if n == best {
			return Stage(i), true
		}
	}
	return 0, false
}
