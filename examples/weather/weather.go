package main

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// WeatherIn is the input of get_weather.
type WeatherIn struct {
	City string `json:"city" jsonschema:"the city to report on"`
}

// WeatherOut is the output of get_weather.
type WeatherOut struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// GetWeather reports the weather for a city.
//
//mcp:tool name=get_weather readonly
type GetWeather struct{}

// Execute looks the weather up (here: it is always 18 °C).
func (GetWeather) Execute(ctx context.Context, req *mcp.CallToolRequest, in WeatherIn) (WeatherOut, error) {
	return WeatherOut{City: in.City, Celsius: 18}, nil
}

// RejectMoon blocks a city the tool cannot serve, with a reason the model
// reads.
//
//hook:beforeExecute
func (GetWeather) RejectMoon(c flows.ToolCall[WeatherIn, WeatherOut]) error {
	if strings.EqualFold(c.Input().City, "moon") {
		return errors.New("the moon has no weather: pick a city on Earth")
	}
	return nil
}
