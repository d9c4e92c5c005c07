package main

import (
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// AdvertiseHooks is a session:initialize afterExecute hook: it adds
// capabilities.experimental.hookflow to the initialize (and, on protocol
// 2026-07-28, server/discover) result, describing hookflow's flows and
// stages. Every other capability is kept. (experimental.hooks is left to
// SEP-2282's server-declared hooks, which plugins/declared advertises.)
//
//hook:afterExecute flow=session:initialize
func AdvertiseHooks(c flows.Initialize) error {
	c.AddExperimental("hookflow", hooksCapability)
	return nil
}

// hooksCapability is the value of capabilities.experimental.hookflow. It is
// shared by every result and must not be modified.
var hooksCapability = func() map[string]any {
	fl := make([]map[string]any, 0, flows.Count)
	for _, f := range flows.All() {
		fl = append(fl, map[string]any{"id": string(f.ID), "method": f.Method})
	}
	return map[string]any{
		"framework": "hookflow",
		"flows":     fl,
		"stages":    stages.Names(),
	}
}()
