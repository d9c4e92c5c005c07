package scope_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// Weather is a tool type; its embedded hooks run only for it.
type Weather struct{}

// steps is the flow's own validate and execute work.
type steps struct{}

func (steps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	fmt.Println("  (validate)")
	return c.Input(), nil, nil
}

func (steps) Execute(c *flows.Context) (any, error) {
	fmt.Println("  (execute)")
	return "sunny", nil
}

// Example shows the order of one tools:call-tool run with hooks on every
// stage: the server's external hooks merged with the tool's embedded hooks,
// higher priority first, ties in registration order.
func Example() {
	server := scope.New("server")
	say := func(msg string) flows.HookFunc {
		return func(c *flows.Context) error {
			fmt.Printf("%s: %s\n", c.Stage(), msg)
			return nil
		}
	}
	_, err := server.Register(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "log", Fn: say("server log (priority 0)")},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "auth", Priority: 100, Fn: say("server auth (priority 100)")},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "audit", Fn: say("server audit")},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "metrics", Fn: say("server metrics")},
	)
	if err != nil {
		panic(err)
	}
	weather := reflect.TypeFor[Weather]()
	_, err = server.RegisterEmbedded(weather,
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "normalize", Priority: 10, Fn: say("tool normalize (priority 10)")},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterValidation, Name: "check", Fn: say("tool check city")},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "quota", Fn: func(c *flows.Context) error {
			fmt.Printf("%s: tool quota fails\n", c.Stage())
			return errors.New("quota exceeded")
		}},
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.OnError, Name: "fallback", Fn: func(c *flows.Context) error {
			fmt.Printf("%s: tool fallback recovers from %q\n", c.Stage(), flows.Reason(c.Err()))
			c.Respond("cloudy (cached)")
			return nil
		}},
	)
	if err != nil {
		panic(err)
	}

	tool := &flows.Entity{Kind: flows.EntityTool, Name: "weather", Type: weather}
	plan := server.Plan(flows.ToolsCallTool, tool, nil).Load()
	runner := flows.NewRunner(nil)
	out, err := runner.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Entity: tool, Input: `{"city":"Paris"}`, Plan: plan, Steps: steps{}})
	fmt.Println("output:", out, "error:", err)
	// Output:
	// beforeValidation: tool normalize (priority 10)
	// beforeValidation: server log (priority 0)
	//   (validate)
	// afterValidation: tool check city
	// beforeExecute: server auth (priority 100)
	// beforeExecute: tool quota fails
	// onError: tool fallback recovers from "quota exceeded"
	// finally: server metrics
	// output: cloudy (cached) error: <nil>
}
