package flows

import (
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Stage is a stage of a flow run: package stages' type, named here with
// its six constants. They are the same values as package stages' (the
// first-party plugins import stages and priority directly); a plugin that
// names only these stages and the positions below can import flows alone.
type Stage = stages.Stage

// The six stages, in run order (see package stages).
const (
	BeforeValidation = stages.BeforeValidation
	AfterValidation  = stages.AfterValidation
	BeforeExecute    = stages.BeforeExecute
	AfterExecute     = stages.AfterExecute
	OnError          = stages.OnError
	Finally          = stages.Finally
)

// The named priorities of package priority, for [Hook.Priority], [Hook.At],
// [Hook.Before] and [Hook.After]: within a stage, higher runs first. These
// are the positions a plugin anchors to; the rest (cache-store, the
// intercept positions) are package priority's alone.
const (
	// PriorityFirst runs before every other priority: for observers that
	// must see a stage before anyone changes it.
	PriorityFirst = priority.First
	// PriorityAudit is where the audit plugin's hooks run.
	PriorityAudit = priority.Audit
	// PriorityAuth is where the auth plugin refuses calls.
	PriorityAuth = priority.Auth
	// PriorityRateLimit is where the rate-limit plugin spends budget.
	PriorityRateLimit = priority.RateLimit
	// PriorityDefault is the priority of a hook that names none.
	PriorityDefault = priority.Default
	// PriorityCache is where the cache plugin answers a call early.
	PriorityCache = priority.Cache
	// PriorityLast runs after every other priority.
	PriorityLast = priority.Last
)

// Before returns h placed to run right before the hooks at priority p, at
// p+1: h.Before(flows.PriorityAuth) sees a call before auth refuses it.
// Before(PriorityFirst) is out of range, which [Hook.Validate] reports.
func (h Hook) Before(p int) Hook {
	h.Priority = p + 1
	return h
}

// After returns h placed to run right after the hooks at priority p, at
// p-1: h.After(flows.PriorityAuth) sees only the calls auth let through.
// After(PriorityLast) is out of range, which [Hook.Validate] reports.
func (h Hook) After(p int) Hook {
	h.Priority = p - 1
	return h
}
