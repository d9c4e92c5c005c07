package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/engine"
)

// BenchmarkGenerate measures hookgen's whole path, load → analyze → render
// (and the comparison with the file on disk), on a synthetic package of N
// tools with three embedded hooks each, with a warm build cache:
//
//	go test ./cmd/hookgen -run '^$' -bench BenchmarkGenerate -count 6
//
// Besides ns/op it reports the phases: list (go list, only for ./...
// patterns), types (go list -export plus parsing and type-checking),
// analyze and render, in ms/op.
func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			dir := newModule(b, syntheticPackage(n))
			opts := engine.Options{Dir: dir, Env: goEnv()}
			// Warm up: the first load compiles the dependencies' export data.
			res, err := engine.Run(opts)
			if err != nil {
				b.Fatal(err)
			}
			if res.HasErrors() || res.HasLoadErrors() || len(res.Packages) != 1 || res.Packages[0].New == nil {
				b.Fatalf("synthetic package does not generate: %+v", res.Diags)
			}
			if _, err := res.Write(); err != nil {
				b.Fatal(err)
			}
			var list, types, analyze, render time.Duration
			b.ResetTimer()
			for b.Loop() {
				res, err := engine.Run(opts)
				if err != nil {
					b.Fatal(err)
				}
				if res.Packages[0].Stale() {
					b.Fatal("output changed between runs")
				}
				list += res.Stats.List
				types += res.Stats.Types
				analyze += res.Stats.Analyze
				render += res.Stats.Render
			}
			per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
			b.ReportMetric(per(list), "list-ms/op")
			b.ReportMetric(per(types), "types-ms/op")
			b.ReportMetric(per(analyze), "analyze-ms/op")
			b.ReportMetric(per(render), "render-ms/op")
		})
	}
}

// syntheticPackage returns the files of a package with n tools, each with
// its own input and output types, a constructor for every other tool, and
// three embedded hooks; 50 tools per file.
func syntheticPackage(n int) map[string][]byte {
	files := map[string][]byte{}
	const perFile = 50
	for f := 0; f*perFile < n; f++ {
		var b strings.Builder
		b.WriteString(`package synth

import (
	"context"

	"github.com/hookflow/hookflow/flows"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)
`)
		for i := f * perFile; i < min(n, (f+1)*perFile); i++ {
			fmt.Fprintf(&b, `
type In%[1]d struct {
	Query string `+"`json:\"query\"`"+`
	Limit int    `+"`json:\"limit,omitempty\"`"+`
}

type Out%[1]d struct {
	Items []string `+"`json:\"items\"`"+`
}

// Tool%[1]d is synthetic tool number %[1]d.
//
//mcp:tool name=tool_%[1]d readonly
type Tool%[1]d struct{ calls int }
`, i)
			if i%2 == 0 {
				fmt.Fprintf(&b, "\nfunc NewTool%[1]d() *Tool%[1]d { return &Tool%[1]d{} }\n", i)
			}
			fmt.Fprintf(&b, `
func (t *Tool%[1]d) Execute(ctx context.Context, req *mcp.CallToolRequest, in In%[1]d) (Out%[1]d, error) {
	t.calls++
	return Out%[1]d{Items: []string{in.Query}}, nil
}

//hook:beforeValidation
func (t *Tool%[1]d) Normalize(c flows.ToolCall[In%[1]d, Out%[1]d]) error { return nil }

//hook:beforeExecute priority=%[2]d
func (t *Tool%[1]d) Check(c flows.ToolCall[In%[1]d, Out%[1]d]) error { return nil }

//hook:afterExecute
func (t *Tool%[1]d) Trim(c flows.ToolCall[In%[1]d, Out%[1]d]) error { return nil }
`, i, i%5)
		}
		files[fmt.Sprintf("tools%03d.go", f)] = []byte(b.String())
	}
	return files
}
