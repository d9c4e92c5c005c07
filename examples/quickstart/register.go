package main

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// register adds the quickstart's entities and their embedded hooks.
func register(r framework.Registrar) error {
	return errors.Join(
		framework.AddTool(r, framework.Tool[*GetWeather, WeatherIn, WeatherOut]{
			Tool:    &mcp.Tool{Name: "get_weather", Description: "GetWeather reports the weather for a city.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			New:     NewGetWeather,
			Execute: (*GetWeather).Execute,
			Hooks: []framework.Hook[*GetWeather, flows.ToolCall[WeatherIn, WeatherOut]]{
				{Stage: stages.BeforeValidation, Name: "Normalize", Fn: (*GetWeather).Normalize},
				{Stage: stages.BeforeExecute, Priority: 10, Name: "RejectMoon", Fn: (*GetWeather).RejectMoon},
				{Stage: stages.BeforeExecute, Name: "AnswerFromCache", Fn: (*GetWeather).AnswerFromCache},
			},
		}),
		framework.AddTool(r, framework.Tool[Add, AddIn, AddOut]{
			Tool:    &mcp.Tool{Name: "add", Description: "Add adds two integers."},
			Execute: Add.Execute,
		}),
		framework.AddResource(r, framework.Resource[Motd]{
			Resource: &mcp.Resource{URI: "quickstart://motd", Name: "motd", Description: "Motd is a resource: the message of the day.", MIMEType: "text/plain"},
			Read:     Motd.Read,
		}),
		framework.AddPrompt(r, framework.Prompt[Greet]{
			Prompt: &mcp.Prompt{Name: "greet", Description: "Greet is a prompt that greets someone.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
			Get:    Greet.Get,
		}),
	)
}
