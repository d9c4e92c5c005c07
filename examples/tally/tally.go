package tally

//go:generate go tool hookgen

import (
	"maps"
	"sync"

	"github.com/hookflow/hookflow/flows"
)

// Tally counts tool calls by tool: all of them, and those that failed
// (an error, a refusal or an isError result).
//
//mcp:plugin name=tally
type Tally struct {
	mu     sync.Mutex
	calls  map[string]int
	failed map[string]int
}

// New returns an empty tally.
func New() *Tally { return &Tally{calls: map[string]int{}, failed: map[string]int{}} }

// Count counts a finished call of a tool.
//
//hook:finally flow=tools:call-tool priority=last
func (t *Tally) Count(c *flows.Context) error {
	name := c.Entity().Name
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls[name]++
	if c.Err() != nil {
		t.failed[name]++
	}
	return nil
}

// Calls returns the calls counted so far, by tool.
func (t *Tally) Calls() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.calls)
}

// Failed returns the failed calls counted so far, by tool.
func (t *Tally) Failed() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.failed)
}
