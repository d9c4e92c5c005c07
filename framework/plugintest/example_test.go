package plugintest_test

import (
	"sync/atomic"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/stages"
)

// tally is a tiny plugin: it counts the tool calls that succeeded and those
// that failed, in finally.
type tally struct{ ok, failed atomic.Int64 }

func (*tally) Name() string { return "tally" }

func (t *tally) Attach(p *framework.PluginContext) error {
	return p.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "count", Fn: func(c *flows.Context) error {
		if c.Err() != nil {
			t.failed.Add(1)
		} else {
			t.ok.Add(1)
		}
		return nil
	}})
}

// testTally is what a plugin's test looks like with the kit: the shared
// checks, then the plugin's own behaviour over a real client session.
func testTally(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin { return new(tally) }, nil)

	p := new(tally)
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "hi"}).WantText(plugintest.EchoText("hi"))
	h.Call(plugintest.ToolFail, plugintest.Text{Text: "x"}).WantToolError("fail: x")
	if p.ok.Load() != 1 || p.failed.Load() != 1 {
		t.Errorf("tally: ok %d, failed %d; want 1 and 1", p.ok.Load(), p.failed.Load())
	}
}

func TestTally(t *testing.T) { testTally(t) }

// Example shows a plugin's test written with the kit: testTally above is
// the body of TestTally. (An Example cannot get a *testing.T, so this one
// only names the test.)
func Example() {
	// func TestTally(t *testing.T) {
	// 	plugintest.Run(t, func(testing.TB) framework.Plugin { return new(tally) }, nil)
	//
	// 	p := new(tally)
	// 	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{p}})
	// 	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "hi"}).WantText(plugintest.EchoText("hi"))
	// 	h.Call(plugintest.ToolFail, plugintest.Text{Text: "x"}).WantToolError("fail: x")
	// }
	_ = testTally
}
