package main

import (
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/internal/difftest"
)

// TestConformanceDiffer replays the MCP conformance suite's traffic,
// recorded by .ci/record-conformance.sh in testdata/conformance.jsonl,
// on the conformance server served by hookflow's transport and by the
// SDK's handler, and fails on a difference the table in
// docs/conformance.md does not list (see internal/difftest).
func TestConformanceDiffer(t *testing.T) {
	cases, err := difftest.Load("testdata/conformance.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := difftest.LoadRows("../../docs/conformance.md", "What a client sees on hookflow that it would not see on go-sdk")
	if err != nil {
		t.Fatal(err)
	}
	tg := &difftest.Target{Rows: rows, Handlers: func(t testing.TB, _ string, stateless bool) (sdk, hookflow http.Handler) {
		opts := &mcp.StreamableHTTPOptions{Stateless: stateless}
		s1, _, err := newServer(nil)
		if err != nil {
			t.Fatal(err)
		}
		sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s1.SDK() }, opts)
		s2, _, err := newServer(nil)
		if err != nil {
			t.Fatal(err)
		}
		if hookflow, err = s2.HTTPHandler(opts); err != nil {
			t.Fatal(err)
		}
		return sdk, hookflow
	}}
	tg.Run(t, cases)
}
