package console_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/console"
	"github.com/hookflow/hookflow/stages"
)

// Each way a hook can end shows in the run's waterfall, and the run's
// outcome and deciding hook are the audit plugin's.
func TestWaterfallOutcomes(t *testing.T) {
	const text = "the-arguments-0123"
	tests := []struct {
		name    string
		hook    flows.Hook
		outcome string // the run's badge
		by      string // the decided-by hook's name, or ""
		step    string // the hook's outcome in the waterfall
	}{
		{"ran", flows.Hook{Stage: stages.BeforeExecute, Fn: func(*flows.Context) error { return nil }}, "ok", "", "ran"},
		{"skipped", flows.Hook{Stage: stages.BeforeExecute, Fn: func(c *flows.Context) error { c.Skip(); return nil }}, "ok", "", "skipped"},
		{"answered early", flows.Hook{Stage: stages.BeforeExecute, Fn: func(c *flows.Context) error {
			c.Respond(plugintest.Text{Text: "cached"})
			return nil
		}}, "answered early", "h", "answered early"},
		{"failed open", flows.Hook{Stage: stages.BeforeExecute, OnFailure: flows.FailOpen, Fn: func(*flows.Context) error { return errors.New("store down") }},
			"ok", "", "failed open"},
		{"timed out", flows.Hook{Stage: stages.BeforeExecute, Timeout: time.Millisecond, Fn: func(c *flows.Context) error {
			<-c.Context().Done()
			return c.Context().Err()
		}}, "failed", "h", "timed out"},
		{"recovered", flows.Hook{Stage: stages.OnError, Fn: func(c *flows.Context) error {
			c.Respond(plugintest.Text{Text: "recovered"})
			return nil
		}}, "recovered", "h", "recovered"},
		{"blocked", flows.Hook{Stage: stages.BeforeValidation, Fn: func(c *flows.Context) error { return c.Abort(errors.New("no")) }}, "blocked", "h", "blocked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := console.New(console.Config{Token: token, Results: true})
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			hook := tc.hook
			hook.Flow, hook.Name = flows.ToolsCallTool, "h"
			h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{c, framework.NewPlugin("p", func(pc *framework.PluginContext) error { return pc.Hook(hook) })}})
			tool := plugintest.ToolEcho
			if tc.name == "recovered" {
				tool = plugintest.ToolFail // onError runs on a failed run
			}
			h.Call(tool, plugintest.Text{Text: text})
			ts := plugintest.NewHTTPServer(t, c.Handler())
			waitFor(t, ts, "/console/?flow=tools:call-tool", `data-seq="`)
			_, list := get(t, ts, "/console/?flow=tools:call-tool")
			i := strings.Index(list, `href="/console/runs/`)
			link := list[i+len(`href="`):]
			link = link[:strings.IndexByte(link, '"')]
			code, run := get(t, ts, link)
			if code != http.StatusOK {
				t.Fatal(code)
			}
			if !strings.Contains(run, `id="outcome">`+tc.outcome+`</span>`) {
				t.Errorf("outcome is not %q:\n%s", tc.outcome, run)
			}
			const id = "plugintest/plugin:p/tools:call-tool/"
			if tc.by != "" && !strings.Contains(run, `id="decided-by">`+id) {
				t.Errorf("not decided by the hook:\n%s", run)
			}
			if tc.by == "" && strings.Contains(run, `id="decided-by"`) {
				t.Errorf("decided by someone:\n%s", run)
			}
			row := run[strings.Index(run, `id="waterfall"`):]
			row = row[strings.Index(row, id):]
			row = row[:strings.Index(row, "</tr>")]
			if !strings.Contains(row, `">`+tc.step+`</span>`) {
				t.Errorf("the hook's row does not say %q: %s", tc.step, row)
			}
			if !strings.Contains(run, `<pre id="args">{&#34;text&#34;:&#34;`+text+`&#34;}</pre>`) {
				t.Errorf("no arguments:\n%s", run)
			}
			if tc.outcome == "ok" && !strings.Contains(run, `<pre id="result">`) {
				t.Errorf("no result:\n%s", run)
			}
		})
	}
}
