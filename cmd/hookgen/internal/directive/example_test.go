package directive_test

import (
	"fmt"
	"go/token"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
)

func ExampleRegistry_ParseComment() {
	r := registry()
	pos := token.Position{Filename: "weather.go", Line: 12, Column: 1}

	dec, _ := r.ParseComment(`//mcp:tool name=get_weather title="Get weather" readonly scopes=weather:read`, pos)
	tool := dec.Value.(directive.Tool)
	fmt.Println(tool.Name, tool.Title, tool.ReadOnly, tool.Scopes)

	_, diags := r.ParseComment(`//hook:beforeExecute priorty=10 flow=tools:call`, pos)
	for _, d := range diags {
		fmt.Println(d)
	}

	_, diags = r.ParseComment(`// hook:beforeExecute`, pos)
	fmt.Println(diags[0])
	// Output:
	// get_weather Get weather true [weather:read]
	// weather.go:12:22: unknown key "priorty" for //hook:beforeExecute (did you mean "priority"?)
	// weather.go:12:38: unknown flow "tools:call" (did you mean "tools:call-tool"?)
	// weather.go:12:3: warning: not a directive: space after "//" (did you mean "//hook:beforeExecute"?)
}
