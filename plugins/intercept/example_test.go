package intercept_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
)

// A host serves a policy validator and an e-mail redactor over HTTP; a
// hookflow server runs them on every tool call.
func Example() {
	email := regexp.MustCompile(`[\w.]+@[\w.]+`)
	policy := host.Validator(host.Spec{Name: "policy", Events: []string{"tools/call"}},
		func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
			if strings.Contains(string(inv.Params()), "rm -rf") {
				return host.Deny("destructive command"), nil
			}
			return host.Allow(), nil
		})
	redact := host.Mutator(host.Spec{Name: "redact", Events: []string{"tools/call"}, Phases: host.OnBoth},
		func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
			out := email.ReplaceAll(inv.Payload, []byte("[email]"))
			if string(out) == string(inv.Payload) {
				return host.Unchanged(), nil
			}
			return host.Replace(out), nil
		})
	h, err := host.Handler(host.Config{Interceptors: []host.Interceptor{policy, redact}}, host.Serve{Verify: host.Token("s3cret")})
	if err != nil {
		panic(err)
	}
	guard := httptest.NewServer(h)
	defer guard.Close()

	srv := framework.NewServer(&mcp.Implementation{Name: "shell"}, nil)
	type In struct {
		Command string `json:"command"`
	}
	err = framework.AddToolFunc(srv, &mcp.Tool{Name: "run", Description: "runs a command"},
		func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran: " + in.Command}}}, nil
		})
	if err != nil {
		panic(err)
	}
	p := intercept.New(intercept.Config{Servers: []intercept.Server{{Name: "guard", URL: guard.URL, Token: "s3cret"}}})
	defer p.Close()
	if err := srv.Use(p); err != nil {
		panic(err)
	}
	// Start attaches the plugin: it connects to the host, lists its
	// interceptors and registers their hooks.
	if err := srv.Start(); err != nil {
		panic(err)
	}
	for _, st := range p.Plan() {
		if st.Flow == "tools:call-tool" {
			fmt.Println("plan:", st.Phase, st.Hook, st.Type)
		}
	}

	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, cmd := range []string{"mail bob@example.com", "rm -rf /"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"command": cmd}})
		if err != nil {
			panic(err)
		}
		b, _ := json.Marshal(res.Content)
		fmt.Printf("%s → isError=%v %s\n", cmd, res.IsError, b)
	}
	// Output:
	// plan: request guard:policy validation
	// plan: request guard:redact mutation
	// plan: response guard:redact mutation
	// mail bob@example.com → isError=false [{"type":"text","text":"ran: mail [email]"}]
	// rm -rf / → isError=true [{"type":"text","text":"the request was blocked by an interceptor"}]
}
