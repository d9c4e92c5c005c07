// Command testhost is the interceptor host the intercept plugin's tests run
// as a separate process, over stdio or streamable HTTP. -serve picks its
// interceptors by name from the table in this file; each behaves the same
// way on every request, so that a test can tell from the outcome what ran,
// in which order and whether two ran at once.
//
//	testhost -serve allow,deny                   # stdio
//	testhost -serve meet-a,meet-b -http 127.0.0.1:0 -token s3cret
//
// Over HTTP it prints "listening on <host:port>" on its standard output
// once it accepts connections.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

func main() {
	serve := flag.String("serve", "", "comma-separated names of the interceptors to serve")
	addr := flag.String("http", "", "serve streamable HTTP on this address (stdio when empty)")
	token := flag.String("token", "", "with -http: the bearer token callers need")
	flag.Parse()

	all := interceptors()
	var ics []host.Interceptor
	for _, name := range strings.Split(*serve, ",") {
		ic, ok := all[name]
		if !ok {
			log.Fatalf("testhost: no interceptor %q", name)
		}
		ics = append(ics, ic)
	}
	cfg := host.Config{Interceptors: ics}
	if *addr == "" {
		srv := framework.NewServer(&mcp.Implementation{Name: "testhost"}, nil)
		if err := srv.Use(host.New(cfg)); err != nil {
			log.Fatal(err)
		}
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h, err := host.Handler(cfg, host.Serve{Implementation: &mcp.Implementation{Name: "testhost"}, Verify: host.Token(*token)})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	log.Fatal(framework.NewHTTPServer("", h).Serve(ln))
}

var toolsCall = []string{"tools/call"}

// interceptors are every interceptor the host can serve, by name.
func interceptors() map[string]host.Interceptor {
	m := map[string]host.Interceptor{
		"allow": host.Validator(host.Spec{Name: "allow", Events: []string{"*"}, Phases: host.OnBoth},
			func(context.Context, *host.Invocation) (host.Verdict, error) { return host.Allow(), nil }),
		"deny": host.Validator(host.Spec{Name: "deny", Events: toolsCall},
			func(context.Context, *host.Invocation) (host.Verdict, error) {
				return host.Deny("denied by policy"), nil
			}),
		"deny-results": host.Validator(host.Spec{Name: "deny-results", Events: toolsCall, Phases: host.OnResponse},
			func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
				if strings.Contains(string(inv.Payload), "SECRET") {
					return host.Deny("the result holds a secret"), nil
				}
				return host.Allow(), nil
			}),
		"warn": host.Validator(host.Spec{Name: "warn", Events: toolsCall},
			func(context.Context, *host.Invocation) (host.Verdict, error) { return host.Warn("looks odd"), nil }),
		"audit-deny": host.Validator(host.Spec{Name: "audit-deny", Events: toolsCall, Audit: true},
			func(context.Context, *host.Invocation) (host.Verdict, error) { return host.Deny("would deny"), nil }),
		// context warns with the invocation's context as JSON: the
		// invoker's audit event records what the host received.
		"context": host.Validator(host.Spec{Name: "context", Events: toolsCall},
			func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
				b, err := json.Marshal(inv.Context)
				return host.Warn(string(b)), err
			}),
		"meet-a": meet("meet-a", "meet-b"),
		"meet-b": meet("meet-b", "meet-a"),
		// crash exits the process in the middle of an invocation.
		"crash": host.Validator(host.Spec{Name: "crash", Events: toolsCall},
			func(context.Context, *host.Invocation) (host.Verdict, error) {
				os.Exit(3)
				return host.Allow(), nil
			}),
		"crash-mutator": host.Mutator(host.Spec{Name: "crash-mutator", Events: toolsCall, Phases: host.OnBoth, PriorityHint: wire.Hint(100)},
			func(context.Context, *host.Invocation) (host.Mutation, error) {
				os.Exit(3)
				return host.Unchanged(), nil
			}),
		// sleep never answers before the invocation's timeout.
		"sleep": host.Validator(host.Spec{Name: "sleep", Events: toolsCall},
			func(ctx context.Context, _ *host.Invocation) (host.Verdict, error) {
				select {
				case <-ctx.Done():
				case <-time.After(time.Minute):
				}
				return host.Allow(), nil
			}),
		"fail": host.Mutator(host.Spec{Name: "fail", Events: toolsCall, Phases: host.OnBoth, PriorityHint: wire.Hint(50)},
			func(context.Context, *host.Invocation) (host.Mutation, error) {
				return host.Mutation{}, fmt.Errorf("backend unavailable")
			}),
		// rename changes the tool a call names: a bad answer.
		"rename": host.Mutator(host.Spec{Name: "rename", Events: toolsCall},
			func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
				var req map[string]any
				if err := json.Unmarshal(inv.Payload, &req); err != nil {
					return host.Mutation{}, err
				}
				params, _ := req["params"].(map[string]any)
				params["name"] = "other-" + fmt.Sprint(params["name"])
				b, err := json.Marshal(req)
				return host.Replace(b), err
			}),
		"upper": host.Mutator(host.Spec{Name: "upper", Events: toolsCall, Phases: host.OnBoth},
			func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
				return editText(inv, strings.ToUpper)
			}),
		"audit-upper": host.Mutator(host.Spec{Name: "audit-upper", Events: toolsCall, Phases: host.OnBoth, Audit: true},
			func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
				return editText(inv, strings.ToUpper)
			}),
	}
	// tag-<x> appends "+<x>" to the text: the order of the tags in the text
	// is the order the mutators ran in. Their hints: c -10, a 0, b 0, d 7.
	for _, t := range []struct {
		name string
		hint int32
	}{{"tag-a", 0}, {"tag-b", 0}, {"tag-c", -10}, {"tag-d", 7}} {
		suffix := "+" + strings.TrimPrefix(t.name, "tag-")
		m[t.name] = host.Mutator(host.Spec{Name: t.name, Events: toolsCall, Phases: host.OnBoth, PriorityHint: wire.Hint(t.hint)},
			func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
				return editText(inv, func(s string) string { return s + suffix })
			})
	}
	return m
}

// editText applies edit to the "text" argument of a tools/call request, or
// to the text content of its result.
func editText(inv *host.Invocation, edit func(string) string) (host.Mutation, error) {
	if inv.Phase == wire.Request {
		var req struct {
			Method string `json:"method"`
			Params struct {
				Meta      map[string]any `json:"_meta,omitempty"`
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(inv.Payload, &req); err != nil {
			return host.Mutation{}, err
		}
		text, _ := req.Params.Arguments["text"].(string)
		req.Params.Arguments["text"] = edit(text)
		b, err := json.Marshal(req)
		return host.Replace(b), err
	}
	var res map[string]any
	if err := json.Unmarshal(inv.Payload, &res); err != nil {
		return host.Mutation{}, err
	}
	if sc, ok := res["structuredContent"].(map[string]any); ok {
		// A structured result: edit its text field, and send the same JSON
		// as the text content, as tools with structured output do.
		s, _ := sc["text"].(string)
		sc["text"] = edit(s)
		b, err := json.Marshal(sc)
		if err != nil {
			return host.Mutation{}, err
		}
		res["content"] = []any{map[string]any{"type": "text", "text": string(b)}}
	} else if content, ok := res["content"].([]any); ok {
		for _, c := range content {
			if tc, ok := c.(map[string]any); ok && tc["type"] == "text" {
				s, _ := tc["text"].(string)
				tc["text"] = edit(s)
			}
		}
	}
	b, err := json.Marshal(res)
	return host.Replace(b), err
}

// meetings pairs the arrivals of meet-a and meet-b for one request (its
// trace ID).
var meetings sync.Map // trace ID → chan struct{}

// meet returns a validator that waits, for up to ten seconds, until other
// has started for the same request: both pass only when the invoker runs
// them at the same time. Run one after the other, the first waits in vain
// and denies.
func meet(name, other string) host.Interceptor {
	return host.Validator(host.Spec{Name: name, Events: toolsCall},
		func(ctx context.Context, inv *host.Invocation) (host.Verdict, error) {
			trace := ""
			if inv.Context != nil {
				trace = inv.Context.TraceID
			}
			ch, loaded := meetings.LoadOrStore(trace, make(chan struct{}))
			if loaded {
				close(ch.(chan struct{})) // the other one is waiting
				return host.Allow(), nil
			}
			select {
			case <-ch.(chan struct{}):
				return host.Allow(), nil
			case <-time.After(10 * time.Second):
				return host.Deny(name + " ran alone: " + other + " did not start while it waited"), nil
			case <-ctx.Done():
				return host.Verdict{}, ctx.Err()
			}
		})
}
