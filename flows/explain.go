package flows

import (
	"fmt"
	"io"
	"strings"

	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Explain writes the plan's hooks stage by stage, in the order the runner
// calls them: per hook its priority (a named position by its name, e.g.
// "auth+2"), its ID, and its timeout and failure policy when it has them.
// hookgen -explain and the server's run-time explanation print plans with
// it, so both read alike:
//
//	beforeExecute
//	  auth  server/plugin:auth/tools:call-tool/beforeExecute/scopes
//	    10  example.com/weather.GetWeather/tools:call-tool/beforeExecute/RejectMoon  (timeout 250ms, fails open)
//
// A plan without hooks is written as "  no hooks".
func (p *Plan) Explain(w io.Writer) error {
	if p.Len() == 0 {
		_, err := io.WriteString(w, "  no hooks\n")
		return err
	}
	width := 1
	for _, hs := range p.Stages {
		for _, h := range hs {
			width = max(width, len(priority.Format(h.Priority)))
		}
	}
	var b strings.Builder
	for st, hs := range p.Stages {
		if len(hs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s\n", stages.Stage(st))
		for _, h := range hs {
			fmt.Fprintf(&b, "    %*s  %s%s\n", width, priority.Format(h.Priority), h.ID, h.guard())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// guard describes the entry's timeout and failure policy for a plan line,
// e.g. "  (timeout 250ms, fails open)"; "" when it has neither.
func (h *PlanEntry) guard() string {
	var parts []string
	if h.Timeout != 0 {
		parts = append(parts, "timeout "+h.Timeout.String())
	}
	if h.OnFailure == FailOpen {
		parts = append(parts, "fails open")
	}
	if len(parts) == 0 {
		return ""
	}
	return "  (" + strings.Join(parts, ", ") + ")"
}
