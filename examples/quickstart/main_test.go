package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/plugins/otel"
	"github.com/hookflow/hookflow/plugins/otel/otelsetup"
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

// With -otel the demo's runs are traced: every tool call is a server span
// named after the tool, parented to nothing, with its hooks as children.
func TestDemoTraced(t *testing.T) {
	var spans bytes.Buffer
	prov, err := otelsetup.Stdout(&spans, otelsetup.StdoutConfig{Compact: true, ServiceName: "quickstart"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runDemo(context.Background(), &out, otel.New(otel.Config{TracerProvider: prov.TracerProvider, MeterProvider: prov.MeterProvider})); err != nil {
		t.Fatal(err)
	}
	if err := prov.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	dec := json.NewDecoder(&spans)
	for dec.More() {
		var rec struct{ Name string }
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		names[rec.Name]++
	}
	for name, n := range map[string]int{
		"tools/call get_weather": 4, "tools/call add": 2, "tools/call set_forecast": 1, "tools/list": 1,
		"beforeExecute github.com/hookflow/hookflow/examples/quickstart.GetWeather/tools:call-tool/beforeExecute/RejectMoon": 3,
	} {
		if names[name] < n {
			t.Errorf("%d spans %q, want at least %d (all: %v)", names[name], name, n, names)
		}
	}
}
