package framework_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/internal/difftest"
)

// differencesHeading is the section of docs/conformance.md whose table
// lists the deliberate differences between the two transports.
const differencesHeading = "What a client sees on hookflow that it would not see on go-sdk"

// TestTransportsDiffer sends the corpus testdata/transports.jsonl to the
// same server on hookflow's transport and on the SDK's handler, stateful
// and stateless, and fails on a difference docs/conformance.md does not
// list, or on a listed one that is gone (see internal/difftest).
func TestTransportsDiffer(t *testing.T) {
	cases, err := difftest.Load("testdata/transports.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	diffTarget(t).Run(t, cases)
}

func diffTarget(t testing.TB) *difftest.Target {
	rows, err := difftest.LoadRows("../docs/conformance.md", differencesHeading)
	if err != nil {
		t.Fatal(err)
	}
	return &difftest.Target{Handlers: diffHandlers, Rows: rows}
}

// diffHandlers returns the SDK's handler and hookflow's, each on a server
// of its own built alike: the test entities and a hook on every stage of
// every flow ("" server), or the echo tool alone ("bare": no resources,
// prompts, subscriptions or completions). The SDK's is
// mcp.NewStreamableHTTPHandler around the server's *mcp.Server, as a
// program using the SDK alone would build it.
func diffHandlers(t testing.TB, kind string, stateless bool) (sdk, hookflow http.Handler) {
	t.Helper()
	opts := &mcp.StreamableHTTPOptions{Stateless: stateless}
	build := func() *framework.Server {
		srv := framework.NewServer(&mcp.Implementation{Name: "diff", Version: "1"}, nil)
		switch kind {
		case "bare":
			if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "echo", Description: "echoes its text"},
				func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (echoOut, error) {
					return echoOut{Echo: in.Text}, nil
				}); err != nil {
				t.Fatal(err)
			}
		case "":
			addEntities(t, srv)
			if err := srv.Hook(recordingHooks(&recorder{})...); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("no server %q", kind)
		}
		return srv
	}
	s1 := build()
	if err := s1.Start(); err != nil {
		t.Fatal(err)
	}
	sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s1.SDK() }, opts)
	hookflow, err := build().HTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	return sdk, hookflow
}
