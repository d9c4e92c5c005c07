package plugintest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// recorded runs f with a recT and returns its failures.
func recorded(t *testing.T, f func(testing.TB)) []string {
	r := &recT{T: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.msgs
}

func TestFieldErrs(t *testing.T) {
	invalid := func(field, msg string) error {
		return &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: msg}
	}
	tests := []struct {
		name  string
		err   error
		want  []FieldErr
		fails string // substring of the failure, "" for none
	}{
		{name: "nil"},
		{name: "one", err: invalid("ttl", "must not be negative"), want: []FieldErr{{"ttl", "must not be negative"}}},
		{name: "joined, in order", err: errors.Join(invalid("a", "x"), invalid("b[1]", "y")),
			want: []FieldErr{{"a", "x"}, {"b[1]", "y"}}},
		{name: "wrapped cause", err: &flows.Error{Code: flows.CodeInvalid, Field: "f", Err: errors.New("the cause")},
			want: []FieldErr{{"f", "the cause"}}},
		{name: "a plain error", err: errors.Join(invalid("a", "x"), errors.New("plain")), fails: "plain: want a *flows.Error of code invalid"},
		{name: "another code", err: &flows.Error{Code: flows.CodeDuplicate, Field: "f", Msg: "m"}, fails: "want a *flows.Error of code invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []FieldErr
			msgs := recorded(t, func(tb testing.TB) { got = FieldErrs(tb, tt.err) })
			switch {
			case tt.fails == "" && len(msgs) > 0:
				t.Fatalf("failures %q, want none", msgs)
			case tt.fails != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], tt.fails)):
				t.Fatalf("failures %q, want one holding %q", msgs, tt.fails)
			case tt.fails == "" && !slices.Equal(got, tt.want):
				t.Errorf("FieldErrs = %q, want %q", got, tt.want)
			}
		})
	}
	if got, want := FieldLines(t, errors.Join(invalid("a", "x"), invalid("b", "y"))), []string{"a: x", "b: y"}; !slices.Equal(got, want) {
		t.Errorf("FieldLines = %q, want %q", got, want)
	}
}

// headerEcho answers 200 with the request's method and the headers a POST
// helper sets, one "Name: value" line each.
var headerEcho = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Method", r.Method)
	for _, k := range []string{"Content-Type", "Accept", "Mcp-Protocol-Version", "Mcp-Session-Id", "Authorization"} {
		if v := r.Header.Get(k); v != "" {
			fmt.Fprintf(w, "%s: %s\n", k, v)
		}
	}
	b := make([]byte, 64)
	n, _ := r.Body.Read(b)
	fmt.Fprintf(w, "body: %s\n", b[:n])
})

func TestPost(t *testing.T) {
	const plain = "Content-Type: application/json\nAccept: application/json, text/event-stream\n"
	all := &HTTPOptions{ProtocolVersion: "2025-11-25", Session: "s1", Authorization: "Bearer tok"}
	const allHeaders = plain + "Mcp-Protocol-Version: 2025-11-25\nMcp-Session-Id: s1\nAuthorization: Bearer tok\n"
	get := &HTTPOptions{Edit: func(r *http.Request) { r.Method = http.MethodGet; r.Header.Del("Accept") }}
	ts := NewHTTPServer(t, headerEcho)
	tests := []struct {
		name   string
		do     func() (status int, method, body string)
		method string
		want   string
	}{
		{"Post, zero options", func() (int, string, string) {
			r := Post(t, ts.URL, `{"a":1}`, nil)
			return r.Status, r.Header.Get("X-Method"), string(r.Body)
		}, http.MethodPost, plain + `body: {"a":1}` + "\n"},
		{"Post, every header", func() (int, string, string) {
			r := Post(t, ts.URL, "x", all)
			return r.Status, r.Header.Get("X-Method"), string(r.Body)
		}, http.MethodPost, allHeaders + "body: x\n"},
		{"Post, edited", func() (int, string, string) {
			r := Post(t, ts.URL, "", get)
			return r.Status, r.Header.Get("X-Method"), string(r.Body)
		}, http.MethodGet, "Content-Type: application/json\nbody: \n"},
		{"PostJSON", func() (int, string, string) {
			r := PostJSON(t, ts.URL, map[string]any{"jsonrpc": "2.0", "id": 1}, nil)
			return r.Status, r.Header.Get("X-Method"), string(r.Body)
		}, http.MethodPost, plain + `body: {"id":1,"jsonrpc":"2.0"}` + "\n"},
		{"Record", func() (int, string, string) {
			rec := Record(headerEcho, "x", all)
			return rec.Code, rec.Header().Get("X-Method"), rec.Body.String()
		}, http.MethodPost, allHeaders + "body: x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, method, body := tt.do()
			if status != http.StatusOK || method != tt.method || body != tt.want {
				t.Errorf("got %d %s\n%s\nwant 200 %s\n%s", status, method, body, tt.method, tt.want)
			}
		})
	}
}

// countingTransport counts the requests it sends over http.DefaultTransport.
type countingTransport struct{ n *int }

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	*c.n++
	return http.DefaultTransport.RoundTrip(r)
}

func TestBearerClient(t *testing.T) {
	ts := NewHTTPServer(t, headerEcho)
	var sent int
	tests := []struct {
		name  string
		token string
		base  http.RoundTripper
		want  string
		sent  int
	}{
		{"token", "tok", nil, "Authorization: Bearer tok\nbody: \n", 0},
		{"no token", "", nil, "body: \n", 0},
		{"over a base", "tok", countingTransport{&sent}, "Authorization: Bearer tok\nbody: \n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent = 0
			req, err := http.NewRequest(http.MethodGet, ts.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := BearerClient(tt.token, tt.base).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want || sent != tt.sent {
				t.Errorf("got %q over a base %d times, want %q %d times", b, sent, tt.want, tt.sent)
			}
			if got := req.Header.Get("Authorization"); got != "" {
				t.Errorf("the caller's request has Authorization %q, want none", got)
			}
		})
	}
}

// hookPlugin is a plugin that registers one hook.
type hookPlugin struct{ h flows.Hook }

func (hookPlugin) Name() string                               { return "hook" }
func (p hookPlugin) Attach(pc *framework.PluginContext) error { return pc.Hook(p.h) }

func TestNewServer(t *testing.T) {
	var order []string
	hook := func(name string) flows.Hook {
		return flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Name: name,
			Fn: func(*flows.Context) error { order = append(order, name); return nil }}
	}
	plugin := hookPlugin{hook("plugin")}
	srv := NewServer(t, &ServerOptions{
		Name:    "kit",
		Setup:   func(s *framework.Server) error { return AddTools(s, "") },
		Plugins: []framework.Plugin{plugin},
		Hooks:   []flows.Hook{hook("server")},
		Start:   true,
	})
	res, err := ConnectServer(t, srv).CallTool(context.Background(), &mcp.CallToolParams{Name: ToolEcho, Arguments: Text{Text: "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("echo: %v %v", res, err)
	}
	if slices.Sort(order); !slices.Equal(order, []string{"plugin", "server"}) {
		t.Errorf("hooks ran %q, want the plugin's and the server's", order)
	}

	msgs := recorded(t, func(tb testing.TB) {
		NewServer(tb, &ServerOptions{Setup: func(*framework.Server) error { return errors.New("no entities") }})
	})
	if len(msgs) != 1 || !strings.Contains(msgs[0], "setting up the server: no entities") {
		t.Errorf("a failing Setup: failures %q", msgs)
	}
	msgs = recorded(t, func(tb testing.TB) {
		NewServer(tb, &ServerOptions{Hooks: []flows.Hook{{Flow: "nope", Stage: stages.BeforeExecute, Name: "h"}}, Start: true})
	})
	if len(msgs) != 1 || !strings.Contains(msgs[0], "registering the hooks") {
		t.Errorf("a bad hook: failures %q", msgs)
	}
}

func TestChildEnv(t *testing.T) {
	SetChildEnv(t, "s3cret", "tok")
	for k, want := range map[string]string{EnvSecret: "s3cret", EnvToken: "tok", EnvInherited: "inherited", "HOME": ChildHome} {
		if got := os.Getenv(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if _, ok := os.LookupEnv(EnvUnset); ok {
		t.Errorf("%s is set", EnvUnset)
	}
	env := []string{"HOME=" + ChildHome, "A=1", EnvSecret + "=s3cret"}
	tests := []struct {
		name       string
		want, lack []string
		fails      []string // substrings of the failures, in order
	}{
		{"all there, nothing leaked", []string{"A=1"}, []string{EnvToken}, nil},
		{"a value differs", []string{"A=2"}, nil, []string{"the child's environment lacks A=2"}},
		{"a leak, whatever its value", nil, []string{EnvSecret, "HOM"}, []string{"the child's environment has " + EnvSecret}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := recorded(t, func(tb testing.TB) { WantEnv(tb, "the child", env, tt.want, tt.lack) })
			if len(msgs) != len(tt.fails) {
				t.Fatalf("failures %q, want %d", msgs, len(tt.fails))
			}
			for i, f := range tt.fails {
				if !strings.Contains(msgs[i], f) {
					t.Errorf("failure %q, want it to hold %q", msgs[i], f)
				}
			}
		})
	}
}

func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { fmt.Fprintf(&b, "line %d\n", i) })
	}
	wg.Wait()
	b.Write([]byte("partial"))
	lines := b.Lines()
	slices.Sort(lines)
	if want := []string{"line 0", "line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7"}; !slices.Equal(lines, want) {
		t.Errorf("Lines = %q, want %q (the partial line left out)", lines, want)
	}
	if s := b.String(); !strings.HasSuffix(s, "partial") || len(s) != 8*len("line 0\n")+len("partial") {
		t.Errorf("String = %q", s)
	}
	if got := new(Buffer).Lines(); got != nil {
		t.Errorf("an empty Buffer's Lines = %q, want none", got)
	}
}
