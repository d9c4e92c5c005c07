package console_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/console"
	"github.com/hookflow/hookflow/stages"
)

const (
	token  = "console-test-token-0123456789"
	secret = "hunter2-the-secret-value"
	why    = "moon weather is classified"
)

// guard blocks a call whose text is "block" in beforeExecute, with why.
func guard() framework.Plugin {
	return framework.NewPlugin("guard", func(pc *framework.PluginContext) error {
		return pc.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: "moon", Fn: func(c *flows.Context) error {
			in := flows.As[flows.ToolCall[plugintest.Text, plugintest.Text]](c).Input()
			if strings.HasPrefix(in.Text, "block") {
				return c.Abort(errors.New(why))
			}
			return nil
		}})
	})
}

// newConsole starts a harness with the console (redacting "text") and
// the guard, and serves the console's handler.
func newConsole(t *testing.T, cfg console.Config) (*plugintest.Harness, *console.Plugin, *httptest.Server) {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = token
	}
	cfg.Redact = append(cfg.Redact, "text")
	c := console.New(cfg)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{c, guard()}})
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	return h, c, plugintest.NewHTTPServer(t, c.Handler())
}

// get fetches path with the token, and returns the body.
func get(t *testing.T, ts *httptest.Server, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitFor polls the runs page until it holds want, for at most 10 s.
func waitFor(t *testing.T, ts *httptest.Server, path, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, body := get(t, ts, path)
		if strings.Contains(body, want) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never showed %q:\n%s", path, want, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A blocked call shows in the list as blocked, and its run page names the
// hook that blocked it and the reason the client read; the arguments are
// redacted everywhere.
func TestBlockedRun(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "ok " + secret}).WantText(plugintest.EchoText("ok " + secret))
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "block " + secret}).WantToolError(why)

	waitFor(t, ts, "/console/", `class="badge o-blocked"`)
	_, list := get(t, ts, "/console/?outcome=blocked")
	const hook = "plugintest/plugin:guard/tools:call-tool/beforeExecute/moon"
	if !strings.Contains(list, hook) {
		t.Errorf("the list does not name the deciding hook:\n%s", list)
	}
	if strings.Contains(list, `class="badge o-ok"`) {
		t.Errorf("the blocked filter shows an ok run:\n%s", list)
	}
	i := strings.Index(list, `href="/console/runs/`)
	if i < 0 {
		t.Fatalf("no run link:\n%s", list)
	}
	link := list[i+len(`href="`):]
	link = link[:strings.IndexByte(link, '"')]
	code, run := get(t, ts, link)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", link, code, run)
	}
	for _, want := range []string{
		`<dd class="hook" id="decided-by">` + hook + `</dd>`,
		`<dd id="reason">` + why + `</dd>`,
		`>blocked</span>`, // the hook's row in the waterfall
		`>step: validate`,
		flows.Redacted,
	} {
		if !strings.Contains(run, want) {
			t.Errorf("the run page lacks %q:\n%s", want, run)
		}
	}
	if strings.Contains(run, ">step: execute") {
		t.Errorf("a blocked run shows an execute step:\n%s", run)
	}
	for _, path := range []string{"/console/", link, "/console/rates", "/console/plan?flow=tools:call-tool&entity=echo"} {
		if _, body := get(t, ts, path); strings.Contains(body, secret) || strings.Contains(body, token) {
			t.Errorf("%s shows a secret:\n%s", path, body)
		}
	}
}

// A row of the list names its run's hookflow request ID, the one its
// run page shows (and the audit event's request_id).
func TestRowRequestID(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "ok"})
	list := waitFor(t, ts, "/console/?tool=echo", `data-request="`)
	attr := func(s, name string) string {
		i := strings.Index(s, name+`="`)
		if i < 0 {
			t.Fatalf("no %s in:\n%s", name, s)
		}
		v := s[i+len(name)+2:]
		return v[:strings.IndexByte(v, '"')]
	}
	req, id := attr(list, "data-request"), attr(list, "data-id")
	if req == "" {
		t.Fatalf("an empty request ID:\n%s", list)
	}
	_, run := get(t, ts, "/console/runs/"+id)
	if want := "<dt>Request</dt><dd>" + req + "</dd>"; !strings.Contains(run, want) {
		t.Errorf("the run page lacks %s:\n%s", want, run)
	}
}

// The plan page lists a tool's hooks stage by stage in the order a call
// runs them, with their owners.
func TestPlanPage(t *testing.T) {
	_, _, ts := newConsole(t, console.Config{})
	code, body := get(t, ts, "/console/plan?flow=tools:call-tool&entity=echo")
	if code != http.StatusOK {
		t.Fatalf("%d\n%s", code, body)
	}
	order := []string{
		`<h3 id="st-beforeValidation">`,
		`plugintest/plugin:console/tools:call-tool/beforeValidation/start`,
		`<h3 id="st-beforeExecute">`,
		`plugintest/plugin:guard/tools:call-tool/beforeExecute/moon`,
		`<h3 id="st-finally">`,
		`plugintest/plugin:console/tools:call-tool/finally/feed`,
	}
	at := 0
	for _, s := range order {
		i := strings.Index(body[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", s, body)
		}
		at += i + len(s)
	}
	if !strings.Contains(body, `<span class="owner">by plugintest/plugin:guard</span>`) {
		t.Errorf("no owner:\n%s", body)
	}
	if _, body := get(t, ts, "/console/plan?flow=tools:call-tool&entity=ecko"); !strings.Contains(body, `did you mean &#34;echo&#34;?`) {
		t.Errorf("an unknown tool gets no hint:\n%s", body)
	}
	if _, body := get(t, ts, "/console/plan?flow=tools:list-tools&entity=ignored"); !strings.Contains(body, `<h2>tools:list-tools (every request)</h2>`) ||
		!strings.Contains(body, `plugintest/plugin:console/tools:list-tools/beforeValidation/start`) {
		t.Errorf("the plan of a flow without an entity:\n%s", body)
	}
	if _, body := get(t, ts, "/console/plan?flow=tools:cal-tool"); !strings.Contains(body, `role="alert">unknown flow tools:cal-tool`) {
		t.Errorf("an unknown flow:\n%s", body)
	}
}

// Without the credential every page and the stream answer 401 (a
// browser is asked for basic authentication); the token works as a basic
// password too; the console is read-only.
func TestCredential(t *testing.T) {
	_, _, ts := newConsole(t, console.Config{})
	for _, tc := range []struct {
		name   string
		method string
		path   string
		set    func(*http.Request)
		want   int
	}{
		{"no credential", "GET", "/console/", nil, http.StatusUnauthorized},
		{"no credential, stream", "GET", "/console/events", nil, http.StatusUnauthorized},
		{"no credential, script", "GET", "/console/static/" + console.Version + "/console.js", nil, http.StatusUnauthorized},
		{"wrong token", "GET", "/console/runs/1", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token+"x") }, http.StatusUnauthorized},
		{"wrong password", "GET", "/console/", func(r *http.Request) { r.SetBasicAuth("ops", "nope") }, http.StatusUnauthorized},
		{"basic password", "GET", "/console/", func(r *http.Request) { r.SetBasicAuth("ops", token) }, http.StatusOK},
		{"bearer", "GET", "/console/rates", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }, http.StatusOK},
		{"post", "POST", "/console/", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }, http.StatusMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, nil)
			if tc.set != nil {
				tc.set(req)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, b)
			}
			if tc.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
				t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
			if strings.Contains(string(b), token) {
				t.Errorf("the answer shows the token: %s", b)
			}
		})
	}
}

// The live stream sends a row for each new run that matches its
// filters, redacted.
func TestLiveStream(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{})
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/console/events?outcome=blocked", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := ts.Client().Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	rd := bufio.NewReader(resp.Body)
	if _, err := rd.ReadString('\n'); err != nil { // the stream is open
		t.Fatal(err)
	}
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "ok " + secret})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "block " + secret})
	var got strings.Builder
	for inRun := false; ; {
		ln, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("%v after:\n%s", err, got.String())
		}
		got.WriteString(ln)
		if ln == "event: run\n" {
			inRun = true
		}
		if inRun && ln == "\n" {
			break
		}
	}
	s := got.String()
	if !strings.Contains(s, "o-blocked") || strings.Contains(s, "o-ok") {
		t.Errorf("the stream does not filter:\n%s", s)
	}
	if strings.Contains(s, secret) {
		t.Errorf("the stream shows a secret:\n%s", s)
	}
}

// Past Config.Viewers, a live stream is refused with 503: a peer cannot
// make the console hold any number of streams.
func TestViewersBounded(t *testing.T) {
	_, _, ts := newConsole(t, console.Config{Viewers: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func() *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/console/events", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for i := range 2 {
		if r := open(); r.StatusCode != http.StatusOK {
			t.Fatalf("viewer %d: %d", i, r.StatusCode)
		}
	}
	if r := open(); r.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third viewer: %d, want 503", r.StatusCode)
	}
}

// The ring keeps Config.Runs runs: older ones are gone, their pages 404.
func TestRingBounded(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{Runs: 3})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "first"})
	first := runLinks(waitFor(t, ts, "/console/?flow=tools:call-tool", `<tr class="run o-ok" data-seq="`))[0]
	var last *plugintest.Result
	for i := range 4 {
		last = h.Call(plugintest.ToolEcho, plugintest.Text{Text: strings.Repeat("x", i)})
	}
	// The feed records a run after its call returned: wait for the last
	// call's run too, so that no run pushes out the oldest kept later.
	list := waitFor(t, ts, "/console/", `<tr class="run `)
	for deadline := time.Now().Add(10 * time.Second); strings.Count(list, `<tr class="run `) < 3 || strings.Contains(list, first) ||
		!strings.Contains(list, `data-request="`+last.RequestID+`"`); {
		if time.Now().After(deadline) {
			t.Fatalf("the list never dropped the first run:\n%s", list)
		}
		time.Sleep(10 * time.Millisecond)
		list = waitFor(t, ts, "/console/", `<tr class="run `)
	}
	links := runLinks(list)
	if len(links) != 3 {
		t.Errorf("%d runs listed, want 3:\n%s", len(links), list)
	}
	if code, _ := get(t, ts, first); code != http.StatusNotFound {
		t.Errorf("the first run with a ring of 3 after 5: %d, want 404", code)
	}
	if code, _ := get(t, ts, links[len(links)-1]); code != http.StatusOK {
		t.Errorf("the oldest run kept: %d, want 200", code)
	}
}

// The rates page counts each hook's calls and blocks over the window.
func TestRatesPage(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "ok"})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "block"})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "block again"})
	body := waitFor(t, ts, "/console/rates", `<td class="hook">plugintest/plugin:guard/tools:call-tool/beforeExecute/moon</td><td class="num">3</td><td class="num">2</td>`)
	if !strings.Contains(body, `<svg class="spark"`) || !strings.Contains(body, `aria-label="3 calls and 2 blocked in the window`) {
		t.Errorf("no chart:\n%s", body)
	}
}

// Arguments past Config.MaxBytes are cut, with their length, after
// redaction; a filter value is capped.
func TestArgsCapped(t *testing.T) {
	h, _, ts := newConsole(t, console.Config{MaxBytes: 64})
	long := strings.Repeat("x", 200)
	h.Call(plugintest.ToolEcho, map[string]any{"text": "t", "note": long})
	list := waitFor(t, ts, "/console/?tool=echo", `data-seq="`)
	i := strings.Index(list, `href="/console/runs/`)
	link := list[i+len(`href="`):]
	_, run := get(t, ts, link[:strings.IndexByte(link, '"')])
	args := run[strings.Index(run, `<pre id="args">`):]
	args = args[:strings.Index(args, "</pre>")]
	if strings.Contains(args, long) || !strings.Contains(args, "… [cut: ") || len(args) > 200 {
		t.Errorf("arguments not capped: %s", args)
	}
	if _, body := get(t, ts, "/console/?principal="+strings.Repeat("p", 5000)); strings.Count(body, "p") > 5000 {
		t.Errorf("the filter value is not capped")
	}
}

// One console attached to two apps records each run of their tools once,
// each hook call once, and no run of the server's own tools.
func TestTwoApps(t *testing.T) {
	c := console.New(console.Config{Token: token})
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	h := plugintest.New(t, &plugintest.Options{Apps: []plugintest.AppOptions{
		{Name: "a", Plugins: []framework.Plugin{c}}, {Name: "b", Plugins: []framework.Plugin{c}},
	}})
	h.Call(plugintest.ToolEcho, plugintest.Text{Text: "server"})
	h.Call("a_"+plugintest.ToolEcho, plugintest.Text{Text: "a"})
	ts := plugintest.NewHTTPServer(t, c.Handler())
	list := waitFor(t, ts, "/console/?flow=tools:call-tool", `<td>a_echo</td>`)
	if strings.Contains(list, "<td>echo</td>") {
		t.Errorf("a run of the server's own tool:\n%s", list)
	}
	i := strings.Index(list, `href="/console/runs/`)
	link := list[i+len(`href="`):]
	_, run := get(t, ts, link[:strings.IndexByte(link, '"')])
	if n := strings.Count(run, "/tools:call-tool/beforeValidation/start</td>"); n != 1 {
		t.Errorf("the start hook shows %d times:\n%s", n, run)
	}
}

// The console passes the plugin checks every plugin passes: its hooks
// run where it is attached, calls succeed and fail as without it, finally
// runs once, concurrently and race-free.
func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(t testing.TB) framework.Plugin {
		c := console.New(console.Config{Token: token})
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		return c
	}, nil)
}

// A request refused before any flow ran (the auth plugin's HTTP scope
// challenge hands it to its Auditor) shows as a blocked run decided by
// the refuser, its arguments redacted.
func TestRefusal(t *testing.T) {
	_, c, ts := newConsole(t, console.Config{})
	c.RecordRefusal(context.Background(), flows.Refusal{
		Flow: flows.ToolsCallTool, Entity: "echo", By: "server/plugin:auth/http:scope-challenge",
		Err:  &flows.Error{Code: flows.CodeAborted, Msg: "insufficient scope: needs admin"},
		Args: []byte(`{"text":"` + secret + `"}`),
	})
	list := waitFor(t, ts, "/console/?outcome=blocked", "server/plugin:auth/http:scope-challenge")
	i := strings.Index(list, `href="/console/runs/`)
	link := list[i+len(`href="`):]
	_, run := get(t, ts, link[:strings.IndexByte(link, '"')])
	for _, want := range []string{`id="decided-by">server/plugin:auth/http:scope-challenge<`, `id="reason">insufficient scope: needs admin<`, `>blocked</span>`, flows.Redacted} {
		if !strings.Contains(run, want) {
			t.Errorf("no %q:\n%s", want, run)
		}
	}
	if strings.Contains(run, secret) {
		t.Errorf("the refusal's arguments are not redacted:\n%s", run)
	}
}
