package slowcalls

import (
	"fmt"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// Config configures the plugin. The zero value reports calls slower than
// one second to the server's logger.
type Config struct {
	// Threshold is how slow a call must be to be reported (default 1s).
	Threshold time.Duration
	// Report receives the reports; nil logs them with the server's logger.
	Report func(tool string, took time.Duration)
}

// Plugin reports slow tool calls.
type Plugin struct {
	cfg     Config
	started flows.Key[time.Time] // typed per-run state, shared by the plugin's hooks
}

// New returns the plugin; its configuration is checked at Attach.
func New(cfg Config) *Plugin {
	return &Plugin{cfg: cfg, started: flows.NewKey[time.Time]("slowcalls.started")}
}

// Name returns "slowcalls", the last part of the plugin's scope path.
func (p *Plugin) Name() string { return "slowcalls" }

// Attach checks the configuration and registers the plugin's two hooks.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	threshold := p.cfg.Threshold
	if threshold < 0 {
		return fmt.Errorf("Config.Threshold: must not be negative, got %v", threshold)
	}
	if threshold == 0 {
		threshold = time.Second
	}
	report := p.cfg.Report
	if report == nil {
		logger := pc.Server.Logger()
		report = func(tool string, took time.Duration) { logger.Warn("slow call", "tool", tool, "took", took) }
	}
	return pc.Hook(
		// PriorityFirst: first in beforeValidation, so the time covers every hook.
		flows.Hook{Flow: flows.ToolsCallTool, Stage: flows.BeforeValidation, Priority: flows.PriorityFirst, Name: "start",
			Fn: func(c *flows.Context) error {
				p.started.Set(c, time.Now())
				return nil
			}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: flows.Finally, Name: "report",
			Fn: func(c *flows.Context) error {
				if t0, ok := p.started.Get(c); ok {
					if took := time.Since(t0); took >= threshold {
						report(c.Entity().Name, took)
					}
				}
				return nil
			}},
	)
}

var _ framework.Plugin = (*Plugin)(nil)
