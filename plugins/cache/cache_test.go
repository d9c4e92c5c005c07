package cache_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/stages"
)

func TestPluginChecks(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin { return cache.New(cache.Config{}) }, nil)
}

func TestPluginChecksSmallCache(t *testing.T) {
	plugintest.Run(t, func(testing.TB) framework.Plugin {
		return cache.New(cache.Config{MaxEntries: 2, TTL: time.Millisecond})
	}, nil)
}

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type query struct {
	City  string   `json:"city"`
	Days  int      `json:"days,omitempty"`
	Units []string `json:"units,omitempty"`
}

type report struct {
	City  string   `json:"city"`
	Temps []int    `json:"temps"`
	Notes []string `json:"notes"`
}

// tools counts the executions of each test tool.
type tools struct {
	mu  sync.Mutex
	ran map[string]int
}

func (ts *tools) count(name string) {
	ts.mu.Lock()
	ts.ran[name]++
	ts.mu.Unlock()
}

// runs returns the executions of name so far.
func (ts *tools) runs(name string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.ran[name]
}

// tagged marshals with a prefix that unmarshaling keeps: it changes in
// every JSON round trip, so a cached copy would not answer like the tool.
type tagged string

func (t tagged) MarshalJSON() ([]byte, error) { return json.Marshal("v1:" + string(t)) }

type lossyOut struct {
	V tagged `json:"v"`
}

var (
	readOnly   = &mcp.ToolAnnotations{ReadOnlyHint: true}
	idempotent = &mcp.ToolAnnotations{IdempotentHint: true}
)

// add adds the cache tests' tools:
//   - weather (read-only): a *report; "fail" fails, "flaky" fails on its first call
//   - whole (idempotent): a whole *mcp.CallToolResult; "iserr" gives isError
//   - plain (no annotations)
//   - lossy (read-only): an output that changes in a JSON round trip
func (ts *tools) add(s *framework.Server) error {
	var flaky atomic.Bool
	return errors.Join(
		framework.AddToolFunc(s, &mcp.Tool{Name: "weather", Annotations: readOnly}, func(ctx context.Context, req *mcp.CallToolRequest, in query) (*report, error) {
			ts.count("weather")
			switch in.City {
			case "fail":
				return nil, errors.New("no weather today")
			case "flaky":
				if !flaky.Swap(true) {
					return nil, errors.New("flaky failure")
				}
			}
			return &report{City: in.City, Temps: []int{20, 21}, Notes: []string{}}, nil
		}),
		framework.AddToolFunc(s, &mcp.Tool{Name: "whole", Annotations: idempotent}, func(ctx context.Context, req *mcp.CallToolRequest, in query) (*mcp.CallToolResult, error) {
			ts.count("whole")
			return &mcp.CallToolResult{IsError: in.City == "iserr", Content: []mcp.Content{&mcp.TextContent{Text: "whole " + in.City}}}, nil
		}),
		framework.AddToolFunc(s, &mcp.Tool{Name: "plain"}, func(ctx context.Context, req *mcp.CallToolRequest, in query) (report, error) {
			ts.count("plain")
			return report{City: in.City}, nil
		}),
		framework.AddToolFunc(s, &mcp.Tool{Name: "lossy", Annotations: readOnly}, func(ctx context.Context, req *mcp.CallToolRequest, in query) (lossyOut, error) {
			ts.count("lossy")
			return lossyOut{V: "x"}, nil
		}),
	)
}

func newHarness(t *testing.T, cfg cache.Config, more ...framework.Plugin) (*plugintest.Harness, *cache.Plugin, *tools) {
	c := cache.New(cfg)
	ts := &tools{ran: map[string]int{}}
	h := plugintest.New(t, &plugintest.Options{
		Plugins: append([]framework.Plugin{c}, more...),
		Setup:   ts.add,
	})
	return h, c, ts
}

func TestCache(t *testing.T) {
	type call struct {
		tool     string
		args     any
		wantText string // "" skips the check
		wantErr  bool   // isError
		executes bool   // the tool runs (a miss or not cacheable)
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	paris := `{"city":"Paris","notes":[],"temps":[20,21]}`
	tests := []struct {
		name  string
		calls []call
	}{
		{"hit on identical arguments", []call{
			{"weather", query{City: "Paris"}, paris, false, true},
			{"weather", query{City: "Paris"}, paris, false, false},
			{"weather", query{City: "Paris"}, paris, false, false},
		}},
		{"canonical arguments: key order and whitespace", []call{
			{"weather", raw(`{"city":"Rome","days":2}`), "", false, true},
			{"weather", raw(`{ "days" : 2,
				"city" : "Rome" }`), "", false, false},
		}},
		{"different arguments miss", []call{
			{"weather", query{City: "Oslo", Units: []string{"c"}}, "", false, true},
			{"weather", query{City: "Oslo", Units: []string{"f"}}, "", false, true},
			{"weather", query{City: "Oslo"}, "", false, true},
		}},
		{"errors are not cached", []call{
			{"weather", query{City: "fail"}, "no weather today", true, true},
			{"weather", query{City: "fail"}, "no weather today", true, true},
		}},
		{"a failure then a success", []call{
			{"weather", query{City: "flaky"}, "flaky failure", true, true},
			{"weather", query{City: "flaky"}, "", false, true},
			{"weather", query{City: "flaky"}, "", false, false},
		}},
		{"whole results", []call{
			{"whole", query{City: "Lima"}, "whole Lima", false, true},
			{"whole", query{City: "Lima"}, "whole Lima", false, false},
		}},
		{"isError results are not cached", []call{
			{"whole", query{City: "iserr"}, "whole iserr", true, true},
			{"whole", query{City: "iserr"}, "whole iserr", true, true},
		}},
		{"tools without annotations are not cached", []call{
			{"plain", query{City: "Nice"}, "", false, true},
			{"plain", query{City: "Nice"}, "", false, true},
		}},
		{"outputs that change in a round trip are not cached", []call{
			{"lossy", query{}, `{"v":"v1:x"}`, false, true},
			{"lossy", query{}, `{"v":"v1:x"}`, false, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _, ts := newHarness(t, cache.Config{})
			for i, c := range tt.calls {
				before := ts.runs(c.tool)
				res := h.Call(c.tool, c.args)
				switch {
				case res.Err != nil:
					t.Fatalf("call %d: %v", i, res.Err)
				case res.IsError() != c.wantErr:
					t.Errorf("call %d: %v, want isError %v", i, res, c.wantErr)
				case c.wantText != "" && !strings.Contains(res.Text(), c.wantText):
					t.Errorf("call %d: %v, want %q", i, res, c.wantText)
				}
				if ran := ts.runs(c.tool) > before; ran != c.executes {
					t.Errorf("call %d: executed %v, want %v", i, ran, c.executes)
				}
			}
		})
	}
}

func TestCachedResultIsIdenticalToExecuted(t *testing.T) {
	h, _, _ := newHarness(t, cache.Config{})
	for _, tool := range []string{"weather", "whole"} {
		a := h.Call(tool, query{City: "Kyiv"})
		b := h.Call(tool, query{City: "Kyiv"})
		ja, _ := json.Marshal(a.Res)
		jb, _ := json.Marshal(b.Res)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: executed %s, cached %s", tool, ja, jb)
		}
	}
}

func TestTTL(t *testing.T) {
	clk := &clock{now: time.Unix(1_000_000, 0)}
	h, c, ts := newHarness(t, cache.Config{TTL: time.Minute, Now: clk.Now})
	h.Call("weather", query{City: "Paris"})
	clk.Add(59 * time.Second)
	h.Call("weather", query{City: "Paris"})
	if n := ts.runs("weather"); n != 1 {
		t.Fatalf("executed %d times within the TTL, want 1", n)
	}
	clk.Add(time.Second)
	h.Call("weather", query{City: "Paris"})
	if n := ts.runs("weather"); n != 2 {
		t.Fatalf("executed %d times after the TTL, want 2", n)
	}
	if s := c.Stats(); s != (cache.Stats{Hits: 1, Misses: 2, Stores: 2}) {
		t.Errorf("Stats() = %+v", s)
	}
}

func TestLRUBound(t *testing.T) {
	h, _, ts := newHarness(t, cache.Config{MaxEntries: 2})
	for _, city := range []string{"a", "b", "c"} { // a is evicted by c
		h.Call("weather", query{City: city})
	}
	h.Call("weather", query{City: "b"}) // hit; b is now the most recent
	h.Call("weather", query{City: "c"}) // hit
	if n := ts.runs("weather"); n != 3 {
		t.Fatalf("executed %d times, want 3", n)
	}
	h.Call("weather", query{City: "a"}) // miss: evicted, evicts b
	h.Call("weather", query{City: "c"}) // hit
	if n := ts.runs("weather"); n != 4 {
		t.Fatalf("executed %d times, want 4", n)
	}
}

// TestNoCrossTalk has a hook append to every call's output in place: a
// cached value shared between calls would show the appends of other calls.
func TestNoCrossTalk(t *testing.T) {
	stamp := framework.NewPlugin("stamp", func(p *framework.PluginContext) error {
		return p.Hook(
			flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Name: "stamp", Fn: func(c *flows.Context) error {
				switch out := c.Output().(type) {
				case *report:
					out.Notes = append(out.Notes, "stamped")
					out.Temps[0]++
				case *mcp.CallToolResult:
					out.Content = append(out.Content, &mcp.TextContent{Text: "+stamped"})
				}
				return nil
			}},
		)
	})
	h, c, _ := newHarness(t, cache.Config{}, stamp)
	const calls, sessions = 200, 8
	ss := make([]*plugintest.Session, sessions)
	for i := range ss {
		ss[i] = h.Connect(nil)
	}
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			city := fmt.Sprint("city", i%5)
			if i%2 == 0 {
				ss[i%sessions].Call("weather", query{City: city}).WantText(fmt.Sprintf(`{"city":%q,"notes":["stamped"],"temps":[21,21]}`, city))
			} else {
				ss[i%sessions].Call("whole", query{City: city}).WantText("whole " + city + "+stamped")
			}
		})
	}
	wg.Wait()
	if s := c.Stats(); s.Hits == 0 || s.Hits+s.Misses != calls {
		t.Errorf("Stats() = %+v, want hits and %d lookups", s, calls)
	}
}

func TestPrincipals(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			h, _, ts := newHarness(t, cache.Config{SharedAcrossPrincipals: shared})
			alice := h.Connect(&plugintest.SessionOptions{Token: &auth.TokenInfo{UserID: "alice"}})
			alice2 := h.Connect(&plugintest.SessionOptions{Token: &auth.TokenInfo{UserID: "alice"}})
			bob := h.Connect(&plugintest.SessionOptions{Token: &auth.TokenInfo{UserID: "bob"}})
			alice.Call("weather", query{City: "Paris"})
			alice2.Call("weather", query{City: "Paris"}) // same principal, another session: a hit
			bob.Call("weather", query{City: "Paris"})
			want := 2
			if shared {
				want = 1
			}
			if n := ts.runs("weather"); n != want {
				t.Errorf("executed %d times, want %d", n, want)
			}
		})
	}
}

// TestAuditSaysAnsweredEarly runs the cache with the audit plugin: a hit is
// audited as answered early, decided by the cache's lookup hook.
func TestAuditSaysAnsweredEarly(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	aud := audit.New(audit.Config{Handler: slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil), Flows: []flows.ID{flows.ToolsCallTool}})
	t.Cleanup(func() { _ = aud.Close(context.Background()) })
	h, _, _ := newHarness(t, cache.Config{}, aud)
	h.Call("weather", query{City: "Paris"})
	h.Call("weather", query{City: "Paris"})
	h.Call("weather", query{City: "fail"})
	if err := aud.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for line := range strings.Lines(buf.String()) {
		var ev audit.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s", ev.Outcome, ev.DecidedBy))
	}
	want := []string{
		"ok ",
		"answered_early plugintest/plugin:cache/tools:call-tool/beforeExecute/lookup",
		"error ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit outcomes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// brokenBackend fails every operation.
type brokenBackend struct{}

func (brokenBackend) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, errors.New("backend down")
}

func (brokenBackend) Set(context.Context, string, []byte, time.Duration) error {
	return errors.New("backend down")
}

func TestBrokenBackendNeverFailsCalls(t *testing.T) {
	h, c, ts := newHarness(t, cache.Config{Backend: brokenBackend{}})
	for range 3 {
		h.Call("weather", query{City: "Paris"}).WantText(`{"city":"Paris","notes":[],"temps":[20,21]}`)
	}
	if n := ts.runs("weather"); n != 3 {
		t.Errorf("executed %d times, want 3", n)
	}
	if s := c.Stats(); s.Errors != 6 || s.Hits != 0 {
		t.Errorf("Stats() = %+v, want 6 errors (3 gets, 3 sets) and no hits", s)
	}
}

func TestBadConfig(t *testing.T) {
	tests := []struct {
		cfg  cache.Config
		want string
	}{
		{cache.Config{TTL: -time.Second}, "ttl: must not be negative"},
		{cache.Config{MaxEntries: -1}, "max_entries: must not be negative"},
		{cache.Config{MaxEntries: 10, Backend: cache.NewMemory(nil)}, "max_entries: bounds the default backend only"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			err := plugintest.New(t, &plugintest.Options{Plugins: []framework.Plugin{cache.New(tt.cfg)}}).Start()
			if err == nil || !strings.Contains(err.Error(), `plugin "cache"`) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start() = %v, want an error naming the plugin and %q", err, tt.want)
			}
		})
	}
}

func TestMemory(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Unix(0, 0)}
	m := cache.NewMemory(&cache.MemoryOptions{MaxEntries: 2, Now: clk.Now})
	get := func(k string) string {
		v, ok, err := m.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "-"
		}
		return string(v)
	}
	_ = m.Set(ctx, "a", []byte("1"), time.Second)
	_ = m.Set(ctx, "b", []byte("2"), time.Minute)
	if got := get("a") + get("b"); got != "12" {
		t.Fatalf("got %s", got)
	}
	_ = m.Set(ctx, "c", []byte("3"), time.Minute) // evicts a, the least recently used
	if got := get("a") + get("b") + get("c"); got != "-23" {
		t.Fatalf("after eviction got %s, want -23", got)
	}
	_ = m.Set(ctx, "b", []byte("4"), time.Second) // replaces
	clk.Add(time.Second)
	if got := get("b") + get("c"); got != "-3" {
		t.Fatalf("after expiry got %s, want -3", got)
	}
	if m.Len() != 1 {
		t.Errorf("Len() = %d, want 1", m.Len())
	}
}
