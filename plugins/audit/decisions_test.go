package audit_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/stages"
)

// The decisions hooks record on the run with flows.Context.Decide travel
// in the run's event in order, their reasons capped, in the JSON form
// audit events have always had; past flows.MaxDecisions they are dropped
// and the event says so. The audit plugin and the deciding plugin know
// nothing of each other.
func TestDecisions(t *testing.T) {
	var out lines
	a := newAudit(t, &out, audit.Config{MaxTextBytes: 16, Flows: []flows.ID{flows.ToolsCallTool}})
	decider := framework.NewPlugin("guard", func(pc *framework.PluginContext) error {
		return pc.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "decide", Fn: func(c *flows.Context) error {
			in := flows.As[flows.ToolCall[plugintest.Text, plugintest.Text]](c).Input()
			n := 2
			if in.Text == "many" {
				n = flows.MaxDecisions + 3
			}
			for i := range n {
				c.Decide(flows.Decision{By: "guard:policy", What: "validation request", Outcome: "allowed", Duration: time.Duration(i) * time.Millisecond,
					Reason: strings.Repeat("r", 10*i)})
			}
			return nil
		}})
	})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{a, decider}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "two"}).WantText(plugintest.EchoText("two"))
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "many"}).WantText(plugintest.EchoText("many"))
	flush(t, a)
	evs := out.events(t)
	if len(evs) != 2 {
		t.Fatalf("%d events: %s", len(evs), out.String())
	}
	var first struct {
		Decisions json.RawMessage `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &first); err != nil {
		t.Fatal(err)
	}
	const want = `[{"by":"guard:policy","what":"validation request","outcome":"allowed","duration":0},` +
		`{"by":"guard:policy","what":"validation request","outcome":"allowed","duration":1000000,"reason":"rrrrrrrrrr"}]`
	if string(first.Decisions) != want {
		t.Errorf("decisions JSON\n got %s\nwant %s", first.Decisions, want)
	}
	if len(evs[0].Truncated) != 0 {
		t.Errorf("truncated %v", evs[0].Truncated)
	}
	many := evs[1].Decisions
	if len(many) != flows.MaxDecisions {
		t.Errorf("%d decisions, want %d", len(many), flows.MaxDecisions)
	}
	if len(many) > 5 && len(many[5].Reason) > 16+len("…") {
		t.Errorf("reason not capped: %q", many[5].Reason)
	}
	if strings.Join(evs[1].Truncated, ",") != "decisions" {
		t.Errorf("truncated %v", evs[1].Truncated)
	}
}
