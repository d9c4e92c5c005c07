package framework_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// TestHTTPTransportParamHeaders checks the Mcp-Param-* headers of
// 2026-07-28 calls (SEP-2243): an argument the tool's
// input schema marks with x-mcp-header must come with its header, equal
// to it, and a header must not come without its argument. The tool is
// added after the server has served a call, so that its checks are not
// compiled before it exists.
func TestHTTPTransportParamHeaders(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"level":{"type":"integer"}}}`)
	type in struct {
		Region string `json:"region,omitempty"`
		Level  int    `json:"level,omitempty"`
	}
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"placed","arguments":` + args + `}}`
	}
	tests := []struct {
		name   string
		args   string
		header string // Mcp-Param-Region; "" sends none
		want   int
	}{
		{"header equals the argument", `{"region":"eu-west"}`, "eu-west", http.StatusOK},
		{"no marked argument, no header", `{"level":3}`, "", http.StatusOK},
		{"header missing", `{"region":"eu-west"}`, "", http.StatusBadRequest},
		{"header differs", `{"region":"eu-west"}`, "us-east", http.StatusBadRequest},
		{"header without its argument", `{"level":3}`, "eu-west", http.StatusBadRequest},
		{"header for a null argument", `{"region":null}`, "eu-west", http.StatusBadRequest},
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "ph", Version: "1"}, nil)
	addEntities(t, srv)
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	headers := func(name, region string) func(*http.Request) {
		return func(r *http.Request) {
			r.Header.Set("Mcp-Method", "tools/call")
			r.Header.Set("Mcp-Name", name)
			if region != "" {
				r.Header.Set("Mcp-Param-Region", region)
			}
		}
	}
	echo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"x"}}}`
	if status, _, _ := rpcPost(t, ts.URL, "", "2026-07-28", echo, headers("echo", "")); status != http.StatusOK {
		t.Fatalf("echo: %d", status)
	}
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "placed", InputSchema: schema}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (echoOut, error) {
		return echoOut{Echo: in.Region}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		status, _, msgs := rpcPost(t, ts.URL, "", "2026-07-28", call(tt.args), headers("placed", tt.header))
		if status != tt.want {
			t.Errorf("%s: %d %+v, want %d", tt.name, status, msgs, tt.want)
		}
	}
}

// TestParamHeadersCompiledOnce keeps the Mcp-Param-* checks of a
// 2026-07-28 call from reading the tool's input schema again on each
// call: a call of a tool with a large schema (41 properties) allocates
// less than twice what one of a tool with a small one (1) does. (Compiled
// on each call, the large one took seven times as many; the SDK's own
// work still grows with the schema.)
func TestParamHeadersCompiledOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "ph", Version: "1"}, nil)
	type in struct {
		Region string `json:"region,omitempty"`
	}
	props := []string{`"region":{"type":"string","x-mcp-header":"Region"}`}
	small := json.RawMessage(`{"type":"object","properties":{` + props[0] + `}}`)
	for i := range 40 {
		props = append(props, `"p`+strconv.Itoa(i)+`":{"type":"object","description":"unrelated","properties":{"q":{"type":"string"}}}`)
	}
	large := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	for name, schema := range map[string]json.RawMessage{"small": small, "large": large} {
		if err := framework.AddToolFunc(srv, &mcp.Tool{Name: name, InputSchema: schema}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (echoOut, error) {
			return echoOut{Echo: in.Region}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(name string) float64 {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"` + name + `","arguments":{"region":"eu"}}}`
		return testing.AllocsPerRun(50, func() {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", name)
			req.Header.Set("Mcp-Param-Region", "eu")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
			}
		})
	}
	smallN, largeN := allocs("small"), allocs("large")
	if largeN >= 2*smallN {
		t.Errorf("a call of a tool with 41 properties: %.0f allocations, with 1: %.0f; want less than twice as many", largeN, smallN)
	}
}
