package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// WeatherIn is the input of get_weather.
type WeatherIn struct {
	City string `json:"city" jsonschema:"the city to report on"`
}

// WeatherOut is the output of get_weather.
type WeatherOut struct {
	City        string  `json:"city"`
	Celsius     float64 `json:"celsius"`
	Description string  `json:"description"`
}

// GetWeather reports the weather for a city.
//
//mcp:tool name=get_weather readonly
type GetWeather struct {
	mu    sync.Mutex
	cache map[string]WeatherOut
}

// NewGetWeather builds the tool with an empty cache.
func NewGetWeather() *GetWeather { return &GetWeather{cache: map[string]WeatherOut{}} }

// Execute looks the weather up (here: a fixed table).
func (t *GetWeather) Execute(ctx context.Context, req *mcp.CallToolRequest, in WeatherIn) (WeatherOut, error) {
	table := map[string]WeatherOut{
		"paris":  {City: "Paris", Celsius: 18, Description: "light rain"},
		"lisbon": {City: "Lisbon", Celsius: 24, Description: "sunny"},
	}
	out, ok := table[strings.ToLower(in.City)]
	if !ok {
		return WeatherOut{}, fmt.Errorf("no weather station in %q", in.City)
	}
	t.mu.Lock()
	t.cache[strings.ToLower(in.City)] = out
	t.mu.Unlock()
	return out, nil
}

// Normalize trims the city name before validation sees it.
//
// It runs at beforeValidation, so it sees and may rewrite the raw arguments.
//
//hook:beforeValidation
func (t *GetWeather) Normalize(c flows.ToolCall[WeatherIn, WeatherOut]) error {
	if raw := c.Args(); raw != nil {
		c.SetArgs([]byte(strings.ReplaceAll(string(raw), `"  `, `"`)))
	}
	return nil
}

// AnswerFromCache answers early with a cached report, skipping execute.
//
//hook:beforeExecute
func (t *GetWeather) AnswerFromCache(c flows.ToolCall[WeatherIn, WeatherOut]) error {
	t.mu.Lock()
	out, ok := t.cache[strings.ToLower(c.Input().City)]
	t.mu.Unlock()
	if ok {
		out.Description += " (cached)"
		c.Respond(out)
	}
	return nil
}

// RejectMoon blocks a city the tool cannot serve, with a reason for the model.
// Its priority makes it run before AnswerFromCache.
//
//hook:beforeExecute priority=10
func (t *GetWeather) RejectMoon(c flows.ToolCall[WeatherIn, WeatherOut]) error {
	if strings.EqualFold(c.Input().City, "moon") {
		return errors.New("the moon has no weather: pick a city on Earth")
	}
	return nil
}

// ForecastIn is the input of set_forecast.
type ForecastIn struct {
	City        string `json:"city"`
	Description string `json:"description"`
}

// ForecastOut is the output of set_forecast.
type ForecastOut struct {
	Updated bool `json:"updated"`
}

// SetForecast overrides the forecast of a city. Only callers whose token
// carries the weather.admin scope may call it: the auth plugin blocks the
// others, and hides the tool from their tools/list.
//
//mcp:tool name=set_forecast destructive scopes=weather.admin
type SetForecast struct{}

// Execute records the override (here: pretends to).
func (SetForecast) Execute(ctx context.Context, req *mcp.CallToolRequest, in ForecastIn) (ForecastOut, error) {
	return ForecastOut{Updated: true}, nil
}

// AddIn is the input of add.
type AddIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// AddOut is the output of add.
type AddOut struct {
	Sum int `json:"sum"`
}

// Add adds two integers.
//
//mcp:tool name=add
type Add struct{}

// Execute adds.
func (Add) Execute(ctx context.Context, req *mcp.CallToolRequest, in AddIn) (AddOut, error) {
	return AddOut{Sum: in.A + in.B}, nil
}

// Motd is a resource: the message of the day.
//
//mcp:resource uri=quickstart://motd name=motd mime=text/plain
type Motd struct{}

// Read returns the message.
func (Motd) Read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hooks run in descending priority"}}}, nil
}

// Greet is a prompt that greets someone.
//
//mcp:prompt name=greet args=name
type Greet struct{}

// Get renders the prompt.
func (Greet) Get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["name"] + "."}}}}, nil
}
