package main

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/auth/oauth"
)

// WhoAmIIn is the input of whoami: nothing.
type WhoAmIIn struct{}

// WhoAmIOut is the caller, as its access token says.
type WhoAmIOut struct {
	Subject  string   `json:"subject"`
	ClientID string   `json:"client_id"`
	Scopes   []string `json:"scopes"`
}

// WhoAmI tells the caller who the server thinks it is: the subject, client
// and scopes of its access token.
//
//mcp:tool name=whoami readonly
type WhoAmI struct{}

// Execute reads the principal the resource server verified.
func (WhoAmI) Execute(ctx context.Context, req *mcp.CallToolRequest, in WhoAmIIn) (WhoAmIOut, error) {
	p, ok := oauth.PrincipalOf(req.Extra.TokenInfo)
	if !ok {
		return WhoAmIOut{}, errors.New("this call carries no verified access token")
	}
	return WhoAmIOut{Subject: p.Subject, ClientID: p.ClientID, Scopes: p.Scopes}, nil
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

// SetForecast overrides the forecast of a city. It needs the weather.admin
// scope, which clients do not ask for at first: calling it with a token
// that lacks it gets 403 naming the scope, and the client steps up.
//
//mcp:tool name=set_forecast destructive scopes=weather.admin
type SetForecast struct{}

// Execute records the override (here: pretends to).
func (SetForecast) Execute(ctx context.Context, req *mcp.CallToolRequest, in ForecastIn) (ForecastOut, error) {
	return ForecastOut{Updated: true}, nil
}
