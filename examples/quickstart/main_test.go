package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The demo is the README's first command: it must show every kind of ending
// and who decided it.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := runDemo(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`result: {"celsius":18,"city":"Paris","description":"light rain"}`,
		"respond  beforeExecute ",
		"GetWeather/tools:call-tool/beforeExecute/AnswerFromCache args=",
		"GetWeather/tools:call-tool/beforeExecute/RejectMoon error=",
		`isError result: no weather station in "Atlantis"`,
		`validating /properties/b`,
		"audit: outcome=blocked decided_by=quickstart/plugin:auth/tools:call-tool/beforeValidation/scopes",
		`result: {"sum":3}`,
		"tools/list without a token: add, get_weather (auth hides set_forecast)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", out.String())
	}
}
