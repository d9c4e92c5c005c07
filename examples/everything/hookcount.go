package main

import (
	"fmt"
	"io"
	"log"
	"strings"
	"sync/atomic"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// HookCount is a plugin with a hook on every stage of every flow. Each hook
// counts its runs and, when the plugin has a log, logs each run. The hooks
// never change a run's outcome.
//
// Note that onError hooks run only when a run fails, and that every
// tools/call also runs the tools:list-tools hooks once, over a one-tool list,
// to check that no list hook hides the tool (those runs log
// method=tools/call).
type HookCount struct {
	counts [flows.Count][stages.Count]atomic.Uint64
	log    *log.Logger
}

// NewHookCount returns the plugin; when w is non-nil every hook run is
// logged to it.
func NewHookCount(w io.Writer) *HookCount {
	h := &HookCount{}
	if w != nil {
		h.log = log.New(w, "hookcount: ", log.Lmicroseconds)
	}
	return h
}

// Name is the plugin's name.
func (*HookCount) Name() string { return "hookcount" }

// Attach registers one counting hook per flow and stage.
func (h *HookCount) Attach(p *framework.PluginContext) error {
	var hooks []flows.Hook
	for _, f := range flows.All() {
		for _, st := range stages.All() {
			hooks = append(hooks, flows.Hook{Flow: f.ID, Stage: st, Name: "count", Fn: h.hook(f.ID, st)})
		}
	}
	return p.Hook(hooks...)
}

func (h *HookCount) hook(flow flows.ID, st stages.Stage) flows.HookFunc {
	ctr := &h.counts[flow.Index()][st]
	return func(c *flows.Context) error {
		n := ctr.Add(1)
		if h.log != nil {
			entity := ""
			if e := c.Entity(); e != nil {
				entity = " entity=" + e.Name
			}
			outcome := ""
			if err := c.Err(); err != nil {
				outcome = " err=" + flows.Reason(err)
			}
			r := c.Request()
			h.log.Printf("%s %s #%d req=%s method=%s%s%s", flow, st, n, r.ID, r.Method, entity, outcome)
		}
		return nil
	}
}

// Count returns how many times the hook of flow and stage has run.
func (h *HookCount) Count(flow flows.ID, st stages.Stage) uint64 {
	i := flow.Index()
	if i < 0 || !st.Valid() {
		return 0
	}
	return h.counts[i][st].Load()
}

// Runs returns how many runs of flow the hooks saw: the count of its
// finally hook, which runs exactly once per run.
func (h *HookCount) Runs(flow flows.ID) uint64 { return h.Count(flow, stages.Finally) }

// Table returns the counts as a text table, one line per flow.
func (h *HookCount) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-34s", "hookcount")
	for _, st := range stages.All() {
		fmt.Fprintf(&b, " %16s", st)
	}
	b.WriteByte('\n')
	for _, f := range flows.All() {
		fmt.Fprintf(&b, "%-34s", f.ID)
		for _, st := range stages.All() {
			fmt.Fprintf(&b, " %16d", h.Count(f.ID, st))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
