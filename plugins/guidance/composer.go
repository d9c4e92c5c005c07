package guidance

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Banner opens every composed text that includes a hook.
const Banner = "> The following sections use requirement levels defined in [RFC 2119](https://www.rfc-editor.org/rfc/rfc2119)."

// DefaultSeparator separates the sections and the hooks of a composed
// text.
const DefaultSeparator = "\n\n---\n\n"

// Preamble returns the sentence that opens the section of level l.
func Preamble(l Level) string {
	switch l {
	case Must:
		return "These are absolute requirements. You must follow these instructions."
	case MustNot:
		return "These are absolute prohibitions. You must not do these things."
	case Should:
		return "These are recommended actions. Follow unless you have good reason not to."
	case ShouldNot:
		return "These are discouraged actions. Avoid them unless you have good reason not to."
	case May:
		return "These are optional. Use your judgment."
	}
	return ""
}

// Composer combines hooks into one markdown text for the model. The zero
// value is ready to use: preambles on, DefaultSeparator.
type Composer struct {
	// Separator goes between sections and between the hooks of a
	// section; "" means DefaultSeparator (a "---" line between blank
	// lines).
	Separator string `yaml:"separator"`
	// NoPreambles leaves out the sentence under each section's heading
	// (default false).
	NoPreambles bool `yaml:"no_preambles"`
}

// Composed is a composed text and its transparency record: what was
// included, skipped and why, and what failed to load.
type Composed struct {
	// Content is the markdown: the RFC 2119 banner, then one section per
	// requirement level that has hooks, in the order MUST, MUST NOT,
	// SHOULD, SHOULD NOT, MAY, each with its preamble and its hooks by
	// descending priority (ties in the order given). "" when no hook is
	// included.
	Content string
	// Included are the hooks in Content, in its order.
	Included []Summary
	// Skipped are the hooks whose conditions do not hold, with the
	// reason, in the order given.
	Skipped []Summary
	// Failed are the hooks whose content could not be loaded, with the
	// error, in the order given.
	Failed []Summary
	// Notices say what was left out and why, for the MCP log at level
	// notice: one for the skipped hooks, one for the failed ones.
	Notices []string
}

// Summary describes one hook in a [Composed] record.
type Summary struct {
	ID       string
	Tag      string
	Name     string
	Level    Level
	Priority int
	// Reason is why a skipped hook was skipped or a failed one failed.
	Reason string
	// Err is a failed hook's *LoadError.
	Err error
}

// Compose composes hooks in env: each hook whose conditions hold is
// loaded by l (nil loads without a cache) and included, or recorded as
// failed; the others are recorded as skipped with the conditions that do
// not hold.
func (c Composer) Compose(env Env, hooks []Hook, l *Loader) *Composed {
	out := &Composed{}
	type entry struct {
		h       *Hook
		content string
	}
	var included []entry
	for i := range hooks {
		h := &hooks[i]
		if why, ok := h.Conditions.Check(env); !ok {
			out.Skipped = append(out.Skipped, summarize(h, why, nil))
			continue
		}
		content, err := l.Load(h)
		if err != nil {
			why := err.Error()
			var le *LoadError
			if errors.As(err, &le) {
				why = le.Reason()
			}
			out.Failed = append(out.Failed, summarize(h, why, err))
			continue
		}
		included = append(included, entry{h, content})
	}
	slices.SortStableFunc(included, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.h.Level, b.h.Level), cmp.Compare(b.h.priority(), a.h.priority()))
	})
	sep := cmp.Or(c.Separator, DefaultSeparator)
	var b strings.Builder
	for i, e := range included {
		if i == 0 {
			b.WriteString(Banner)
			b.WriteString("\n\n")
		} else {
			b.WriteString(sep)
		}
		if i == 0 || included[i-1].h.Level != e.h.Level {
			b.WriteString("## ")
			b.WriteString(e.h.Level.String())
			b.WriteString("\n\n")
			if !c.NoPreambles {
				b.WriteString(Preamble(e.h.Level))
				b.WriteString("\n\n")
			}
		}
		b.WriteString("### ")
		b.WriteString(e.h.Title())
		b.WriteString("\n\n")
		b.WriteString(e.content)
		out.Included = append(out.Included, summarize(e.h, "", nil))
	}
	out.Content = b.String()
	if n := len(out.Skipped); n > 0 {
		out.Notices = append(out.Notices, countHooks(n, "was", "were")+" skipped (conditions not met): "+list(out.Skipped)+".")
	}
	if n := len(out.Failed); n > 0 {
		out.Notices = append(out.Notices, countHooks(n, "failed", "failed")+" to load: "+list(out.Failed)+".")
	}
	return out
}

func summarize(h *Hook, reason string, err error) Summary {
	return Summary{ID: h.ID(), Tag: h.Tag, Name: h.Title(), Level: h.Level, Priority: h.priority(), Reason: reason, Err: err}
}

// countHooks returns "1 hook was" or "3 hooks were" (verbs for one and
// for more).
func countHooks(n int, one, more string) string {
	if n == 1 {
		return "1 hook " + one
	}
	return strconv.Itoa(n) + " hooks " + more
}

// list writes "tag (reason), tag (reason)".
func list(s []Summary) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = x.Tag + " (" + x.Reason + ")"
	}
	return strings.Join(parts, ", ")
}
