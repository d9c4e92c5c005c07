package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/console"
	"github.com/hookflow/hookflow/stages"
)

// Behind the auth plugin's kind of handler (the SDK's bearer middleware),
// a verified token with the console's scope opens it; one without the
// scope gets 403; the console needs no token of its own then.
func TestScope(t *testing.T) {
	c := console.New(console.Config{Scope: "ops:console"})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{c}})
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	verify := func(_ context.Context, tok string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		exp := time.Now().Add(time.Hour)
		switch tok {
		case "operator":
			return &sdkauth.TokenInfo{UserID: "op", Scopes: []string{"ops:console"}, Expiration: exp}, nil
		case "agent":
			return &sdkauth.TokenInfo{UserID: "agent", Scopes: []string{"mcp"}, Expiration: exp}, nil
		}
		return nil, sdkauth.ErrInvalidToken
	}
	ts := httptest.NewServer(sdkauth.RequireBearerToken(verify, nil)(c.Handler()))
	defer ts.Close()
	for _, tc := range []struct {
		token string
		want  int
	}{{"operator", http.StatusOK}, {"agent", http.StatusForbidden}, {"", http.StatusUnauthorized}} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/console/", nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("token %q: %d, want %d", tc.token, resp.StatusCode, tc.want)
		}
	}
}

// With Config.Addr the console serves on a listener of its own, behind
// its token, until Close.
func TestOwnListener(t *testing.T) {
	c := console.New(console.Config{Addr: "127.0.0.1:0", Token: token, Path: "/ops"})
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{c}})
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	url := "http://" + c.Addr().String() + "/ops/rates"
	status := func(tok string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return -1
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(""); got != http.StatusUnauthorized {
		t.Errorf("without the token: %d", got)
	}
	if got := status(token); got != http.StatusOK {
		t.Errorf("with the token: %d", got)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := status(token); got != -1 {
		t.Errorf("after Close: %d, want no answer", got)
	}
}

// A run whose context carries a span links to its trace by TraceURL.
func TestTraceLink(t *testing.T) {
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	tid, _ := trace.TraceIDFromHex(traceID)
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	tracer := framework.NewPlugin("tracer", func(pc *framework.PluginContext) error {
		return pc.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "span", Fn: func(c *flows.Context) error {
			c.SetContext(trace.ContextWithSpanContext(c.Context(), sc))
			return nil
		}})
	})
	c := console.New(console.Config{Token: token, TraceURL: "http://jaeger:16686/trace/{trace_id}"})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{c, tracer}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "x"})
	ts := plugintest.NewHTTPServer(t, c.Handler())
	list := waitFor(t, ts, "/console/?tool=echo", `data-seq="`)
	i := strings.Index(list, `href="/console/runs/`)
	link := list[i+len(`href="`):]
	_, run := get(t, ts, link[:strings.IndexByte(link, '"')])
	if want := `<a href="http://jaeger:16686/trace/` + traceID + `">` + traceID + `</a>`; !strings.Contains(run, want) {
		t.Errorf("no trace link %s:\n%s", want, run)
	}
}

// The upstreams page shows the readiness report at HealthURL, a 503's
// too, a row per upstream with the gateway's fields first and any other
// after; an endpoint that answers no report is said so.
func TestUpstreamsPage(t *testing.T) {
	report := `{"status":"degraded","upstreams":[
		{"name":"files","state":"up","since":"2026-11-24T09:30:00Z","reconnects":0,"dropped":0,"sessions":3},
		{"name":"search","state":"down","since":"2026-11-24T09:41:07Z","error":"connection refused","reconnects":2,"dropped":120}]}`
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/broken" {
			io.WriteString(w, "<html>not json</html>")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, report)
	}))
	defer health.Close()
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/ready", []string{
			`<span class="badge u-degraded">degraded</span>`,
			`<th scope="col">name</th><th scope="col">state</th><th scope="col">since</th><th scope="col">error</th><th scope="col">dropped</th><th scope="col">reconnects</th><th scope="col">sessions</th>`,
			`<tr><td>files</td><td>up</td><td>2026-11-24T09:30:00Z</td><td></td><td>0</td><td>0</td><td>3</td></tr>`,
			`<tr><td>search</td><td>down</td><td>2026-11-24T09:41:07Z</td><td>connection refused</td><td>120</td><td>2</td><td></td></tr>`,
		}},
		{"/broken", []string{`role="alert">the readiness endpoint answered 200 OK, not a health report`}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			_, _, ts := newConsole(t, console.Config{HealthURL: health.URL + tc.path})
			_, body := get(t, ts, "/console/upstreams")
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("no %s in:\n%s", w, body)
				}
			}
		})
	}
}

// reporter is a flows.HealthReporter with a fixed report.
type reporter flows.HealthReport

func (r reporter) HealthReport() flows.HealthReport { return flows.HealthReport(r) }

// In process, the upstreams page shows Config.Health's report, a row per
// upstream under the endpoint report's columns; a report with none says
// so.
func TestUpstreamsPageInProcess(t *testing.T) {
	since := time.Date(2026, 11, 24, 10, 41, 7, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name string
		rep  flows.HealthReport
		want []string
	}{
		{"degraded", flows.HealthReport{Status: "degraded", Upstreams: []flows.UpstreamHealth{
			{Name: "files", State: "up", Since: since},
			{Name: "search", State: "down", Since: since, Error: "connection <refused>", Reconnects: 2, Dropped: 120},
		}}, []string{
			`<span class="badge u-degraded">degraded</span>`,
			`<th scope="col">name</th><th scope="col">state</th><th scope="col">since</th><th scope="col">error</th><th scope="col">dropped</th><th scope="col">reconnects</th></tr>`,
			`<tr><td>files</td><td>up</td><td>2026-11-24T09:41:07Z</td><td></td><td>0</td><td>0</td></tr>`,
			`<tr><td>search</td><td>down</td><td>2026-11-24T09:41:07Z</td><td>connection &lt;refused&gt;</td><td>120</td><td>2</td></tr>`,
		}},
		{"starting", flows.HealthReport{Status: "starting"}, []string{
			`<span class="badge u-starting">starting</span>`, "The readiness endpoint reports no upstream.",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, ts := newConsole(t, console.Config{Health: reporter(tc.rep)})
			_, body := get(t, ts, "/console/upstreams")
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("no %s in:\n%s", w, body)
				}
			}
		})
	}
}

// Whatever the path and query, a page answers with a status below 500.
func TestHostileRequests(t *testing.T) {
	_, _, ts := newConsole(t, console.Config{})
	long := strings.Repeat("%F0%9F", 3000)
	for _, path := range []string{
		"/console/runs/abc", "/console/runs/0", "/console/runs/-1", "/console/runs/99999999999999999999999",
		"/console/plan?flow=%00", "/console/plan?flow=" + long, "/console/plan?flow=prompts:get-prompt&entity=" + long,
		"/console/plan?flow=session:initialize&entity=x", "/console/?outcome=" + long + "&tool=%FF",
		"/console/static/v1/../../../etc/passwd", "/console/static/v0/console.js", "/console/nothing",
		"/console/upstreams", "/console/rates?window=-1",
	} {
		code, body := get(t, ts, path)
		if code >= 500 {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}

// A prompt's arguments are shown redacted, a resource's URI as read.
func TestPromptAndResource(t *testing.T) {
	c := console.New(console.Config{Token: token, Redact: []string{"password"}})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{c}, Setup: func(s *framework.Server) error {
		err := framework.AddPromptFunc(s, &mcp.Prompt{Name: "login", Arguments: []*mcp.PromptArgument{{Name: "user"}, {Name: "password"}}},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
			})
		if err != nil {
			return err
		}
		return framework.AddResourceFunc(s, nil, &mcp.ResourceTemplate{Name: "doc", URITemplate: "doc://{id}"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
			})
	}})
	cs := h.Session().Client()
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "login", Arguments: map[string]string{"user": "ann", "password": secret}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "doc://42"}); err != nil {
		t.Fatal(err)
	}
	ts := plugintest.NewHTTPServer(t, c.Handler())
	for _, tc := range []struct{ flow, want string }{
		{"prompts:get-prompt", `<pre id="args">{&#34;password&#34;:&#34;[REDACTED]&#34;,&#34;user&#34;:&#34;ann&#34;}</pre>`},
		{"resources:read-resource", `<dt>URI</dt><dd>doc://42</dd>`},
	} {
		list := waitFor(t, ts, "/console/?flow="+tc.flow, `data-seq="`)
		i := strings.Index(list, `href="/console/runs/`)
		link := list[i+len(`href="`):]
		_, run := get(t, ts, link[:strings.IndexByte(link, '"')])
		if !strings.Contains(run, tc.want) || strings.Contains(run, secret) {
			t.Errorf("%s: want %s in:\n%s", tc.flow, tc.want, run)
		}
	}
}
