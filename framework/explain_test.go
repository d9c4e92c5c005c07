package framework_test

import (
	"errors"
	"fmt"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// explainServer is a started server with a tool, a plugin and an app, for
// the Explain examples and tests.
func explainServer() (*framework.Server, error) {
	guard := framework.NewPlugin("guard", func(p *framework.PluginContext) error {
		return p.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "quota", Priority: priority.Auth + 2,
				Fn: func(*flows.Context) error { return nil }}.Within(250*time.Millisecond).Failing(flows.FailOpen),
			flows.Hook{Flow: flows.ToolsListTools, Stage: stages.AfterExecute, Name: "filter", Fn: func(*flows.Context) error { return nil }},
		)
	})
	srv := framework.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	err := errors.Join(
		srv.Use(guard),
		srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "trace", Fn: func(*flows.Context) error { return nil }}),
		framework.AddTool(srv, framework.Tool[Forecast, ForecastIn, ForecastOut]{
			Tool:    &mcp.Tool{Name: "forecast", Description: "Forecast the weather."},
			Execute: Forecast.Execute,
			Hooks: []framework.EntityHook[Forecast, flows.ToolCall[ForecastIn, ForecastOut]]{
				{Stage: stages.BeforeExecute, Priority: 10, Name: "EarthOnly", Fn: Forecast.EarthOnly},
			},
		}),
	)
	if err != nil {
		return nil, err
	}
	return srv, srv.Start()
}

// Explain prints the plan the server runs for a flow and an entity, in the
// format of hookgen -explain, with every hook registered in code, by
// plugins and by the entity itself.
func ExampleServer_Explain() {
	srv, err := explainServer()
	if err != nil {
		log.Fatal(err)
	}
	plan, err := srv.Explain(flows.ToolsCallTool, "forecast")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(plan)
	plan, err = srv.Explain(flows.ToolsListTools, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(plan)
	// Output:
	// tools:call-tool tool forecast
	//   beforeExecute
	//     auth+2  weather/plugin:guard/tools:call-tool/beforeExecute/quota  (timeout 250ms, fails open)
	//         10  github.com/hookflow/hookflow/framework_test.Forecast/tools:call-tool/beforeExecute/EarthOnly
	//   finally
	//          0  weather/tools:call-tool/finally/trace
	// tools:list-tools (every request)
	//   afterExecute
	//     0  weather/plugin:guard/tools:list-tools/afterExecute/filter
}

func TestExplainErrors(t *testing.T) {
	srv, err := explainServer()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		flow   flows.ID
		entity string
		code   flows.Code
		msg    string
	}{
		{flow: "tools:cal-tool", code: flows.CodeInvalid, msg: `did you mean "tools:call-tool"`},
		{flow: flows.ToolsCallTool, entity: "forcast", code: flows.CodeNotFound, msg: `no tool "forcast" (did you mean "forecast"?)`},
		{flow: flows.PromptsGetPrompt, entity: "forecast", code: flows.CodeNotFound, msg: `no prompt "forecast"`},
		{flow: flows.ToolsListTools, entity: "forecast", code: flows.CodeInvalid, msg: "resolves no entity"},
	}
	for _, tt := range tests {
		_, err := srv.Explain(tt.flow, tt.entity)
		if flows.CodeOf(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Explain(%s, %q) = %v, want code %v with %q", tt.flow, tt.entity, err, tt.code, tt.msg)
		}
	}
	notStarted := framework.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil)
	if _, err := notStarted.Explain(flows.ToolsListTools, ""); flows.CodeOf(err) != flows.CodeInvalid {
		t.Errorf("Explain before Start = %v, want CodeInvalid", err)
	}
}

// TestPlan checks that Plan is Explain's plan as data, with its errors.
func TestPlan(t *testing.T) {
	srv, err := explainServer()
	if err != nil {
		t.Fatal(err)
	}
	p, err := srv.Plan(flows.ToolsCallTool, "forecast")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for st := range stages.Stage(stages.Count) {
		for _, h := range p.Hooks(st) {
			got = append(got, fmt.Sprintf("%s %s %s", st, priority.Format(h.Priority), h.ID))
		}
	}
	want := []string{
		"beforeExecute auth+2 weather/plugin:guard/tools:call-tool/beforeExecute/quota",
		"beforeExecute 10 github.com/hookflow/hookflow/framework_test.Forecast/tools:call-tool/beforeExecute/EarthOnly",
		"finally 0 weather/tools:call-tool/finally/trace",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := srv.Plan(flows.ToolsCallTool, "forcast"); flows.CodeOf(err) != flows.CodeNotFound {
		t.Errorf("Plan of an unknown tool = %v, want CodeNotFound", err)
	}
	if p, err := srv.Plan(flows.ToolsListTools, ""); err != nil || p.Len() != 1 {
		t.Errorf("Plan(tools:list-tools) = %v hooks, %v; want 1", p.Len(), err)
	}
}
