// Command testupstream is the MCP server the gateway's tests mount: a plain
// go-sdk server whose tools exercise what a gateway must pass through
// (progress, logging, cancellation, sampling, elicitation, roots and
// their changes, list changes, headers) and fail the ways an upstream fails (an isError result, a
// protocol error, a process that dies mid-call, a call never answered).
//
// Over stdio by default; with -http it listens on 127.0.0.1 (a free port)
// and prints "listening <url>" on stdout.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

func main() {
	httpMode := flag.Bool("http", false, "serve streamable HTTP on a free loopback port instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: stateless streamable HTTP")
	token := flag.String("token", "", "with -http: require this bearer token")
	addr := flag.String("addr", "127.0.0.1:0", "with -http: the address to listen on")
	noResources := flag.Bool("noresources", false, "serve no resources, templates or prompts")
	header := flag.String("header", "", "with -http: require this header on every request, as name=value")
	perSession := flag.Bool("persession", false, "with -http: a server of its own for each session, as servers whose tools depend on the client have")
	instructions := flag.String("instructions", "", "the instructions the server gives its clients at initialization")
	tasks := flag.Bool("tasks", false, "over stdio: serve a tool research that must be called as a task")
	early := flag.Bool("early", false, "with -http: say the tools changed before answering initialize")
	flag.Parse()

	s := newServer(!*noResources, *instructions)
	if !*httpMode {
		var t mcp.Transport = &mcp.StdioTransport{}
		if *tasks {
			mcp.AddTool(s, &mcp.Tool{Name: "research", Description: "Must be called as a task."},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
					return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "research requires task augmentation"}
				})
			t = &mcp.IOTransport{Reader: os.Stdin, Writer: taskWriter{os.Stdout}}
		}
		if err := s.Run(context.Background(), t); err != nil {
			log.Fatal(err)
		}
		return
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		if *perSession {
			return newServer(!*noResources, *instructions)
		}
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: *stateless})
	if *token != "" {
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+*token {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	if *early {
		h = earlyListChanged(h)
	}
	if name, value, ok := strings.Cut(*header, "="); ok {
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(name) != value {
				http.Error(w, "missing header "+name, http.StatusBadRequest)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening http://%s/mcp\n", ln.Addr())
	log.Fatal(framework.NewHTTPServer("", h).Serve(ln))
}

type text struct {
	Text string `json:"text,omitempty"`
}

type empty struct{}

// samplingParams asks the client to sample text.
func samplingParams(text string) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{MaxTokens: 10,
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}
}

// sample asks the client of ss to sample text and returns "sampled: " and
// the client's text.
func sample(ctx context.Context, ss *mcp.ServerSession, text string) (*mcp.CallToolResult, error) {
	res, err := ss.CreateMessage(ctx, samplingParams(text))
	if err != nil {
		return nil, err
	}
	tc, _ := res.Content.(*mcp.TextContent)
	if tc == nil {
		return result("sampled: (no text)"), nil
	}
	return result("sampled: %s", tc.Text), nil
}

// fileText names files that tests create to order calls, and a text.
type fileText struct {
	Path  string `json:"path"`
	Ready string `json:"ready,omitempty"`
	Text  string `json:"text,omitempty"`
}

// waitFile waits until the file at path exists, for at most a minute.
func waitFile(ctx context.Context, path string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not appear in a minute", path)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func result(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func newServer(resources bool, instructions string) *mcp.Server {
	roots := &rootsLog{seen: map[*mcp.ServerSession]string{}, changes: map[*mcp.ServerSession]int{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions:            instructions,
		RootsListChangedHandler: roots.changed,
		SubscribeHandler:        func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler:      func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "-done"}}}, nil
		},
	})
	rec := &receivedLog{}
	s.AddReceivingMiddleware(rec.middleware)
	addSamplingOnly(s)
	addInspectTools(s, rec)
	addResultTools(s)
	addProgressTools(s)
	addLifeTools(s)
	addClientTools(s)
	addRootsTools(s, roots)
	addListChangers(s)
	if resources {
		addResources(s)
	}
	return s
}

// rootsLog holds, per session, what roots/list answered after the
// client's last notifications/roots/list_changed, and how many came.
type rootsLog struct {
	mu      sync.Mutex
	seen    map[*mcp.ServerSession]string
	changes map[*mcp.ServerSession]int
}

// changed asks the client for its roots when it says they changed.
func (l *rootsLog) changed(_ context.Context, req *mcp.RootsListChangedRequest) {
	// Over HTTP, the notification's context would send roots/list
	// on the notification's POST, which ends at once.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := req.Session.ListRoots(ctx, nil)
	var uris []string
	if err != nil {
		uris = []string{"error: " + err.Error()}
	} else {
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changes[req.Session]++
	l.seen[req.Session] = strings.Join(uris, ",")
}

// String says how many changes ss's client announced, and its roots after
// the last: "2: file:///a,file:///b".
func (l *rootsLog) String(ss *mcp.ServerSession) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%d: %s", l.changes[ss], l.seen[ss])
}

// receivedLog holds every request and notification the server read, as
// its method and JSON params: what its client told it.
type receivedLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *receivedLog) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		params, _ := json.Marshal(req.GetParams())
		l.mu.Lock()
		l.msgs = append(l.msgs, method+" "+string(params))
		l.mu.Unlock()
		return next(ctx, method, req)
	}
}

// String lists what the server read, one message a line.
func (l *receivedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "\n")
}

// addSamplingOnly adds the tool offered only to clients that sample.
func addSamplingOnly(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "sampling_only", Description: "Offered to clients that declare sampling."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return result("for a client that samples"), nil, nil
		})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if samples(req) {
				return next(ctx, method, req)
			}
			switch p := req.GetParams().(type) {
			case *mcp.CallToolParamsRaw:
				if p.Name == "sampling_only" {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}
				}
			case *mcp.ListToolsParams:
				res, err := next(ctx, method, req)
				if l, ok := res.(*mcp.ListToolsResult); ok {
					l.Tools = slices.DeleteFunc(slices.Clone(l.Tools), func(t *mcp.Tool) bool { return t.Name == "sampling_only" })
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	})
}

// addInspectTools adds the tools that say what the process is and saw.
func addInspectTools(s *mcp.Server, rec *receivedLog) {
	mcp.AddTool(s, &mcp.Tool{Name: "environ", Description: "Says the process's environment, one KEY=value a line."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return result("%s", strings.Join(os.Environ(), "\n")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "received", Description: "Says every request and notification the server read, with its params, one a line."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return result("%s", rec.String()), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Says the process's ID.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return result("%d", os.Getpid()), nil, nil
		})
}

// addResultTools adds the tools that answer at once, well or not.
func addResultTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its arguments as JSON."},
		func(_ context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
			return result("%s", req.Params.Arguments), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails with an isError result."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			r := result("it failed")
			r.IsError = true
			return r, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "reject", Description: "Fails with protocol error -32042.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32042, Message: "rejected upstream"}
		})
}

// addProgressTools adds the tools that report progress and log.
func addProgressTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress 1/3, 2/3, 3/3."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= 3 && tok != nil; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3}); err != nil {
					return nil, nil, err
				}
			}
			return result("done"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Reports progress n times, every ms milliseconds (when the call has a progress token), then says done."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			N  int `json:"n"`
			MS int `json:"ms"`
		}) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= in.N; i++ {
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-time.After(time.Duration(in.MS) * time.Millisecond):
				}
				if tok != nil {
					if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.N)}); err != nil {
						return nil, nil, err
					}
				}
			}
			return result("done"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "flood", Description: "Reports progress n times (1/n to n/n) and logs n messages, interleaved, as fast as it can; each carries a text of size bytes."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			N    int `json:"n"`
			Size int `json:"size"`
		}) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			pad := strings.Repeat("x", in.Size)
			for i := 1; i <= in.N; i++ {
				if tok != nil {
					if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.N), Message: pad}); err != nil {
						return nil, nil, err
					}
				}
				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "upstream", Data: pad}); err != nil {
					return nil, nil, err
				}
			}
			return result("flooded %d", in.N), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Logs two messages."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			for _, m := range []string{"first", "second"} {
				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "upstream", Data: m}); err != nil {
					return nil, nil, err
				}
			}
			return result("logged"), nil, nil
		})
}

// addLifeTools adds the tools that wait, hang, break the stream or die.
func addLifeTools(s *mcp.Server) {
	var cancelled atomic.Int64
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Reports progress 0, then waits until the call is cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 0})
			}
			<-ctx.Done()
			cancelled.Add(1)
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cancelled", Description: "Says how many wait calls were cancelled."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return result("%d", cancelled.Load()), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage", Description: "Writes a line that is not JSON-RPC to standard output mid-call, then never answers."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stdout, "this is not JSON-RPC")
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "die", Description: "Kills the server process mid-call."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "upstream: dying on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
}

// addClientTools adds the tools that ask the client: sampling and
// elicitation.
func addClientTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Asks the client to sample a message."},
		func(ctx context.Context, req *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			res, err := sample(ctx, req.Session, in.Text)
			return res, nil, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "elicit", Description: "Asks the user for a name."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, nil, err
			}
			return result("%s %v", res.Action, res.Content["name"]), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample_when", Description: "Creates the file at ready, waits until the file at path exists, then asks the client to sample its text."},
		func(ctx context.Context, req *mcp.CallToolRequest, in fileText) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(in.Ready, nil, 0o600); err != nil {
				return nil, nil, err
			}
			if err := waitFile(ctx, in.Path); err != nil {
				return nil, nil, err
			}
			res, err := sample(ctx, req.Session, in.Text)
			return res, nil, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "wait_file", Description: "Creates the file at ready, then waits until the file at path exists."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in fileText) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(in.Ready, nil, 0o600); err != nil {
				return nil, nil, err
			}
			if err := waitFile(ctx, in.Path); err != nil {
				return nil, nil, err
			}
			return result("ok"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "elicit_url", Description: "Sends the user to a URL, then says the elicitation completed."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "sign in",
				URL: "https://auth.invalid/consent", ElicitationID: "consent-1"})
			if err != nil {
				return nil, nil, err
			}
			if res.Action == "accept" {
				if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "consent-1"}); err != nil {
					return nil, nil, err
				}
			}
			return result("url %s", res.Action), nil, nil
		})
}

// addRootsTools adds the tools that read the client's roots, and one
// that talks to the client every way at once.
func addRootsTools(s *mcp.Server, roots *rootsLog) {
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists the client's roots."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return result("roots: %s", strings.Join(uris, ",")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots_seen", Description: "Says how many roots/list_changed this session heard, and the roots listed after the last."},
		func(_ context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			return result("%s", roots.String(req.Session)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "chat", Description: "Logs its text, reports progress with it as message, asks the client to sample it, reports progress again."},
		func(ctx context.Context, req *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "upstream", Data: in.Text}); err != nil {
				return nil, nil, err
			}
			if tok != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: in.Text}); err != nil {
					return nil, nil, err
				}
			}
			res, err := req.Session.CreateMessage(ctx, samplingParams(in.Text))
			if err != nil {
				return nil, nil, err
			}
			if tok != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 2, Total: 2, Message: in.Text}); err != nil {
					return nil, nil, err
				}
			}
			tc, _ := res.Content.(*mcp.TextContent)
			if tc == nil {
				return result("chat %s: (no text)", in.Text), nil, nil
			}
			return result("chat %s: %s", in.Text, tc.Text), nil, nil
		})
}

// addListChangers adds the tools that change the server's lists.
func addListChangers(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "add_prompt", Description: "Adds a prompt named after its text, and removes greet."},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			s.AddPrompt(&mcp.Prompt{Name: in.Text, Description: "Added at run time."},
				func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "added"}}}}, nil
				})
			s.RemovePrompts("greet")
			return result("ok"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_resource", Description: "Adds a resource whose URI is its text, and removes test://hello."},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			s.AddResource(&mcp.Resource{URI: in.Text, Name: "added", MIMEType: "text/plain"},
				func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "added"}}}, nil
				})
			s.RemoveResources("test://hello")
			return result("ok"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Adds a tool named after its text, and removes echo."},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			s.AddTool(&mcp.Tool{Name: in.Text, Description: "Added at run time.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return result("added"), nil })
			s.RemoveTools("echo")
			return result("ok"), nil, nil
		})
}

// addResources adds a resource, a template, a prompt and the tool that
// says the resource was updated.
func addResources(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "Says test://hello was updated."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			return result("touched"), nil, s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://hello"})
		})

	s.AddResource(&mcp.Resource{URI: "test://hello", Name: "hello", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://item/{id}", Name: "item", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "item " + req.Params.URI}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["name"]}}}}, nil
		})
}

// samples reports whether the client that sent req declares sampling.
func samples(req mcp.Request) bool {
	r, ok := req.(interface {
		ClientCapabilities() *mcp.ClientCapabilities
	})
	if !ok {
		return false
	}
	caps := r.ClientCapabilities()
	return caps != nil && caps.Sampling != nil
}
