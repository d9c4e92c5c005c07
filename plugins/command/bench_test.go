package command_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
)

// BenchmarkCommandHook measures one tools/call round trip over in-memory
// transports with one trivial PreToolUse command hook, process start
// included, against the same call without it, in the same run. Each
// iteration is timed: p50-ms and p99-ms are the median and 99th
// percentile of a call.
//
//   - none: no hook (the baseline).
//   - sh: #!/bin/sh, exit 0 without reading stdin.
//   - bash-json: #!/bin/bash that reads stdin and prints an allow decision.
//   - sh-exec-only: the sh script started with os/exec and waited for, no
//     MCP call: the floor a process start sets on this machine.
func BenchmarkCommandHook(b *testing.B) {
	b.Run("sh-exec-only", func(b *testing.B) {
		f := newFixture(b)
		script := f.script("hook", "#!/bin/sh\nexit 0\n")
		percentiles(b, func() {
			cmd := exec.Command(script)
			cmd.Stdin = strings.NewReader(`{"tool_name":"echo"}`)
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		})
	})
	scripts := []struct{ name, body string }{
		{"none", ""},
		{"sh", "#!/bin/sh\nexit 0\n"},
		{"bash-json", bash + `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'
`},
	}
	for _, sc := range scripts {
		b.Run(sc.name, func(b *testing.B) {
			var plugins []framework.Plugin
			if sc.body != "" {
				f := newFixture(b)
				cfg := f.config(hooksFor("PreToolUse", "", settings.Hook{Command: f.script("hook", sc.body)}))
				f.trust(cfg)
				plugins = append(plugins, command.New(cfg))
			}
			h := plugintest.New(b, &plugintest.Options{Plugins: plugins})
			s := h.Session()
			s.Call(plugintest.ToolEcho, echoHi) // warm up
			percentiles(b, func() {
				if r := s.Call(plugintest.ToolEcho, echoHi); r.IsError() {
					b.Fatal(r.Text())
				}
			})
		})
	}
}

// percentiles runs fn b.N times, timing each call, and reports the median
// and the 99th percentile in milliseconds.
func percentiles(b *testing.B, fn func()) {
	var took []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		fn()
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
	b.ReportMetric(ms(took[len(took)*99/100]), "p99-ms")
}
