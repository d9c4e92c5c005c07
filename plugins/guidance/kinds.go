package guidance

// The vocabulary of guidance hooks lives in internal/guidancekinds, which
// hookgen reads too; this file gives it its names in this package.

import "github.com/hookflow/hookflow/internal/guidancekinds"

// Type is what a guidance hook is about. The zero value is no type: it
// matches every type in a [Query] and is refused by [Registry.Register].
type Type = guidancekinds.Type

// The types.
const (
	// TypeSession: the session's lifecycle, e.g. a welcome message.
	TypeSession = guidancekinds.TypeSession
	// TypeAction: a tool call, prompt or resource read, e.g. how to use a
	// tool's result.
	TypeAction = guidancekinds.TypeAction
	// TypeStorage: the storage backend in use, e.g. tips for a memory store.
	TypeStorage = guidancekinds.TypeStorage
	// TypeConfig: configuration, e.g. a setup flow.
	TypeConfig = guidancekinds.TypeConfig
)

// ParseType returns the type named s ("session", "action", "storage",
// "config"), or an error with a did-you-mean hint.
func ParseType(s string) (Type, error) { return guidancekinds.ParseType(s) }

// Lifecycle is when in a process a guidance hook is delivered. The zero
// value matches every lifecycle in a [Query] and is refused by
// [Registry.Register].
type Lifecycle = guidancekinds.Lifecycle

// The lifecycles.
const (
	Start    = guidancekinds.Start
	Running  = guidancekinds.Running
	Progress = guidancekinds.Progress
	Cancel   = guidancekinds.Cancel
	End      = guidancekinds.End
)

// ParseLifecycle returns the lifecycle named s ("start", "running",
// "progress", "cancel", "end"), or an error with a did-you-mean hint.
func ParseLifecycle(s string) (Lifecycle, error) { return guidancekinds.ParseLifecycle(s) }

// Level is a hook's requirement level, an RFC 2119 keyword. The composer
// groups hooks by level in the order of the constants. The zero value is
// refused by [Registry.Register].
type Level = guidancekinds.Level

// The levels, strongest first.
const (
	Must      = guidancekinds.Must
	MustNot   = guidancekinds.MustNot
	Should    = guidancekinds.Should
	ShouldNot = guidancekinds.ShouldNot
	May       = guidancekinds.May
)

// Levels is the number of levels plus one: arrays indexed by Level have
// this length.
const Levels = guidancekinds.Levels

// ParseLevel returns the level written s: an RFC 2119 keyword in capitals
// ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"), where a hyphen or
// an underscore may stand for the space ("MUST-NOT", as hookgen's
// directives write it). Lower case is an error with a hint: RFC 2119
// keywords are capitals.
func ParseLevel(s string) (Level, error) { return guidancekinds.ParseLevel(s) }

// Feature is a client feature a hook may require (see [Conditions]): the
// client declared the capability at initialization.
type Feature = guidancekinds.Feature

// The features.
const (
	Sampling    = guidancekinds.Sampling
	Elicitation = guidancekinds.Elicitation
	Roots       = guidancekinds.Roots
)

// ParseFeature returns the feature named s ("sampling", "elicitation",
// "roots"), or an error with a did-you-mean hint.
func ParseFeature(s string) (Feature, error) { return guidancekinds.ParseFeature(s) }

// Features is a set of client features.
type Features = guidancekinds.Features

// featureSets is the number of distinct Features sets.
const featureSets = guidancekinds.FeatureSets
