package framework_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
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

// FuzzTransports sends the same POST (body, MCP-Protocol-Version, Accept,
// Content-Type, Mcp-Method) to the stateless server on hookflow's
// transport and on the SDK's handler, in-process, and fails when they
// disagree on the status class, the media type or the JSON-RPC error
// codes, unless a row of the table of differences accounts for it (any
// answer of the SDK's, for version-refused). It is seeded with the POSTs
// of testdata/transports.jsonl.
func FuzzTransports(f *testing.F) {
	cases, err := difftest.Load("testdata/transports.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	header := func(s difftest.Step, name, def string) string {
		if v, ok := s.Headers[name]; ok {
			if v == nil {
				return ""
			}
			return *v
		}
		return def
	}
	for _, c := range cases {
		steps := c.Steps
		if len(steps) == 0 {
			steps = []difftest.Step{c.Step}
		}
		for _, s := range steps {
			if s.Method != "" && s.Method != http.MethodPost {
				continue
			}
			body := []byte(s.JSON)
			if s.Body != nil {
				body = []byte(*s.Body)
			}
			f.Add(body, header(s, "Mcp-Protocol-Version", c.Init), header(s, "Accept", "application/json, text/event-stream"),
				header(s, "Content-Type", "application/json"), header(s, "Mcp-Method", ""))
		}
	}
	tg := diffTarget(f)
	sdk, hookflow := diffHandlers(f, "", true)
	f.Fuzz(func(t *testing.T, body []byte, version, accept, ctype, method string) {
		send := func(h http.Handler) *difftest.Outcome {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
			for k, v := range map[string]string{"Mcp-Protocol-Version": version, "Accept": accept, "Content-Type": ctype, "Mcp-Method": method} {
				if v != "" && !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
					req.Header.Set(k, v)
				}
			}
			return difftest.Serve(h, req, nil)
		}
		a, b := send(sdk), send(hookflow)
		// Row version-refused: whatever the SDK answers a version it
		// does not speak (it lets any that sorts after 2026-07-28 through).
		refused := version != "" && !slices.Contains(mcp.SupportedProtocolVersions(), version) &&
			b.Summary() == "400 application/json -32022"
		if !difftest.Agree(a, b) && !refused && !tg.Rows.Explains(a, b) {
			t.Errorf("the transports disagree and no row explains it:\n\tgo-sdk   %v\n\thookflow %v", a, b)
		}
	})
}
